/*
 * Unit tests for Jetpack's step fit (core/src/detect_jetpack.c, with the
 * runs of flagged positions of detect_stepfit.c), and for the façade
 * (bf_detect_series, bf_detect_window) that drops NaN and maps indexes
 * back, every expected value worked out from Jetpack's formulas.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/detect_stepfit/stepfit.h"

/* ---- Jetpack (§2) ---------------------------------------------------- */

static void test_jetpack__window_hand_computed(void **state)
{
	/*
	 * before 10 11 9 10 10: mean 50/5 = 10, SSE 0+1+1+0+0 = 2
	 * after 12 12 13 11 12: mean 60/5 = 12, SSE 0+0+1+1+0 = 2
	 * stepError = sqrt(2 + 2) / (5 + 5) = 0.2
	 * score = (10 - 12) / 0.2 = -10
	 */
	const double x[] = { 10, 11, 9, 10, 10, 12, 12, 13, 11, 12 };
	struct bf_detect_params p = jp(5, 25);
	struct bf_step_window w = jp_win(&p, x, 10);

	(void)state;
	assert_int_equal(w.turning_point, 5);
	assert_close(w.step_size, -2, 1e-15);
	assert_close(w.least_squares, 0.2, 1e-15);
	assert_close(w.regression, -10, 1e-12);
	assert_string_equal(w.status, "Uninteresting"); /* |-10| < 25 */
	assert_int_equal(w.direction, 0);
}

static void test_jetpack__window_threshold_is_inclusive(void **state)
{
	/* the window above scores exactly -10: High at T = 10 (-10 <= -10) */
	const double up[] = { 10, 11, 9, 10, 10, 12, 12, 13, 11, 12 };
	/* mirrored: before 12 11 13 12 12 (mean 12, SSE 2), after 10 10 9
	 * 11 10 (mean 10, SSE 2): score = (12 - 10) / 0.2 = +10 */
	const double down[] = { 12, 11, 13, 12, 12, 10, 10, 9, 11, 10 };
	struct bf_detect_params p = jp(5, 10);
	struct bf_step_window w = jp_win(&p, up, 10);

	(void)state;
	assert_exact(w.regression, -10);
	assert_string_equal(w.status, "High");
	assert_int_equal(w.direction, 1); /* the value rose */
	w = jp_win(&p, down, 10);
	assert_exact(w.regression, 10);
	assert_close(w.step_size, 2, 1e-15);
	assert_string_equal(w.status, "Low");
	assert_int_equal(w.direction, -1);
	/* the next double above 10 is out of reach of |score| = 10 */
	p.jetpack_threshold = nextafter(10, 11);
	w = jp_win(&p, up, 10);
	assert_string_equal(w.status, "Uninteresting");
	w = jp_win(&p, down, 10);
	assert_string_equal(w.status, "Uninteresting");
}

static void test_jetpack__window_odd_and_tiny(void **state)
{
	struct bf_detect_params p = jp(5, 4);
	struct bf_step_window w;

	(void)state;
	/*
	 * n = 3 splits at floor(3/2) = 1: before 1 (SSE 0), after 2 4
	 * (mean 3, SSE 1 + 1 = 2); stepError = sqrt(2) / 3; score =
	 * (1 - 3) / (sqrt(2) / 3) = -6 / sqrt(2) = -3 sqrt(2) = -4.2426...
	 */
	w = jp_win(&p, VALUES(1, 2, 4));
	assert_int_equal(w.turning_point, 1);
	assert_close(w.least_squares, 0.47140452079103168, 1e-15);
	assert_close(w.regression, -4.2426406871192848, 1e-14);
	assert_string_equal(w.status, "High"); /* -4.24 <= -4 */
	/*
	 * n = 2: one value each side, SSE 0 + 0, stepError 0 between
	 * different levels: -DBL_MAX (a noise-free step); equal: 0
	 */
	w = jp_win(&p, VALUES(1, 3));
	assert_int_equal(w.turning_point, 1);
	assert_exact(w.least_squares, 0);
	assert_exact(w.regression, -DBL_MAX);
	assert_string_equal(w.status, "High");
	w = jp_win(&p, VALUES(3, 3));
	assert_exact(w.regression, 0);
	assert_string_equal(w.status, "Uninteresting");
	/* n < 2: no split at all */
	w = jp_win(&p, VALUES(5));
	assert_true(isnan(w.least_squares));
	assert_exact(w.regression, 0);
	assert_string_equal(w.status, "Uninteresting");
	w = jp_win(&p, NULL, 0);
	assert_int_equal(w.turning_point, 0);
	assert_string_equal(w.status, "Uninteresting");
}

