/*
 * Unit tests for Skia Perf's step fit (core/src/detect_skia.c,
 * detect_skia_mwu.c, with the runs of flagged positions of
 * detect_stepfit.c): every variant's window and the scan of a series,
 * every expected value worked out from the formulas of stepfit.go.
 * Skia's float32 values follow Skia: each line of arithmetic below is
 * one binary32 operation, rounded.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/detect_stepfit/stepfit.h"

/* ---- Skia original (§1.4, float32 §1.11) ----------------------------- */

static void test_skia__original_float32(void **state)
{
	/*
	 * Window 1 2 5 5 5 (2r+1 = 5, split at 2). In real numbers: mean
	 * 3.6, sigma^2 = (6.76+2.56+3*1.96)/5 = 3.04, y0 = -2.1/s, y1 = 1.4/s,
	 * step = -3.5/s, D = .5/s^2, lse = sqrt(.5)/s/5, Regression = -17.5
	 * sqrt(2) = -24.748737341529164, float32 -24.748737335205078.
	 * In binary32 (§1.11), one rounding per operation:
	 *   mean: sum 15 / 5 = 3.5999999046325684 (3.6 is not a float)
	 *   deviations -2.5999999 -1.5999999 1.4000001 (x3); squares
	 *   6.7599993 2.5599997 1.9600003 (x3); sum left to right
	 *   15.199999; / 5 = 3.0399997; sqrt = 1.7435595 (1.74355947971344)
	 *   normalised: -1.4912024 -0.91766292 0.80295515 (x3)
	 *   y0 = -2.4088652 / 2 = -1.2044326; y1 = 2.4088655 / 3 = 0.80295515
	 *   SSE(L) = 0.28676975^2 + 0.28676969^2 = 0.16447374; SSE(R) = 0
	 *   lse = sqrt(0.16447374) = 0.40555364 / 5 = 0.08111073076725006
	 *   step = y0 - y1 = -2.007387638092041
	 *   Regression = step / lse = -24.74873161315918
	 * three float32 ulps away from the real value rounded once.
	 */
	const double x[] = { 1, 2, 5, 5, 5 };
	struct bf_detect_params p = sk(BF_SKIA_ORIGINAL, 2, 50);
	struct bf_step_window w = sk_win(&p, x, 5);

	(void)state;
	assert_int_equal(w.turning_point, 2);
	assert_exact(w.step_size, -2.007387638092041);
	assert_exact(w.least_squares, 0.08111073076725006);
	assert_exact(w.regression, -24.74873161315918);
	assert_true(w.regression != (double)(float)(-17.5 * sqrt(2)));
	assert_string_equal(w.status, "Uninteresting");
	/* T equal to |Regression| (as a float32): High, inclusive */
	p.skia_interesting = 24.74873161315918;
	w = sk_win(&p, x, 5);
	assert_string_equal(w.status, "High");
	assert_int_equal(w.direction, 1);
	p.skia_interesting = nextafterf(24.74873161315918f, 100);
	w = sk_win(&p, x, 5);
	assert_string_equal(w.status, "Uninteresting");
	assert_int_equal(w.direction, 0);
}

static void test_skia__original_clamp(void **state)
{
	/*
	 * 10 10 12 12 12: mean 56/5 = 11.199999809265137, sigma =
	 * sqrt(.96) = 0.9797959327697754; normalised -1.2247447 (x2),
	 * 0.81649673 (x3). y0 = -1.2247447, step = y0 - y1 =
	 * -2.041241407394409 (real: -2/sqrt(.96) = -2.0412414523).
	 * In real numbers D = 0. In float32, y1 = 2.4494901 / 3 =
	 * 0.81649667 is one ulp (5.96e-8) below the values, so D =
	 * 3 * 5.96e-8^2 = 1.0658e-14 and lse = sqrt(D) / 5 =
	 * 2.0647654253025394e-08. Either way lse < smin = 0.001, so
	 * Regression = step / 0.001f (0.0010000000474974513) =
	 * -2041.2413330078125.
	 */
	struct bf_detect_params p = sk(BF_SKIA_ORIGINAL, 2, 50);
	struct bf_step_window w = sk_win(&p, VALUES(10, 10, 12, 12, 12));

	(void)state;
	assert_exact(w.step_size, -2.041241407394409);
	assert_exact(w.least_squares, 2.0647654253025394e-08);
	assert_exact(w.regression, -2041.2413330078125);
	assert_string_equal(w.status, "High");
	assert_int_equal(w.direction, 1);
	/* the mirror image steps down: positive Regression, Low */
	w = sk_win(&p, VALUES(12, 12, 10, 10, 10));
	assert_true(w.regression >= 50);
	assert_string_equal(w.status, "Low");
	assert_int_equal(w.direction, -1);
}

