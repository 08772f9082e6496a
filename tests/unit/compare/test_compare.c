/*
 * Unit tests for gathering and judging a comparison
 * (orchestrator/job/compare.c), with a config from bf_cfg_load_string().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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
	"  - name: picky\n"                  \
	"    command: [./picky]\n"           \
	"    metrics:\n"                     \
	"      real_time: {better: lower}\n" \
	"      score: {better: higher}\n"    \
	"      rate: {better: lower}\n"      \
	"presubmit: {alpha: 0.05, min_effect: " min_effect "}\n"

struct fixture {
	struct bf_cfg cfg;
	struct bf_comparison c;
};

static int setup_with(void **state, const char *text)
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

static int setup(void **state)
{
	return setup_with(state, CFG_TEXT("0.02"));
}

static int setup_wide(void **state)
{
	return setup_with(state, CFG_TEXT("0.5"));
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	bf_comparison_release(&f->c);
	bf_cfg_release(&f->cfg);
	free(f);
	return 0;
}

/* One measured run whose output is a single row. */
static void add1(struct fixture *f, int bench, int side, int repeat,
                 const char *name, const char *metric, const char *unit,
                 double value)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	bf_samples_add(&s, name, metric, unit, value, 0);
	bf_comparison_add_run(&f->c, &f->cfg, bench, side, repeat, &s);
	bf_samples_release(&s);
}

/* runs runs per side of one series, base + step*r and patch + step*r. */
static void add_series(struct fixture *f, int bench, const char *name,
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

static struct bf_series *find(struct fixture *f, int bench, const char *name,
                              const char *metric)
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
static json_t *result_of(json_t *arr, const char *name, const char *metric)
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

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v)) {
		print_error("\"%s\" is not a number\n", key);
		fail();
	}
	return json_number_value(v);
}

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v)) {
		print_error("\"%s\" is not a string\n", key);
		fail();
	}
	return json_string_value(v);
}

static void test_compare__run_contributes_its_median(void **state)
{
	struct fixture *f = *state;
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_series *a;
	json_t *first;

	/* Three repetitions of BM_a, interleaved with other rows. */
	bf_samples_add(&s, "BM_a", "real_time", "ns", 10, 0);
	bf_samples_add(&s, "BM_b", "real_time", "ns", 100, 0);
	bf_samples_add(&s, "BM_a", "cpu_time", "ns", 7, 0);
	bf_samples_add(&s, "BM_a", "real_time", "ns", 30, 1);
	bf_samples_add(&s, "BM_a", "cpu_time", "ns", 5, 1);
	bf_samples_add(&s, "BM_a", "real_time", "ns", 20, 2);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_BASE, 0, &s);
	bf_samples_release(&s);

	assert_int_equal(f->c.n, 3);
	/* series in the order their first row was printed */
	assert_string_equal(f->c.series[0].name, "BM_a");
	assert_string_equal(f->c.series[0].metric, "real_time");
	assert_string_equal(f->c.series[1].name, "BM_b");
	assert_string_equal(f->c.series[2].metric, "cpu_time");
	a = find(f, 0, "BM_a", "real_time");
	assert_int_equal(a->side[BF_SIDE_BASE].n, 1);
	assert_true(a->side[BF_SIDE_BASE].v[0] == 20);
	assert_int_equal(a->side[BF_SIDE_PATCH].n, 0);
	/* An even count gives the mean of the middle two. */
	assert_true(find(f, 0, "BM_a", "cpu_time")->side[0].v[0] == 6);
	assert_true(find(f, 0, "BM_b", "real_time")->side[0].v[0] == 100);
	assert_int_equal(f->c.runs_ok[0], 1);
	assert_int_equal(f->c.runs_ok[1], 0);

	/* Each raw row is kept, with where it came from. */
	assert_int_equal(json_array_size(f->c.samples), 6);
	first = json_array_get(f->c.samples, 3);
	assert_string_equal(str(first, "benchmark"), "micro");
	assert_string_equal(str(first, "name"), "BM_a");
	assert_string_equal(str(first, "metric"), "real_time");
	assert_string_equal(str(first, "unit"), "ns");
	assert_string_equal(str(first, "side"), "base");
	assert_int_equal(json_integer_value(json_object_get(first, "repeat")),
	                 0);
	assert_int_equal(
	        json_integer_value(json_object_get(first, "iteration")), 1);
	assert_true(num(first, "value") == 30);

	/* A second run adds one more value per series, in run order. */
	bf_samples_init(&s);
	for (int i = 0; i < 5; i++)
		bf_samples_add(&s, "BM_a", "real_time", "ns",
		               (double[]){ 4, 100, 1, 3, 2 }[i], i);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_BASE, 1, &s);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_PATCH, 0, &s);
	bf_samples_release(&s);
	a = find(f, 0, "BM_a", "real_time");
	assert_int_equal(a->side[BF_SIDE_BASE].n, 2);
	assert_true(a->side[BF_SIDE_BASE].v[1] == 3);
	assert_int_equal(a->side[BF_SIDE_PATCH].n, 1);
	assert_true(a->side[BF_SIDE_PATCH].v[0] == 3);
	assert_int_equal(f->c.runs_ok[0], 2);
	assert_int_equal(f->c.runs_ok[1], 1);
	assert_int_equal(f->c.n, 3);
}