static void test_jetpack__clean_step_found(void **state)
{
	/*
	 * i = 10: before 10 10.1 9.9 10 10 (mean 10, SSE .01 + .01 = .02),
	 * after 12 12.1 11.9 12 12 (mean 12, SSE .02);
	 * stepError = sqrt(.04) / 10 = .02; score = (10 - 12) / .02 = -100
	 */
	const double x[] = { LO, LO, HI, HI };
	struct bf_detect_params p = jp(5, 25);
	struct bf_change *ch;

	(void)state;
	assert_int_equal(jp_scan(&ch, &p, x, 20), 1);
	assert_int_equal(ch[0].index, 10);
	assert_close(ch[0].score, -100, 1e-9);
	assert_int_equal(ch[0].direction, 1);
	assert_close(ch[0].before, 10, 1e-12);
	assert_close(ch[0].after, 12, 1e-12);
	assert_close(ch[0].size, 0.2, 1e-12); /* (12 - 10) / 10 */
	assert_true(isnan(ch[0].p_value));
	free(ch);
}

static void test_jetpack__local_maximum_reported(void **state)
{
	const double x[] = { LO, LO, HI, HI };
	struct bf_detect_params p = jp(5, 5);
	struct bf_step_window w;
	struct bf_change *ch;

	(void)state;
	/*
	 * At T = 5 the neighbours of the step cross the threshold too:
	 * i = 8: before 10 10 10 10.1 9.9 (mean 10, SSE .02), after 10 10
	 *   12 12.1 11.9 (mean 11.2, SSE 1.44+1.44+.64+.81+.49 = 4.82);
	 *   stepError = sqrt(4.84) / 10 = .22; score = -1.2 / .22 = -5.4545
	 * i = 9: after 10 12 12.1 11.9 12 (mean 11.6, SSE 2.56+.16+.25+.09
	 *   +.16 = 3.22); sqrt(3.24) / 10 = .18; score = -1.6 / .18 = -8.89
	 * i = 11 mirrors i = 9 (-8.89); i = 12: before 9.9 10 10 12 12.1
	 *   (mean 10.8, SSE 5.22), after mean 12 (SSE .02); stepError =
	 *   sqrt(5.24) / 10 = .228910; score = -1.2 / .228910 = -5.2422
	 * i = 7 and 13 stay under 5 (-3.49, -3.64).
	 */
	w = jp_win(&p, x + 3, 10);
	assert_close(w.regression, -1.2 / 0.22, 1e-9);
	w = jp_win(&p, x + 4, 10);
	assert_close(w.regression, -1.6 / 0.18, 1e-9);
	w = jp_win(&p, x + 7, 10);
	assert_close(w.regression, -1.2 / (sqrt(5.24) / 10), 1e-9);
	assert_string_equal(w.status, "High");
	/* the run 8..12 reports its largest |score| only: i = 10 */
	assert_int_equal(jp_scan(&ch, &p, x, 20), 1);
	assert_int_equal(ch[0].index, 10);
	assert_close(ch[0].score, -100, 1e-9);
	free(ch);
}