static void test_skia__original_constant(void **state)
{
	/*
	 * 5 5 5 5 5: sigma 0 is not > smin, so Norm only subtracts the mean:
	 * all 0. y0 == y1, so step = -1 and D = MaxFloat32:
	 *   sqrt(3.4028234663852886e38) = 1.844674352395373e19 in double,
	 *   2^64 - 2^40 = 18446742974197923840 as a float;
	 *   / 5 = 3.689348594839585e18 = lse (>= smin: no clamp)
	 *   Regression = -1 / lse = -2.7105056897077025e-19
	 */
	struct bf_detect_params p = sk(BF_SKIA_ORIGINAL, 2, 50);
	struct bf_step_window w = sk_win(&p, VALUES(5, 5, 5, 5, 5));
	struct bf_change *ch;
	double c[30];

	(void)state;
	assert_exact(w.step_size, -1);
	assert_exact(w.least_squares, 3.689348594839585e18);
	assert_exact(w.regression, -2.7105056897077025e-19);
	assert_string_equal(w.status, "Uninteresting");
	for (size_t i = 0; i < 30; i++)
		c[i] = 5;
	p.skia_radius = 7;
	assert_int_equal(sk_scan(&ch, &p, c, 30), 0);
	assert_null(ch);
}

/* ---- Skia absolute, percent, cohen (§1.4) ---------------------------- */

static void test_skia__absolute(void **state)
{
	/* 10 10 | 12 12: step = y0 - y1 = 10 - 12 = -2 = Regression */
	struct bf_detect_params p = sk(BF_SKIA_ABSOLUTE, 2, 2);
	struct bf_step_window w = sk_win(&p, VALUES(10, 10, 12, 12));

	(void)state;
	assert_int_equal(w.turning_point, 2);
	assert_exact(w.step_size, -2);
	assert_exact(w.regression, -2);
	assert_exact(w.least_squares, -1); /* InvalidLeastSquaresError */
	assert_string_equal(w.status, "High"); /* -2 <= -2 */
	assert_int_equal(w.direction, 1);
	/* odd length: the last value is dropped, so 100 changes nothing */
	w = sk_win(&p, VALUES(10, 10, 12, 12, 100));
	assert_exact(w.regression, -2);
	assert_int_equal(w.turning_point, 2);
	p.skia_interesting = 2.5;
	w = sk_win(&p, VALUES(10, 10, 12, 12));
	assert_string_equal(w.status, "Uninteresting");
	/* minimum length 2: 1 | 3 gives -2; a single value no result */
	w = sk_win(&p, VALUES(1, 3));
	assert_exact(w.step_size, -2);
	assert_int_equal(w.turning_point, 1);
	w = sk_win(&p, VALUES(1));
	assert_no_result(&w);
}

static void test_skia__percent(void **state)
{
	/*
	 * 10 10 | 3 3: (10 - 3) / 10 = 0.7, as float32 0.699999988079071.
	 * T = 0.7 is the same float32, so 0.69999999 >= 0.69999999: Low. (A
	 * double comparison with 0.7 would call it Uninteresting.)
	 */
	struct bf_detect_params p = sk(BF_SKIA_PERCENT, 2, 0.7);
	struct bf_step_window w = sk_win(&p, VALUES(10, 10, 3, 3));

	(void)state;
	assert_exact(w.regression, 0.699999988079071);
	assert_exact(w.step_size, 0.699999988079071);
	assert_exact(w.least_squares, -1);
	assert_string_equal(w.status, "Low");
	assert_int_equal(w.direction, -1);
	/* 0 0 | 5 5: -5 / 0 = -Inf -> -MaxFloat32 (y0 < y1) */
	w = sk_win(&p, VALUES(0, 0, 5, 5));
	assert_exact(w.regression, -FLT_MAX);
	assert_string_equal(w.status, "High");
	/* 0 0 | -5 -5: 5 / 0 = +Inf -> +MaxFloat32 */
	w = sk_win(&p, VALUES(0, 0, -5, -5));
	assert_exact(w.regression, FLT_MAX);
	assert_string_equal(w.status, "Low");
	/* 0 0 | 0 0: 0 / 0 = NaN -> 0 */
	w = sk_win(&p, VALUES(0, 0, 0, 0));
	assert_exact(w.regression, 0);
	assert_string_equal(w.status, "Uninteresting");
}

