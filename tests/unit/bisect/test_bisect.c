/*
 * The probe order of orchestrator/postsubmit/bisect.c (bf_bisect_next):
 * positions 0 (good) .. n (bad); the midpoint first, and around a commit that
 * does not build, the nearest untested one, above first, as git bisect
 * skip moves to a commit near the skipped one. And the series a bisect
 * follows (bisect_choose.c): the clearest change, not the largest.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "benchfarm/json.h"
#include "benchfarm/stats.h"
#include "postsubmit/bisect.h"

static void test_bisect__midpoints(void **state)
{
	bool none[17] = { false };

	(void)state;
	assert_int_equal(bf_bisect_next(0, 16, none), 8);
	assert_int_equal(bf_bisect_next(0, 8, none), 4);
	assert_int_equal(bf_bisect_next(3, 5, none), 4);
	assert_int_equal(bf_bisect_next(0, 3, none), 1);
	assert_int_equal(bf_bisect_next(0, 2, none), 1);
	/* one commit left: nothing to probe */
	assert_int_equal(bf_bisect_next(0, 1, none), 0);
	assert_int_equal(bf_bisect_next(6, 7, none), 0);
}

static void test_bisect__skips_to_the_nearest(void **state)
{
	bool skip[9] = { false };

	(void)state;
	skip[4] = true; /* the midpoint of 0..8 does not build */
	assert_int_equal(bf_bisect_next(0, 8, skip), 5);
	skip[5] = true;
	assert_int_equal(bf_bisect_next(0, 8, skip), 3);
	skip[3] = true;
	assert_int_equal(bf_bisect_next(0, 8, skip), 6);
	skip[6] = skip[2] = skip[7] = true;
	assert_int_equal(bf_bisect_next(0, 8, skip), 1);
	skip[1] = true;
	/* every commit between good and bad is skipped */
	assert_int_equal(bf_bisect_next(0, 8, skip), 0);
	/* only those strictly between lo and hi count */
	assert_int_equal(bf_bisect_next(4, 8, skip), 0);
	skip[6] = false;
	assert_int_equal(bf_bisect_next(4, 8, skip), 6);
	assert_int_equal(bf_bisect_next(3, 5, skip), 0);
}

/*
 * A series of a compare result as bisect reads it: name, metric "value",
 * and the verdict, effect and bootstrap interval bf_compare_samples
 * gives base (good) against patch (bad), 6 runs a side.
 */
static json_t *series(const char *name, const double *base, const double *patch)
{
	struct bf_compare_result r;
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;

	assert_int_equal(bf_compare_samples(&r, base, 6, patch, 6, &o, NULL),
	                 0);
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:f}", "name", name,
	                 "metric", "value", "verdict",
	                 bf_verdict_name(r.verdict), "effect", r.effect,
	                 "ci_low", r.ci_low, "ci_high", r.ci_high);
}

/* real_time: +60%, each run anywhere within 20% of its level */
static const double noisy_good[] = { 80, 118, 95, 104, 86, 112 };
static const double noisy_bad[] = { 132, 190, 150, 171, 138, 180 };
/* cpu_time: +10%, within 0.2% of its level */
static const double clean_good[] = { 1000, 1002, 1001, 1000, 1002, 1001 };
static const double clean_bad[] = { 1100, 1101, 1102, 1100, 1101, 1102 };

static json_t *result_of(json_t *a, json_t *b)
{
	return json_pack("{s:[o, o]}", "results", a, b);
}

static void test_bisect__follows_the_clearest_not_the_largest(void **state)
{
	json_t *res = result_of(series("real", noisy_good, noisy_bad),
	                        series("cpu", clean_good, clean_bad));
	json_t *runner_up, *s,
	        *noisy = json_array_get(json_object_get(res, "results"), 0);
	json_t *clean = json_array_get(json_object_get(res, "results"), 1);

	(void)state;
	/* both are changes, and the noisy one is the larger */
	assert_string_equal(bf_json_str_or(noisy, "verdict", ""), "regressed");
	assert_string_equal(bf_json_str_or(clean, "verdict", ""), "regressed");
	assert_true(json_number_value(json_object_get(noisy, "effect")) >
	            5 * json_number_value(json_object_get(clean, "effect")));
	/* the clean one is the clearer, by far */
	assert_true(bf_bisect_clarity(clean) > 5 * bf_bisect_clarity(noisy));
	s = bf_bisect_choose(&runner_up, res, NULL, NULL, true);
	assert_ptr_equal(s, clean);
	assert_ptr_equal(runner_up, noisy);
	/* the order of the results does not matter */
	json_decref(res);
	res = result_of(series("cpu", clean_good, clean_bad),
	                series("real", noisy_good, noisy_bad));
	s = bf_bisect_choose(&runner_up, res, NULL, NULL, true);
	assert_string_equal(bf_json_str_or(s, "name", ""), "cpu");
	assert_string_equal(bf_json_str_or(runner_up, "name", ""), "real");
	/* named: the only one that fits, however unclear */
	s = bf_bisect_choose(&runner_up, res, "real", NULL, true);
	assert_string_equal(bf_json_str_or(s, "name", ""), "real");
	assert_null(runner_up);
	json_decref(res);
}