static void test_jetpack__opposite_steps_split_runs(void **state)
{
	/*
	 * Flat 10s, a three-value plateau 12 12.1 11.9 at 10..12, flat 10s;
	 * WIDTH 3, T = 1.5. Flat windows have stepError 0, score 0. Then:
	 * i = 8: after 10 10 12 (mean 10.667, SSE .444+.444+1.778 = 2.667);
	 *   sqrt(2.667) / 6 = .27217; score = -.6667 / .27217 = -2.449
	 * i = 9: after 10 12 12.1 (mean 11.367, SSE 2.807); sqrt(2.807) / 6
	 *   = .27922; score = -1.3667 / .27922 = -4.894
	 * i = 10: before 10 10 10 (SSE 0), after 12 12.1 11.9 (mean 12,
	 *   SSE .02); sqrt(.02) / 6 = .023570; score = -2 / .023570 = -84.85
	 * i = 11: before 10 10 12 (mean 10.667, SSE 2.667), after 12.1 11.9
	 *   10 (mean 11.333, SSE .588+.321+1.778 = 8.06/3); sqrt(16.06/3) / 6 =
	 *   .38562; score = -.6667 / .38562 = -1.729
	 * i = 12: before 10 12 12.1 (mean 11.367, SSE 2.807), after 11.9 10
	 *   10 (mean 10.633, SSE 2.407); sqrt(5.213) / 6 = .38055; score =
	 *   +.7333 / .38055 = +1.927
	 * i = 13: before 12 12.1 11.9 (mean 12, SSE .02), after 10 10 10:
	 *   +84.85; i = 14: +4.88; i = 15: +2.449; i = 16: 0.
	 * 8..15 are all flagged, but the sign turns between 11 and 12: two
	 * runs, so both edges are reported (one run would keep only 10).
	 */
	const double x[] = { 10,   10, 10, 10, 10, 10, 10, 10, 10, 10, 12, 12.1,
		             11.9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10 };
	struct bf_detect_params p = jp(3, 1.5);
	struct bf_step_window w;
	struct bf_change *ch;

	(void)state;
	w = jp_win(&p, x + 8, 6); /* i = 11 */
	assert_close(w.regression, -(2.0 / 3) / (sqrt(16.06 / 3) / 6), 1e-9);
	w = jp_win(&p, x + 9, 6); /* i = 12 */
	assert_true(w.regression >= 1.5);
	assert_int_equal(jp_scan(&ch, &p, x, 23), 2);
	assert_int_equal(ch[0].index, 10);
	assert_int_equal(ch[0].direction, 1);
	assert_close(ch[0].score, -2 / (sqrt(0.02) / 6), 1e-9);
	assert_int_equal(ch[1].index, 13);
	assert_int_equal(ch[1].direction, -1);
	assert_close(ch[1].score, 2 / (sqrt(0.02) / 6), 1e-9);
	assert_close(ch[1].size, -2.0 / 12, 1e-12); /* (10 - 12) / 12 */
	free(ch);
}

static void test_jetpack__perfect_step_scores_max(void **state)
{
	/*
	 * No noise at all: SSE 0 + 0, stepError 0. §2 would score 0 and never
	 * flag it; we score -DBL_MAX (after > before), so the step is found
	 * at 5, regressed; a constant series stays quiet (0, not NaN).
	 */
	const double x[] = { 10, 10, 10, 10, 10, 12, 12, 12, 12, 12 };
	const double flat[] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10 };
	struct bf_detect_params p = jp(5, 25);
	struct bf_step_window w = jp_win(&p, x, 10);
	struct bf_change *ch;

	(void)state;
	assert_exact(w.least_squares, 0);
	assert_exact(w.regression, -DBL_MAX);
	assert_close(w.step_size, -2, 0);
	assert_int_equal(jp_scan(&ch, &p, x, 10), 1);
	assert_int_equal(ch[0].index, 5);
	assert_int_equal(ch[0].direction, 1);
	assert_exact(ch[0].score, -DBL_MAX);
	free(ch);
	w = jp_win(&p, flat, 10);
	assert_exact(w.regression, 0);
	assert_string_equal(w.status, "Uninteresting");
	assert_int_equal(jp_scan(&ch, &p, flat, 10), 0);
	assert_null(ch);
}

static void test_jetpack__noise_finds_nothing(void **state)
{
	/*
	 * Uniform noise in [99, 101): |mean difference| over 5 values is
	 * about 0.37, sqrt(SSE of 10) / 10 about 0.16, so scores stay near
	 * 2, far from 25.
	 */
	struct bf_detect_params p = jp(5, 25);
	struct bf_change *ch;
	double x[300];

	(void)state;
	noise(x, 300, 42);
	assert_int_equal(jp_scan(&ch, &p, x, 300), 0);
	/* the same noise with a step of 10 added at 150 is found there */
	for (size_t i = 150; i < 300; i++)
		x[i] += 10;
	assert_int_equal(jp_scan(&ch, &p, x, 300), 1);
	assert_int_equal(ch[0].index, 150);
	assert_int_equal(ch[0].direction, 1);
	free(ch);
}

static void test_jetpack__constant_short_and_empty(void **state)
{
	struct bf_detect_params p = jp(5, 25);
	struct bf_step_window w;
	struct bf_change *ch;
	double c[20];

	(void)state;
	/* constant: every SSE is 0, every stepError 0, every score 0 */
	for (size_t i = 0; i < 20; i++)
		c[i] = 7;
	assert_int_equal(jp_scan(&ch, &p, c, 20), 0);
	w = jp_win(&p, c, 10);
	assert_exact(w.regression, 0);
	assert_exact(w.step_size, 0);
	assert_exact(w.least_squares, 0);
	/* 9 values: fewer than 2 * WIDTH, no position to score */
	assert_int_equal(jp_scan(&ch, &p, c, 9), 0);
	assert_null(ch);
	assert_int_equal(jp_scan(&ch, &p, c, 1), 0);
	assert_int_equal(jp_scan(&ch, &p, NULL, 0), 0);
	assert_null(ch);
}

