/*
 * The harness's decisions with synthetic durations (agent/harness/
 * logic.c): Jetpack's warmup manager (its 250 ms minimum, 8 s maximum,
 * 30 iterations and 41 similar iterations), loop sizing, the statistics
 * and the throttle controller with a scripted workload and a sleeper
 * that only records. Expected values worked out from the reference's
 * formulas (../shared/reference/jetpack-benchmark.md, sections 1 to 3).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../../agent/harness/harness.h"

#define MS 1000000ULL

/* The iteration at which the warmup says done, feeding d(i) ns. */
static uint64_t done_at(uint64_t (*d)(uint64_t i), uint64_t max)
{
	struct bf_warmup w;

	bf_warmup_init(&w);
	for (uint64_t i = 1; i <= max; i++)
		if (bf_warmup_add(&w, d(i)))
			return i;
	return 0;
}

static uint64_t ten_ms(uint64_t i)
{
	(void)i;
	return 10 * MS;
}

static uint64_t one_ms(uint64_t i)
{
	(void)i;
	return MS;
}

static uint64_t one_s(uint64_t i)
{
	(void)i;
	return 1000 * MS;
}

static uint64_t ramp(uint64_t i)
{
	return i * MS;
}

/*
 * Stable 10 ms iterations: from the second on fast == slow, so similar
 * counts 1, 2, ...; similar > 40 first holds at iteration 42, when the
 * total (420 ms) is past 250 ms and 30 iterations.
 */
static void test_warmup__stable_stops_after_41_similar(void **state)
{
	(void)state;
	assert_int_equal(done_at(ten_ms, 1000), 42);
}

/* 1 ms iterations are similar early, but 250 ms take 250 of them. */
static void test_warmup__minimum_duration(void **state)
{
	(void)state;
	assert_int_equal(done_at(one_ms, 1000), 250);
}

/*
 * 1 s iterations pass 8 s at the 8th, but 30 iterations are needed: the
 * maximum duration ends the warmup at the 30th (similar is 29 then).
 */
static void test_warmup__minimum_iterations(void **state)
{
	(void)state;
	assert_int_equal(done_at(one_s, 1000), 30);
}

/*
 * Iterations that keep getting slower (i ms) never settle: fast/slow
 * stays above 1.0945 (float32, worked through), so only the 8 s cap ends
 * it, at the first n with n(n+1)/2 ms >= 8 s: n = 126.
 */
static void test_warmup__maximum_duration_cuts_off(void **state)
{
	struct bf_warmup w;
	uint64_t n;

	(void)state;
	assert_int_equal(done_at(ramp, 1000), 126);
	bf_warmup_init(&w);
	for (n = 1; n <= 126; n++)
		bf_warmup_add(&w, ramp(n));
	assert_int_equal(w.similar, 0);
	assert_int_equal(w.total_ns, 126 * 127 / 2 * MS);
	assert_int_equal(w.last_ns, 126 * MS); /* the estimate handed on */
}

static void test_loop__iterations_clamped(void **state)
{
	(void)state;
	assert_int_equal(bf_loop_iterations(100 * MS, MS), 100);
	assert_int_equal(bf_loop_iterations(100 * MS, 3 * MS), 33);
	assert_int_equal(bf_loop_iterations(100 * MS, 1000 * MS), 1);
	assert_int_equal(bf_loop_iterations(100 * MS, 0), 1000000);
	assert_int_equal(bf_loop_iterations(100 * MS, 10), 1000000);
}

static void test_stats__by_hand(void **state)
{
	const double v[] = { 4, 100, 1, 3, 2 };
	const double j[] = { 0, 50, 100 };
	struct bf_bench_stats s;

	(void)state;
	bf_bench_stats(&s, v, 5);
	assert_true(s.min == 1 && s.max == 100 && s.median == 3);
	assert_true(s.mean == 22);
	/* sqrt((21^2 + 20^2 + 19^2 + 18^2 + 78^2) / 4) = sqrt(1902.5) */
	assert_true(fabs(s.stddev - sqrt(1902.5)) < 1e-12);
	assert_true(fabs(s.cv - sqrt(1902.5) / 22) < 1e-12);
	/* p90: rank 0.9 * 4 = 3.6, between 4 and 100: 4 * 0.4 + 100 * 0.6 */
	assert_true(fabs(s.p90 - 61.6) < 1e-12);
	/* Jetpack's own test: 0, 50, 100 give P95 = 94.99999999999999 */
	bf_bench_stats(&s, j, 3);
	assert_true(s.p95 == 94.99999999999999);
	/* one value: no spread */
	bf_bench_stats(&s, v, 1);
	assert_true(s.stddev == 0 && s.median == 4 && s.cv == 0);
}

