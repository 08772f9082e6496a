/*
 * What detect does with each series (orchestrator/postsubmit/): which
 * detector and parameters it gets from the config
 * (bf_detect_params_for_series), which metrics count and which way is
 * better (bf_cfg_metric_wanted, as history drops the others), and the
 * series' info line (points, unjudged newest points, strongest score).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "config/cfg.h"
#include "postsubmit/detect.h"
#include "postsubmit/detect_env.h"
#include "postsubmit/history.h"

static const char detectors_yaml[] =
        "version: 1\n"
        "project: {repo: .}\n"
        "benchmarks:\n"
        "  - name: own\n"
        "    command: [./a]\n"
        "    detector: {name: skia, variant: cohen, width: 4,"
        " stddev_threshold: 0.5}\n"
        "    metrics:\n"
        "      cpu_time: {detector: {name: perfherder, width: 6}}\n"
        "      ops: {detector: {name: perfherder, min_change: 0}}\n"
        "      real_time: {better: lower}\n"
        "  - name: plain\n"
        "    command: [./b]\n"
        "postsubmit: {detector: {name: jetpack, width: 3}}\n";

static void load_cfg(struct bf_cfg *cfg, const char *text)
{
	struct bf_err err = BF_ERR_INIT;

	if (bf_cfg_load_string(cfg, "t.yaml", text, strlen(text), &err)) {
		print_error("%s\n", err.msg);
		fail();
	}
}

/*
 * A benchmark's own detector applies to all its series (its metrics
 * without one too); a metric's wins over it; a benchmark without one
 * gets postsubmit's; --algorithm (name) overrides all, keeping the
 * config's parameters only where it names the same detector.
 */
static void test_detect_params__per_benchmark_and_metric(void **state)
{
	struct bf_detect_params p;
	struct bf_err err = BF_ERR_INIT;
	struct bf_cfg cfg;

	(void)state;
	load_cfg(&cfg, detectors_yaml);
	/* the benchmark's, for a metric the config lists without one */
	assert_int_equal(bf_detect_params_for_series(&p, &cfg, "own",
	                                             "real_time", NULL, &err),
	                 0);
	assert_int_equal(p.detector, BF_DETECT_SKIA);
	assert_int_equal(p.skia_algo, BF_SKIA_COHEN);
	assert_int_equal(p.skia_radius, 4);
	assert_true(p.skia_interesting == 2.0); /* cohen's default */
	assert_true(p.skia_stddev_threshold == 0.5);
	/* and for a metric it does not list at all */
	assert_int_equal(bf_detect_params_for_series(&p, &cfg, "own", "items",
	                                             NULL, &err),
	                 0);
	assert_int_equal(p.detector, BF_DETECT_SKIA);
	assert_int_equal(p.skia_algo, BF_SKIA_COHEN);
	/* the metric's own */
	assert_int_equal(bf_detect_params_for_series(&p, &cfg, "own",
	                                             "cpu_time", NULL, &err),
	                 0);
	assert_int_equal(p.detector, BF_DETECT_PERFHERDER);
	assert_int_equal(p.ph_fore_window, 6);
	assert_true(p.ph_min_percent == 2.0); /* min_change's default */
	/* min_change: 0 is a value, not "use the default" */
	assert_int_equal(
	        bf_detect_params_for_series(&p, &cfg, "own", "ops", NULL, &err),
	        0);
	assert_int_equal(p.detector, BF_DETECT_PERFHERDER);
	assert_true(p.ph_min_percent == 0.0);
	/* a benchmark without one: postsubmit's */
	assert_int_equal(bf_detect_params_for_series(&p, &cfg, "plain",
	                                             "real_time", NULL, &err),
	                 0);
	assert_int_equal(p.detector, BF_DETECT_JETPACK);
	assert_int_equal(p.jetpack_width, 3);
	/* --algorithm skia keeps "own"'s skia parameters ... */
	assert_int_equal(bf_detect_params_for_series(&p, &cfg, "own",
	                                             "real_time", "skia", &err),
	                 0);
	assert_int_equal(p.skia_algo, BF_SKIA_COHEN);
	assert_int_equal(p.skia_radius, 4);
	/* ... but not "plain"'s jetpack ones: skia's defaults */
	assert_int_equal(bf_detect_params_for_series(&p, &cfg, "plain",
	                                             "real_time", "skia", &err),
	                 0);
	assert_int_equal(p.skia_algo, BF_SKIA_ORIGINAL);
	assert_int_equal(p.skia_radius, 7);
	assert_true(p.skia_interesting == 50);
	assert_true(p.skia_stddev_threshold == 0.001);
	bf_cfg_release(&cfg);
}

