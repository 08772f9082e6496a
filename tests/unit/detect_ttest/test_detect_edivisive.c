/*
 * Unit tests for the E-divisive detector (core/src/detect_edivisive.c),
 * as Apache Otava computes it (Matteson and James, "A nonparametric
 * approach for multiple change point analysis", 2014). The expected
 * values are worked out by hand from its formulas (Q-hat, the t-test,
 * the split and merge steps); the arithmetic is in the comments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/detect_ttest/series.h"

/*
 * The changes E-divisive finds (parameters p, NULL: the defaults) in
 * the series of nlevels levels of seg values each, with noise amp from
 * seed (leveled); *c is malloc'd. Returns their number.
 */
static size_t ed_levels(struct bf_change **c, const struct bf_detect_params *p,
                        const double *levels, size_t nlevels, size_t seg,
                        double amp, uint32_t seed)
{
	double *x = leveled(levels, nlevels, seg, amp, seed);
	struct bf_detect_params def;
	struct bf_err err = BF_ERR_INIT;
	size_t nc = 99;

	if (!p) {
		bf_detect_params_default(&def, BF_DETECT_EDIVISIVE);
		p = &def;
	}
	assert_int_equal(bf_detect_edivisive(c, &nc, p, x, nlevels * seg, &err),
	                 0);
	free(x);
	return nc;
}

static void ed_params(struct bf_detect_params *p, double pvalue, int window)
{
	bf_detect_params_default(p, BF_DETECT_EDIVISIVE);
	p->ed_pvalue = pvalue;
	p->ed_window = window;
}

/* The window status for ed_pvalue = pv (its only use of the p-value). */
static const char *ed_status(const double *x, size_t n, double pv)
{
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_err err = BF_ERR_INIT;

	ed_params(&p, pv, 50);
	assert_int_equal(bf_detect_edivisive_window(&w, &p, x, n, &err), 0);
	return w.status;
}

/*
 * z = 0 1 3. Q-hat for each (tau, kappa), X = z[0..tau), Y =
 * z[tau..kappa), the n - 1 and m - 1 terms dropped when n or m is 1:
 *   (1, 2): X = {0}, Y = {1}: 2/2 * 1 = 1
 *   (1, 3): X = {0}, Y = {1, 3}: 2/3 (1 + 3) - 2*1/(3*1) * |1-3|
 *           = 8/3 - 4/3 = 4/3
 *   (2, 3): X = {0, 1}, Y = {3}: 2/3 (3 + 2) - 2*1/(3*1) * |0-1|
 *           = 10/3 - 2/3 = 8/3      <- the maximum: tau = 2
 * t-test (Otava: np.std with ddof 0, pooled with n - 1 weights):
 *   left {0, 1}: mean 0.5, std 0.5; right {3}: mean 3, std 0; df = 1;
 *   s^2 = (1 * 0.25 + 0) / 1 = 0.25;
 *   t = -2.5 / sqrt(0.25 * (1/2 + 1)) = -2.5 / sqrt(0.375) = -10/sqrt(6);
 * with 1 df Student's t is Cauchy: p = 1 - (2/pi) atan(|t|) = 0.152928.
 */
static void test_ed__qhat_by_hand(void **state)
{
	const double x[] = { 0, 1, 3 };
	double pv = 1 - 2 / PI * atan(10 / sqrt(6));
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	ed_params(&p, 0.2, 50);
	assert_int_equal(bf_detect_edivisive_window(&w, &p, x, 3, &err), 0);
	assert_int_equal(w.turning_point, 2);
	assert_close(w.regression, 8.0 / 3, 1e-14);
	assert_close(w.step_size, 0.5 - 3, 1e-14);
	assert_true(isnan(w.least_squares));
	assert_string_equal(w.status, "High");
	assert_int_equal(w.direction, 1);
	/* p itself, bracketed to 1e-9 relative through the threshold */
	assert_close(pv, 0.152928, 1e-6);
	assert_string_equal(ed_status(x, 3, pv * (1 + 1e-9)), "High");
	assert_string_equal(ed_status(x, 3, pv * (1 - 1e-9)), "Uninteresting");
}

