/*
 * Unit tests for adaptive repeats in a comparison (compare_seq.c): which
 * run counts are looks, the per-benchmark stop and its reason, series
 * decided once and kept, the verdicts from the sequential decisions and
 * the JSON that reports them.
 */
#include "unit/compare/fixture.h"

/* Runs r0 .. r1 - 1 of one series: base and base * ratio, alternating. */
static void add_runs(struct fixture *f, int bench, const char *name,
                     const char *metric, double lo, double hi, double ratio,
                     int r0, int r1)
{
	for (int r = r0; r < r1; r++) {
		double v = r % 2 ? hi : lo;

		add1(f, bench, BF_SIDE_BASE, r, name, metric, "ns", v);
		add1(f, bench, BF_SIDE_PATCH, r, name, metric, "ns", v * ratio);
	}
}

/*
 * min 6, max 10: looks after 6, 8 and 10 runs per side. Benchmark 0
 * ("micro"): "slower" 20% slower at 0.2% spread, "flat" unchanged at
 * 0.2%: both decided at the first look (different, same), so micro
 * stops there, "different". Benchmark 1 ("picky"): "noisy" 3% slower
 * with runs alternating 100 and 110 (log spread 0.05): at the first
 * look its interval is several times the 2% threshold; at the last
 * (10 runs: se = 0.05 sqrt(2 / 10) = 0.022, interval about +-0.05
 * around 0.03) it still crosses +2%: max reached, no verdict.
 */
static void test_seq__looks_stops_and_verdicts(void **state)
{
	struct fixture *f = *state;
	struct bf_comparison *c = &f->c;
	struct bf_err err = BF_ERR_INIT;
	json_t *res, *a, *b0, *b1;

	assert_int_equal(bf_comparison_look_at(c, 6), -1); /* fixed mode */
	assert_int_equal(bf_comparison_adaptive(c, 6, 10, 0.05, 0.02, &err), 0);
	assert_int_equal(c->design->nlooks, 3);
	assert_int_equal(bf_comparison_look_at(c, 5), -1);
	assert_int_equal(bf_comparison_look_at(c, 6), 0);
	assert_int_equal(bf_comparison_look_at(c, 7), -1);
	assert_int_equal(bf_comparison_look_at(c, 8), 1);
	assert_int_equal(bf_comparison_look_at(c, 10), 2);
	assert_int_equal(c->last_look[0], -1);

	add_runs(f, 0, "slower", "real_time", 100, 100.2, 1.2, 0, 6);
	add_runs(f, 0, "flat", "real_time", 100, 100.2, 1.0, 0, 6);
	add_runs(f, 1, "noisy", "real_time", 100, 110, 1.03, 0, 6);
	assert_true(bf_comparison_look(c, 0, 0));
	assert_int_equal(c->stop[0], BF_SEQ_DIFFERENT);
	assert_int_equal(c->last_look[0], 0);
	assert_int_equal(find(f, 0, "slower", "real_time")->seq.decision,
	                 BF_SEQ_DIFFERENT);
	assert_int_equal(find(f, 0, "flat", "real_time")->seq.decision,
	                 BF_SEQ_SAME);
	assert_false(bf_comparison_look(c, 1, 0));
	assert_int_equal(c->stop[1], BF_SEQ_OPEN);
	assert_int_equal(find(f, 1, "noisy", "real_time")->seq.decision,
	                 BF_SEQ_OPEN);

	/* A decided series keeps its decision: later runs are not
	 * looked at again (micro is stopped; this only proves the
	 * bookkeeping). */
	add_runs(f, 0, "flat", "real_time", 100, 100.2, 1.5, 6, 8);
	assert_true(bf_comparison_look(c, 0, 1));
	assert_int_equal(find(f, 0, "flat", "real_time")->seq.look, 0);
	assert_int_equal(find(f, 0, "flat", "real_time")->seq.decision,
	                 BF_SEQ_SAME);

	add_runs(f, 1, "noisy", "real_time", 100, 110, 1.03, 6, 8);
	assert_false(bf_comparison_look(c, 1, 1));
	add_runs(f, 1, "noisy", "real_time", 100, 110, 1.03, 8, 10);
	assert_true(bf_comparison_look(c, 1, 2));
	assert_int_equal(c->stop[1], BF_SEQ_MAX_REACHED);
	assert_int_equal(find(f, 1, "noisy", "real_time")->seq.decision,
	                 BF_SEQ_MAX_REACHED);
	assert_int_equal(find(f, 1, "noisy", "real_time")->seq.np, 10);

	bf_comparison_judge(c, &f->cfg, -1, -1, 7);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_int_equal(find(f, 0, "flat", "real_time")->result.verdict,
	                 BF_VERDICT_SAME);
	assert_int_equal(find(f, 1, "noisy", "real_time")->result.verdict,
	                 BF_VERDICT_UNKNOWN);
	/* effect and interval: exp of the log-ratio's, not the bootstrap */
	assert_float_equal(find(f, 0, "slower", "real_time")->result.effect,
	                   0.2, 1e-9);
	assert_true(find(f, 0, "slower", "real_time")->result.ci_low > 0.02);

	res = bf_comparison_results_json(c, &f->cfg);
	assert_string_equal(
	        str(json_object_get(result_of(res, "slower", "real_time"),
	                            "sequential"),
	            "decision"),
	        "different");
	assert_int_equal(
	        (int)num(json_object_get(result_of(res, "noisy", "real_time"),
	                                 "sequential"),
	                 "runs_per_side"),
	        10);
	json_decref(res);

	a = bf_comparison_adaptive_json(c, &f->cfg);
	assert_int_equal(json_array_size(json_object_get(a, "looks")), 3);
	b0 = json_array_get(json_object_get(a, "benchmarks"), 0);
	b1 = json_array_get(json_object_get(a, "benchmarks"), 1);
	assert_string_equal(str(b0, "benchmark"), "micro");
	assert_string_equal(str(b0, "stop"), "different");
	/* the runs the comparison holds, as bf_comparison_add_run counted
	 * them: each add1 above is a run of one series, so micro has 6 +
	 * 6 + 2 base runs, picky 10 */
	assert_int_equal((int)num(json_object_get(b0, "runs"), "base"), 14);
	assert_string_equal(str(b1, "stop"), "max_reached");
	assert_int_equal((int)num(json_object_get(b1, "runs"), "patch"), 10);
	assert_int_equal((int)num(b1, "looks"), 3);
	json_decref(a);
}