/* A scripted workload and a sleeper that records. */
struct script {
	const double *work;
	int next, calls;
	double slept[8];
	int sleeps;
};

static double scripted_work(void *ctx)
{
	struct script *s = ctx;

	s->calls++;
	return s->work[s->next++];
}

static void record_sleep(void *ctx, double seconds)
{
	struct script *s = ctx;

	s->slept[s->sleeps++] = seconds;
}

static void test_throttle__ten_percent_rule(void **state)
{
	const double work[] = { 100, 105, 110, 110.1 };
	struct script sc = { work, 0, 0, { 0 }, 0 };
	struct bf_throttle_env env = { scripted_work, record_sleep, &sc };
	struct bf_throttle t;

	(void)state;
	bf_throttle_init(&t, true, 2, 90);
	bf_throttle_begin(&t, &env, 2);
	assert_true(t.baseline_ns == 100);
	/* 5% and exactly 10% slower are not throttled; 10.1% is */
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_KEEP);
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_KEEP);
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_REDO);
	assert_int_equal(sc.sleeps, 1);
	assert_true(sc.slept[0] == 90 && t.slept_s == 90);
	assert_int_equal(t.retries_left, 1);
}

/* Two sleeps at most; then the data is kept and the baseline redone. */
static void test_throttle__retry_cap(void **state)
{
	const double work[] = { 100, 150, 150, 150, 80 };
	struct script sc = { work, 0, 0, { 0 }, 0 };
	struct bf_throttle_env env = { scripted_work, record_sleep, &sc };
	struct bf_throttle t;

	(void)state;
	bf_throttle_init(&t, true, 2, 30);
	bf_throttle_begin(&t, &env, 2);
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_REDO);
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_REDO);
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_KEEP);
	assert_int_equal(sc.sleeps, 2);
	assert_true(t.slept_s == 60);
	assert_true(t.baseline_ns == 0);
	/* the next benchmark measures a new baseline, with a new budget */
	bf_throttle_begin(&t, &env, 2);
	assert_true(t.baseline_ns == 80 && t.slept_s == 0);
	assert_int_equal(t.retries_left, 2);
	assert_int_equal(sc.calls, 5);
}

static void test_throttle__disabled_measures_nothing(void **state)
{
	const double work[] = { 100 };
	struct script sc = { work, 0, 0, { 0 }, 0 };
	struct bf_throttle_env env = { scripted_work, record_sleep, &sc };
	struct bf_throttle t;

	(void)state;
	bf_throttle_init(&t, false, 2, 90);
	bf_throttle_begin(&t, &env, 2);
	assert_int_equal(bf_throttle_after_phase(&t, &env), BF_THROTTLE_KEEP);
	assert_int_equal(sc.calls, 0);
	assert_int_equal(sc.sleeps, 0);
}

static void test_json__escape(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(bf_json_escape(out, sizeof(out), "a\"b\\c\n\x01z"),
	                 20);
	assert_string_equal(out, "a\\\"b\\\\c\\u000a\\u0001z");
	/* a short buffer is cut, still terminated, and the length told */
	assert_int_equal(bf_json_escape(out, 4, "abcdef"), 6);
	assert_string_equal(out, "abc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warmup__stable_stops_after_41_similar),
		cmocka_unit_test(test_warmup__minimum_duration),
		cmocka_unit_test(test_warmup__minimum_iterations),
		cmocka_unit_test(test_warmup__maximum_duration_cuts_off),
		cmocka_unit_test(test_loop__iterations_clamped),
		cmocka_unit_test(test_stats__by_hand),
		cmocka_unit_test(test_throttle__ten_percent_rule),
		cmocka_unit_test(test_throttle__retry_cap),
		cmocka_unit_test(test_throttle__disabled_measures_nothing),
		cmocka_unit_test(test_json__escape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
