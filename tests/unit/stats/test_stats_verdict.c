/*
 * Unit tests for the comparison of two samples: the bootstrap interval,
 * the verdict rule, comparing samples, the FDR step, and the simulated
 * A/A false-verdict rate and power.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "unit/testutil.h"

/* Box-Muller; 1 - u keeps the logarithm finite. */
static double normal01(struct bf_rng *rng)
{
	double u1 = 1 - bf_rng_uniform(rng), u2 = bf_rng_uniform(rng);

	return sqrt(-2 * log(u1)) * cos(2 * PI * u2);
}

/* n lognormal values with median `median` and coefficient of variation cv. */
static void lognormal(double *out, size_t n, double median, double cv,
                      struct bf_rng *rng)
{
	double sigma = sqrt(log(1 + cv * cv));

	for (size_t i = 0; i < n; i++)
		out[i] = median * exp(sigma * normal01(rng));
}

static void test_stats__bootstrap_reproducible_with_seed(void **state)
{
	double base[12], patch[12], lo1, hi1, lo2, hi2, lo3, hi3;
	struct bf_rng rng;

	(void)state;
	bf_rng_seed(&rng, 11);
	lognormal(base, 12, 100, 0.05, &rng);
	lognormal(patch, 12, 103, 0.05, &rng);
	assert_int_equal(bf_stats_bootstrap_median_change(&lo1, &hi1, base, 12,
	                                                  patch, 12, 2000, 0.95,
	                                                  99, NULL),
	                 0);
	assert_int_equal(bf_stats_bootstrap_median_change(&lo2, &hi2, base, 12,
	                                                  patch, 12, 2000, 0.95,
	                                                  99, NULL),
	                 0);
	assert_int_equal(bf_stats_bootstrap_median_change(&lo3, &hi3, base, 12,
	                                                  patch, 12, 2000, 0.95,
	                                                  100, NULL),
	                 0);
	assert_true(lo1 == lo2 && hi1 == hi2);
	assert_true(lo1 != lo3 || hi1 != hi3);
	assert_true(lo1 < hi1);
}

static void test_stats__bootstrap_ci_contains_true_shift(void **state)
{
	const int trials = 100;
	double base[20], patch[20], lo, hi;
	struct bf_rng rng;
	int covered = 0;

	(void)state;
	bf_rng_seed(&rng, 2024);
	lognormal(base, 20, 100, 0.03, &rng);
	lognormal(patch, 20, 120, 0.03, &rng);
	assert_int_equal(bf_stats_bootstrap_median_change(&lo, &hi, base, 20,
	                                                  patch, 20, 2000, 0.95,
	                                                  1, NULL),
	                 0);
	print_message("20%% shift: 95%% interval [%.4f, %.4f]\n", lo, hi);
	assert_true(lo < 0.20 && 0.20 < hi);
	assert_true(lo > 0.10 && hi < 0.30);

	/* a 95% interval covers the true change in about 95% of samples */
	for (int i = 0; i < trials; i++) {
		bf_rng_seed(&rng, 300 + (uint64_t)i);
		lognormal(base, 20, 100, 0.03, &rng);
		lognormal(patch, 20, 120, 0.03, &rng);
		assert_int_equal(bf_stats_bootstrap_median_change(
		                         &lo, &hi, base, 20, patch, 20, 2000,
		                         0.95, (uint64_t)i, NULL),
		                 0);
		covered += lo <= 0.20 && 0.20 <= hi;
	}
	print_message("20%% shift: %d of %d intervals cover it\n", covered,
	              trials);
	assert_true(covered >= 88);
}

static void test_stats__bootstrap_rejects_bad_input(void **state)
{
	const double zero[] = { 0, 0, 1 };
	const double x[] = { 1, 2, 3 };
	struct bf_err err = BF_ERR_INIT;
	double lo = -7, hi = -7;

	(void)state;
	assert_int_equal(bf_stats_bootstrap_median_change(
	                         &lo, &hi, zero, 3, x, 3, 100, 0.95, 1, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "median is 0"));
	assert_close(lo, -7, 0);
	assert_int_equal(bf_stats_bootstrap_median_change(&lo, &hi, x, 3, x, 3,
	                                                  100, 1.0, 1, &err),
	                 BF_EINVAL);
	assert_int_equal(bf_stats_bootstrap_median_change(&lo, &hi, x, 0, x, 3,
	                                                  100, 0.95, 1, &err),
	                 BF_EINVAL);
}

