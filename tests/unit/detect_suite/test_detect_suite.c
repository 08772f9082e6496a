/*
 * The suite-wide spike rule of orchestrator/postsubmit/detect.c
 * (bf_detect_suite_spikes): a build is left out when at least `share` of
 * the series that have a point there, and at least three, spike at it:
 * the point leaves both measured neighbours in the same direction by
 * more than max(4 robust noise units, 2 % of the previous point), and
 * the neighbours agree with each other within half of that move. The
 * expected values below were worked out by hand from that rule.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "postsubmit/detect.h"

#define N 10

/* A flat series at level with a small alternating wobble (no MAD). */
static void flat(double *v, double level)
{
	for (int i = 0; i < N; i++)
		v[i] = level + (i % 2) * 0.001 * level;
}

/* The levels of the suites below: series j is flat at levels[j]. */
static const double levels[] = { 100, 200, 50, 70 };

/* n series (at most 4) of v, flat at levels[]; s[j] points at v[j]. */
static void suite(double (*v)[N], double **s, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		flat(v[j], levels[j]);
		s[j] = v[j];
	}
}

/* Point k of each of the first n series of s, times f. */
static void scale_at(double **s, size_t n, int k, double f)
{
	for (size_t j = 0; j < n; j++)
		s[j][k] *= f;
}

/* The indexes flagged, as a bit mask. */
static unsigned flagged(double **s, size_t ns, double share)
{
	bool out[N];
	unsigned mask = 0;

	bf_detect_suite_spikes(out, s, ns, N, share);
	for (int i = 0; i < N; i++)
		mask |= (unsigned)out[i] << i;
	return mask;
}

static void test_detect_suite__three_series_spike_together(void **state)
{
	double v[3][N], *s[3];

	(void)state;
	suite(v, s, 3);
	scale_at(s, 3, 5, 1.3);
	assert_int_equal(flagged(s, 3, 0.5), 1u << 5);
}

/* Two series are never "the suite", whatever the share. */
static void test_detect_suite__needs_three_series(void **state)
{
	double v[2][N], *s[2];

	(void)state;
	suite(v, s, 2);
	scale_at(s, 2, 5, 1.3);
	assert_int_equal(flagged(s, 2, 0.1), 0);
}

/* 3 of 6 spike: a share of 0.5 is reached (3 >= 3), 0.51 is not. */
static void test_detect_suite__share_is_inclusive(void **state)
{
	double v[6][N];
	double *s[6];

	(void)state;
	for (int i = 0; i < 6; i++) {
		flat(v[i], 100 + 10 * i);
		s[i] = v[i];
	}
	v[0][4] *= 0.7; /* down */
	v[2][4] *= 1.3;
	v[4][4] *= 1.3;
	assert_int_equal(flagged(s, 6, 0.5), 1u << 4);
	assert_int_equal(flagged(s, 6, 0.51), 0);
	/* the threshold disables it above 1 */
	assert_int_equal(flagged(s, 6, 2.0), 0);
}

/*
 * At least three series must spike, not just three be measured: 2 of 4
 * reach a share of 0.5 (2 >= 2) but are two; 2 of 3 likewise. A third
 * spiking series of the four makes it one.
 */
static void test_detect_suite__three_must_spike(void **state)
{
	double v[4][N], *s[4];

	(void)state;
	suite(v, s, 4);
	scale_at(s, 2, 5, 1.3);
	assert_int_equal(flagged(s, 4, 0.5), 0);
	assert_int_equal(flagged(s, 3, 0.5), 0);
	v[2][5] *= 1.3;
	assert_int_equal(flagged(s, 4, 0.5), 1u << 5);
}

/* A step moves and stays: not a spike, at the step or after it. */
static void test_detect_suite__a_step_is_not_a_spike(void **state)
{
	double v[3][N], *s[3];

	(void)state;
	suite(v, s, 3);
	for (int i = 5; i < N; i++)
		scale_at(s, 3, i, 1.3);
	assert_int_equal(flagged(s, 3, 0.5), 0);
}

/*
 * The next point must come back: the neighbours must agree within half
 * of the smaller move. With L the level, point 3 at 1.001 L, point 4 at
 * 1.3 L and the series staying at 1.14 times its level from point 5
 * (point 5: 1.14114 L): the moves are 0.299 L and 0.15886 L, the
 * neighbours differ by 0.14014 L, more than 0.07943 L: not a spike.
 * Staying at 1.09 (point 5: 1.09109 L): the moves are 0.299 L and
 * 0.20891 L, the neighbours differ by 0.09009 L, less than 0.10446 L:
 * a spike, though the series does not return to its old level.
 */
static void test_detect_suite__must_come_back_halfway(void **state)
{
	static const double stay[] = { 1.14, 1.09 };
	double v[3][N], *s[3];

	(void)state;
	for (int t = 0; t < 2; t++) {
		suite(v, s, 3);
		scale_at(s, 3, 4, 1.3);
		for (int i = 5; i < N; i++)
			scale_at(s, 3, i, stay[t]);
		assert_int_equal(flagged(s, 3, 0.5), t == 0 ? 0 : 1u << 4);
	}
}

/*
 * The point must leave both neighbours beyond the tolerance: at level
 * 100 (noise 0.21, so the 2 % floor of the previous point, 2.002,
 * decides), 100.1, 102.05, 99.25 leaves the previous point by 1.95 and
 * the next by 2.8, and the neighbours differ by 0.85 < 0.975: only the
 * first move is too small, so it is not a spike. Scaled to the other
 * levels alike.
 */