/* Thousands of names: each its own series, found again on each run. */
static void test_compare__many_names(void **state)
{
	struct fixture *f = *state;
	char name[32];

	for (int run = 0; run < 3; run++) {
		struct bf_samples s = BF_SAMPLES_INIT;

		for (int i = 5000; i-- > 0;) {
			snprintf(name, sizeof(name), "n%d", i);
			bf_samples_add(&s, name, "value", "ns", i + run, 0);
		}
		bf_comparison_add_run(&f->c, &f->cfg, 0, run % 2, run, &s);
		bf_samples_release(&s);
	}
	assert_int_equal(f->c.n, 5000);
	for (size_t i = 0; i < f->c.n; i++) {
		const struct bf_series *x = &f->c.series[i];

		snprintf(name, sizeof(name), "n%zu", 4999 - i);
		assert_string_equal(x->name, name);
		assert_int_equal(x->side[BF_SIDE_BASE].n, 2);
		assert_int_equal(x->side[BF_SIDE_PATCH].n, 1);
		assert_true(x->side[BF_SIDE_PATCH].v[0] ==
		            4999 - (double)i + 1);
	}
}

static void test_compare__series_are_per_benchmark(void **state)
{
	struct fixture *f = *state;

	add1(f, 0, BF_SIDE_BASE, 0, "BM_x", "real_time", "ns", 1);
	add1(f, 1, BF_SIDE_BASE, 0, "BM_x", "real_time", "ns", 2);
	assert_int_equal(f->c.n, 2);
	assert_true(find(f, 0, "BM_x", "real_time")->side[0].v[0] == 1);
	assert_true(find(f, 1, "BM_x", "real_time")->side[0].v[0] == 2);
	assert_int_equal(f->c.runs_ok[0], 1);
	assert_int_equal(f->c.runs_ok[2], 1);
}

static void test_compare__config_metrics_filter_and_direction(void **state)
{
	struct fixture *f = *state;
	struct bf_samples s = BF_SAMPLES_INIT;

	bf_samples_add(&s, "BM_p", "real_time", "ns", 10, 0);
	bf_samples_add(&s, "BM_p", "cpu_time", "ns", 9, 0);
	bf_samples_add(&s, "BM_p", "score", "", 5, 0);
	bf_samples_add(&s, "BM_p", "rate", "/s", 1000, 0);
	bf_samples_add(&s, "BM_p", "items_per_second", "/s", 1e6, 0);
	bf_comparison_add_run(&f->c, &f->cfg, 1, BF_SIDE_PATCH, 0, &s);
	bf_samples_release(&s);

	/* Only the listed metrics make series. */
	assert_int_equal(f->c.n, 3);
	for (size_t i = 0; i < f->c.n; i++) {
		assert_string_not_equal(f->c.series[i].metric, "cpu_time");
		assert_string_not_equal(f->c.series[i].metric,
		                        "items_per_second");
	}
	assert_false(find(f, 1, "BM_p", "real_time")->higher_is_better);
	/* The config's direction wins over the unit, both ways. */
	assert_true(find(f, 1, "BM_p", "score")->higher_is_better);
	assert_false(find(f, 1, "BM_p", "rate")->higher_is_better);
	/* Raw samples are all kept. */
	assert_int_equal(json_array_size(f->c.samples), 5);
}

