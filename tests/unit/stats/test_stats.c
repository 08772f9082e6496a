/*
 * Unit tests for stats: descriptive statistics, the random numbers,
 * the Mann-Whitney U test and the Benjamini-Hochberg adjustment.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "unit/testutil.h"

static void test_stats__descriptive_hand_checked(void **state)
{
	/* sorted: 1 2 3 4 10; deviations from the median 3: 0 1 1 2 7 */
	const double x[] = { 4, 1, 3, 2, 10 };
	const double even[] = { 4, 1, 3, 2 };
	struct bf_summary s;

	(void)state;
	assert_close(bf_stats_median(x, 5), 3, 0);
	assert_close(bf_stats_mean(x, 5), 4, 1e-15);
	/* squared deviations from 4 sum to 50; 50 / 4 = 12.5 */
	assert_close(bf_stats_stddev(x, 5), sqrt(12.5), 1e-15);
	assert_close(bf_stats_cv(x, 5), sqrt(12.5) / 4, 1e-15);
	assert_close(bf_stats_min(x, 5), 1, 0);
	assert_close(bf_stats_max(x, 5), 10, 0);
	assert_close(bf_stats_mad(x, 5), 1, 0);
	assert_close(bf_stats_mad_scaled(x, 5), 1.4826, 1e-15);
	/* numpy.percentile(x, [5, 95, 25, 33.3]) = 1.2 8.8 2 2.332 */
	assert_close(bf_stats_percentile(x, 5, 5), 1.2, 1e-12);
	assert_close(bf_stats_percentile(x, 5, 95), 8.8, 1e-12);
	assert_close(bf_stats_percentile(x, 5, 25), 2, 1e-12);
	assert_close(bf_stats_percentile(x, 5, 33.3), 2.332, 1e-12);
	assert_close(bf_stats_percentile(x, 5, 0), 1, 0);
	assert_close(bf_stats_percentile(x, 5, 100), 10, 0);
	assert_true(isnan(bf_stats_percentile(x, 5, 100.5)));
	/* even n: the mean of the middle pair; |x - 2.5| = 1.5 .5 .5 1.5 */
	assert_close(bf_stats_median(even, 4), 2.5, 0);
	assert_close(bf_stats_mad(even, 4), 1, 0);
	assert_close(bf_stats_percentile(even, 4, 5), 1.15, 1e-12);
	/* the input is not reordered */
	assert_close(x[0], 4, 0);
	assert_close(x[4], 10, 0);
	assert_close(even[0], 4, 0);

	bf_summary_compute(&s, x, 5);
	assert_int_equal(s.n, 5);
	assert_close(s.min, 1, 0);
	assert_close(s.max, 10, 0);
	assert_close(s.mean, 4, 1e-15);
	assert_close(s.stddev, sqrt(12.5), 1e-15);
	assert_close(s.cv, sqrt(12.5) / 4, 1e-15);
	assert_close(s.median, 3, 0);
	assert_close(s.mad, 1, 0);
	assert_close(s.p05, 1.2, 1e-12);
	assert_close(s.p95, 8.8, 1e-12);
}

static void test_stats__descriptive_edge_cases(void **state)
{
	const double one[] = { 7 };
	double dup[] = { 3, 3, 1, 3, 3, 2, 3 };
	struct bf_summary s;

	(void)state;
	assert_true(isnan(bf_stats_median(one, 0)));
	assert_true(isnan(bf_stats_mean(one, 0)));
	assert_close(bf_stats_stddev(one, 1), 0, 0);
	assert_close(bf_stats_median(one, 1), 7, 0);
	assert_close(bf_stats_median_inplace(dup, 7), 3, 0);
	bf_summary_compute(&s, one, 0);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));
	assert_true(isnan(s.p95));
	bf_summary_compute(&s, one, 1);
	assert_close(s.median, 7, 0);
	assert_close(s.p05, 7, 0);
	assert_close(s.stddev, 0, 0);
}