static void test_skia__cohen(void **state)
{
	/*
	 * 0 2 4 | 10 12 14: y0 = 2, y1 = 12; s1 = sqrt((4+0+4)/2) = 2,
	 * s2 = 2, s = (2 + 2) / 2 = 2; d = (2 - 12) / 2 = -5
	 */
	struct bf_detect_params p = sk(BF_SKIA_COHEN, 3, 5);
	struct bf_step_window w = sk_win(&p, VALUES(0, 2, 4, 10, 12, 14));

	(void)state;
	assert_int_equal(w.turning_point, 3);
	assert_exact(w.regression, -5);
	assert_exact(w.step_size, -5);
	assert_exact(w.least_squares, -1);
	assert_string_equal(w.status, "High"); /* -5 <= -5 */
	p.skia_interesting = nextafterf(5, 6);
	w = sk_win(&p, VALUES(0, 2, 4, 10, 12, 14));
	assert_string_equal(w.status, "Uninteresting");
	/*
	 * 1 1 | 2 2: s1 = s2 = 0 < smin, so d = (1 - 2) / 0.001f =
	 * -1 / 0.0010000000474974513 = -999.99995 -> float32
	 * -999.9999389648438. The odd 5th value is dropped first.
	 */
	w = sk_win(&p, VALUES(1, 1, 2, 2, 1000));
	assert_exact(w.regression, -999.9999389648438);
	assert_int_equal(w.turning_point, 2);
	/*
	 * s is the plain average of two sample deviations: 0 2 4 | 10 16 22
	 * has s1 = 2, s2 = sqrt((36+0+36)/2) = 6, s = 4, d = (2 - 16) / 4 =
	 * -3.5 (pooled, sqrt((2*4 + 2*36)/4) = 4.47, would give -3.13)
	 */
	w = sk_win(&p, VALUES(0, 2, 4, 10, 16, 22));
	assert_exact(w.regression, -3.5);
	/* minimum length 4 */
	w = sk_win(&p, VALUES(1, 2, 3));
	assert_no_result(&w);
}

/* ---- Skia mannwhitneyu (§1.4, go-moremath) --------------------------- */