static struct bf_compare_result made_result(double p, double lo, double hi,
                                            bool higher_is_better)
{
	struct bf_compare_result r;

	memset(&r, 0, sizeof(r));
	r.base.n = r.patch.n = 10;
	r.p_value = r.p_adjusted = p;
	r.ci_low = lo;
	r.ci_high = hi;
	r.effect = (lo + hi) / 2;
	r.higher_is_better = higher_is_better;
	return r;
}

static void test_stats__verdict_rule_and_direction(void **state)
{
	struct bf_compare_opts opts = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;

	(void)state;
	/* lower is better: a slower patch regresses */
	r = made_result(0.001, 0.05, 0.10, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_REGRESSED);
	r = made_result(0.001, -0.10, -0.05, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_IMPROVED);
	/* higher is better: the same intervals mean the opposite */
	r = made_result(0.001, 0.05, 0.10, true);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_IMPROVED);
	r = made_result(0.001, -0.10, -0.05, true);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_REGRESSED);
	/* beyond min_effect but not significant: unknown */
	r = made_result(0.05, 0.05, 0.10, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_UNKNOWN);
	/*
	 * Significant, and the point estimate (0.06) beyond min_effect
	 * (0.01): regressed, though the interval reaches inside it. The
	 * interval asked to lie wholly beyond would find a true change of
	 * exactly min_effect half the time at most.
	 */
	r = made_result(0.001, 0.005, 0.115, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_REGRESSED);
	r = made_result(0.001, -0.115, -0.005, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_IMPROVED);
	/* significant, the estimate (0.008) within min_effect: not a verdict */
	r = made_result(0.001, 0.001, 0.015, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_UNKNOWN);
	/* the estimate exactly min_effect is not beyond it */
	r = made_result(0.001, 0.005, 0.015, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_UNKNOWN);
	/* inside [-min_effect, min_effect], even when significant */
	r = made_result(0.5, -0.01, 0.01, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_SAME);
	r = made_result(0.001, 0.002, 0.008, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_SAME);
	/* wider than the band and not significant */
	r = made_result(0.5, -0.03, 0.01, false);
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_UNKNOWN);
	/* too few samples */
	r = made_result(0.001, 0.05, 0.10, false);
	r.patch.n = 2;
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_UNKNOWN);
	/* NULL opts are the defaults */
	r = made_result(0.001, 0.05, 0.10, false);
	assert_int_equal(bf_compare_verdict(&r, NULL), BF_VERDICT_REGRESSED);
	opts.min_effect = 0.08; /* the estimate is 0.075 */
	assert_int_equal(bf_compare_verdict(&r, &opts), BF_VERDICT_UNKNOWN);
	/* the defaults: alpha 0.01, min_effect 0.01 */
	opts = (struct bf_compare_opts)BF_COMPARE_OPTS_INIT;
	assert_true(opts.alpha == 0.01 && opts.min_effect == 0.01);
	r = made_result(0.02, 0.05, 0.10, false);
	assert_int_equal(bf_compare_verdict(&r, NULL), BF_VERDICT_UNKNOWN);
}

/*
 * The least p a number of runs can give, and the runs a verdict needs:
 * 2 / C(2n, n) while the U test is exact, the normal approximation
 * beyond (scipy.stats.mannwhitneyu(range(10), range(10, 20)) gives
 * 0.00018267); the sign test's 2 / 2^n for duet rounds.
 */
