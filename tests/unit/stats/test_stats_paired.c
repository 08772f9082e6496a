/*
 * Unit tests for the paired comparison of duet rounds: the Wilcoxon
 * signed-rank p-value (exact and normal), W+, the median ratio and the
 * verdict, each against values worked out by hand.
 */
#include <math.h>
#include <string.h>

#include "benchfarm/err.h"
#include "benchfarm/stats_paired.h"
#include "unit/testutil.h"

/*
 * Untied ranks, exact: W+ counts subsets of 1..n, 2^n of them equally
 * likely under "no change".
 */
static void test_paired__signed_rank_exact(void **state)
{
	/* all 6 positive: W+ = 21; P(W+ >= 21) = 1/64, two-sided 2/64 */
	const double up[] = { 0.1, 0.2, 0.05, 0.3, 0.15, 0.25 };
	/* ranks 1..5, the 5 negative: W+ = 10, the lower tail is W+ <= 5:
	 * subsets of 1..5 with sums 0,1,2,3,3,4,4,5,5,5 = 10 of 32 */
	const double mixed[] = { 1, 2, 3, 4, -5 };
	/* zeros dropped: 3 left, all positive, W+ = 6, p = 2 / 8 */
	const double zeros[] = { 0, 0.1, 0.2, 0.3 };
	double w;

	(void)state;
	assert_float_equal(bf_stats_signed_rank(up, 6, &w), 2.0 / 64, 1e-15);
	assert_float_equal(w, 21, 0);
	assert_float_equal(bf_stats_signed_rank(mixed, 5, &w), 2 * 10.0 / 32,
	                   1e-15);
	assert_float_equal(w, 10, 0);
	assert_float_equal(bf_stats_signed_rank(zeros, 4, &w), 2.0 / 8, 1e-15);
	assert_float_equal(w, 6, 0);
	assert_float_equal(bf_stats_signed_rank(zeros, 1, &w), 1, 0);
	assert_float_equal(w, 0, 0);
}

/*
 * Ties: |d| 1,1,1 share rank 2, 2,2,2 rank 5, 3,3 rank 7.5. Positive:
 * two 1s, three 2s, two 3s: W+ = 4 + 15 + 15 = 34. n = 8: mean 18,
 * variance 8*9*17/24 - (24 + 24 + 6)/48 = 51 - 1.125 = 49.875;
 * z = (34 - 18 - 0.5) / sqrt(49.875) = 2.19478...; p = erfc(z / sqrt 2)
 * = 0.0281797 (two-sided, continuity-corrected).
 */
static void test_paired__signed_rank_ties_normal(void **state)
{
	const double d[] = { 1, 1, -1, 2, 2, 2, 3, 3 };
	double w;

	(void)state;
	assert_float_equal(bf_stats_signed_rank(d, 8, &w), 0.0281797, 1e-6);
	assert_float_equal(w, 34, 0);
}

/*
 * Ratios 1.10 1.20 1.05 1.30 1.15 1.25: the median log ratio is the
 * mean of log 1.15 and log 1.20, so effect = sqrt(1.15 * 1.2) - 1 =
 * 0.1747340; every ratio is >= 1.05, so every bootstrap median is and
 * the interval lies above min_effect; p = 2/64 < 0.05: regressed.
 */
static void test_paired__regressed_by_hand(void **state)
{
	const double base[] = { 100, 200, 100, 50, 100, 80 };
	const double patch[] = { 110, 240, 105, 65, 115, 100 };
	struct bf_compare_result r;

	(void)state;
	assert_int_equal(bf_compare_paired(&r, base, patch, 6, NULL, NULL), 0);
	assert_float_equal(r.p_value, 2.0 / 64, 1e-15);
	assert_float_equal(r.u, 21, 0);
	assert_float_equal(r.effect, 0.1747340, 1e-6);
	assert_true(r.ci_low >= 0.05 - 1e-12 && r.ci_high <= 0.30 + 1e-12);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
	assert_int_equal(r.base.n, 6);
	assert_float_equal(r.base.median, 100, 0);
}

/*
 * The shared noise cancels: base and patch both swing by 2x between
 * rounds (a neighbour), their ratio is 1 +- 0.1%: the unpaired test
 * sees nothing sure, the paired one says the same.
 */
static void test_paired__shared_noise_cancels(void **state)
{
	double base[12], patch[12];
	struct bf_compare_result r;

	(void)state;
	for (int i = 0; i < 12; i++) {
		base[i] = 100 * (1 + (i % 4) * 0.3);
		patch[i] = base[i] * (i % 2 ? 1.001 : 0.999);
	}
	assert_int_equal(bf_compare_paired(&r, base, patch, 12, NULL, NULL), 0);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
	assert_true(r.ci_low >= -0.001 - 1e-9 && r.ci_high <= 0.001 + 1e-9);
	/* the same values unpaired: the interval is too wide to say same */
	assert_int_equal(
	        bf_compare_samples(&r, base, 12, patch, 12, NULL, NULL), 0);
	assert_int_equal(r.verdict, BF_VERDICT_UNKNOWN);
}

static void test_paired__few_rounds_and_bad_values(void **state)
{
	const double base[] = { 100, 100, 0 }, patch[] = { 120, 121, 100 };
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_compare_paired(&r, base, patch, 2, NULL, NULL), 0);
	assert_int_equal(r.verdict, BF_VERDICT_UNKNOWN);
	assert_true(isnan(r.ci_low));
	assert_int_equal(bf_compare_paired(&r, base, patch, 3, NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "round 3"));
	assert_non_null(strstr(err.msg, "base"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired__signed_rank_exact),
		cmocka_unit_test(test_paired__signed_rank_ties_normal),
		cmocka_unit_test(test_paired__regressed_by_hand),
		cmocka_unit_test(test_paired__shared_noise_cancels),
		cmocka_unit_test(test_paired__few_rounds_and_bad_values),
	};

	return cmocka_run_group_tests_name("stats_paired", tests, NULL, NULL);
}