/*
 * Known Student t p-values through the t-test.
 * (a) t = 1, df = 1 -> p = 0.5 (Cauchy: 1 - (2/pi) atan 1). With
 *   s = sqrt(1.5), z = s -1 1: Q(1,2) = 1 + s = 2.2247; Q(1,3) =
 *   2/3 (2.2247 + 0.2247) - 2/3 * 2 = 0.3; Q(2,3) = 2/3 (0.2247 + 2)
 *   - 2/3 * 2.2247 = 0, so tau = 1: left {s}, right {-1, 1} (mean 0,
 *   std 1), s^2 = (0 + 1 * 1)/1 = 1, t = s / sqrt(1 * (1 + 1/2)) = 1.
 * (b) t = 2, df = 10 -> p = 0.07338803. Left -1 -1 1 -1 1 1 (mean 0,
 *   std 1), right d + (1 1 1 -1 -1 -1) with d = 2/sqrt(3) (mean d,
 *   std 1): s^2 = (5 + 5)/10 = 1, t = -d / sqrt(1/6 + 1/6)
 *   = -d sqrt(3) = -2.
 */
static void test_ed__ttest_known_pvalues(void **state)
{
	double s = sqrt(1.5), d = 2 / sqrt(3);
	const double a[] = { s, -1, 1 };
	const double b[] = { -1,    -1,    1,     -1,    1,     1,
		             d + 1, d + 1, d + 1, d - 1, d - 1, d - 1 };
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	ed_params(&p, 0.6, 50);
	assert_int_equal(bf_detect_edivisive_window(&w, &p, a, 3, &err), 0);
	assert_int_equal(w.turning_point, 1);
	assert_close(w.regression, 1 + s, 1e-14);
	assert_string_equal(w.status, "Low");
	assert_int_equal(w.direction, -1);
	assert_string_equal(ed_status(a, 3, 0.5 + 1e-9), "Low");
	assert_string_equal(ed_status(a, 3, 0.5 - 1e-9), "Uninteresting");

	assert_int_equal(bf_detect_edivisive_window(&w, &p, b, 12, &err), 0);
	assert_int_equal(w.turning_point, 6);
	assert_close(w.step_size, -d, 1e-14);
	assert_string_equal(ed_status(b, 12, 0.07338804), "High");
	assert_string_equal(ed_status(b, 12, 0.07338802), "Uninteresting");
}

/* 100 / 130 / 80, 30 values each, noise +-2: steps at 30 and 60. */
static void test_ed__two_steps_in_three_levels(void **state)
{
	const double lv[] = { 100, 130, 80 };
	struct bf_change *c;

	(void)state;
	assert_int_equal(ed_levels(&c, NULL, lv, 3, 30, 2, 1), 2);
	assert_int_equal(c[0].index, 30);
	assert_int_equal(c[0].direction, 1);
	assert_close(c[0].before, 100, 1);
	assert_close(c[0].after, 130, 1);
	assert_close(c[0].size, 0.3, 0.02);
	assert_true(c[0].p_value < 1e-20);
	assert_true(c[0].score > 0);
	assert_int_equal(c[1].index, 60);
	assert_int_equal(c[1].direction, -1);
	assert_close(c[1].before, 130, 1);
	assert_close(c[1].after, 80, 1);
	assert_true(c[1].p_value < 1e-20);
	free(c);
}

/*
 * Otava's split step stops at the first rejected candidate. 100 / 130 /
 * 80 with 20 values each: in the window [0, 50) the best split is 20,
 * but tested against everything after it (130 x 20 and 80 x 10 mixed)
 * its p is about 0.014 > 0.01, so that window yields nothing; the
 * window from 25 finds 40, and over the whole series 20 never appears.
 */
static void test_ed__split_stops_at_first_rejection(void **state)
{
	const double lv[] = { 100, 130, 80 };
	struct bf_change *c;

	(void)state;
	assert_int_equal(ed_levels(&c, NULL, lv, 3, 20, 2, 1), 1);
	assert_int_equal(c[0].index, 40);
	assert_close(c[0].before, 115, 1); /* 100 and 130 together */
	free(c);
}

/*
 * A 1.4 step in noise +-2 at 100 of 200: its window [75, 125) gives a p
 * only under the first-pass level 10 * 0.001, but over the whole series
 * (100 values a side) p < 0.001. A first pass at 0.001 would miss it.
 */