static void test_stats__median_inplace_matches_sorting(void **state)
{
	struct bf_rng rng;
	double a[41], b[41];

	(void)state;
	bf_rng_seed(&rng, 5);
	for (size_t n = 1; n <= 41; n++) {
		for (int round = 0; round < 50; round++) {
			for (size_t i = 0; i < n; i++)
				a[i] = b[i] = (double)bf_rng_below(&rng, 6);
			assert_close(bf_stats_median_inplace(a, n),
			             bf_stats_percentile(b, n, 50), 0);
		}
	}
}

static void test_stats__rng_reproducible_and_bounded(void **state)
{
	struct bf_rng a, b;
	int counts[3] = { 0, 0, 0 };

	(void)state;
	/*
	 * xoshiro256** seeded with splitmix64(42), checked against a Python
	 * transcription of the reference C code (prng.di.unimi.it).
	 */
	bf_rng_seed(&a, 42);
	assert_true(bf_rng_next_u64(&a) == UINT64_C(0x15780b2e0c2ec716));
	assert_true(bf_rng_next_u64(&a) == UINT64_C(0x6104d9866d113a7e));
	assert_true(bf_rng_next_u64(&a) == UINT64_C(0xae17533239e499a1));

	bf_rng_seed(&a, 7);
	bf_rng_seed(&b, 7);
	for (int i = 0; i < 3000; i++) {
		double u = bf_rng_uniform(&a);
		uint64_t k = bf_rng_below(&b, 3);

		assert_true(u >= 0 && u < 1);
		assert_true(k < 3);
		counts[k]++;
	}
	for (int k = 0; k < 3; k++)
		assert_true(counts[k] > 900 && counts[k] < 1100);
	assert_true(bf_rng_below(&a, 1) == 0);
}

struct mwu_case {
	const char *name;
	const double *x;
	size_t nx;
	const double *y;
	size_t ny;
	double u, p;
	bool exact;
};

/*
 * Reference values from an independent implementation, SciPy 1.10.1
 * (Debian 12 python3-scipy), which printed U and p for every case with:
 *
 * /usr/bin/python3 - <<'EOF'
 * from scipy.stats import mannwhitneyu
 * cases = [
 *     ("exact_doc", [19, 22, 16, 29, 24], [20, 11, 17, 12]),
 *     ("exact_separated", [1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),
 *     ("exact_3v7", [1.1, 2.3, 0.7], [3.4, 5.6, 2.2, 4.1, 6.0, 1.9, 7.2]),
 *     ("exact_8v8_middle", [1, 4, 5, 8, 9, 12, 13, 16],
 *      [2, 3, 6, 7, 10, 11, 14, 15]),
 *     ("exact_4v12", [10.5, 12.25, 9.75, 30.0],
 *      [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 11.0, 13.0, 14.0, 15.0]),
 *     ("exact_1v1", [1.0], [2.0]),
 *     ("ties_small", [1, 2, 2, 3, 4], [2, 3, 3, 5, 6]),
 *     ("normal_9v9", [10.1, 10.4, 9.8, 10.9, 10.2, 11.3, 9.6, 10.7, 10.0],
 *      [10.6, 11.2, 10.8, 11.9, 11.1, 10.3, 12.0, 11.5, 11.4]),
 *     ("normal_20v25",
 *      [101.2, 99.8, 100.5, 102.3, 98.7, 100.1, 101.9, 99.4, 100.8, 103.0,
 *       97.9, 100.3, 101.5, 99.1, 100.0, 102.7, 98.4, 101.1, 99.6, 100.6],
 *      [102.1, 103.4, 101.8, 104.2, 100.9, 102.6, 103.9, 101.3, 102.9, 105.1,
 *       100.2, 103.1, 104.6, 101.6, 102.4, 103.6, 99.9, 102.2, 104.0, 101.0,
 *       103.3, 102.8, 100.7, 104.9, 101.7]),
 *     ("ties_integers_15v15",
 *      [1, 2, 2, 3, 1, 4, 2, 3, 3, 1, 2, 4, 3, 2, 1],
 *      [3, 4, 2, 4, 3, 4, 3, 2, 4, 4, 3, 1, 4, 3, 2]),
 *     ("all_tied", [5, 5, 5], [5, 5, 5, 5]),
 *     ("one_extreme", [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1000.0],
 *      [1.05, 1.15, 1.25, 1.35, 1.45, 1.55, 1.65, 1.75, 1.85, 1.95]),
 *     ("normal_9v30_unequal",
 *      [5.1, 4.8, 5.5, 5.0, 4.9, 5.3, 5.2, 4.7, 5.4],
 *      [4.0, 4.2, 4.4, 4.6, 4.8, 5.0, 5.2, 5.4, 5.6, 5.8, 6.0, 6.2, 6.4, 6.6,
 *       6.8, 4.1, 4.3, 4.5, 4.7, 4.9, 5.05, 5.25, 5.45, 5.65, 5.85, 6.05,
 *       6.25, 6.45, 6.65, 6.85]),
 *     ("exact_5v30", [0.5, 1.5, 2.5, 3.5, 12.5],
 *      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
 *       21, 22, 23, 24, 25, 26, 27, 28, 29, 30]),
 * ]
 * for name, x, y in cases:
 *     r = mannwhitneyu(x, y, alternative="two-sided", method="auto",
 *                      use_continuity=True)
 *     print("%-22s U=%r p=%r" % (name, float(r.statistic), float(r.pvalue)))
 * EOF
 *
 * The exact flag is what SciPy's _mwu_choose_method() returned for each
 * case: exact when a sample has at most 8 values and there are no ties.
 */