/*
 * The configured variant is the one that runs. 40 values alternating
 * 99, 101 that step to 102, 104 at index 20 (a +3 step on a noise of
 * +-1). Skia's original fit, normalised, scores it about 12 over a
 * radius of 7: below its 50, nothing. Cohen's d over 7 + 7 values is
 * 3 / 1.07 = 2.8 (the sample deviation of 4 values at -1 and 3 at +1
 * about their mean is 1.07 on each side): at least its default 2, found
 * at index 20. The U test sees 7 values all below 7 others: p = 2 /
 * C(14, 7) = 0.00058, under its 0.05: found too.
 */
static void test_detect_params__configured_variant_detects(void **state)
{
	static const struct {
		const char *variant; /* NULL: no variant key */
		size_t nfound;
	} cases[] = {
		{ NULL, 0 },
		{ "original", 0 },
		{ "cohen", 1 },
		{ "mannwhitneyu", 1 },
	};
	double x[40];
	char text[512];
	struct bf_detect_params p;
	struct bf_change *ch;
	size_t nch;
	struct bf_err err = BF_ERR_INIT;
	struct bf_cfg cfg;

	(void)state;
	for (int i = 0; i < 40; i++)
		x[i] = (i < 20 ? 100 : 103) + (i % 2 ? 1 : -1);
	for (size_t k = 0; k < BF_ARRAY_SIZE(cases); k++) {
		snprintf(text, sizeof(text),
		         "version: 1\nproject: {repo: .}\nbenchmarks:\n"
		         "  - {name: s, command: [./s], detector: "
		         "{name: skia%s%s}}\n",
		         cases[k].variant ? ", variant: " : "",
		         cases[k].variant ? cases[k].variant : "");
		load_cfg(&cfg, text);
		assert_int_equal(bf_detect_params_for_series(&p, &cfg, "s", "v",
		                                             NULL, &err),
		                 0);
		assert_int_equal(bf_detect_series(&ch, &nch, &p, x, 40, &err),
		                 0);
		if (nch != cases[k].nfound) {
			print_error("variant %s: %zu changes, want %zu\n",
			            cases[k].variant ? cases[k].variant : "-",
			            nch, cases[k].nfound);
			fail();
		}
		if (nch) {
			assert_int_equal(ch[0].index, 20);
			assert_int_equal(ch[0].direction, 1);
		}
		free(ch);
		bf_cfg_release(&cfg);
	}
}

/*
 * The one rule for which metrics count and which way is better
 * (bf_cfg_metric_wanted), shared by compare, the sample store, detect
 * and history: with a metrics: list only the listed, as their better:
 * says; without one all, rates (unit ending in /s) higher-is-better.
 */
static const char metrics_yaml[] = "version: 1\n"
                                   "project: {repo: ., build: [make]}\n"
                                   "benchmarks:\n"
                                   "  - name: listed\n"
                                   "    command: [./b]\n"
                                   "    metrics:\n"
                                   "      items_per_second: {better: higher}\n"
                                   "      real_time: {}\n"
                                   "  - name: open\n"
                                   "    command: [./b]\n";

static void test_metric_wanted__list_and_unit_rule(void **state)
{
	const struct bf_cfg_benchmark *l, *o;
	struct bf_cfg cfg;
	bool higher = true;

	(void)state;
	load_cfg(&cfg, metrics_yaml);
	l = bf_cfg_find_benchmark(&cfg, "listed");
	o = bf_cfg_find_benchmark(&cfg, "open");
	assert_true(bf_cfg_metric_wanted(l, "items_per_second", "/s", &higher));
	assert_true(higher);
	assert_true(bf_cfg_metric_wanted(l, "real_time", "ns", &higher));
	assert_false(higher);
	/* left out by the list, whatever its unit */
	assert_false(
	        bf_cfg_metric_wanted(l, "bytes_per_second", "/s", &higher));
	assert_false(bf_cfg_metric_wanted(l, "cpu_time", "ns", &higher));
	/* no list: every metric; rates are higher-is-better */
	assert_true(bf_cfg_metric_wanted(o, "bytes_per_second", "/s", &higher));
	assert_true(higher);
	assert_true(bf_cfg_metric_wanted(o, "ops", "ops/s", &higher));
	assert_true(higher);
	assert_true(bf_cfg_metric_wanted(o, "cpu_time", "ns", &higher));
	assert_false(higher);
	assert_true(bf_cfg_metric_wanted(o, "count", "", &higher));
	assert_false(higher);
	assert_true(bf_cfg_metric_wanted(o, "x", "s", &higher));
	assert_false(higher);
	/* a benchmark the config no longer has: as without a list */
	assert_true(
	        bf_cfg_metric_wanted(NULL, "items_per_second", "/s", &higher));
	assert_true(higher);
	bf_cfg_release(&cfg);
}