static void test_skia__mannwhitneyu_exact(void **state)
{
	/*
	 * 1 2 3 | 4 5 6, no ties: U1 = #(l > r) = 0, U2 = 9. Exact: of the
	 * C(6,3) = 20 equally likely splits only one has U <= 0, so
	 * p = 2 * 1/20 = 0.1 -> float32 0.10000000149011612. T = 0.1 too:
	 * p <= T, and step = 2 - 5 = -3 < 0: High, Regression = -p.
	 */
	struct bf_detect_params p = sk(BF_SKIA_MANNWHITNEYU, 3, 0.1);
	struct bf_step_window w = sk_win(&p, VALUES(1, 2, 3, 4, 5, 6));

	(void)state;
	assert_exact(w.regression, -0.10000000149011612);
	assert_exact(w.step_size, -3);
	assert_exact(w.least_squares, 0); /* U of the left sample */
	assert_string_equal(w.status, "High");
	assert_int_equal(w.direction, 1);
	/* the other way: U1 = 9, step +3, Low, Regression +p */
	w = sk_win(&p, VALUES(4, 5, 6, 1, 2, 3));
	assert_exact(w.regression, 0.10000000149011612);
	assert_exact(w.least_squares, 9);
	assert_string_equal(w.status, "Low");
	assert_int_equal(w.direction, -1);
	p.skia_interesting = 0.05;
	w = sk_win(&p, VALUES(1, 2, 3, 4, 5, 6));
	assert_exact(w.regression, 0.10000000149011612);
	assert_string_equal(w.status, "Uninteresting");
	/*
	 * Ties, 1 2 | 2 3: U1 = 0.5 (the 2-2 pair). Exact with ties (the
	 * 2s told apart): the 6 splits of {1, 2a, 2b, 3} give U = .5 ({1,2a}
	 * {1,2b}), 2 ({1,3} {2a,2b}), 3.5 ({2a,3} {2b,3}); CDF(.5) = 2/6,
	 * p = 2/3 -> 0.6666666865348816.
	 */
	p.skia_interesting = 0.7;
	w = sk_win(&p, VALUES(1, 2, 2, 3));
	assert_exact(w.least_squares, 0.5);
	assert_exact(w.regression, -0.6666666865348816);
	assert_string_equal(w.status, "High");
	/*
	 * Ties, 1 1 3 | 2 2 2: U1 = 3 (3 beats each 2), U2 = 6. The C(6,3) =
	 * 20 splits by how many 1s, 2s, 3s go left (ways: U):
	 *   1 1 2 (1 * 3 = 3 ways): the 2 ties two 2s, U = 1
	 *   1 1 3 (1 way): U = 3       1 2 2 (2 * 3 = 6): U = .5+1.5+1.5 = 3.5
	 *   1 2 3 (6): U = 5.5         2 2 2 (1): U = 6    2 2 3 (3): U = 8
	 * CDF(3) = (3 + 1) / 20, p = 0.4 (the six splits at U = 3.5 stay
	 * out) -> float32 0.4000000059604645, and T = 0.4 is inclusive.
	 */
	p.skia_interesting = 0.4;
	w = sk_win(&p, VALUES(1, 1, 3, 2, 2, 2));
	assert_exact(w.least_squares, 3);
	assert_exact(w.regression, -0.4000000059604645);
	assert_string_equal(w.status, "High");
	/* every value equal: the test fails, no result at all */
	w = sk_win(&p, VALUES(3, 3, 3, 3));
	assert_no_result(&w);
}

static void test_skia__mannwhitneyu_limits(void **state)
{
	struct bf_detect_params p = sk(BF_SKIA_MANNWHITNEYU, 26, 0.05);
	struct bf_step_window w;
	double x[52];

	(void)state;
	/*
	 * 26 | 26 distinct values (1..26 | 27..52): no ties and both <= 50,
	 * exact: p = 2 / C(52,26) = 2 / 495918532948104 = 4.0329e-15 ->
	 * float32 4.032920373521487e-15. (The normal approximation would
	 * give 2 Phi(-(338 - .5) / sqrt(676 * 53 / 12)) = 6.5e-10.)
	 */
	for (size_t i = 0; i < 52; i++)
		x[i] = (double)(i + 1);
	w = sk_win(&p, x, 52);
	assert_exact(w.regression, -4.032920373521487e-15);
	assert_exact(w.least_squares, 0);
	/*
	 * Ties, 25 | 25: 0 1 ... 1 | 1 ... 1 (one 0, 49 ones). Exact (ties
	 * and both <= 25): U1 = 24 * 25 / 2 = 300; the 0 is on the left in
	 * C(49,24) splits (U = 300) and on the right in C(49,25) = C(49,24)
	 * (U = 325): CDF(300) = 1/2, p = 1.
	 */
	x[0] = 0;
	for (size_t i = 1; i < 52; i++)
		x[i] = 1;
	p.skia_radius = 25;
	w = sk_win(&p, x, 50);
	assert_exact(w.least_squares, 300);
	assert_exact(w.regression, 1);
	assert_string_equal(w.status, "Uninteresting");
	/*
	 * Ties, 26 | 26: 0 1 ... 1 | 1 ... 1, normal approximation:
	 * U1 = 25 * 26 / 2 = 325, mu = 26 * 26 / 2 = 338, N = 52,
	 * tie term 51^3 - 51 = 132600, / (52 * 51) = 50;
	 * sigma^2 = 676 * (53 - 50) / 12 = 169, sigma = 13;
	 * z = (325 - 338 + .5) / 13 = -12.5/13 = -0.961538;
	 * p = 2 Phi(z) = erfc(0.961538 / sqrt 2) = 0.3362815
	 * (0.33628150820732117 as float32). Without the continuity correction p
	 * would be 2 Phi(-1) = 0.3173, without the tie correction (sigma^2 =
	 * 676 * 53 / 12) 0.8191.
	 */
	w = sk_win(&p, x, 52);
	assert_exact(w.least_squares, 325);
	assert_close(w.regression, 0.33628150820732117, 1e-7);
	assert_string_equal(w.status, "Uninteresting");
}