static const struct mwu_case mwu_cases[] = {
	{ "exact_doc", VALUES(19, 22, 16, 29, 24), VALUES(20, 11, 17, 12), 17.0,
	  0.1111111111111111, true },
	{ "exact_separated", VALUES(1, 2, 3, 4, 5), VALUES(6, 7, 8, 9, 10), 0.0,
	  0.007936507936507936, true },
	{ "exact_3v7", VALUES(1.1, 2.3, 0.7),
	  VALUES(3.4, 5.6, 2.2, 4.1, 6.0, 1.9, 7.2), 2.0, 0.06666666666666667,
	  true },
	{ "exact_8v8_middle", VALUES(1, 4, 5, 8, 9, 12, 13, 16),
	  VALUES(2, 3, 6, 7, 10, 11, 14, 15), 32.0, 1.0, true },
	{ "exact_4v12", VALUES(10.5, 12.25, 9.75, 30.0),
	  VALUES(1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 11.0, 13.0, 14.0,
	         15.0),
	  37.0, 0.13296703296703297, true },
	{ "exact_1v1", VALUES(1.0), VALUES(2.0), 0.0, 1.0, true },
	{ "ties_small", VALUES(1, 2, 2, 3, 4), VALUES(2, 3, 3, 5, 6), 6.0,
	  0.19882894401644247, false },
	{ "normal_9v9",
	  VALUES(10.1, 10.4, 9.8, 10.9, 10.2, 11.3, 9.6, 10.7, 10.0),
	  VALUES(10.6, 11.2, 10.8, 11.9, 11.1, 10.3, 12.0, 11.5, 11.4), 11.0,
	  0.010444271101370226, false },
	{ "normal_20v25",
	  VALUES(101.2, 99.8, 100.5, 102.3, 98.7, 100.1, 101.9, 99.4, 100.8,
	         103.0, 97.9, 100.3, 101.5, 99.1, 100.0, 102.7, 98.4, 101.1,
	         99.6, 100.6),
	  VALUES(102.1, 103.4, 101.8, 104.2, 100.9, 102.6, 103.9, 101.3, 102.9,
	         105.1, 100.2, 103.1, 104.6, 101.6, 102.4, 103.6, 99.9, 102.2,
	         104.0, 101.0, 103.3, 102.8, 100.7, 104.9, 101.7),
	  75.0, 6.723590018984687e-05, false },
	{ "ties_integers_15v15",
	  VALUES(1, 2, 2, 3, 1, 4, 2, 3, 3, 1, 2, 4, 3, 2, 1),
	  VALUES(3, 4, 2, 4, 3, 4, 3, 2, 4, 4, 3, 1, 4, 3, 2), 64.5,
	  0.041212305793796304, false },
	{ "all_tied", VALUES(5, 5, 5), VALUES(5, 5, 5, 5), 6.0, 1.0, false },
	{ "one_extreme",
	  VALUES(1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1000.0),
	  VALUES(1.05, 1.15, 1.25, 1.35, 1.45, 1.55, 1.65, 1.75, 1.85, 1.95),
	  46.0, 0.7913367801006604, false },
	{ "normal_9v30_unequal",
	  VALUES(5.1, 4.8, 5.5, 5.0, 4.9, 5.3, 5.2, 4.7, 5.4),
	  VALUES(4.0, 4.2, 4.4, 4.6, 4.8, 5.0, 5.2, 5.4, 5.6, 5.8, 6.0, 6.2,
	         6.4, 6.6, 6.8, 4.1, 4.3, 4.5, 4.7, 4.9, 5.05, 5.25, 5.45, 5.65,
	         5.85, 6.05, 6.25, 6.45, 6.65, 6.85),
	  105.0, 0.32529645954827446, false },
	{ "exact_5v30", VALUES(0.5, 1.5, 2.5, 3.5, 12.5),
	  VALUES(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	         19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30),
	  18.0, 0.004737672194977697, true },
};