static void add_series(struct bf_history *h, const char *suite,
                       const char *metric, const char *unit)
{
	struct bf_hist_series *s;

	h->series = bf_xrealloc(h->series, (h->n + 1) * sizeof(*h->series));
	s = &h->series[h->n++];
	memset(s, 0, sizeof(*s)); /* fields it does not set are NULL */
	s->suite = bf_xstrdup(suite);
	s->benchmark = bf_xstrdup("BM_x");
	s->metric = bf_xstrdup(metric);
	s->unit = bf_xstrdup(unit);
	s->v = bf_xcalloc(1, sizeof(*s->v));
	s->lo = bf_xcalloc(1, sizeof(*s->lo));
	s->hi = bf_xcalloc(1, sizeof(*s->hi));
	s->npoints = 0;
}

/*
 * Stored series of metrics the list leaves out are dropped, the rest kept
 * in order (a suite the config no longer has keeps all its series).
 */
static void test_history__drop_excluded(void **state)
{
	struct bf_history h = { NULL, 0, 1, NULL };
	struct bf_cfg cfg;

	(void)state;
	load_cfg(&cfg, metrics_yaml);
	add_series(&h, "listed", "real_time", "ns");
	add_series(&h, "listed", "cpu_time", "ns");
	add_series(&h, "listed", "extra", "");
	add_series(&h, "listed", "items_per_second", "/s");
	add_series(&h, "open", "cpu_time", "ns");
	add_series(&h, "gone", "cpu_time", "ns");
	assert_int_equal(bf_history_drop_excluded(&h, &cfg), 2);
	assert_int_equal(h.n, 4);
	assert_string_equal(h.series[0].metric, "real_time");
	assert_string_equal(h.series[1].metric, "items_per_second");
	assert_string_equal(h.series[2].suite, "open");
	assert_string_equal(h.series[3].suite, "gone");
	bf_history_release(&h);
	bf_cfg_release(&cfg);
}

/*
 * A history of n commits whose builds are the letters of builds ('.':
 * not known), for bf_detect_place_step; release with
 * bf_history_release.
 */
static void builds_history(struct bf_history *h, const char *builds)
{
	size_t n = strlen(builds);

	memset(h, 0, sizeof(*h));
	h->ncommits = n;
	h->commit = bf_xcalloc(n, sizeof(*h->commit));
	for (size_t k = 0; k < n; k++)
		h->commit[k].build_id =
		        builds[k] == '.' ? NULL
		                         : bf_xasprintf("code:%c", builds[k]);
}

/*
 * Place a step put at point at (its point before: the nearest measured
 * one) over a history of builds; the placements into pl, how many.
 */
static size_t place(struct bf_step_placed pl[3], const char *builds,
                    const double *v, size_t at)
{
	struct bf_history h;
	size_t before = at - 1, n;

	while (isnan(v[before]))
		before--;
	builds_history(&h, builds);
	n = bf_detect_place_step(pl, &h, v, before, at);
	bf_history_release(&h);
	return n;
}

#define ASSERT_PLACED(pl, i, kind_, lo_, k_)             \
	do {                                             \
		assert_int_equal((pl)[i].kind, (kind_)); \
		assert_int_equal((pl)[i].lo, (lo_));     \
		assert_int_equal((pl)[i].k, (k_));       \
	} while (0)

/*
 * A step between two builds stays where the detector put it; one
 * between two measurements of one build is the machine's when that
 * build measured two levels, and moves to the build change that
 * explains it when the build measured one level; a code step and a
 * shift of the machine a few commits apart, which one detector step
 * can hold, are told apart.
 */