/*
 * A higher-is-better metric that fell is a regression; a benchmark
 * whose series has too few values stays open until the last look.
 */
static void test_seq__direction_and_missing_values(void **state)
{
	struct fixture *f = *state;
	struct bf_comparison *c = &f->c;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_comparison_adaptive(c, 4, 6, 0.05, 0.02, &err), 0);
	add_runs(f, 1, "scored", "score", 100, 100.1, 0.8, 0, 4);
	assert_true(bf_comparison_look(c, 1, 0));
	/* micro has no series at all: open, then max reached */
	assert_false(bf_comparison_look(c, 0, 0));
	assert_true(bf_comparison_look(c, 0, 1));
	assert_int_equal(c->stop[0], BF_SEQ_MAX_REACHED);
	bf_comparison_judge(c, &f->cfg, -1, -1, 7);
	assert_int_equal(find(f, 1, "scored", "score")->result.verdict,
	                 BF_VERDICT_REGRESSED);

	assert_int_equal(bf_comparison_adaptive(c, 1, 6, 0.05, 0.02, &err),
	                 BF_EINVAL);
}

/*
 * Which step of a unit's plan looks: 1 warmup step per side, then 10
 * repeats of (base, patch) in some order: steps 2 + 2r and 3 + 2r are
 * repeat r, so repeat r ends at step 3 + 2r. With looks at 6, 8 and 10
 * runs, steps 13 (repeat 5), 17 and 21 look; nothing else does, and a
 * fixed comparison never looks. "flat" is decided same at the first
 * look, so its benchmark stops at step 13.
 */
static void test_seq__plan_steps_that_look(void **state)
{
	struct fixture *f = *state;
	struct bf_comparison *c = &f->c;
	struct bf_err err = BF_ERR_INIT;
	struct bf_plan plan;

	bf_plan_build(&plan, 1, &(struct bf_plan_runs){ 10, 1 }, true, 3);
	assert_int_equal(plan.n, 22);
	add_runs(f, 0, "flat", "real_time", 100, 100.2, 1.0, 0, 6);
	assert_false(bf_comparison_stops_after(c, 0, &plan, 13));
	assert_int_equal(bf_comparison_adaptive(c, 6, 10, 0.05, 0.02, &err), 0);
	for (size_t i = 0; i < 13; i++)
		assert_false(bf_comparison_stops_after(c, 0, &plan, i));
	assert_int_equal(c->last_look[0], -1);
	assert_true(bf_comparison_stops_after(c, 0, &plan, 13));
	assert_int_equal(c->last_look[0], 0);
	assert_int_equal(c->stop[0], BF_SEQ_SAME);
	assert_false(bf_comparison_stops_after(c, 0, &plan, 14));
	assert_int_equal(c->last_look[0], 0);
	bf_plan_release(&plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		        test_seq__looks_stops_and_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_seq__direction_and_missing_values, setup,
		        teardown),
		cmocka_unit_test_setup_teardown(test_seq__plan_steps_that_look,
		                                setup, teardown),
	};

	return cmocka_run_group_tests_name("compare_seq", tests, NULL, NULL);
}