/* ---- Skia scanning a series ------------------------------------------ */

static void test_skia__clean_step_found(void **state)
{
	/*
	 * r = 3, original: windows of 7, the centre is the 4th value. At
	 * index 10 the window is 9.9 10 10 | 12 12.1 11.9 12 and scores far
	 * beyond 50; the raw means are (9.9 + 10 + 10) / 3 = 9.9667 and
	 * (12 + 12.1 + 11.9 + 12) / 4 = 12.
	 */
	const double x[] = { LO, LO, HI, HI };
	struct bf_detect_params p = sk(BF_SKIA_ORIGINAL, 3, 50);
	struct bf_step_window w = sk_win(&p, x + 7, 7);
	struct bf_change *ch;

	(void)state;
	assert_true(w.regression <= -50);
	assert_int_equal(sk_scan(&ch, &p, x, 20), 1);
	assert_int_equal(ch[0].index, 10);
	assert_int_equal(ch[0].direction, 1);
	assert_exact(ch[0].score, w.regression);
	assert_close(ch[0].before, 29.9 / 3, 1e-12);
	assert_close(ch[0].after, 12, 1e-12);
	assert_close(ch[0].size, (12 - 29.9 / 3) / (29.9 / 3), 1e-12);
	assert_true(isnan(ch[0].p_value));
	free(ch);
	/* at T = 5 the neighbours 9 and 11 are High too; 10 is kept */
	p.skia_interesting = 5;
	assert_string_equal(sk_win(&p, x + 6, 7).status, "High");
	assert_string_equal(sk_win(&p, x + 8, 7).status, "High");
	assert_int_equal(sk_scan(&ch, &p, x, 20), 1);
	assert_int_equal(ch[0].index, 10);
	free(ch);
}

static void test_skia__mannwhitneyu_scan_keeps_min_p(void **state)
{
	/*
	 * r = 4, windows of 8, no ties. At index 8 the left half is all low
	 * and the right all high: U = 0, p = 2 / C(8,4) = 2/70. At 7 the
	 * lowest value (10.0) crosses to the right: U = 4, and P(U <= 4) =
	 * (1+1+2+3+5)/70 = 12/70, p = 24/70 = .343; likewise at 9 (20.5,
	 * the highest, on the left). At T = .5 positions 5..10 are all High,
	 * and only the smallest p is reported.
	 */
	const double x[] = {
		10.2, 10.4, 10.3, 10.1, 10.25, 10.45, 10.35, 10.0,
		20.5, 20.1, 20.3, 20.2, 20.4,  20.15, 20.35, 20.25
	};
	struct bf_detect_params p = sk(BF_SKIA_MANNWHITNEYU, 4, 0.5);
	struct bf_change *ch;

	(void)state;
	assert_exact(sk_win(&p, x + 3, 8).regression,
	             -(double)(float)(24.0 / 70));
	assert_int_equal(sk_scan(&ch, &p, x, 16), 1);
	assert_int_equal(ch[0].index, 8);
	assert_int_equal(ch[0].direction, 1);
	assert_close(ch[0].p_value, 2.0 / 70, 1e-17);
	/* the score is the effect, not p: every value after above every one
	 * before, rank-biserial 1 - 2·0/16 */
	assert_exact(ch[0].score, 1.0);
	free(ch);
}