static void test_ed__weak_points_retested(void **state)
{
	const double lv[] = { 100, 101.4 };
	struct bf_change *c;

	(void)state;
	assert_int_equal(ed_levels(&c, NULL, lv, 2, 100, 2, 5), 1);
	assert_int_equal(c[0].index, 100);
	assert_true(c[0].p_value < 0.001);
	assert_int_equal(c[0].direction, 1);
	free(c);
}

/* 200 values of noise: nothing, for three fixed sequences. */
static void test_ed__noise_only_finds_nothing(void **state)
{
	const double lv[] = { 100 };

	(void)state;
	for (uint32_t seed = 1; seed <= 3; seed++) {
		struct bf_change *c;

		assert_int_equal(ed_levels(&c, NULL, lv, 1, 200, 5, seed), 0);
		free(c);
	}
}

/*
 * A 2 % step with little noise is very significant; the merge step
 * keeps it with min_magnitude 0 and removes it with 0.05, since its
 * magnitude max(|102/100 - 1|, |100/102 - 1|) = 0.02 < 0.05.
 */
static void test_ed__merge_min_magnitude(void **state)
{
	const double lv[] = { 100, 102 };
	struct bf_detect_params p;
	struct bf_change *c;

	(void)state;
	bf_detect_params_default(&p, BF_DETECT_EDIVISIVE);
	assert_int_equal(ed_levels(&c, &p, lv, 2, 30, 0.2, 7), 1);
	assert_int_equal(c[0].index, 30);
	assert_close(c[0].size, 0.02, 0.002);
	free(c);
	p.ed_min_magnitude = 0.05;
	assert_int_equal(ed_levels(&c, &p, lv, 2, 30, 0.2, 7), 0);
	free(c);
	p.ed_min_magnitude = 0.01;
	assert_int_equal(ed_levels(&c, &p, lv, 2, 30, 0.2, 7), 1);
	free(c);
}

static void test_ed__degenerate_series(void **state)
{
	double flat[120];
	const double two[] = { 1, 5 };
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_change *c;
	size_t nc;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < NELEM(flat); i++)
		flat[i] = 0.1;
	bf_detect_params_default(&p, BF_DETECT_EDIVISIVE);
	assert_int_equal(bf_detect_edivisive(&c, &nc, &p, flat, 120, &err), 0);
	assert_int_equal(nc, 0);
	free(c);
	assert_int_equal(bf_detect_edivisive_window(&w, &p, flat, 120, &err),
	                 0);
	assert_close(w.regression, 0, 0);
	assert_close(w.step_size, 0, 0);
	assert_string_equal(w.status, "Uninteresting");
	assert_int_equal(w.direction, 0);

	for (size_t n = 0; n <= 2; n++) {
		const double *x = n == 2 ? two : flat;

		assert_int_equal(bf_detect_edivisive(&c, &nc, &p, x, n, &err),
		                 0);
		assert_int_equal(nc, 0);
		free(c);
		assert_int_equal(bf_detect_edivisive_window(&w, &p, x, n, &err),
		                 0);
		assert_false(isnan(w.regression));
		assert_false(isnan(w.step_size));
		assert_string_equal(w.status, "Uninteresting");
	}
}

/* E-divisive through the façade (bf_detect_series), as detect calls it. */
static size_t ed_series(struct bf_change **c, const double *x, size_t n)
{
	struct bf_detect_params p;
	struct bf_err err = BF_ERR_INIT;
	size_t nc = 99;

	bf_detect_params_default(&p, BF_DETECT_EDIVISIVE);
	assert_int_equal(bf_detect_series(c, &nc, &p, x, n, &err), 0);
	return nc;
}

/*
 * Missing values (NaN) are dropped before the fit and the change is
 * reported at its index in the input: 30 values at 100 then 30 at 120
 * (noise +-1); with 5, 29, 30 and 40 missing, the first value after the
 * step is input index 31. A series of only missing values has no
 * change; an infinity is an error.
 */