static void test_compare__default_direction_from_unit(void **state)
{
	struct fixture *f = *state;
	struct bf_samples s = BF_SAMPLES_INIT;

	bf_samples_add(&s, "BM", "real_time", "ns", 1, 0);
	bf_samples_add(&s, "BM", "items_per_second", "/s", 1, 0);
	bf_samples_add(&s, "BM", "bytes", "B/s", 1, 0);
	bf_samples_add(&s, "BM", "count", "", 1, 0);
	bf_samples_add(&s, "BM", "seconds", "s", 1, 0);
	bf_samples_add(&s, "BM", "slash", "/", 1, 0);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_BASE, 0, &s);
	bf_samples_release(&s);

	assert_int_equal(f->c.n, 6);
	assert_false(find(f, 0, "BM", "real_time")->higher_is_better);
	assert_true(find(f, 0, "BM", "items_per_second")->higher_is_better);
	assert_true(find(f, 0, "BM", "bytes")->higher_is_better);
	assert_false(find(f, 0, "BM", "count")->higher_is_better);
	assert_false(find(f, 0, "BM", "seconds")->higher_is_better);
	assert_false(find(f, 0, "BM", "slash")->higher_is_better);
	assert_string_equal(find(f, 0, "BM", "bytes")->unit, "B/s");
}

static void test_compare__missing_side_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct bf_tally t;
	json_t *res, *o;

	for (int r = 0; r < 3; r++) {
		add1(f, 0, BF_SIDE_BASE, r, "only_base", "real_time", "ns",
		     10 + r);
		add1(f, 0, BF_SIDE_PATCH, r, "only_patch", "real_time", "ns",
		     10 + r);
	}
	add_series(f, 0, "both", "real_time", "ns", 100, 100, 0.01, 5);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);

	assert_false(find(f, 0, "only_base", "real_time")->judged);
	assert_non_null(
	        strstr(find(f, 0, "only_base", "real_time")->error, "patch"));
	assert_false(find(f, 0, "only_patch", "real_time")->judged);
	assert_non_null(
	        strstr(find(f, 0, "only_patch", "real_time")->error, "base"));
	assert_true(find(f, 0, "both", "real_time")->judged);

	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.errors, 2);
	assert_int_equal(t.measured, 1);

	res = bf_comparison_results_json(&f->c, &f->cfg);
	o = result_of(res, "only_base", "real_time");
	assert_string_equal(str(o, "verdict"), "error");
	assert_non_null(strstr(str(o, "error"), "patch side"));
	assert_string_equal(str(o, "benchmark"), "micro");
	assert_null(json_object_get(o, "effect"));
	o = result_of(res, "only_patch", "real_time");
	assert_string_equal(str(o, "verdict"), "error");
	assert_non_null(strstr(str(o, "error"), "base side"));
	json_decref(res);
}