static void test_jetpack__invalid_params(void **state)
{
	const double x[] = { LO, HI };
	struct bf_detect_params p;
	struct bf_err err = BF_ERR_INIT;
	struct bf_step_window w;
	struct bf_change *ch;
	size_t n;

	(void)state;
	p = jp(0, 25);
	expect_einval(bf_detect_jetpack(&ch, &n, &p, x, 10, &err), &err,
	              "jetpack_width");
	expect_einval(bf_detect_jetpack_window(&w, &p, x, 10, &err), &err,
	              "jetpack_width");
	p = jp(-3, 25);
	expect_einval(bf_detect_jetpack(&ch, &n, &p, x, 10, &err), &err,
	              "jetpack_width");
	p = jp(5, 0);
	expect_einval(bf_detect_jetpack(&ch, &n, &p, x, 10, &err), &err,
	              "jetpack_threshold");
	expect_einval(bf_detect_jetpack_window(&w, &p, x, 10, &err), &err,
	              "jetpack_threshold");
	p = jp(5, -1);
	expect_einval(bf_detect_jetpack(&ch, &n, &p, x, 10, &err), &err,
	              "jetpack_threshold");
	p = jp(5, NAN);
	expect_einval(bf_detect_jetpack(&ch, &n, &p, x, 10, &err), &err,
	              "jetpack_threshold");
	/* also for a series too short to be scanned */
	p = jp(0, 25);
	expect_einval(bf_detect_jetpack(&ch, &n, &p, NULL, 0, &err), &err,
	              "jetpack_width");
}

/* ---- through the façade: NaN dropped, indexes mapped back ------------ */

static void test_facade__nan_keeps_input_index(void **state)
{
	/*
	 * Input index 2 is missing; the 10 values left are LO HI, whose only
	 * scorable position (WIDTH 5) is compacted index 5, score -100 as in
	 * test_jetpack__clean_step_found. It is input index 6, and the
	 * façade signs the score as the direction: +100, up.
	 */
	const double x[] = { 10, 10.1, NAN, 9.9, 10, 10, HI };
	const double y[] = { 10, NAN, 10, 12, 12 };
	struct bf_detect_params p = jp(5, 25);
	struct bf_err err = BF_ERR_INIT;
	struct bf_step_window w;
	struct bf_change *ch;
	size_t n;

	(void)state;
	assert_int_equal(bf_detect_series(&ch, &n, &p, x, 11, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ch[0].index, 6);
	assert_close(ch[0].score, 100, 1e-9);
	assert_int_equal(ch[0].direction, 1);
	free(ch);
	/* skia absolute, r = 2: 10 10 | 12 12 once the NaN is gone; the
	 * step (compacted index 2) is input index 3 */
	p = sk(BF_SKIA_ABSOLUTE, 2, 2);
	assert_int_equal(bf_detect_window(&w, &p, y, 5, &err), 0);
	assert_int_equal(w.turning_point, 3);
	assert_exact(w.regression, -2);
	assert_string_equal(w.status, "High");
	assert_int_equal(bf_detect_series(&ch, &n, &p, y, 5, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ch[0].index, 3);
	assert_close(ch[0].before, 10, 0);
	assert_close(ch[0].after, 12, 0);
	free(ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jetpack__window_hand_computed),
		cmocka_unit_test(test_jetpack__window_threshold_is_inclusive),
		cmocka_unit_test(test_jetpack__window_odd_and_tiny),
		cmocka_unit_test(test_jetpack__clean_step_found),
		cmocka_unit_test(test_jetpack__local_maximum_reported),
		cmocka_unit_test(test_jetpack__opposite_steps_split_runs),
		cmocka_unit_test(test_jetpack__perfect_step_scores_max),
		cmocka_unit_test(test_jetpack__noise_finds_nothing),
		cmocka_unit_test(test_jetpack__constant_short_and_empty),
		cmocka_unit_test(test_jetpack__invalid_params),
		cmocka_unit_test(test_facade__nan_keeps_input_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