static void test_bisect__only_a_change_is_followed(void **state)
{
	/* the clean series did not change: the noisy one is followed */
	json_t *res = result_of(series("real", noisy_good, noisy_bad),
	                        series("cpu", clean_good, clean_good));
	json_t *runner_up, *s;

	(void)state;
	s = bf_bisect_choose(&runner_up, res, NULL, NULL, true);
	assert_string_equal(bf_json_str_or(s, "name", ""), "real");
	assert_null(runner_up);
	/* later probes take the named series whatever its verdict */
	s = bf_bisect_choose(NULL, res, "cpu", "value", false);
	assert_string_equal(bf_json_str_or(s, "name", ""), "cpu");
	assert_null(bf_bisect_choose(NULL, res, "cpu", "value", true));
	json_decref(res);
}

static void test_bisect__clarity(void **state)
{
	json_t *s = json_pack("{s:f, s:f, s:f}", "effect", 0.1, "ci_low", 0.05,
	                      "ci_high", 0.15);
	double want = log(1.1) / ((log(1.15) - log(1.05)) / 2);

	(void)state;
	assert_true(fabs(bf_bisect_clarity(s) - want) < 1e-12);
	/* an improvement is as clear as a regression of the same log size */
	json_object_set_new(s, "effect", json_real(1 / 1.1 - 1));
	json_object_set_new(s, "ci_low", json_real(1 / 1.15 - 1));
	json_object_set_new(s, "ci_high", json_real(1 / 1.05 - 1));
	assert_true(fabs(bf_bisect_clarity(s) - want) < 1e-12);
	/* exact counts: an interval of no width */
	json_object_set_new(s, "ci_low", json_real(1 / 1.1 - 1));
	json_object_set_new(s, "ci_high", json_real(1 / 1.1 - 1));
	assert_true(isinf(bf_bisect_clarity(s)));
	/* no interval */
	json_object_set_new(s, "ci_low", json_null());
	assert_true(isnan(bf_bisect_clarity(s)));
	json_decref(s);
}

/*
 * An unclear probe is the side its whole interval lies on, against
 * half the step on the log scale; one spanning the half-way mark is no
 * side.
 */
static void test_bisect__side_of_an_unclear_probe(void **state)
{
	(void)state;
	/* +300%: half-way is +100% */
	assert_int_equal(bf_bisect_side(3.0, -0.042, 0.005), -1);
	assert_int_equal(bf_bisect_side(3.0, 2.5, 3.2), 1);
	assert_int_equal(bf_bisect_side(3.0, 0.5, 1.5), 0);
	/* a -50% improvement: half-way is -29.3% (sqrt(0.5) - 1) */
	assert_int_equal(bf_bisect_side(-0.5, -0.1, 0.02), -1);
	assert_int_equal(bf_bisect_side(-0.5, -0.55, -0.4), 1);
	assert_int_equal(bf_bisect_side(-0.5, -0.35, -0.2), 0);
	/* +10%: a probe at +1% [-4%, +6%] spans +4.9%, no side */
	assert_int_equal(bf_bisect_side(0.1, -0.04, 0.06), 0);
	/* nothing to go by */
	assert_int_equal(bf_bisect_side(NAN, -0.01, 0.01), 0);
	assert_int_equal(bf_bisect_side(3.0, NAN, 0.01), 0);
	assert_int_equal(bf_bisect_side(0, -0.01, 0.01), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect__midpoints),
		cmocka_unit_test(test_bisect__skips_to_the_nearest),
		cmocka_unit_test(
		        test_bisect__follows_the_clearest_not_the_largest),
		cmocka_unit_test(test_bisect__only_a_change_is_followed),
		cmocka_unit_test(test_bisect__clarity),
		cmocka_unit_test(test_bisect__side_of_an_unclear_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
