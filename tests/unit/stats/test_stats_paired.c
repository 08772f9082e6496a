/*
 * Unit tests for the paired comparison of duet rounds: the sign test's
 * p-value, the median ratio and the verdict, each against values worked
 * out by hand.
 */
#include <math.h>
#include <string.h>

#include "benchfarm/err.h"
#include "benchfarm/stats_paired.h"
#include "unit/testutil.h"

/*
 * The sign test: k of the m nonzero d positive, two-sided
 * 2 * P(X <= min(k, m - k)) for X ~ Binomial(m, 1/2).
 */
/* alpha 0.05, at which the cases below were set; the rest the defaults */
static const struct bf_compare_opts at_05 = {
	0.05, BF_COMPARE_DEFAULT_MIN_EFFECT, false,
	0,    BF_BOOTSTRAP_RESAMPLES,        BF_BOOTSTRAP_CONFIDENCE,
	false
};

static void test_paired__sign_test_by_hand(void **state)
{
	/* all 6 positive: 2 * 1/64 */
	const double up[] = { 0.1, 0.2, 0.05, 0.3, 0.15, 0.25 };
	/* 4 of 5 positive: 2 * (1 + 5) / 32 */
	const double mixed[] = { 1, 2, 3, 4, -5 };
	/* zeros left out: 3 of 3 positive, 2 * 1/8 */
	const double zeros[] = { 0, 0.1, 0.2, 0.3 };
	/* 7 of 8 positive, the sizes do not matter: 2 * (1 + 8) / 256 */
	const double ties[] = { 1, 1, -1, 2, 2, 2, 3, 3 };
	double k;

	(void)state;
	assert_float_equal(bf_stats_sign_test(up, 6, &k), 2.0 / 64, 1e-15);
	assert_float_equal(k, 6, 0);
	assert_float_equal(bf_stats_sign_test(mixed, 5, &k), 12.0 / 32, 1e-15);
	assert_float_equal(k, 4, 0);
	assert_float_equal(bf_stats_sign_test(zeros, 4, &k), 2.0 / 8, 1e-15);
	assert_float_equal(k, 3, 0);
	assert_float_equal(bf_stats_sign_test(ties, 8, &k), 18.0 / 256, 1e-15);
	assert_float_equal(k, 7, 0);
	assert_float_equal(bf_stats_sign_test(zeros, 1, &k), 1, 0);
	assert_float_equal(k, 0, 0);
}

/*
 * A neighbour slows the base's core by 2.4x and 3x in 2 rounds of 12
 * (the e2e test's real pattern): the patch is 20% slower in the other
 * 10. Signed ranks would give those 2 rounds ranks 11 and 12 (W- = 23,
 * p = 0.176); the sign test counts 10 of 12: 2 * (1 + 12 + 66) / 4096 =
 * 0.0385742, and the median ratio stays 1.2: regressed.
 */
static void test_paired__one_sided_outliers(void **state)
{
	double base[12], patch[12];
	struct bf_compare_result r;

	(void)state;
	for (int i = 0; i < 12; i++) {
		base[i] = 100 + i * 0.1;
		patch[i] = base[i] * 1.2;
	}
	base[8] *= 2.4;
	base[11] *= 3;
	assert_int_equal(bf_compare_paired(&r, base, patch, 12, &at_05, NULL),
	                 0);
	assert_float_equal(r.p_value, 2.0 * (1 + 12 + 66) / 4096, 1e-15);
	assert_float_equal(r.u, 10, 0);
	assert_float_equal(r.effect, 0.2, 1e-12);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
}

/*
 * Ratios 1.10 1.20 1.05 1.30 1.15 1.25: the median log ratio is the
 * mean of log 1.15 and log 1.20, so effect = sqrt(1.15 * 1.2) - 1 =
 * 0.1747340; every ratio is >= 1.05, so every bootstrap median is and
 * the interval lies above min_effect; p = 2/64 < 0.05: regressed at
 * alpha 0.05 (at the default 0.01, six rounds are too few: 2/64 is the
 * least p they can give).
 */
static void test_paired__regressed_by_hand(void **state)
{
	const double base[] = { 100, 200, 100, 50, 100, 80 };
	const double patch[] = { 110, 240, 105, 65, 115, 100 };
	struct bf_compare_result r;

	(void)state;
	assert_int_equal(bf_compare_paired(&r, base, patch, 6, &at_05, NULL),
	                 0);
	assert_float_equal(r.p_value, 2.0 / 64, 1e-15);
	assert_float_equal(r.u, 6, 0);
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

/*
 * The second core 10% slower than the first on every round, no change:
 * unswapped rounds (patch on the second core) have ratios about 1.1,
 * swapped ones (base on the second) about 1/1.1 = 0.909. effect =
 * exp((median log unswapped - median log swapped) / 2) - 1 with the
 * medians log(1.10) and log(0.909...): sqrt(1.10 / (1 / 1.1)) - 1 = 0.1;
 * the groups apart, 3 against 3: exact Mann-Whitney p = 2 / C(6, 3).
 */
static void test_paired__core_effect_by_hand(void **state)
{
	const double base[] = { 100, 100, 100, 100, 100, 100 };
	const double patch[] = { 109,        100 / 1.1, 110,
		                 100 / 1.12, 111,       100 / 1.09 };
	const bool swapped[] = { false, true, false, true, false, true };
	/* the same rounds, all but one unswapped: too few to tell */
	const bool lopsided[] = { false, false, false, false, false, true };
	const double zero[] = { 100, 0, 100, 100, 100, 100 };
	struct bf_err err = BF_ERR_INIT;
	double effect, p;

	(void)state;
	assert_int_equal(bf_paired_core_effect(&effect, &p, base, patch,
	                                       swapped, 6, &err),
	                 0);
	assert_float_equal(effect, (sqrt(1.10 * 1.10) - 1), 1e-12);
	assert_float_equal(p, 2.0 / 20, 1e-12);
	/* the first core slower: the same rounds with the sides swapped */
	assert_int_equal(bf_paired_core_effect(&effect, &p, patch, base,
	                                       swapped, 6, &err),
	                 0);
	assert_float_equal(effect, (1 / 1.1 - 1), 1e-12);
	assert_int_equal(bf_paired_core_effect(&effect, &p, base, patch,
	                                       lopsided, 6, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "5 rounds with base on the first core "
	                                "and 1 with it on the second"));
	assert_int_equal(bf_paired_core_effect(&effect, &p, zero, patch,
	                                       swapped, 6, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "round 2: the base value 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired__sign_test_by_hand),
		cmocka_unit_test(test_paired__one_sided_outliers),
		cmocka_unit_test(test_paired__regressed_by_hand),
		cmocka_unit_test(test_paired__shared_noise_cancels),
		cmocka_unit_test(test_paired__few_rounds_and_bad_values),
		cmocka_unit_test(test_paired__core_effect_by_hand),
	};

	return cmocka_run_group_tests_name("stats_paired", tests, NULL, NULL);
}