static void test_skia__noise_finds_nothing(void **state)
{
	struct bf_detect_params p = sk(BF_SKIA_ORIGINAL, 7, 50);
	struct bf_change *ch;
	double x[300];

	(void)state;
	noise(x, 300, 7);
	assert_int_equal(sk_scan(&ch, &p, x, 300), 0);
	/* percent: |step| is at most 2/99 here, far under T = 0.1 */
	p = sk(BF_SKIA_PERCENT, 7, 0.1);
	assert_int_equal(sk_scan(&ch, &p, x, 300), 0);
	/* and a 20 % step in the same noise is found where it is */
	for (size_t i = 200; i < 300; i++)
		x[i] *= 1.2;
	assert_int_equal(sk_scan(&ch, &p, x, 300), 1);
	assert_int_equal(ch[0].index, 200);
	assert_int_equal(ch[0].direction, 1);
	free(ch);
}

static void test_skia__short_and_empty(void **state)
{
	struct bf_detect_params p = sk(BF_SKIA_ORIGINAL, 3, 50);
	struct bf_step_window w;
	struct bf_change *ch;

	(void)state;
	/* original needs 3 values: fewer give Uninteresting with all 0 */
	w = sk_win(&p, VALUES(1, 2));
	assert_no_result(&w);
	w = sk_win(&p, NULL, 0);
	assert_no_result(&w);
	w = sk_win(&p, VALUES(4));
	assert_no_result(&w);
	/* a series shorter than the window (7): nothing, and no error */
	assert_int_equal(sk_scan(&ch, &p, VALUES(1, 2, 3, 9, 9, 9)), 0);
	assert_null(ch);
	assert_int_equal(sk_scan(&ch, &p, NULL, 0), 0);
	/* the even window of absolute needs 2r = 6: 5 values are too few */
	p = sk(BF_SKIA_ABSOLUTE, 3, 1);
	assert_int_equal(sk_scan(&ch, &p, VALUES(1, 1, 9, 9, 9)), 0);
}

static void test_skia__invalid_params(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct bf_detect_params p;
	struct bf_err err = BF_ERR_INIT;
	struct bf_step_window w;
	struct bf_change *ch;
	size_t n;

	(void)state;
	p = sk(BF_SKIA_ORIGINAL, 0, 50);
	expect_einval(bf_detect_skia(&ch, &n, &p, x, 7, &err), &err,
	              "skia_radius");
	expect_einval(bf_detect_skia_window(&w, &p, x, 7, &err), &err,
	              "skia_radius");
	p = sk(BF_SKIA_ORIGINAL, 3, 0);
	expect_einval(bf_detect_skia(&ch, &n, &p, x, 7, &err), &err,
	              "skia_interesting");
	expect_einval(bf_detect_skia_window(&w, &p, x, 7, &err), &err,
	              "skia_interesting");
	p = sk(BF_SKIA_COHEN, 3, -2);
	expect_einval(bf_detect_skia(&ch, &n, &p, x, 7, &err), &err,
	              "skia_interesting");
	p = sk(BF_SKIA_COHEN, 3, NAN);
	expect_einval(bf_detect_skia(&ch, &n, &p, x, 7, &err), &err,
	              "skia_interesting");
	p = sk(BF_SKIA_ORIGINAL, 3, 50);
	p.skia_stddev_threshold = 0;
	expect_einval(bf_detect_skia(&ch, &n, &p, x, 7, &err), &err,
	              "skia_stddev_threshold");
	p = sk((enum bf_skia_algo)9, 3, 50);
	expect_einval(bf_detect_skia(&ch, &n, &p, x, 7, &err), &err,
	              "skia_algo");
	/* float32 cannot hold 1e39 */
	p = sk(BF_SKIA_ABSOLUTE, 1, 50);
	expect_einval(bf_detect_skia_window(&w, &p, VALUES(1, 1e39), &err),
	              &err, "float32");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skia__original_float32),
		cmocka_unit_test(test_skia__original_clamp),
		cmocka_unit_test(test_skia__original_constant),
		cmocka_unit_test(test_skia__absolute),
		cmocka_unit_test(test_skia__percent),
		cmocka_unit_test(test_skia__cohen),
		cmocka_unit_test(test_skia__mannwhitneyu_exact),
		cmocka_unit_test(test_skia__mannwhitneyu_limits),
		cmocka_unit_test(test_skia__clean_step_found),
		cmocka_unit_test(test_skia__mannwhitneyu_scan_keeps_min_p),
		cmocka_unit_test(test_skia__noise_finds_nothing),
		cmocka_unit_test(test_skia__short_and_empty),
		cmocka_unit_test(test_skia__invalid_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
