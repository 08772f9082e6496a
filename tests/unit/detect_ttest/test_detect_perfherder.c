/*
 * Unit tests for the Perfherder detector (core/src/detect_perfherder.c),
 * as Mozilla Treeherder's perfalert computes it (calc_t, detect_changes
 * and the alert filter of perf/alerts.py), and for the sign of every
 * detector's score through bf_detect_series. The expected values are
 * worked out by hand from its formulas; the arithmetic is in the
 * comments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/detect_ttest/series.h"

static void ph_params(struct bf_detect_params *p, int minb, int maxb, int fore,
                      double thr)
{
	bf_detect_params_default(p, BF_DETECT_PERFHERDER);
	p->ph_min_back_window = minb;
	p->ph_max_back_window = maxb;
	p->ph_fore_window = fore;
	p->ph_t_threshold = thr;
}

/*
 * The changes Perfherder finds in x[0..n) with parameters p; *c is
 * malloc'd. Returns their number.
 */
static size_t ph_changes(struct bf_change **c, const struct bf_detect_params *p,
                         const double *x, size_t n)
{
	struct bf_err err = BF_ERR_INIT;
	size_t nc = 99;

	assert_int_equal(bf_detect_perfherder(c, &nc, p, x, n, &err), 0);
	return nc;
}

/* --- Perfherder ------------------------------------------------------ */

/*
 * x = 10 12 11 | 20 22 21, split at 3. Linear weights for 3 values:
 * 1, 2/3, 1/3 (sum 2), nearest value first on both sides.
 * back (11, 12, 10): avg = (11 + 8 + 10/3) / 2 = 67/6;
 *   deviations -1/6, 5/6, -7/6: squares (1 + 25 + 49)/36 = 75/36,
 *   var = 75/36 / 2 = 25/24.
 * fore (20, 22, 21): avg = (20 + 44/3 + 7) / 2 = 125/6;
 *   deviations -5/6, 7/6, 1/6: 75/36, var = 25/24.
 * delta = 125/6 - 67/6 = 29/3;
 * t = (29/3) / sqrt(25/24/3 + 25/24/3) = (29/3) / (5/6) = 11.6.
 * Uniform means: 11 and 21, so step_size = 11 - 21 = -10.
 */
static void test_ph__calc_t_by_hand_window(void **state)
{
	const double x[] = { 10, 12, 11, 20, 22, 21 };
	const double rev[] = { 21, 22, 20, 11, 12, 10 };
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	ph_params(&p, 3, 3, 3, 7);
	assert_int_equal(bf_detect_perfherder_window(&w, &p, x, 6, &err), 0);
	assert_int_equal(w.turning_point, 3);
	assert_close(w.regression, 11.6, 1e-12);
	assert_close(w.step_size, -10, 1e-12);
	assert_true(isnan(w.least_squares));
	assert_string_equal(w.status, "High");
	assert_int_equal(w.direction, 1);

	/* reversed: back (11, 12, 10) becomes the fore window, t = -11.6 */
	assert_int_equal(bf_detect_perfherder_window(&w, &p, rev, 6, &err), 0);
	assert_close(w.regression, -11.6, 1e-12);
	assert_close(w.step_size, 10, 1e-12);
	assert_string_equal(w.status, "Low");
	assert_int_equal(w.direction, -1);

	/* 11.6 is not above a threshold of 12 */
	p.ph_t_threshold = 12;
	assert_int_equal(bf_detect_perfherder_window(&w, &p, x, 6, &err), 0);
	assert_string_equal(w.status, "Uninteresting");
	assert_int_equal(w.direction, 0);
}

/*
 * The same series through detect_changes with windows 3/3/3: only
 * i = 3 has 3 back and 3 fore values; t_3 = 11.6 (above). Neighbours:
 * t_2 (back 12, 10; fore 11, 20, 22) and t_4 (back 20, 11, 12; fore
 * 22, 21): avg_b = (20 + 22/3 + 4)/2 = 47/3, var_b = ((13/3)^2 +
 * (14/3)^2 + (11/3)^2)/2 = 27; avg_f = (22 + 21/2)/1.5 = 65/3,
 * var_f = 1/9 + 4/9 = 5/9; t_4 = 6 / sqrt(27/3 + 5/18) = 1.97 < 11.6.
 * Alert: prev = 11, new = 21, 90.9 % > 2 %.
 */
