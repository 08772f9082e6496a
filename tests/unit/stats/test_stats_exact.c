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

#include <math.h>

#include "benchfarm/err.h"
#include "benchfarm/stats.h"

static struct bf_compare_result judge(const double *b, size_t nb,
                                      const double *p, size_t np, bool higher)
{
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	/* a min_effect of 2%, which the cases below are set against */
	o.min_effect = 0.02;
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

static struct bf_compare_result judge_counted(const double *b, const double *p,
                                              bool counted)
{
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	o.counted = counted;
	o.min_effect = 0.02;
	/*
	 * Few bootstrap rounds: the counted rule does not read the interval,
	 * and the simulation below judges 22,000 comparisons.
	 */
	o.resamples = 100;
	assert_int_equal(bf_compare_samples(&r, b, 3, p, 3, &o, &err), 0);
	return r;
}

/*
 * Counts that vary by up to 0.04% (a program whose path depends on its
 * addresses): not exact. 1% more, the ranges 400 apart... by far more
 * than twice the wider range (400): regressed when counted. The
 * ordinary rule calls it the same: its interval lies within the default
 * min_effect of 2%, and 3 against 3 can never make the U test
 * significant (p >= 0.1).
 */
static void test_counted_one_percent(void **state)
{
	const double b[] = { 1000000, 1000400, 1000150 };
	const double p[] = { 1010000, 1010300, 1010390 };
	struct bf_compare_result r = judge_counted(b, p, true);

	(void)state;
	assert_false(r.exact);
	assert_true(r.counted);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
	r = judge_counted(b, p, false);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
	/* fewer instructions: improved */
	assert_int_equal(judge_counted(p, b, true).verdict,
	                 BF_VERDICT_IMPROVED);
}

/*
 * Counted A/A: the change (0.01%) and both ranges (0.04%) below 0.1%:
 * same. Ranges apart but by less than twice the wider one (gap 300,
 * range 400), a change of 0.07%: below the floor, the same too; a 0.5%
 * change whose ranges overlap, 1% wide: the ordinary rule's verdict.
 */
static void test_counted_aa_and_overlap(void **state)
{
	const double b[] = { 1000000, 1000400, 1000150 };
	const double aa[] = { 1000100, 1000300, 1000250 };
	const double near[] = { 1000700, 1000900, 1001100 };
	const double wide_b[] = { 1000000, 1006000, 1010000 };
	const double wide_p[] = { 1005000, 1011000, 1015000 };
	const double few_b[] = { 1247, 1247, 1247 };
	const double few_p[] = { 1250, 1250, 1250 };

	(void)state;
	assert_int_equal(judge_counted(b, aa, true).verdict, BF_VERDICT_SAME);
	assert_int_equal(judge_counted(b, near, true).verdict, BF_VERDICT_SAME);
	assert_int_equal(judge_counted(wide_b, wide_p, true).verdict,
	                 judge_counted(wide_b, wide_p, false).verdict);
	/*
	 * Small counts: 1247 cache misses against 1250, each side exact, is
	 * three misses, below a count's resolution: the ordinary rule, not
	 * a 0.24% regression.
	 */
	assert_int_equal(judge_counted(few_b, few_p, true).verdict,
	                 judge_counted(few_b, few_p, false).verdict);
	assert_false(judge_counted(few_b, few_p, true).verdict ==
	             BF_VERDICT_REGRESSED);
	assert_false(judge_counted(wide_b, wide_p, true).verdict ==
	             BF_VERDICT_REGRESSED);
}

static double normal01(struct bf_rng *rng)
{
	double u1 = 1 - bf_rng_uniform(rng), u2 = bf_rng_uniform(rng);

	return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

/*
 * Seeded: 20,000 counted A/A comparisons of 3 runs a side with normal
 * noise of 0.1% (ranges far beyond the 0.01% of exact counts): the
 * rule's false verdicts stay near its 0.15% (at most 0.5% here); a 1%
 * change, 10 times the noise, is found in at least 90% of 2,000 (the
 * ranges of 3 runs reach 0.3% and more in its tail).
 */
static void test_counted_simulation(void **state)
{
	struct bf_rng rng;
	int false_verdicts = 0, found = 0;

	(void)state;
	bf_rng_seed(&rng, 7);
	for (int t = 0; t < 20000; t++) {
		double b[3], p[3];
		enum bf_verdict v;

		for (int i = 0; i < 3; i++) {
			b[i] = round(1e6 * (1 + 0.001 * normal01(&rng)));
			p[i] = round(1e6 * (1 + 0.001 * normal01(&rng)));
		}
		v = judge_counted(b, p, true).verdict;
		false_verdicts +=
		        v == BF_VERDICT_REGRESSED || v == BF_VERDICT_IMPROVED;
		if (t < 2000) {
			for (int i = 0; i < 3; i++)
				p[i] = round(p[i] * 1.01);
			found += judge_counted(b, p, true).verdict ==
			         BF_VERDICT_REGRESSED;
		}
	}
	print_message("counted A/A: %d false of 20000; +1%%: %d of 2000\n",
	              false_verdicts, found);
	assert_true(false_verdicts <= 100);
	assert_true(found >= 1800);
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
		cmocka_unit_test(test_counted_one_percent),
		cmocka_unit_test(test_counted_aa_and_overlap),
		cmocka_unit_test(test_counted_simulation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