static void test_place_step__code_or_environment(void **state)
{
	const double step[] = { 10, 10.1, 9.9, 20, 20.1, 19.9 };
	const double late[] = { 10, 10.1, 20, 20.1, 19.9, 20 };
	const double flat[] = { 10, 10.1, 9.9, 10, 20, 20.1 };
	const double gap[] = { 10, 10.1, NAN, 20, 20.1, 19.9 };
	/* a code step of +30% at 3, the machine 4x slower from 6 on */
	const double both[] = { 10, 10.1, 9.9, 13, 13.1, 12.9, 52, 52.5, 51 };
	const double still[] = { 10, 10.1, 9.9, 10 };
	struct bf_step_placed pl[3];

	(void)state;
	/* the builds differ at the step: code, where it was put */
	assert_int_equal(place(pl, "AAABBB", step, 3), 1);
	ASSERT_PLACED(pl, 0, BF_STEP_CODE, 2, 3);
	/* not known on one side (an older store): code, as before */
	assert_int_equal(place(pl, "AA..BB", step, 3), 1);
	ASSERT_PLACED(pl, 0, BF_STEP_CODE, 2, 3);
	/* one build measured at both levels: the machine moved */
	assert_int_equal(place(pl, "AAAAAA", step, 3), 1);
	ASSERT_PLACED(pl, 0, BF_STEP_ENV, 2, 3);
	/* put one early, at a commit of the same build as its parent
	 * and still at the old level: the next build's step */
	assert_int_equal(place(pl, "AABBCC", flat, 3), 1);
	ASSERT_PLACED(pl, 0, BF_STEP_CODE, 3, 4);
	assert_true(pl[0].after > 19 && pl[0].before < 11);
	/* put one late: the build that started the run is the step */
	assert_int_equal(place(pl, "AABBCC", late, 3), 1);
	ASSERT_PLACED(pl, 0, BF_STEP_CODE, 1, 2);
	/* unmeasured commits between are skipped over */
	assert_int_equal(place(pl, "AAXAAB", gap, 3), 1);
	ASSERT_PLACED(pl, 0, BF_STEP_ENV, 1, 3);
	/* both in one step put at 4: the code step at 3, the shift at 6 */
	assert_int_equal(place(pl, "AAABBBBBB", both, 4), 2);
	ASSERT_PLACED(pl, 0, BF_STEP_ENV, 5, 6);
	ASSERT_PLACED(pl, 1, BF_STEP_CODE, 2, 3);
	assert_true(pl[1].after / pl[1].before > 1.25 &&
	            pl[1].after / pl[1].before < 1.35);
	/* a build change with no point after it yet: nothing to place */
	assert_int_equal(place(pl, "ABBB", still, 2), 0);
}

static const char ids[16][41] = {
	"0000000000000000000000000000000000000000",
	"1111111111111111111111111111111111111111",
	"2222222222222222222222222222222222222222",
	"3333333333333333333333333333333333333333",
	"4444444444444444444444444444444444444444",
	"5555555555555555555555555555555555555555",
	"6666666666666666666666666666666666666666",
	"7777777777777777777777777777777777777777",
	"8888888888888888888888888888888888888888",
	"9999999999999999999999999999999999999999",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
	"cccccccccccccccccccccccccccccccccccccccc",
	"dddddddddddddddddddddddddddddddddddddddd",
	"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
	"ffffffffffffffffffffffffffffffffffffffff",
};

static json_t *info_of(const struct bf_detect_params *p, const double *v,
                       size_t n)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_change *ch = NULL;
	size_t nch = 0;
	json_t *j = NULL;

	assert_int_equal(bf_detect_series(&ch, &nch, p, v, n, &err), 0);
	assert_int_equal(bf_detect_series_info(&j, p, v, ids, n, ch, nch, &err),
	                 0);
	free(ch);
	return j;
}

static json_int_t int_at(const json_t *j, const char *key)
{
	return json_integer_value(json_object_get(j, key));
}

/*
 * jetpack WIDTH 5: a step needs 5 points before it and 5 from it on, so
 * the newest 4 cannot be judged; a point left out (NaN) is not counted.
 * The strongest score is the step's, at its first new point, even when
 * it stays below the threshold; too few points: every point unjudged,
 * no score.
 */
