/*
 * Unit tests for the pooled detector (core/src/detect_pooled.c): its
 * noise estimate and window statistic against values worked out by
 * hand from the formulas (docs/postsubmit.md), the stricter threshold
 * near the ends, the repeats' front door (bf_detect_series_reps), and
 * synthetic histories with known steps and known noise (fixed seeds).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/testutil.h"

static struct bf_detect_params pooled(void)
{
	struct bf_detect_params p;

	bf_detect_params_default(&p, BF_DETECT_POOLED);
	return p;
}

/*
 * Four commits: {10, 12} {11, 13} {14, 16, 18} {12, 12}.
 * Levels (medians) 11, 12, 16, 12.
 * Sample variances 2, 2, 4, 0 with 1, 1, 2, 1 degrees of freedom: the
 * median variance is (2 + 2) / 2 = 2, the median k is 1, and the median
 * of chi2(1)/1 by Wilson-Hilferty is (1 - 2/9)^3 = 343/729, so
 * within = 2 * 729/343 = 4.25072886297376.
 * n_harmonic = 4 / (1/2 + 1/2 + 1/3 + 1/2) = 24/11.
 * Neighbour differences |1|, |4|, |-4|: median 4, so the total variance
 * of a level is (4 / 0.6744897501960817)^2 / 2 = 17.58483..., and
 * between = 17.58483... - (pi/2) * within / (24/11) = 14.5245696179684.
 */
static const double hand_v[] = { 10, 12, 11, 13, 14, 16, 18, 12, 12 };
static const size_t hand_off[] = { 0, 2, 4, 7, 9 };

static void test_pooled__noise_hand_computed(void **state)
{
	struct bf_pooled_noise nz;

	(void)state;
	bf_pooled_noise(&nz, hand_v, hand_off, 4);
	assert_close(nz.within, 4.2507288629737605, 1e-12);
	assert_close(nz.n_harmonic, 24.0 / 11.0, 1e-12);
	assert_close(nz.between, 14.524569617968426, 1e-9);
	/* a level of n repeats: between + (pi/2) * within / n */
	assert_close(bf_pooled_commit_var(&nz, 2),
	             14.524569617968426 +
	                     1.5707963267948966 * 4.2507288629737605 / 2,
	             1e-9);
}

static void test_pooled__window_hand_computed(void **state)
{
	/*
	 * Commits 0, 1 before, 2, 3 after. The sides' medians are 11.5 and
	 * 14; a side of two takes its level nearer the other's median:
	 * before 12 (of 11, 12), after 12 (of 16, 12): commit 3 went back,
	 * so z = 0. Its variance is one commit's: 2 * (sum of the two) /
	 * 2^2, so se = sqrt(2 (cv(2) + cv(2)) / 4 + 2 (cv(3) + cv(2)) / 4)
	 * = 5.930408874022409 with cv(n) = between + (pi/2) within / n. The
	 * means are 11.5 and 14: z_mean = 2.5 / sqrt((2 cv(2)) / 4 +
	 * (cv(3) + cv(2)) / 4) = 2.5 / (5.930408874022409 / sqrt(2)).
	 */
	struct bf_pooled_noise nz;
	struct bf_pooled_window w;

	(void)state;
	bf_pooled_noise(&nz, hand_v, hand_off, 4);
	bf_pooled_window_eval(&w, hand_v, hand_off, &nz, 0, 2, 4);
	assert_close(w.before, 12, 0);
	assert_close(w.after, 12, 0);
	assert_close(w.se, 5.930408874022409, 1e-9);
	assert_close(w.z, 0, 0);
	assert_close(w.mean_before, 11.5, 0);
	assert_close(w.mean_after, 14, 0);
	assert_close(w.z_mean, 2.5 / (5.930408874022409 / sqrt(2)), 1e-9);
	/*
	 * Commit 0 before (level 11), 1..3 after: median of 12, 16, 12 =
	 * 12. se = sqrt(cv(2) + (pi/2) (cv(2) + cv(3) + cv(2)) / 3^2) =
	 * 5.198263786905336, z = 1 / se.
	 */
	bf_pooled_window_eval(&w, hand_v, hand_off, &nz, 0, 1, 4);
	assert_close(w.before, 11, 0);
	assert_close(w.after, 12, 0);
	assert_close(w.se, 5.198263786905336, 1e-9);
	assert_close(w.z, 0.19237192281758492, 1e-9);
}