static void test_detect_suite__must_leave_both_neighbours(void **state)
{
	double v[3][N], *s[3];

	(void)state;
	suite(v, s, 3);
	for (int j = 0; j < 3; j++) {
		v[j][4] = 1.0205 * levels[j];
		v[j][5] = 0.9925 * levels[j];
	}
	assert_int_equal(flagged(s, 3, 0.5), 0);
	/* 2.55 % above the previous point instead: a spike */
	for (int j = 0; j < 3; j++)
		v[j][4] = 1.0265 * levels[j];
	assert_int_equal(flagged(s, 3, 0.5), 1u << 4);
}

/* Up in one series, down in the others: each spikes on its own. */
static void test_detect_suite__directions_count_per_series(void **state)
{
	double v[3][N], *s[3];

	(void)state;
	suite(v, s, 3);
	v[0][3] *= 1.3;
	v[1][3] *= 0.7;
	v[2][3] *= 0.6;
	assert_int_equal(flagged(s, 3, 1.0), 1u << 3);
}

/*
 * A missing point is not counted at k (3 of 3 measured spike: share 1.0
 * holds; were the fourth counted, 3 of 4 would not), and a missing
 * neighbour is skipped for the next measured one.
 */
static void test_detect_suite__missing_points(void **state)
{
	double v[4][N], *s[4];

	(void)state;
	suite(v, s, 4);
	scale_at(s, 3, 6, 1.3);
	v[3][6] = NAN;
	v[0][5] = NAN; /* the first series' neighbours are 4 and 7 */
	assert_int_equal(flagged(s, 4, 1.0), 1u << 6);
}

/* Without a neighbour on both sides, a point cannot be a spike. */
static void test_detect_suite__ends_are_never_spikes(void **state)
{
	double v[3][N], *s[3];

	(void)state;
	suite(v, s, 3);
	scale_at(s, 3, 0, 1.3);
	scale_at(s, 3, N - 1, 1.3);
	assert_int_equal(flagged(s, 3, 0.5), 0);
}

/* 1.5 % is within the 2 % floor: not a spike; 2.5 % is. */
static void test_detect_suite__small_moves_are_noise(void **state)
{
	double v[3][N], *s[3];

	(void)state;
	suite(v, s, 3);
	scale_at(s, 3, 5, 1.015);
	assert_int_equal(flagged(s, 3, 0.5), 0);
	v[0][5] = 100 * 1.025 + (5 % 2) * 0.1;
	v[1][5] = 200 * 1.025 + (5 % 2) * 0.2;
	v[2][5] = 50 * 1.025 + (5 % 2) * 0.05;
	assert_int_equal(flagged(s, 3, 0.5), 1u << 5);
}

/*
 * A +300 move on a series whose own noise is 115 (4 units: 461) is not a
 * spike: by hand, with the pattern below, the point at 15 is 1360, its
 * neighbours 890 and 970, the scaled MAD of successive differences over
 * sqrt(2) is 115.3; 1360 - 970 = 390 < 461. The same move on a quiet
 * series (noise 11.5) is one.
 */
static void test_detect_suite__noisy_series_need_bigger_moves(void **state)
{
	static const double pat[] = { 0,  90,  -70, 40,  -110,
		                      60, -30, 120, -80, 20 };
	double quiet[3][30], noisy[30];
	double *s[4];
	bool out[30];

	(void)state;
	for (int i = 0; i < 30; i++) {
		noisy[i] = 1000 + pat[i % 10];
		for (int j = 0; j < 3; j++)
			quiet[j][i] = 1000 + pat[i % 10] / 10;
	}
	noisy[15] += 300;
	for (int j = 0; j < 3; j++) {
		quiet[j][15] += 300;
		s[j] = quiet[j];
	}
	s[3] = noisy;
	/* 3 of 4 spike: the noisy one does not count as spiking */
	bf_detect_suite_spikes(out, s, 4, 30, 1.0);
	assert_false(out[15]);
	bf_detect_suite_spikes(out, s, 4, 30, 0.75);
	for (int i = 0; i < 30; i++)
		assert_int_equal(out[i], i == 15);
	/*
	 * +420 instead: 1480 against 890 and 970, the smaller move 510 is
	 * between 4 units (461.3) and 5 (576.6), and below 4 units of the
	 * unscaled-by-sqrt(2) noise (652.3): with 4 noise units as the
	 * rule says, the noisy series now spikes too, 4 of 4.
	 */
	noisy[15] += 120;
	bf_detect_suite_spikes(out, s, 4, 30, 1.0);
	for (int i = 0; i < 30; i++)
		assert_int_equal(out[i], i == 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		        test_detect_suite__three_series_spike_together),
		cmocka_unit_test(test_detect_suite__needs_three_series),
		cmocka_unit_test(test_detect_suite__share_is_inclusive),
		cmocka_unit_test(test_detect_suite__three_must_spike),
		cmocka_unit_test(test_detect_suite__a_step_is_not_a_spike),
		cmocka_unit_test(test_detect_suite__must_come_back_halfway),
		cmocka_unit_test(test_detect_suite__must_leave_both_neighbours),
		cmocka_unit_test(
		        test_detect_suite__directions_count_per_series),
		cmocka_unit_test(test_detect_suite__missing_points),
		cmocka_unit_test(test_detect_suite__ends_are_never_spikes),
		cmocka_unit_test(test_detect_suite__small_moves_are_noise),
		cmocka_unit_test(
		        test_detect_suite__noisy_series_need_bigger_moves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