static void test_stats__min_p_and_runs(void **state)
{
	(void)state;
	assert_close(bf_stats_min_p(5, 5, false), 2.0 / 252, 1e-15);
	assert_close(bf_stats_min_p(4, 4, false), 2.0 / 70, 1e-15);
	assert_close(bf_stats_min_p(10, 10, false), 0.00018267, 1e-7);
	assert_close(bf_stats_min_p(6, 6, true), 2.0 / 64, 1e-15);
	assert_close(bf_stats_min_p(0, 5, false), 1, 0);
	assert_int_equal(bf_stats_min_runs(0.05, 1, false), 4);
	assert_int_equal(bf_stats_min_runs(0.01, 1, false), 5);
	/* two series: 2/252 * 2 = 0.016 is not below 0.01; 2/924 * 2 is */
	assert_int_equal(bf_stats_min_runs(0.01, 2, false), 6);
	/* 2 / 2^8 = 0.0078 */
	assert_int_equal(bf_stats_min_runs(0.01, 1, true), 8);
	/* a tiny alpha takes many runs, and still ends */
	assert_true(bf_stats_min_runs(1e-300, 1, false) > 100);
	assert_true(bf_stats_min_runs(1e-300, 1, false) <
	            BF_STATS_MIN_RUNS_NONE);
}

static void test_stats__verdict_names(void **state)
{
	(void)state;
	assert_string_equal(bf_verdict_name(BF_VERDICT_SAME), "same");
	assert_string_equal(bf_verdict_name(BF_VERDICT_REGRESSED), "regressed");
	assert_string_equal(bf_verdict_name(BF_VERDICT_IMPROVED), "improved");
	assert_string_equal(bf_verdict_name(BF_VERDICT_UNKNOWN), "unknown");
}

static void test_stats__compare_samples_directions(void **state)
{
	struct bf_compare_opts opts = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;
	double base[10], slow[10], fast[10];
	struct bf_rng rng;

	(void)state;
	bf_rng_seed(&rng, 3);
	lognormal(base, 10, 100, 0.03, &rng);
	lognormal(slow, 10, 120, 0.03, &rng);
	lognormal(fast, 10, 80, 0.03, &rng);
	assert_int_equal(
	        bf_compare_samples(&r, base, 10, slow, 10, &opts, &err), 0);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
	assert_close(r.effect, r.patch.median / r.base.median - 1, 1e-15);
	assert_true(r.ci_low < r.effect && r.effect < r.ci_high);
	assert_true(r.p_value < 0.001);
	assert_true(r.p_adjusted == r.p_value);
	assert_close(r.u, 100, 0); /* every patch value is larger */
	assert_int_equal(r.base.n, 10);

	assert_int_equal(
	        bf_compare_samples(&r, base, 10, fast, 10, &opts, &err), 0);
	assert_int_equal(r.verdict, BF_VERDICT_IMPROVED);
	assert_true(r.effect < -0.15);

	/* a throughput that went up 20% is an improvement */
	opts.higher_is_better = true;
	assert_int_equal(
	        bf_compare_samples(&r, base, 10, slow, 10, &opts, &err), 0);
	assert_int_equal(r.verdict, BF_VERDICT_IMPROVED);
	assert_true(r.higher_is_better);
	assert_int_equal(
	        bf_compare_samples(&r, base, 10, fast, 10, &opts, &err), 0);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);

	/*
	 * The same low-noise sample on both sides: same. (At CV 3% and 10
	 * values the interval is wider than +-2%, so that would be unknown.)
	 */
	lognormal(base, 10, 100, 0.005, &rng);
	assert_int_equal(bf_compare_samples(&r, base, 10, base, 10, NULL, &err),
	                 0);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
	assert_close(r.effect, 0, 0);
	assert_close(r.p_value, 1, 0);
}

static void test_stats__compare_few_samples_unknown(void **state)
{
	const double base[] = { 100, 101, 99 };
	const double patch[] = { 150, 151 };
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_compare_samples(&r, base, 3, patch, 2, NULL, &err),
	                 0);
	assert_int_equal(r.verdict, BF_VERDICT_UNKNOWN);
	assert_close(r.effect, 0.505, 1e-12);
	assert_false(isnan(r.p_value));
	assert_true(isnan(r.ci_low) && isnan(r.ci_high));
	assert_int_equal(bf_compare_samples(&r, base, 3, patch, 0, NULL, &err),
	                 0);
	assert_int_equal(r.verdict, BF_VERDICT_UNKNOWN);
	assert_true(isnan(r.p_value) && isnan(r.effect));
	assert_int_equal(r.patch.n, 0);
}