static void test_pooled__threshold_near_the_ends(void **state)
{
	struct bf_detect_params p = pooled();

	(void)state;
	/* width 8, threshold 4: full sides 4; two commits 4 sqrt(8/2) */
	assert_close(bf_pooled_threshold(&p, 8), 4, 0);
	assert_close(bf_pooled_threshold(&p, 9), 4, 0);
	assert_close(bf_pooled_threshold(&p, 2), 8, 1e-12);
	assert_close(bf_pooled_threshold(&p, 5), 4 * sqrt(8.0 / 5.0), 1e-12);
}

/* A deterministic normal: xorshift64* and Box-Muller. */
static uint64_t rng_state;

static double unif(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static double normal(void)
{
	double u = unif(), v = unif();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/*
 * A history of n commits of `reps` repeats around 100: each commit
 * moves by N(0, between) (in %), each repeat by N(0, within); from
 * commit `at` on (at < n) the level is 100 * (1 + step).
 */
struct synth {
	double *v;
	size_t *off;
};

static struct synth make(uint64_t seed, size_t n, size_t reps, double between,
                         double within, size_t at, double step)
{
	struct synth s = { calloc(n * reps, sizeof(double)),
		           calloc(n + 1, sizeof(size_t)) };

	rng_state = seed;
	for (size_t k = 0; k < n; k++) {
		double level = 100 * (k >= at ? 1 + step : 1);
		double c = level * (1 + between / 100 * normal());

		s.off[k] = k * reps;
		for (size_t r = 0; r < reps; r++)
			s.v[k * reps + r] = c * (1 + within / 100 * normal());
	}
	s.off[n] = n * reps;
	return s;
}

static size_t detect(struct bf_change **ch, const struct bf_detect_params *p,
                     const struct synth *s, size_t n)
{
	struct bf_err err = { 0 };
	size_t nch = 0;

	assert_int_equal(
	        bf_detect_series_reps(ch, &nch, p, s->v, s->off, n, &err), 0);
	return nch;
}

/*
 * Over `seeds` histories of 100 commits with a step of `step` at commit
 * 50: how many found it at its commit, one commit off, and how many
 * alerts there were anywhere else.
 */
struct tally {
	size_t exact, near, other, max_per_series;
};

static struct tally run_seeds(const struct bf_detect_params *p, uint64_t seed0,
                              size_t seeds, double step)
{
	struct tally t = { 0, 0, 0, 0 };
	size_t at = step != 0 ? 50 : 100;

	for (uint64_t seed = seed0; seed < seed0 + seeds; seed++) {
		struct synth s = make(seed, 100, 5, 3, 2, at, step);
		struct bf_change *ch = NULL;
		size_t n = detect(&ch, p, &s, 100);

		for (size_t i = 0; i < n; i++) {
			size_t d = ch[i].index > at ? ch[i].index - at
			                            : at - ch[i].index;

			t.exact += d == 0;
			t.near += d == 1;
			t.other += d > 1;
		}
		t.max_per_series = n > t.max_per_series ? n : t.max_per_series;
		free(ch);
		free(s.v);
		free(s.off);
	}
	return t;
}

static void test_pooled__finds_a_20pct_step_in_3pct_noise(void **state)
{
	/*
	 * The case: 3% between commits, 2% between repeats, 5
	 * repeats, a +20% step. pooled finds every one, nearly always at
	 * its commit; jetpack on the medians (width 5, threshold 25) misses
	 * some.
	 */
	struct bf_detect_params p = pooled(), jp;
	struct tally t = run_seeds(&p, 1, 100, 0.20), tj;

	(void)state;
	assert_int_equal(t.exact + t.near, 100);
	assert_true(t.exact >= 95);
	assert_true(t.other <= 1); /* one alert elsewhere in 10,000 commits */
	assert_true(t.max_per_series <= 2);
	bf_detect_params_default(&jp, BF_DETECT_JETPACK);
	tj = run_seeds(&jp, 1, 100, 0.20);
	assert_true(tj.exact + tj.near < 100);
}

static void test_pooled__a_10pct_step_in_3pct_noise(void **state)
{
	/* half the size: found within a commit in two thirds */
	struct bf_detect_params p = pooled();
	struct tally t = run_seeds(&p, 1, 200, 0.10);

	(void)state;
	assert_true(t.exact + t.near >= 133);
	assert_true(t.exact >= 100);
}

static void test_pooled__no_step_no_alert(void **state)
{
	/*
	 * 200 histories of 100 commits with the same noise and no step: the
	 * target is at most one false alert per 100 commits; these seeds
	 * give one in all 20,000.
	 */
	struct bf_detect_params p = pooled();
	struct tally t = run_seeds(&p, 1000, 200, 0);

	(void)state;
	assert_true(t.exact + t.near + t.other <= 1);
}

static void test_pooled__step_at_the_head(void **state)
{
	/*
	 * A -15% step two commits before the head: judged with two commits
	 * after it against the stricter threshold, and found there; with
	 * one commit after it, not yet (BF_POOLED_MIN_SIDE).
	 */
	struct bf_detect_params p = pooled();
	struct bf_change *ch = NULL;
	struct synth s = make(7, 40, 5, 1, 1, 38, -0.15);

	(void)state;
	assert_int_equal(detect(&ch, &p, &s, 40), 1);
	assert_int_equal(ch[0].index, 38);
	assert_int_equal(ch[0].direction, -1);
	free(ch);
	assert_int_equal(detect(&ch, &p, &s, 39), 0);
	free(ch);
	free(s.v);
	free(s.off);
}

static void test_pooled__min_change(void **state)
{
	/* a 1% step in 0.1% noise passes z but not min_change 0.02 */
	struct bf_detect_params p = pooled();
	struct bf_change *ch = NULL;
	struct synth s = make(3, 40, 5, 0.1, 0.1, 20, 0.01);

	(void)state;
	assert_int_equal(detect(&ch, &p, &s, 40), 0);
	free(ch);
	p.pooled_min_change = 0;
	assert_int_equal(detect(&ch, &p, &s, 40), 1);
	assert_int_equal(ch[0].index, 20);
	free(ch);
	free(s.v);
	free(s.off);
}

static void test_pooled__reps_front_door(void **state)
{
	/*
	 * Commit 2 has no repeats and commit 5's are NaN: both are left
	 * out and the step's index is the input's. Other detectors read the
	 * median of each commit's repeats.
	 */
	double v[40];
	size_t off[13];
	size_t k = 0;
	struct bf_detect_params p = pooled();
	struct bf_change *ch = NULL;
	size_t nch = 0;
	struct bf_err err = { 0 };

	(void)state;
	for (size_t c = 0; c < 12; c++) {
		off[c] = k;
		if (c == 2)
			continue;
		for (int r = 0; r < 3; r++)
			v[k++] = c == 5 ? NAN : (c < 8 ? 100 : 130) + r;
	}
	off[12] = k;
	assert_int_equal(bf_detect_series_reps(&ch, &nch, &p, v, off, 12, &err),
	                 0);
	assert_int_equal(nch, 1);
	assert_int_equal(ch[0].index, 8);
	assert_close(ch[0].before, 101, 0);
	assert_close(ch[0].after, 131, 0);
	free(ch);
	v[4] = INFINITY;
	assert_int_equal(bf_detect_series_reps(&ch, &nch, &p, v, off, 12, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "infinite"));
	assert_null(ch);
}

static void test_pooled__invalid_params(void **state)
{
	struct bf_detect_params p = pooled();
	struct bf_change *ch = NULL;
	size_t nch = 0;
	struct bf_err err = { 0 };

	(void)state;
	p.pooled_width = 1;
	assert_int_equal(
	        bf_detect_series_reps(&ch, &nch, &p, hand_v, hand_off, 4, &err),
	        BF_EINVAL);
	assert_non_null(strstr(err.msg, "pooled_width"));
	p = pooled();
	p.pooled_threshold = 0;
	assert_int_equal(
	        bf_detect_series_reps(&ch, &nch, &p, hand_v, hand_off, 4, &err),
	        BF_EINVAL);
	assert_non_null(strstr(err.msg, "pooled_threshold"));
	assert_string_equal(bf_detector_name(BF_DETECT_POOLED), "pooled");
	assert_int_equal(bf_detector_from_name("pooled"), BF_DETECT_POOLED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pooled__noise_hand_computed),
		cmocka_unit_test(test_pooled__window_hand_computed),
		cmocka_unit_test(test_pooled__threshold_near_the_ends),
		cmocka_unit_test(test_pooled__finds_a_20pct_step_in_3pct_noise),
		cmocka_unit_test(test_pooled__a_10pct_step_in_3pct_noise),
		cmocka_unit_test(test_pooled__no_step_no_alert),
		cmocka_unit_test(test_pooled__step_at_the_head),
		cmocka_unit_test(test_pooled__min_change),
		cmocka_unit_test(test_pooled__reps_front_door),
		cmocka_unit_test(test_pooled__invalid_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