static void test_compare__add_error_counts_and_json(void **state)
{
	struct fixture *f = *state;
	json_t *e;

	bf_comparison_add_error(&f->c, &f->cfg, 1, BF_SIDE_PATCH, 3, "timeout",
	                        "'picky' timed out after 300 s");
	bf_comparison_add_error(&f->c, &f->cfg, 1, BF_SIDE_PATCH, 4,
	                        "benchmark_failed", "'picky' exited 1");
	bf_comparison_add_error(&f->c, &f->cfg, 0, BF_SIDE_BASE, 0,
	                        "parse_error", "out:1:1: bad");
	assert_int_equal(f->c.runs_failed[1 * 2 + BF_SIDE_PATCH], 2);
	assert_int_equal(f->c.runs_failed[0 * 2 + BF_SIDE_BASE], 1);
	assert_int_equal(f->c.runs_failed[1 * 2 + BF_SIDE_BASE], 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(f->c.runs_ok[i], 0);
	/* Failed runs make no series. */
	assert_int_equal(f->c.n, 0);

	assert_int_equal(json_array_size(f->c.errors), 3);
	e = json_array_get(f->c.errors, 0);
	assert_string_equal(str(e, "benchmark"), "picky");
	assert_string_equal(str(e, "side"), "patch");
	assert_int_equal(json_integer_value(json_object_get(e, "repeat")), 3);
	assert_string_equal(str(e, "code"), "timeout");
	assert_string_equal(str(e, "message"), "'picky' timed out after 300 s");
	e = json_array_get(f->c.errors, 2);
	assert_string_equal(str(e, "benchmark"), "micro");
	assert_string_equal(str(e, "side"), "base");
	assert_string_equal(str(e, "code"), "parse_error");
}

static void test_compare__verdicts_and_tally(void **state)
{
	struct fixture *f = *state;
	struct bf_tally t;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "faster", "real_time", "ns", 100, 80, 0.5, 10);
	add_series(f, 0, "flat", "real_time", "ns", 100, 100, 0.01, 10);
	/* A rate going up is an improvement. */
	add_series(f, 0, "rate_up", "items_per_second", "/s", 100, 120, 0.5,
	           10);
	/* The config says higher is better for score: down is worse. */
	add_series(f, 1, "scored", "score", "", 100, 80, 0.5, 10);
	add_series(f, 0, "few", "real_time", "ns", 100, 200, 1, 2);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 7);

	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_int_equal(find(f, 0, "faster", "real_time")->result.verdict,
	                 BF_VERDICT_IMPROVED);
	assert_int_equal(find(f, 0, "flat", "real_time")->result.verdict,
	                 BF_VERDICT_SAME);
	assert_int_equal(
	        find(f, 0, "rate_up", "items_per_second")->result.verdict,
	        BF_VERDICT_IMPROVED);
	assert_int_equal(find(f, 1, "scored", "score")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_int_equal(find(f, 0, "few", "real_time")->result.verdict,
	                 BF_VERDICT_UNKNOWN);

	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.regressed, 2);
	assert_int_equal(t.improved, 2);
	assert_int_equal(t.same, 1);
	assert_int_equal(t.unknown, 1);
	assert_int_equal(t.errors, 0);
	assert_int_equal(t.measured, 6);
}

static void test_compare__results_json_fields(void **state)
{
	struct fixture *f = *state;
	json_t *res, *o, *base, *vals;
	double effect;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "rate_up", "items_per_second", "/s", 100, 120, 0.5,
	           10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	assert_int_equal(json_array_size(res), 2);

	o = result_of(res, "slower", "real_time");
	assert_string_equal(str(o, "benchmark"), "micro");
	assert_string_equal(str(o, "unit"), "ns");
	assert_string_equal(str(o, "better"), "lower");
	assert_string_equal(str(o, "verdict"), "regressed");
	effect = num(o, "effect");
	/* medians 102.25 and 122.25 */
	assert_true(fabs(effect - (122.25 / 102.25 - 1)) < 1e-12);
	assert_true(num(o, "ci_low") <= effect);
	assert_true(num(o, "ci_high") >= effect);
	assert_true(num(o, "ci_low") > 0.02);
	assert_true(num(o, "p_value") > 0 && num(o, "p_value") < 0.05);
	assert_true(num(o, "p_adjusted") >= num(o, "p_value"));
	assert_true(num(o, "p_adjusted") <= 1);
	base = json_object_get(o, "base");
	assert_non_null(base);
	assert_int_equal(json_integer_value(json_object_get(base, "n")), 10);
	assert_true(num(base, "median") == 102.25);
	vals = json_object_get(base, "values");
	assert_int_equal(json_array_size(vals), 10);
	for (size_t i = 0; i < 10; i++)
		assert_true(json_number_value(json_array_get(vals, i)) ==
		            100 + 0.5 * (double)i);
	assert_true(num(json_object_get(o, "patch"), "median") == 122.25);
	assert_int_equal(json_array_size(json_object_get(
	                         json_object_get(o, "patch"), "values")),
	                 10);

	o = result_of(res, "rate_up", "items_per_second");
	assert_string_equal(str(o, "better"), "higher");
	assert_string_equal(str(o, "verdict"), "improved");
	json_decref(res);
}