static void test_ed__missing_values(void **state)
{
	const double lv[] = { 100, 120 };
	double *x = leveled(lv, 2, 30, 1, 7);
	double nan_only[8], single[3] = { NAN, 5, NAN };
	struct bf_detect_params p;
	struct bf_change *c = NULL;
	size_t nc;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	x[5] = x[29] = x[30] = x[40] = NAN;
	assert_int_equal(ed_series(&c, x, 60), 1);
	assert_int_equal(c[0].index, 31);
	assert_int_equal(c[0].direction, 1);
	assert_close(c[0].before, 100, 1);
	assert_close(c[0].after, 120, 1);
	free(c);
	for (size_t i = 0; i < NELEM(nan_only); i++)
		nan_only[i] = NAN;
	assert_int_equal(ed_series(&c, nan_only, NELEM(nan_only)), 0);
	free(c);
	/* one point among missing ones */
	assert_int_equal(ed_series(&c, single, 3), 0);
	free(c);
	x[10] = INFINITY;
	bf_detect_params_default(&p, BF_DETECT_EDIVISIVE);
	assert_int_equal(bf_detect_series(&c, &nc, &p, x, 60, &err), BF_EINVAL);
	free(x);
}

/*
 * Shorter than the window (50): the whole series is the one window.
 * 12 values, 10 +- 0.2 then 20 +- 0.2: the change at 6. The smallest
 * series with a change has 3 points: 1 1 10 splits into 1 1 | 10, both
 * sides with a standard deviation of 0 (np.std, one point counts 0),
 * so t is infinite and p = 0 (reference 6.3). Two points are never a
 * change (p = 1 when the sides hold 2 points together), and 3 equal
 * points are none either.
 */
static void test_ed__shorter_than_window(void **state)
{
	const double twelve[] = { 10, 10.1, 9.9,  10, 10.2, 9.8,
		                  20, 20.1, 19.9, 20, 20.2, 19.8 };
	const double three[] = { 1, 1, 10 };
	const double same[] = { 5, 5, 5 };
	struct bf_change *c = NULL;

	(void)state;
	assert_int_equal(ed_series(&c, twelve, NELEM(twelve)), 1);
	assert_int_equal(c[0].index, 6);
	free(c);
	assert_int_equal(ed_series(&c, three, 3), 1);
	assert_int_equal(c[0].index, 2);
	assert_int_equal(c[0].direction, 1);
	free(c);
	assert_int_equal(ed_series(&c, three + 1, 2), 0);
	free(c);
	assert_int_equal(ed_series(&c, same, 3), 0);
	free(c);
}

static void test_ed__rejects_bad_params(void **state)
{
	struct bf_detect_params p;

	(void)state;
	ed_params(&p, 0.001, 1);
	expect_einval(&p, "ed_window");
	ed_params(&p, 0.001, 0);
	expect_einval(&p, "ed_window");
	ed_params(&p, 0, 50);
	expect_einval(&p, "ed_pvalue");
	ed_params(&p, 1, 50);
	expect_einval(&p, "ed_pvalue");
	ed_params(&p, NAN, 50);
	expect_einval(&p, "ed_pvalue");
	ed_params(&p, 0.001, 50);
	p.ed_min_magnitude = -0.1;
	expect_einval(&p, "ed_min_magnitude");
}

/*
 * 1000 values, a level change every 100: every step is found, at its
 * index (the speed is measured by bench/, not here).
 */
static void test_ed__thousand_points_nine_steps(void **state)
{
	const double lv[] = { 100, 110, 100, 120, 90, 100, 130, 100, 115, 100 };
	struct bf_change *c;

	(void)state;
	assert_int_equal(ed_levels(&c, NULL, lv, NELEM(lv), 100, 2, 1), 9);
	for (size_t k = 0; k < 9; k++)
		assert_int_equal(c[k].index, 100 * (k + 1));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ed__qhat_by_hand),
		cmocka_unit_test(test_ed__ttest_known_pvalues),
		cmocka_unit_test(test_ed__two_steps_in_three_levels),
		cmocka_unit_test(test_ed__split_stops_at_first_rejection),
		cmocka_unit_test(test_ed__weak_points_retested),
		cmocka_unit_test(test_ed__noise_only_finds_nothing),
		cmocka_unit_test(test_ed__merge_min_magnitude),
		cmocka_unit_test(test_ed__degenerate_series),
		cmocka_unit_test(test_ed__missing_values),
		cmocka_unit_test(test_ed__shorter_than_window),
		cmocka_unit_test(test_ed__rejects_bad_params),
		cmocka_unit_test(test_ed__thousand_points_nine_steps),
	};

	return cmocka_run_group_tests_name("detect_edivisive", tests, NULL,
	                                   NULL);
}