static void test_stats__compare_rejects_bad_input(void **state)
{
	const double zero[] = { 0, 0, 0, 1 };
	const double x[] = { 1, 2, 3, 4 };
	const double bad[] = { 1, 2, NAN, 4 };
	struct bf_compare_opts opts = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_compare_samples(&r, zero, 4, x, 4, NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "base median is 0"));
	assert_int_equal(bf_compare_samples(&r, x, 4, bad, 4, NULL, &err),
	                 BF_EINVAL);
	opts.alpha = 0;
	assert_int_equal(bf_compare_samples(&r, x, 4, x, 4, &opts, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "alpha"));
}

static void test_stats__apply_fdr_recomputes_verdicts(void **state)
{
	struct bf_compare_opts opts = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r[4];

	(void)state;
	opts.alpha = 0.05;
	/*
	 * Raw p .001 .03 .04 .5: adjusted .004 .0533 .0533 .5. The first
	 * stays regressed, the (higher-is-better) second and the third lose
	 * significance, the fourth stays same.
	 */
	r[0] = made_result(0.001, 0.05, 0.10, false);
	r[1] = made_result(0.03, -0.10, -0.05, true);
	r[2] = made_result(0.04, -0.10, -0.05, false);
	r[3] = made_result(0.5, -0.01, 0.01, false);
	for (int i = 0; i < 4; i++)
		r[i].verdict = bf_compare_verdict(&r[i], &opts);
	assert_int_equal(r[1].verdict, BF_VERDICT_REGRESSED);
	assert_int_equal(r[2].verdict, BF_VERDICT_IMPROVED);
	bf_compare_apply_fdr(r, 4, &opts);
	assert_close(r[0].p_adjusted, 0.004, 1e-15);
	assert_close(r[1].p_adjusted, 0.04 * 4 / 3, 1e-15);
	assert_close(r[2].p_adjusted, 0.04 * 4 / 3, 1e-15);
	assert_close(r[3].p_adjusted, 0.5, 1e-15);
	assert_close(r[1].p_value, 0.03, 0);
	assert_int_equal(r[0].verdict, BF_VERDICT_REGRESSED);
	assert_int_equal(r[1].verdict, BF_VERDICT_UNKNOWN);
	assert_int_equal(r[2].verdict, BF_VERDICT_UNKNOWN);
	assert_int_equal(r[3].verdict, BF_VERDICT_SAME);
}

#define SIM_N  10
#define SIM_CV 0.03

/*
 * The verdict of one simulated comparison with the default opts: SIM_N
 * values a side, both lognormal with CV SIM_CV and drawn from seed, the
 * base's median 100 and the patch's patch_median.
 */
static enum bf_verdict simulated_verdict(uint64_t seed, double patch_median)
{
	double base[SIM_N], patch[SIM_N];
	struct bf_compare_result r;
	struct bf_rng rng;

	bf_rng_seed(&rng, seed);
	lognormal(base, SIM_N, 100, SIM_CV, &rng);
	lognormal(patch, SIM_N, patch_median, SIM_CV, &rng);
	assert_int_equal(
	        bf_compare_samples(&r, base, SIM_N, patch, SIM_N, NULL, NULL),
	        0);
	return r.verdict;
}

/*
 * The A/A quality bar: A/A pairs (both sides from one lognormal
 * distribution, CV 3%, 10 values a side, a different seed per pair)
 * judged with the default opts get fewer than 1% regressed or improved.
 */
static void test_stats__aa_false_verdicts_below_one_percent(void **state)
{
	const int pairs = 1000;
	int count[4] = { 0, 0, 0, 0 }, false_verdicts;

	(void)state;
	for (int i = 0; i < pairs; i++)
		count[simulated_verdict(1000 + (uint64_t)i, 100)]++;
	false_verdicts =
	        count[BF_VERDICT_REGRESSED] + count[BF_VERDICT_IMPROVED];
	print_message(
	        "A/A: %d pairs: %d regressed, %d improved, %d same, %d unknown\n",
	        pairs, count[BF_VERDICT_REGRESSED], count[BF_VERDICT_IMPROVED],
	        count[BF_VERDICT_SAME], count[BF_VERDICT_UNKNOWN]);
	assert_true(false_verdicts < pairs / 100);
}