static void test_ph__series_by_hand(void **state)
{
	const double x[] = { 10, 12, 11, 20, 22, 21 };
	struct bf_detect_params p;
	struct bf_change *c;

	(void)state;
	ph_params(&p, 3, 3, 3, 7);
	assert_int_equal(ph_changes(&c, &p, x, 6), 1);
	assert_int_equal(c[0].index, 3);
	assert_close(c[0].score, 11.6, 1e-12);
	assert_int_equal(c[0].direction, 1);
	assert_close(c[0].before, 11, 1e-12);
	assert_close(c[0].after, 21, 1e-12);
	assert_close(c[0].size, 10.0 / 11.0, 1e-12);
	assert_true(isnan(c[0].p_value));
	free(c);
}

/*
 * 100 100 100 | 110 110 110: both windows have variance 0 and the means
 * differ, so t is infinite; alerts.py stores 1000.
 */
static void test_ph__infinite_t_scores_1000(void **state)
{
	const double x[] = { 100, 100, 100, 110, 110, 110 };
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_change *c;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	ph_params(&p, 3, 3, 3, 7);
	assert_int_equal(ph_changes(&c, &p, x, 6), 1);
	assert_int_equal(c[0].index, 3);
	assert_close(c[0].score, 1000, 0);
	assert_close(c[0].size, 0.1, 1e-15);
	free(c);
	assert_int_equal(bf_detect_perfherder_window(&w, &p, x, 6, &err), 0);
	assert_close(w.regression, 1000, 0);
	assert_string_equal(w.status, "High");
}

/*
 * x = 100 100 100 100 104 110 110 110 110, windows 3/3/3, threshold 3.
 * t_4: back 100 x3 (avg 100, var 0); fore (104, 110, 110): avg =
 *   (104 + 220/3 + 110/3)/2 = 107, var = (9 + 9 + 9)/2 = 13.5;
 *   t = 7 / sqrt(13.5/3) = 7 / sqrt(4.5) = 3.2998 > 3.
 * t_5: back (104, 100, 100): avg = (104 + 200/3 + 100/3)/2 = 102,
 *   var = (4 + 4 + 4)/2 = 6; fore 110 x3 (var 0);
 *   t = 8 / sqrt(6/3) = 4 sqrt(2) = 5.657.
 * t_6: back (110, 104, 100): avg = (110 + 208/3 + 100/3)/2 = 319/3,
 *   deviations 11/3, -7/3, -19/3: var = (121 + 49 + 361)/9/2 = 29.5;
 *   fore 110 x3; t = (11/3) / sqrt(29.5/3) = 1.17 (and t_3 = 0.96).
 * Both 4 and 5 pass the threshold, but t_4 < t_5, so only 5 is a local
 * maximum. Reversed, the roles swap: t'_4 = t_5 and t'_5 = t_4, so 4
 * is kept and 5 dropped because of its left neighbour.
 */
static void test_ph__local_maximum_rule(void **state)
{
	const double x[] = { 100, 100, 100, 100, 104, 110, 110, 110, 110 };
	double rev[NELEM(x)];
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_change *c;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	ph_params(&p, 3, 3, 3, 3);
	/* the two t values, as the window of 6 around each point */
	assert_int_equal(bf_detect_perfherder_window(&w, &p, x + 1, 6, &err),
	                 0);
	assert_close(w.regression, 7 / sqrt(4.5), 1e-12);
	assert_int_equal(bf_detect_perfherder_window(&w, &p, x + 2, 6, &err),
	                 0);
	assert_close(w.regression, 4 * sqrt(2), 1e-12);

	assert_int_equal(ph_changes(&c, &p, x, NELEM(x)), 1);
	assert_int_equal(c[0].index, 5);
	assert_close(c[0].score, 4 * sqrt(2), 1e-12);
	/* prev = (104 + 100 + 100)/3, new = 110 */
	assert_close(c[0].before, 304.0 / 3, 1e-12);
	assert_close(c[0].after, 110, 1e-12);
	free(c);

	for (size_t i = 0; i < NELEM(x); i++)
		rev[i] = x[NELEM(x) - 1 - i];
	assert_int_equal(ph_changes(&c, &p, rev, NELEM(rev)), 1);
	assert_int_equal(c[0].index, 4);
	assert_int_equal(c[0].direction, -1);
	assert_close(c[0].score, 4 * sqrt(2), 1e-12);
	free(c);
}

/*
 * Windows min 2, max 4 back, 2 fore, threshold 7. Points 1..5 stay far
 * below 7, so at i = 6 last_seen = 5 and the back window holds
 * min(max(5, 2), 4) = 4 values: 6, 14, 10, 8 (nearest first), not 2.
 * Linear weights 1, 3/4, 1/2, 1/4 (sum 5/2):
 *   avg_b = (6 + 10.5 + 5 + 2) / 2.5 = 9.4,
 *   var_b = (3.4^2 + 4.6^2 + 0.6^2 + 1.4^2)/3 = 35.04/3 = 11.68;
 * fore 50, 52 with weights 1, 1/2: avg_f = 76/1.5 = 152/3,
 *   var_f = (2/3)^2 + (4/3)^2 = 20/9;
 * t = (152/3 - 9.4) / sqrt(11.68/4 + (20/9)/2) = 20.55.
 * The alert's prev is the uniform mean of those 4: 38/4 = 9.5 (it would
 * be 10 with a back window that never grew).
 */