/* p-values are adjusted across all series of the comparison. */
static void test_compare__fdr_across_series(void **state)
{
	struct fixture *f = *state;
	const struct bf_series *s;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "flat", "real_time", "ns", 100, 100, 0.01, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	s = find(f, 0, "slower", "real_time");
	/* BH with two tests, the other p = 1: the smaller doubles. */
	assert_true(s->result.p_value < 0.01);
	assert_true(fabs(s->result.p_adjusted - 2 * s->result.p_value) < 1e-12);
	assert_int_equal(s->result.verdict, BF_VERDICT_REGRESSED);
}

static void test_compare__zero_base_median_is_an_error(void **state)
{
	struct fixture *f = *state;
	const struct bf_series *s;
	struct bf_tally t;

	add_series(f, 0, "zero", "real_time", "ns", 0, 1, 0, 5);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);
	s = find(f, 0, "zero", "real_time");
	assert_false(s->judged);
	assert_non_null(s->error);
	assert_non_null(strstr(s->error, "median is 0"));
	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.errors, 1);
	assert_int_equal(t.measured, 0);
}

/* With min_effect 0.5 in the config, a 20% change is "same". */
static void test_compare__config_min_effect(void **state)
{
	struct fixture *f = *state;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_SAME);
}

static void test_compare__min_effect_override(void **state)
{
	struct fixture *f = *state;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, 0.02, 3);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
}

static void test_compare__alpha_override(void **state)
{
	struct fixture *f = *state;

	/* 10 against 10, fully apart: p is about 1e-4, above 1e-9. */
	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	bf_comparison_judge(&f->c, &f->cfg, 1e-9, -1, 3);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_UNKNOWN);
}

static void test_compare__empty_comparison(void **state)
{
	struct fixture *f = *state;
	struct bf_tally t;
	json_t *res;

	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);
	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.measured + t.errors + t.regressed + t.improved +
	                         t.same + t.unknown,
	                 0);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	assert_int_equal(json_array_size(res), 0);
	json_decref(res);
}

static void test_compare__real_or_null(void **state)
{
	json_t *v;

	(void)state;
	v = bf_json_real_or_null(1.5);
	assert_true(json_is_real(v) && json_real_value(v) == 1.5);
	json_decref(v);
	v = bf_json_real_or_null(NAN);
	assert_true(json_is_null(v));
	json_decref(v);
	v = bf_json_real_or_null(-INFINITY);
	assert_true(json_is_null(v));
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_compare__run_contributes_its_median),
		T(test_compare__many_names),
		T(test_compare__series_are_per_benchmark),
		T(test_compare__config_metrics_filter_and_direction),
		T(test_compare__default_direction_from_unit),
		T(test_compare__missing_side_is_an_error),
		T(test_compare__add_error_counts_and_json),
		T(test_compare__verdicts_and_tally),
		T(test_compare__results_json_fields),
		T(test_compare__fdr_across_series),
		T(test_compare__zero_base_median_is_an_error),
		cmocka_unit_test_setup_teardown(test_compare__config_min_effect,
		                                setup_wide, teardown),
		cmocka_unit_test_setup_teardown(
		        test_compare__min_effect_override, setup_wide,
		        teardown),
		T(test_compare__alpha_override),
		T(test_compare__empty_comparison),
#undef T
		cmocka_unit_test(test_compare__real_or_null),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
