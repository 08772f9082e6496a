#ifndef BF_TEST_COMPARE_FIXTURE_H
#define BF_TEST_COMPARE_FIXTURE_H

/*
 * What test_compare and test_compare_judge share: a comparison with a
 * config from bf_cfg_load_string() (cmocka setup and teardown), runs
 * added to it, and lookups of its series and of its results JSON.
 * Header only (static inline), so each test binary needs no extra
 * object and uses what it needs of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* after the headers it needs but does not include itself */
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "benchfarm/err.h"
#include "benchfarm/sample.h"
#include "config/cfg.h"
#include "job/compare.h"
#include "job/plan.h"

/* Benchmark 0 keeps every metric; benchmark 1 lists its own. */
#define CFG_TEXT(min_effect)                 \
	"version: 1\n"                       \
	"project: {repo: .}\n"               \
	"benchmarks:\n"                      \
	"  - name: micro\n"                  \
	"    command: [./micro]\n"           \
	"    gate: all\n"                    \
	"  - name: picky\n"                  \
	"    command: [./picky]\n"           \
	"    gate: all\n"                    \
	"    metrics:\n"                     \
	"      real_time: {better: lower}\n" \
	"      score: {better: higher}\n"    \
	"      rate: {better: lower}\n"      \
	"presubmit: {alpha: 0.05, min_effect: " min_effect "}\n"

struct fixture {
	struct bf_cfg cfg;
	struct bf_comparison c;
};

static inline int setup_with(void **state, const char *text)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bf_err err = BF_ERR_INIT;

	if (!f)
		return -1;
	if (bf_cfg_load_string(&f->cfg, "t.yaml", text, strlen(text), &err)) {
		print_error("config: %s\n", err.msg);
		free(f);
		return -1;
	}
	bf_comparison_init(&f->c, (int)f->cfg.nbenchmarks);
	*state = f;
	return 0;
}

static inline int setup(void **state)
{
	return setup_with(state, CFG_TEXT("0.02"));
}

static inline int setup_wide(void **state)
{
	return setup_with(state, CFG_TEXT("0.5"));
}

static inline int teardown(void **state)
{
	struct fixture *f = *state;

	bf_comparison_release(&f->c);
	bf_cfg_release(&f->cfg);
	free(f);
	return 0;
}

/* One metric of an output row: its name, unit and value. */
struct metric {
	const char *metric, *unit;
	double value;
};

/* One measured run whose output is one row, name, with n metrics. */
static inline void add_row(struct fixture *f, int bench, int side, int repeat,
                           const char *name, const struct metric *m, size_t n)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	for (size_t i = 0; i < n; i++)
		bf_samples_add(&s, name, m[i].metric, m[i].unit, m[i].value, 0);
	bf_comparison_add_run(&f->c, &f->cfg, bench, side, repeat, &s);
	bf_samples_release(&s);
}

/* One measured run whose output is a single row of one metric. */
static inline void add1(struct fixture *f, int bench, int side, int repeat,
                        const char *name, const char *metric, const char *unit,
                        double value)
{
	const struct metric m = { metric, unit, value };

	add_row(f, bench, side, repeat, name, &m, 1);
}

/* runs runs per side of one series, base + step*r and patch + step*r. */
static inline void add_series(struct fixture *f, int bench, const char *name,
                              const char *metric, const char *unit, double base,
                              double patch, double step, int runs)
{
	for (int r = 0; r < runs; r++) {
		add1(f, bench, BF_SIDE_BASE, r, name, metric, unit,
		     base + step * r);
		add1(f, bench, BF_SIDE_PATCH, r, name, metric, unit,
		     patch + step * r);
	}
}

static inline struct bf_series *find(struct fixture *f, int bench,
                                     const char *name, const char *metric)
{
	for (size_t i = 0; i < f->c.n; i++) {
		struct bf_series *s = &f->c.series[i];

		if (s->bench == bench && !strcmp(s->name, name) &&
		    !strcmp(s->metric, metric))
			return s;
	}
	print_error("no series %d/%s/%s\n", bench, name, metric);
	fail();
	return NULL;
}

/* The results JSON entry for name/metric (borrowed from arr). */
static inline json_t *result_of(json_t *arr, const char *name,
                                const char *metric)
{
	size_t i;
	json_t *o;

	json_array_foreach(arr, i, o)
	{
		if (!strcmp(json_string_value(json_object_get(o, "name")),
		            name) &&
		    !strcmp(json_string_value(json_object_get(o, "metric")),
		            metric))
			return o;
	}
	print_error("no result for %s/%s\n", name, metric);
	fail();
	return NULL;
}

static inline double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v)) {
		print_error("\"%s\" is not a number\n", key);
		fail();
	}
	return json_number_value(v);
}

static inline const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v)) {
		print_error("\"%s\" is not a string\n", key);
		fail();
	}
	return json_string_value(v);
}

#endif /* BF_TEST_COMPARE_FIXTURE_H */