/* A 20% slowdown at the same noise is reported in >= 99% of trials. */
static void test_stats__power_for_20_percent_slowdown(void **state)
{
	const int trials = 200;
	int regressed = 0;

	(void)state;
	for (int i = 0; i < trials; i++)
		regressed += simulated_verdict(5000 + (uint64_t)i, 120) ==
		             BF_VERDICT_REGRESSED;
	print_message("20%% slowdown: %d of %d trials regressed\n", regressed,
	              trials);
	assert_true(regressed * 100 >= trials * 99);
}

/*
 * Six runs a side, each above DBL_MAX / 2 (finite values the parsers
 * accept): the even medians are finite, and a 10% slowdown reads
 * regressed, not unknown.
 */
static void test_stats__compare_near_dbl_max(void **state)
{
	double base[6], patch[6];
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (int i = 0; i < 6; i++) {
		base[i] = 0.8 * DBL_MAX + i * 1e-4 * DBL_MAX;
		patch[i] = 1.1 * 0.8 * DBL_MAX + i * 1e-4 * DBL_MAX;
	}
	assert_int_equal(bf_compare_samples(&r, base, 6, patch, 6, NULL, &err),
	                 0);
	assert_true(isfinite(r.base.median) && isfinite(r.patch.median));
	assert_close(r.effect, 0.1, 1e-3);
	assert_int_equal(r.verdict, BF_VERDICT_REGRESSED);
}

/*
 * A value below 0 on either side: patch / base - 1 flips its sign when
 * the base is negative, so -10 against -5 (larger, worse for a
 * lower-is-better metric) would read improved. Refused, saying why.
 */
static void test_stats__compare_refuses_negative_values(void **state)
{
	const double base[] = { -10, -10.1, -9.9, -10, -10.05, -9.95 };
	const double patch[] = { -5, -5.1, -4.9, -5, -5.05, -4.95 };
	const double pos[] = { 10, 10.1, 9.9, 10, 10.05, 9.95 };
	struct bf_compare_opts wide = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	/* resampled medians of 6 values spread +-1%: inside 2% */
	wide.min_effect = 0.02;
	assert_int_equal(bf_compare_samples(&r, base, 6, patch, 6, NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "negative"));
	assert_non_null(strstr(err.msg, "base"));
	assert_int_equal(bf_compare_samples(&r, pos, 6, patch, 6, NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "patch"));
	assert_int_equal(bf_compare_samples(&r, pos, 6, pos, 6, &wide, &err),
	                 0);
	assert_int_equal(r.verdict, BF_VERDICT_SAME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats__min_p_and_runs),
		cmocka_unit_test(test_stats__bootstrap_reproducible_with_seed),
		cmocka_unit_test(test_stats__bootstrap_ci_contains_true_shift),
		cmocka_unit_test(test_stats__bootstrap_rejects_bad_input),
		cmocka_unit_test(test_stats__verdict_rule_and_direction),
		cmocka_unit_test(test_stats__verdict_names),
		cmocka_unit_test(test_stats__compare_samples_directions),
		cmocka_unit_test(test_stats__compare_few_samples_unknown),
		cmocka_unit_test(test_stats__compare_rejects_bad_input),
		cmocka_unit_test(test_stats__compare_near_dbl_max),
		cmocka_unit_test(test_stats__compare_refuses_negative_values),
		cmocka_unit_test(test_stats__apply_fdr_recomputes_verdicts),
		cmocka_unit_test(
		        test_stats__aa_false_verdicts_below_one_percent),
		cmocka_unit_test(test_stats__power_for_20_percent_slowdown),
	};

	return cmocka_run_group_tests_name("stats_verdict", tests, NULL, NULL);
}