static void test_stats__mwu_matches_scipy(void **state)
{
	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(mwu_cases); i++) {
		const struct mwu_case *c = &mwu_cases[i];
		struct bf_err err = BF_ERR_INIT;
		struct bf_mwu_result r;

		print_message("mwu case %s\n", c->name);
		assert_int_equal(
		        bf_stats_mwu(&r, c->x, c->nx, c->y, c->ny, &err), 0);
		assert_close(r.u, c->u, 0);
		assert_close(r.p, c->p, 1e-6);
		/* in fact much closer than the 1e-6 asked for */
		assert_close(r.p, c->p, 1e-12);
		assert_int_equal(r.exact, c->exact);
	}
}

static void test_stats__mwu_is_symmetric(void **state)
{
	const struct mwu_case *c = &mwu_cases[0];
	struct bf_mwu_result a, b;

	(void)state;
	assert_int_equal(bf_stats_mwu(&a, c->x, c->nx, c->y, c->ny, NULL), 0);
	assert_int_equal(bf_stats_mwu(&b, c->y, c->ny, c->x, c->nx, NULL), 0);
	assert_close(a.u + b.u, (double)(c->nx * c->ny), 0);
	assert_close(a.p, b.p, 1e-15);
}

static void test_stats__mwu_rejects_empty_and_nan(void **state)
{
	const double x[] = { 1, 2, 3 };
	const double bad[] = { 1, NAN };
	struct bf_err err = BF_ERR_INIT;
	struct bf_mwu_result r;

	(void)state;
	assert_int_equal(bf_stats_mwu(&r, x, 3, x, 0, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "non-empty"));
	bf_err_clear(&err);
	assert_int_equal(bf_stats_mwu(&r, bad, 2, x, 3, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "NaN"));
}

static void test_stats__bh_matches_hand_computed(void **state)
{
	/*
	 * p sorted: .005 .01 .03 .04 .20 (ranks 1..5), p * 5 / rank:
	 * .025 .025 .05 .05 .20; running minimum from the top leaves them.
	 * In input order: .025 .05 .05 .025 .20.
	 */
	const double p1[] = { 0.01, 0.04, 0.03, 0.005, 0.20 };
	const double want1[] = { 0.025, 0.05, 0.05, 0.025, 0.20 };
	/* p * 5 / rank = .05 .05 .05 .05 .05: all equal */
	const double p2[] = { 0.01, 0.02, 0.03, 0.04, 0.05 };
	/*
	 * Monotonicity: .5 .8 .9 -> 1.5 1.2 .9, minimum from the top .9 .9 .9.
	 * Ties: .01 .01 .04 -> .03 .015 .04, then .015 .015 .04.
	 */
	const double p3[] = { 0.5, 0.9, 0.8 };
	const double p4[] = { 0.01, 0.04, 0.01 };
	const double want4[] = { 0.015, 0.04, 0.015 };
	double adj[5];

	(void)state;
	bf_stats_bh_adjust(adj, p1, 5);
	for (int i = 0; i < 5; i++)
		assert_close(adj[i], want1[i], 1e-15);
	bf_stats_bh_adjust(adj, p2, 5);
	for (int i = 0; i < 5; i++)
		assert_close(adj[i], 0.05, 1e-15);
	bf_stats_bh_adjust(adj, p3, 3);
	for (int i = 0; i < 3; i++)
		assert_close(adj[i], 0.9, 1e-15);
	bf_stats_bh_adjust(adj, p4, 3);
	for (int i = 0; i < 3; i++)
		assert_close(adj[i], want4[i], 1e-15);
}