static void test_series_info__jetpack(void **state)
{
	struct bf_detect_params p;
	double v[16];
	json_t *j, *best;

	(void)state;
	bf_detect_params_default(&p, BF_DETECT_JETPACK);
	for (int i = 0; i < 16; i++)
		v[i] = (i < 7 ? 100 : 101) + (i % 2) * 0.1;
	v[3] = NAN;
	j = info_of(&p, v, 16);
	assert_int_equal(int_at(j, "points"), 15);
	assert_int_equal(int_at(j, "needs_before"), 5);
	assert_int_equal(int_at(j, "needs_after"), 5);
	assert_int_equal(int_at(j, "unjudged"), 4);
	assert_string_equal(json_string_value(json_object_get(j, "statistic")),
	                    "score");
	assert_true(json_real_value(json_object_get(j, "threshold")) == 25);
	best = json_object_get(j, "strongest");
	assert_string_equal(json_string_value(json_object_get(best, "commit")),
	                    ids[7]);
	assert_true(json_real_value(json_object_get(best, "value")) > 0);
	json_decref(j);

	j = info_of(&p, v, 9); /* 8 points: fewer than 5 + 5 */
	assert_int_equal(int_at(j, "points"), 8);
	assert_int_equal(int_at(j, "unjudged"), 8);
	assert_true(json_is_null(json_object_get(j, "strongest")));
	json_decref(j);

	/* flat: every position scores 0, said as 0 at no commit */
	for (int i = 0; i < 16; i++)
		v[i] = 100;
	j = info_of(&p, v, 16);
	best = json_object_get(j, "strongest");
	assert_true(json_real_value(json_object_get(best, "value")) == 0);
	assert_true(json_is_null(json_object_get(best, "commit")));
	json_decref(j);
}

/* What other detectors need, and edivisive's p-value statistic. */
static void test_series_info__other_detectors(void **state)
{
	struct bf_detect_params p;
	size_t before, after;
	double v[16];
	json_t *j, *best;

	(void)state;
	bf_detect_params_default(&p, BF_DETECT_SKIA);
	p.skia_radius = 4;
	p.skia_algo = BF_SKIA_ORIGINAL;
	bf_detect_reach(&before, &after, &p);
	assert_int_equal(before, 4);
	assert_int_equal(after, 5); /* original's window is 2r + 1 */
	p.skia_algo = BF_SKIA_PERCENT;
	bf_detect_reach(&before, &after, &p);
	assert_int_equal(after, 4);
	bf_detect_params_default(&p, BF_DETECT_PERFHERDER);
	p.ph_min_back_window = 6;
	p.ph_fore_window = 3;
	bf_detect_reach(&before, &after, &p);
	assert_int_equal(before, 6);
	assert_int_equal(after, 3);

	bf_detect_params_default(&p, BF_DETECT_EDIVISIVE);
	for (int i = 0; i < 16; i++)
		v[i] = (i < 10 ? 100 : 130) + (i % 3) * 0.5;
	j = info_of(&p, v, 16);
	assert_string_equal(json_string_value(json_object_get(j, "statistic")),
	                    "p_value");
	assert_int_equal(int_at(j, "unjudged"), 0);
	best = json_object_get(j, "strongest");
	assert_string_equal(json_string_value(json_object_get(best, "commit")),
	                    ids[10]);
	assert_true(json_real_value(json_object_get(best, "value")) < 0.001);
	json_decref(j);

	/*
	 * No step: the best candidate of the split pass, a p-value above
	 * the threshold (not the tiny p of a split of a split of noise).
	 */
	for (int i = 0; i < 16; i++)
		v[i] = 100 + (i * 7) % 5 * 0.5;
	j = info_of(&p, v, 16);
	best = json_object_get(j, "strongest");
	assert_true(json_is_string(json_object_get(best, "commit")));
	assert_true(json_real_value(json_object_get(best, "value")) > 0.001);
	assert_true(json_real_value(json_object_get(best, "value")) <= 1);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_params__per_benchmark_and_metric),
		cmocka_unit_test(
		        test_detect_params__configured_variant_detects),
		cmocka_unit_test(test_metric_wanted__list_and_unit_rule),
		cmocka_unit_test(test_history__drop_excluded),
		cmocka_unit_test(test_place_step__code_or_environment),
		cmocka_unit_test(test_series_info__jetpack),
		cmocka_unit_test(test_series_info__other_detectors),
	};

	return cmocka_run_group_tests_name("detect_series", tests, NULL, NULL);
}