static void test_ph__back_window_grows(void **state)
{
	const double x[] = { 10, 12, 8, 10, 14, 6, 50, 52 };
	struct bf_detect_params p;
	struct bf_change *c;

	(void)state;
	ph_params(&p, 2, 4, 2, 7);
	assert_int_equal(ph_changes(&c, &p, x, NELEM(x)), 1);
	assert_int_equal(c[0].index, 6);
	assert_close(c[0].score,
	             (152.0 / 3 - 9.4) / sqrt(11.68 / 4 + 20.0 / 9 / 2), 1e-9);
	assert_close(c[0].before, 9.5, 1e-12);
	assert_close(c[0].after, 51, 1e-12);
	free(c);
}

/* 40 values near 100 then 40 near 110 (noise +-1): one change at 40. */
static void test_ph__clean_step_found(void **state)
{
	const double up[] = { 100, 110 }, down[] = { 110, 100 };
	double *x = leveled(up, 2, 40, 1, 42);
	struct bf_detect_params p;
	struct bf_change *c;
	size_t nc;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	bf_detect_params_default(&p, BF_DETECT_PERFHERDER);
	assert_int_equal(ph_changes(&c, &p, x, 80), 1);
	assert_int_equal(c[0].index, 40);
	assert_int_equal(c[0].direction, 1);
	assert_true(c[0].score > 7);
	assert_close(c[0].before, 100, 0.5);
	assert_close(c[0].after, 110, 0.5);
	assert_close(c[0].size, 0.1, 0.01);
	free(c);
	free(x);

	/* down, through the front door (indexes mapped past a NaN) */
	x = leveled(down, 2, 40, 1, 43);
	x[5] = NAN;
	assert_int_equal(bf_detect_series(&c, &nc, &p, x, 80, &err), 0);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].index, 40);
	assert_int_equal(c[0].direction, -1);
	assert_close(c[0].after, 100, 0.5);
	free(c);
	free(x);
}

/*
 * Through bf_detect_series an alert's score has its direction's sign,
 * whatever the detector: positive when the metric rose, negative when it
 * fell (Jetpack and Skia compute before - after, the other way round).
 * Skia's mannwhitneyu scores the rank-biserial correlation, not p.
 */
static void check_score_sign(enum bf_detector d, int algo, const double *up,
                             const double *down)
{
	const double *levels[2] = { up, down };
	struct bf_detect_params p;
	struct bf_err err = BF_ERR_INIT;
	struct bf_change *c;
	size_t nc;

	for (int k = 0; k < 2; k++) {
		double *x = leveled(levels[k], 2, 40, 1, 7);

		bf_detect_params_default(&p, d);
		if (d == BF_DETECT_SKIA) {
			p.skia_algo = (enum bf_skia_algo)algo;
			p.skia_interesting =
			        bf_skia_default_interesting(p.skia_algo);
		}
		assert_int_equal(bf_detect_series(&c, &nc, &p, x, 80, &err), 0);
		assert_int_equal(nc, 1);
		assert_int_equal(c[0].direction, k ? -1 : 1);
		if (k)
			assert_true(c[0].score < 0);
		else
			assert_true(c[0].score > 0);
		if (algo == BF_SKIA_MANNWHITNEYU) {
			assert_true(fabs(c[0].score) <= 1);
			assert_true(fabs(c[0].score) > 0.9);
			assert_true(c[0].p_value <= 0.05);
		}
		free(c);
		free(x);
	}
}

static void test_detect__score_sign_is_direction(void **state)
{
	const double up[] = { 100, 130 }, down[] = { 130, 100 };

	(void)state;
	check_score_sign(BF_DETECT_JETPACK, 0, up, down);
	check_score_sign(BF_DETECT_SKIA, BF_SKIA_ORIGINAL, up, down);
	check_score_sign(BF_DETECT_SKIA, BF_SKIA_PERCENT, up, down);
	check_score_sign(BF_DETECT_SKIA, BF_SKIA_COHEN, up, down);
	check_score_sign(BF_DETECT_SKIA, BF_SKIA_MANNWHITNEYU, up, down);
	check_score_sign(BF_DETECT_PERFHERDER, 0, up, down);
	check_score_sign(BF_DETECT_EDIVISIVE, 0, up, down);
}