static void test_stats__bh_nan_excluded_and_in_place(void **state)
{
	/* NaN is left out: the family is .02 .04, so .04 .04. */
	double p[] = { 0.02, NAN, 0.04 };
	/* capped at 1 even for (invalid) inputs above it */
	double q[] = { 1.5 };

	(void)state;
	bf_stats_bh_adjust(p, p, 3);
	assert_close(p[0], 0.04, 1e-15);
	assert_true(isnan(p[1]));
	assert_close(p[2], 0.04, 1e-15);
	bf_stats_bh_adjust(q, q, 1);
	assert_close(q[0], 1, 0);
	bf_stats_bh_adjust(q, q, 0);
}

/*
 * Values above DBL_MAX / 2 are finite and the parsers accept them: the
 * mean of two (the even median, a percentile between them, the summary)
 * must not overflow to infinity, nor the mean of such values.
 */
static void test_stats__means_of_two_near_dbl_max(void **state)
{
	const double big[] = { DBL_MAX, 0.9 * DBL_MAX, 0.8 * DBL_MAX,
		               0.7 * DBL_MAX };
	const double wide[] = { -DBL_MAX, DBL_MAX };
	double scratch[4];
	struct bf_summary s;

	(void)state;
	assert_close(bf_stats_median(big, 4), 0.85 * DBL_MAX, 1e-12 * DBL_MAX);
	memcpy(scratch, big, sizeof(big));
	assert_true(isfinite(bf_stats_median_inplace(scratch, 4)));
	assert_close(bf_stats_percentile(big, 4, 50), 0.85 * DBL_MAX,
	             1e-12 * DBL_MAX);
	assert_close(bf_stats_percentile(wide, 2, 50), 0, 0);
	assert_close(bf_stats_percentile(wide, 2, 75), DBL_MAX / 2,
	             1e-12 * DBL_MAX);
	assert_close(bf_stats_median(wide, 2), 0, 0);
	assert_close(bf_stats_mean(big, 4), 0.85 * DBL_MAX, 1e-12 * DBL_MAX);
	/* deviations 0.15, 0.05, 0.05, 0.15 of DBL_MAX: sd sqrt(0.05 / 3) */
	assert_close(bf_stats_stddev(big, 4), sqrt(0.05 / 3) * DBL_MAX,
	             1e-12 * DBL_MAX);
	assert_true(isfinite(bf_stats_mad(big, 4)));
	bf_summary_compute(&s, big, 4);
	assert_true(isfinite(s.median));
	assert_true(isfinite(s.mean));
	assert_true(isfinite(s.stddev) && isfinite(s.cv));
	assert_true(isfinite(s.p05) && isfinite(s.p95));
	assert_close(bf_stats_mid(DBL_MAX, DBL_MAX), DBL_MAX, 0);
	assert_close(bf_stats_mid(-DBL_MAX, -DBL_MAX), -DBL_MAX, 0);
	assert_close(bf_stats_mid(1, 2), 1.5, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats__descriptive_hand_checked),
		cmocka_unit_test(test_stats__descriptive_edge_cases),
		cmocka_unit_test(test_stats__median_inplace_matches_sorting),
		cmocka_unit_test(test_stats__means_of_two_near_dbl_max),
		cmocka_unit_test(test_stats__rng_reproducible_and_bounded),
		cmocka_unit_test(test_stats__mwu_matches_scipy),
		cmocka_unit_test(test_stats__mwu_is_symmetric),
		cmocka_unit_test(test_stats__mwu_rejects_empty_and_nan),
		cmocka_unit_test(test_stats__bh_matches_hand_computed),
		cmocka_unit_test(test_stats__bh_nan_excluded_and_in_place),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
