/*
 * Unit tests for exact counts in bf_compare_samples (core/src/
 * stats_verdict.c): sides whose values do not vary beyond
 * BF_EXACT_SPREAD are judged by the size of the change alone, so a 1%
 * change in instructions counted by cachegrind is found with 3 runs per
 * side, and an A/A that differs by a few instructions (the program's
 * path in its arguments) is the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "benchfarm/err.h"
#include "benchfarm/stats.h"

static struct bf_compare_result judge(const double *b, size_t nb,
                                      const double *p, size_t np, bool higher)
{
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	o.higher_is_better = higher;
	assert_int_equal(bf_compare_samples(&r, b, nb, p, np, &o, &err), 0);
	return r;
}

/* 6131386 -> 6192700: +1.0%, beyond BF_EXACT_MIN_EFFECT (0.1%). */
static void test_one_percent(void **state)
{
	const double b[] = { 6131386, 6131386, 6131386 };
	const double p[] = { 6192700, 6192700, 6192700 };
	struct bf_compare_result r = judge(b, 3, p, 3, false);

	(void)state;
	assert_true(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
	r = judge(p, 3, b, 3, false);
	assert_int_equal(r.verdict, BF_VERDICT_IMPROVED);
	r = judge(b, 3, p, 3, true);
	assert_int_equal(r.verdict, BF_VERDICT_IMPROVED);
}

/*
 * A/A: 14 instructions apart within a side (spread 2.3e-6) and 20
 * between the sides (effect 3.3e-6): the same.
 */
static void test_aa(void **state)
{
	const double b[] = { 6131386, 6131386, 6131372 };
	const double p[] = { 6131406, 6131406, 6131406 };
	struct bf_compare_result r = judge(b, 3, p, 3, false);

	(void)state;
	assert_true(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
}

/* +0.05% (3066 of 6131386) is below BF_EXACT_MIN_EFFECT: the same. */
static void test_below_floor(void **state)
{
	const double b[] = { 6131386, 6131386, 6131386 };
	const double p[] = { 6134452, 6134452, 6134452 };
	struct bf_compare_result r = judge(b, 3, p, 3, false);

	(void)state;
	assert_true(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
}

/*
 * Spread 0.02% on the patch side (> BF_EXACT_SPREAD): not exact, so
 * min_effect (2%) decides and +1% is the same. Two runs: never exact.
 */
static void test_not_exact(void **state)
{
	const double b[] = { 1000000, 1000000, 1000000 };
	const double p[] = { 1010000, 1010100, 1010200 };
	struct bf_compare_result r = judge(b, 3, p, 3, false);

	(void)state;
	assert_false(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
	r = judge(b, 2, b, 2, false);
	assert_false(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_UNKNOWN);
}

/*
 * Small counts are not exact however constant: 64 against 65 page
 * faults is one fault (+1.6%), below min_effect (2%): the same, where
 * the exact rule would have called it regressed.
 */
static void test_small_counts(void **state)
{
	const double b[] = { 64, 64, 64, 64, 64 };
	const double p[] = { 65, 65, 65, 65, 65 };
	const double big_b[] = { 10000, 10000, 10000 };
	const double big_p[] = { 10100, 10100, 10100 };
	struct bf_compare_result r = judge(b, 5, p, 5, false);

	(void)state;
	assert_false(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
	/* 10000: a step of 1 is exactly BF_EXACT_SPREAD: exact */
	r = judge(big_b, 3, big_p, 3, false);
	assert_true(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
}

/*
 * A rate that repeats to the last digit is computed, not counted: a
 * 0.4% drift of 1e6 / 1.004 items per second keeps min_effect (same).
 */
static void test_fractions_are_not_counts(void **state)
{
	const double b[] = { 1e9 / 1.001, 1e9 / 1.001, 1e9 / 1.001 };
	const double p[] = { 1e9 / 1.005, 1e9 / 1.005, 1e9 / 1.005 };
	struct bf_compare_result r = judge(b, 3, p, 3, true);

	(void)state;
	assert_false(r.exact);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
}

/* The FDR step recomputes verdicts: exact ones stay. */
static void test_fdr_keeps(void **state)
{
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;
	const double b[] = { 100000, 100000, 100000 };
	const double p[] = { 102000, 102000, 102000 };
	const double q[] = { 100000, 100000, 100000 };
	struct bf_compare_result r[2];

	(void)state;
	r[0] = judge(b, 3, p, 3, false);
	r[1] = judge(b, 3, q, 3, false);
	bf_compare_apply_fdr(r, 2, &o);
	assert_int_equal(r[0].verdict, BF_VERDICT_REGRESSED);
	assert_int_equal(r[1].verdict, BF_VERDICT_SAME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_percent),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_below_floor),
		cmocka_unit_test(test_not_exact),
		cmocka_unit_test(test_fdr_keeps),
		cmocka_unit_test(test_small_counts),
		cmocka_unit_test(test_fractions_are_not_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