/* 300 values of uniform noise around 100: nothing. */
static void test_ph__noise_only_finds_nothing(void **state)
{
	const double lv[] = { 100 };
	double *x = leveled(lv, 1, 300, 5, 7);
	struct bf_detect_params p;
	struct bf_change *c;

	(void)state;
	bf_detect_params_default(&p, BF_DETECT_PERFHERDER);
	assert_int_equal(ph_changes(&c, &p, x, 300), 0);
	free(c);
	free(x);
}

/*
 * 1000 -> 1010 with noise +-0.5: t is far above 7, but the change is
 * 1 %, below the 2 % default, so no alert; with 0.5 % it is one.
 */
static void test_ph__min_percent_drops_tiny_step(void **state)
{
	const double lv[] = { 1000, 1010 };
	double *x = leveled(lv, 2, 30, 0.5, 3);
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_change *c;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	bf_detect_params_default(&p, BF_DETECT_PERFHERDER);
	assert_int_equal(bf_detect_perfherder_window(&w, &p, x + 18, 24, &err),
	                 0);
	assert_true(w.regression > 7);
	assert_int_equal(ph_changes(&c, &p, x, 60), 0);
	free(c);
	p.ph_min_percent = 0.5;
	assert_int_equal(ph_changes(&c, &p, x, 60), 1);
	assert_int_equal(c[0].index, 30);
	assert_close(c[0].size, 0.01, 0.001);
	free(c);
	free(x);
}

/*
 * Constant series (0.1 does not add up exactly in binary: a mean taken
 * naively is not 0.1, which would fake a difference), tiny and empty
 * series, and one shorter than min back + fore windows.
 */
static void test_ph__degenerate_series(void **state)
{
	const double lv[] = { 100, 150 };
	double flat[60], *step = leveled(lv, 2, 10, 1, 5);
	struct bf_detect_params p;
	struct bf_step_window w;
	struct bf_change *c;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < NELEM(flat); i++)
		flat[i] = 0.1;
	bf_detect_params_default(&p, BF_DETECT_PERFHERDER);
	assert_int_equal(ph_changes(&c, &p, flat, 60), 0);
	free(c);
	assert_int_equal(bf_detect_perfherder_window(&w, &p, flat, 60, &err),
	                 0);
	assert_close(w.regression, 0, 0);
	assert_close(w.step_size, 0, 0);
	assert_string_equal(w.status, "Uninteresting");

	for (size_t n = 0; n <= 1; n++) {
		assert_int_equal(ph_changes(&c, &p, flat, n), 0);
		free(c);
		assert_int_equal(
		        bf_detect_perfherder_window(&w, &p, flat, n, &err), 0);
		assert_close(w.regression, 0, 0);
		assert_false(isnan(w.step_size));
		assert_string_equal(w.status, "Uninteresting");
	}
	/* 20 values: fewer than 12 back + 12 fore, even with a 50 % step */
	assert_int_equal(ph_changes(&c, &p, step, 20), 0);
	free(c);
	free(step);
}

static void test_ph__rejects_bad_params(void **state)
{
	struct bf_detect_params p;

	(void)state;
	ph_params(&p, 0, 24, 12, 7);
	expect_einval(&p, "ph_min_back_window");
	ph_params(&p, 12, 0, 12, 7);
	expect_einval(&p, "ph_max_back_window");
	ph_params(&p, 12, 6, 12, 7);
	expect_einval(&p, "ph_max_back_window");
	ph_params(&p, 12, 24, 0, 7);
	expect_einval(&p, "ph_fore_window");
	ph_params(&p, 12, 24, 12, 0);
	expect_einval(&p, "ph_t_threshold");
	ph_params(&p, 12, 24, 12, -1);
	expect_einval(&p, "ph_t_threshold");
	ph_params(&p, 12, 24, 12, NAN);
	expect_einval(&p, "ph_t_threshold");
	ph_params(&p, 12, 24, 12, 7);
	p.ph_min_percent = -1;
	expect_einval(&p, "ph_min_percent");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ph__calc_t_by_hand_window),
		cmocka_unit_test(test_ph__series_by_hand),
		cmocka_unit_test(test_ph__infinite_t_scores_1000),
		cmocka_unit_test(test_detect__score_sign_is_direction),
		cmocka_unit_test(test_ph__local_maximum_rule),
		cmocka_unit_test(test_ph__back_window_grows),
		cmocka_unit_test(test_ph__clean_step_found),
		cmocka_unit_test(test_ph__noise_only_finds_nothing),
		cmocka_unit_test(test_ph__min_percent_drops_tiny_step),
		cmocka_unit_test(test_ph__degenerate_series),
		cmocka_unit_test(test_ph__rejects_bad_params),
	};

	return cmocka_run_group_tests_name("detect_perfherder", tests, NULL,
	                                   NULL);
}
