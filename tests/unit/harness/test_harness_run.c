/*
 * Whole libbenchfarm_bench runs on a scripted clock (agent/harness/
 * run.c): the bodies advance the time themselves, so warmup, loop
 * sizing, the clock reads per measurement, pauses, dry runs, throttle
 * sleeps and redone phases, the retry cap, the time cap and misuse
 * messages are checked exactly. Also the throttle controller with a
 * scripted workload. Expected values are worked out from Jetpack
 * Microbenchmark's formulas (androidx.benchmark).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness/harness.h"

#define MS 1000000ULL
#define S  1000000000ULL

/* ---- the scripted clock ---- */

struct fake {
	uint64_t t; /* now, ns */
	int reads;
	int sleeps;
	uint64_t slept;
	const double *work; /* the throttle workload's results, in order */
	int work_calls;
	int body_calls;
	uint64_t ramp; /* iterations so far, for ramp_body */
};

static struct fake fk;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	fk.reads++;
	return fk.t;
}

static void fake_sleep(void *ctx, uint64_t ns)
{
	(void)ctx;
	fk.sleeps++;
	fk.slept += ns;
	fk.t += ns;
}

static double fake_work(void *ctx)
{
	(void)ctx;
	return fk.work[fk.work_calls++];
}

static const struct bf_bench_clock fake_clock = { fake_now, fake_sleep, NULL };
static const struct bf_bench_throttle_env fake_env = { fake_work, NULL,
	                                               &fake_clock };

static void fake_reset(const double *work)
{
	memset(&fk, 0, sizeof(fk));
	fk.work = work;
}

/* Each iteration takes 10 ms. */
static void body_10ms(struct bf_bench_state *state)
{
	fk.body_calls++;
	while (bf_bench_keep_running(state))
		fk.t += 10 * MS;
}

/* 5 ms of paused set-up and 1 ms of work per iteration. */
static void body_paused(struct bf_bench_state *state)
{
	while (bf_bench_keep_running(state)) {
		bf_bench_pause_timing(state);
		fk.t += 5 * MS;
		bf_bench_resume_timing(state);
		fk.t += MS;
	}
}

/* The i-th iteration takes i ms. */
static void body_ramp(struct bf_bench_state *state)
{
	while (bf_bench_keep_running(state))
		fk.t += ++fk.ramp * MS;
}

static void body_1s(struct bf_bench_state *state)
{
	while (bf_bench_keep_running(state))
		fk.t += S;
}

static struct bf_bench_run_opts run_opts(void)
{
	struct bf_bench_run_opts o = {
		50, 100 * MS, 0, false, &fake_clock, NULL
	};

	return o;
}

static void run(struct bf_bench_result *res, bf_bench_fn *fn,
                const struct bf_bench_run_opts *o, struct bf_bench_throttle *th)
{
	static struct bf_bench_entry e;

	e.name = (char *)"fake";
	e.fn = fn;
	e.args = NULL;
	e.nargs = 0;
	bf_bench__run(res, &e, o, th, &fake_env);
}

/*
 * 10 ms iterations: warmup ends at the 42nd, loops of 100 / 10 = 10
 * iterations, 50 measurements of exactly 10 ms each; 420 ms + 5 s in
 * all. The clock is read twice per measurement boundary (the end of one,
 * the start of the next), never per iteration: 1 at the start of the
 * run, 1 when the body starts, 2 at the first boundary, 2 at each of
 * the 91 boundaries that start another measurement, 1 at the last, 1
 * when the body returns and 1 at the end: 189 reads for 542 iterations.
 */
static void test_harness__run_warmup_then_sized_loops(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	run(&r, body_10ms, &o, NULL);
	assert_null(r.error);
	assert_int_equal(r.warmup_iterations, 42);
	assert_int_equal(r.repeat_iterations, 10);
	assert_int_equal(r.nruns, 50);
	for (size_t i = 0; i < r.nruns; i++)
		assert_true(r.runs[i] == 10e6);
	assert_int_equal(r.total_ns, 420 * MS + 5 * S);
	assert_int_equal(fk.reads, 189);
	assert_int_equal(r.slept_ns, 0);
	bf_bench__result_release(&r);
}

/*
 * Warmup counts the paused 5 ms (Jetpack), so its iterations take 6 ms
 * and loops get 100 / 6 = 16 iterations; the measurements count only
 * the unpaused 1 ms.
 */
static void test_harness__run_pause_excluded(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	run(&r, body_paused, &o, NULL);
	assert_null(r.error);
	assert_int_equal(r.warmup_iterations, 42);
	assert_int_equal(r.repeat_iterations, 16);
	for (size_t i = 0; i < r.nruns; i++)
		assert_true(r.runs[i] == 1e6);
	bf_bench__result_release(&r);
}

/* A body that keeps slowing down is cut off at 8 s of warmup (126
 * iterations); loops of 100 ms / 126 ms are clamped to 1 iteration. */
static void test_harness__run_warmup_cut_off(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	run(&r, body_ramp, &o, NULL);
	assert_null(r.error);
	assert_int_equal(r.warmup_iterations, 126);
	assert_int_equal(r.repeat_iterations, 1);
	assert_true(r.runs[0] == 127e6 && r.runs[49] == 176e6);
	bf_bench__result_release(&r);
}

/* 1 s iterations: 30 warmup iterations however long they take. */
static void test_harness__run_minimum_warmup_iterations(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	o.measurements = 3;
	run(&r, body_1s, &o, NULL);
	assert_int_equal(r.warmup_iterations, 30);
	assert_int_equal(r.repeat_iterations, 1);
	assert_int_equal(r.nruns, 3);
	bf_bench__result_release(&r);
}

static void test_harness__run_dry_run(void **state)
{
	const double work[] = { 100 };
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_throttle th;
	struct bf_bench_result r;

	(void)state;
	fake_reset(work);
	o.dry_run = true;
	bf_bench__throttle_init(&th, true, 2, 90 * S);
	run(&r, body_10ms, &o, &th);
	assert_null(r.error);
	assert_int_equal(r.nruns, 1);
	assert_int_equal(r.warmup_iterations, 0);
	assert_int_equal(r.repeat_iterations, 1);
	assert_true(r.runs[0] == 10e6);
	assert_int_equal(fk.work_calls, 0); /* no throttle check */
	bf_bench__result_release(&r);
}

/* ---- throttling ---- */

static void test_harness__throttle_ten_percent_rule(void **state)
{
	const double work[] = { 100, 105, 110, 110.1 };
	struct bf_bench_throttle t;

	(void)state;
	fake_reset(work);
	bf_bench__throttle_init(&t, true, 2, 90 * S);
	bf_bench__throttle_begin(&t, &fake_env);
	assert_true(t.baseline_ns == 100);
	/* 5% and exactly 10% slower are not throttled; 10.1% is */
	assert_int_equal(bf_bench__throttle_after_phase(&t, &fake_env, NULL),
	                 BF_THROTTLE_KEEP);
	assert_int_equal(bf_bench__throttle_after_phase(&t, &fake_env, NULL),
	                 BF_THROTTLE_KEEP);
	assert_int_equal(bf_bench__throttle_after_phase(&t, &fake_env, NULL),
	                 BF_THROTTLE_REDO);
	assert_int_equal(fk.sleeps, 1);
	assert_int_equal(fk.slept, 90 * S);
	assert_int_equal(t.slept_ns, 90 * S);
	assert_int_equal(t.retries_left, 1);
}

static void test_harness__throttle_disabled_measures_nothing(void **state)
{
	const double work[] = { 100 };
	struct bf_bench_throttle t;

	(void)state;
	fake_reset(work);
	bf_bench__throttle_init(&t, false, 2, 90 * S);
	bf_bench__throttle_begin(&t, &fake_env);
	assert_int_equal(bf_bench__throttle_after_phase(&t, &fake_env, NULL),
	                 BF_THROTTLE_KEEP);
	assert_int_equal(fk.work_calls, 0);
	assert_int_equal(fk.sleeps, 0);
}

/*
 * Throttled once: the run sleeps 90 s (on the scripted clock), redoes
 * the timing phase (the body runs again, the warmup does not) and keeps
 * the second phase's data; the sleep is reported and in the total.
 */
static void test_harness__run_throttle_sleeps_and_redoes(void **state)
{
	const double work[] = { 100, 150, 100 };
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_throttle th;
	struct bf_bench_result r;

	(void)state;
	fake_reset(work);
	bf_bench__throttle_init(&th, true, 2, 90 * S);
	run(&r, body_10ms, &o, &th);
	assert_null(r.error);
	assert_int_equal(fk.work_calls, 3);
	assert_int_equal(fk.body_calls, 2);
	assert_int_equal(fk.sleeps, 1);
	assert_int_equal(r.slept_ns, 90 * S);
	assert_int_equal(r.warmup_iterations, 42);
	assert_int_equal(r.nruns, 50);
	assert_int_equal(r.total_ns, 420 * MS + 5 * S + 90 * S + 5 * S);
	bf_bench__result_release(&r);
}

/*
 * Throttled every time: two sleeps at most, then the third phase's data
 * is kept, and the baseline is forgotten so that the next benchmark
 * measures a new one, with a new budget.
 */
static void test_harness__run_throttle_retry_cap(void **state)
{
	const double work[] = { 100, 150, 150, 150, 80 };
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_throttle th;
	struct bf_bench_result r;

	(void)state;
	fake_reset(work);
	bf_bench__throttle_init(&th, true, 2, 30 * S);
	run(&r, body_10ms, &o, &th);
	assert_null(r.error);
	assert_int_equal(fk.body_calls, 3);
	assert_int_equal(fk.sleeps, 2);
	assert_int_equal(r.slept_ns, 60 * S);
	assert_int_equal(r.nruns, 50);
	assert_true(th.baseline_ns == 0);
	bf_bench__result_release(&r);
	bf_bench__throttle_begin(&th, &fake_env);
	assert_true(th.baseline_ns == 80);
	assert_int_equal(th.retries_left, 2);
	assert_int_equal(th.slept_ns, 0);
}

/* ---- the time cap ---- */

/*
 * A 1 s cap: warmup ends at 420 ms, measurement k at 420 + 100k ms, and
 * the boundary at 1020 ms (k = 6) is past the cap: stopped, reported.
 */
static void test_harness__run_time_cap_stops(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	o.time_cap_ns = S;
	run(&r, body_10ms, &o, NULL);
	assert_true(r.timed_out);
	assert_int_equal(r.nruns, 6);
	assert_string_equal(
	        r.error,
	        "stopped at the time cap of 1 s (timing, 6 of 50 measurements)");
	bf_bench__result_release(&r);

	fake_reset(NULL);
	o.time_cap_ns = 200 * MS;
	run(&r, body_10ms, &o, NULL);
	assert_true(r.timed_out);
	assert_int_equal(r.warmup_iterations, 20);
	assert_string_equal(
	        r.error,
	        "stopped at the time cap of 0.2 s (in warmup, 0 of 50 measurements)");
	bf_bench__result_release(&r);
}

/* The cap counts the body's time, not throttle sleeps: 5.42 s + 5 s of
 * body fit in 11 s although 90 s were slept between them. */
static void test_harness__run_time_cap_excludes_sleeps(void **state)
{
	const double work[] = { 100, 150, 100 };
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_throttle th;
	struct bf_bench_result r;

	(void)state;
	fake_reset(work);
	o.time_cap_ns = 11 * S;
	bf_bench__throttle_init(&th, true, 2, 90 * S);
	run(&r, body_10ms, &o, &th);
	assert_null(r.error);
	assert_false(r.timed_out);
	assert_int_equal(r.nruns, 50);
	assert_int_equal(r.slept_ns, 90 * S);
	bf_bench__result_release(&r);
}

/* ---- misuse ---- */

static void body_pause_twice(struct bf_bench_state *state)
{
	while (bf_bench_keep_running(state)) {
		bf_bench_pause_timing(state);
		bf_bench_pause_timing(state);
		bf_bench_resume_timing(state);
	}
}

static void body_stays_paused(struct bf_bench_state *state)
{
	while (bf_bench_keep_running(state))
		bf_bench_pause_timing(state);
}

static void body_gives_up(struct bf_bench_state *state)
{
	bf_bench_keep_running(state);
}

static void body_resume_only(struct bf_bench_state *state)
{
	while (bf_bench_keep_running(state))
		bf_bench_resume_timing(state);
}

static void test_harness__run_misuse_reported(void **state)
{
	static const struct {
		bf_bench_fn *fn;
		bool dry;
		const char *error;
	} cases[] = {
		{ body_pause_twice, true,
		  "bf_bench_pause_timing called twice without resume" },
		{ body_stays_paused, true,
		  "a measurement ended while timing was paused (call bf_bench_resume_timing)" },
		{ body_resume_only, true,
		  "bf_bench_resume_timing without a pause" },
		{ body_gives_up, false,
		  "returned before bf_bench_keep_running said stop (0 of 3 measurements)" },
	};
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	o.measurements = 3;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_reset(NULL);
		o.dry_run = cases[i].dry;
		run(&r, cases[i].fn, &o, NULL);
		assert_non_null(r.error);
		assert_string_equal(r.error, cases[i].error);
		assert_false(r.timed_out);
		bf_bench__result_release(&r);
	}
}

/* body_10ms written with BF_BENCH_LOOP: the count kept in a local. */
static void body_10ms_loop(struct bf_bench_state *state)
{
	fk.body_calls++;
	BF_BENCH_LOOP(state)
	{
		fk.t += 10 * MS;
	}
}

/*
 * BF_BENCH_LOOP runs exactly what bf_bench_keep_running runs: the same
 * warmup, loop sizes, measurements and time, and the same 189 clock
 * reads (none per iteration).
 */
static void test_harness__run_loop_macro_same_as_keep_running(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	run(&r, body_10ms_loop, &o, NULL);
	assert_null(r.error);
	assert_int_equal(fk.body_calls, 1);
	assert_int_equal(r.warmup_iterations, 42);
	assert_int_equal(r.repeat_iterations, 10);
	assert_int_equal(r.nruns, 50);
	for (size_t i = 0; i < r.nruns; i++)
		assert_true(r.runs[i] == 10e6);
	assert_int_equal(r.total_ns, 420 * MS + 5 * S);
	assert_int_equal(fk.reads, 189);
	bf_bench__result_release(&r);
}

/* Breaks out in the first timing measurement, after 3 iterations. */
static void body_loop_breaks(struct bf_bench_state *state)
{
	int timed = 0;

	BF_BENCH_LOOP(state)
	{
		fk.t += 10 * MS;
		if (++fk.ramp > 42 && ++timed == 3)
			break;
	}
}

static void test_harness__run_loop_macro_break_reported(void **state)
{
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	fake_reset(NULL);
	run(&r, body_loop_breaks, &o, NULL);
	assert_non_null(r.error);
	assert_string_equal(r.error,
	                    "left BF_BENCH_LOOP with break or goto (return "
	                    "after the loop instead)");
	assert_int_equal(r.nruns, 0);
	bf_bench__result_release(&r);
}

static long long seen_args[3];

static void body_args(struct bf_bench_state *state)
{
	seen_args[0] = bf_bench_arg(state);
	seen_args[1] = bf_bench_arg(state, 1);
	seen_args[2] = bf_bench_arg(state, 2);
	while (bf_bench_keep_running(state)) {
	}
}

static void test_harness__run_args(void **state)
{
	long long two[] = { 7, 9 }, one[] = { 5 };
	struct bf_bench_entry e = { (char *)"a/7/9", body_args, two, 2 };
	struct bf_bench_run_opts o = run_opts();
	struct bf_bench_result r;

	(void)state;
	o.dry_run = true;
	bf_bench__run(&r, &e, &o, NULL, &fake_env);
	assert_int_equal(seen_args[0], 7);
	assert_int_equal(seen_args[1], 9);
	assert_int_equal(seen_args[2], 0);
	assert_string_equal(r.error,
	                    "bf_bench_arg(state, 2): this run has 2 arguments");
	bf_bench__result_release(&r);
	e.args = one;
	e.nargs = 1;
	bf_bench__run(&r, &e, &o, NULL, &fake_env);
	assert_string_equal(r.error,
	                    "bf_bench_arg(state, 1): this run has 1 argument");
	bf_bench__result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness__run_warmup_then_sized_loops),
		cmocka_unit_test(test_harness__run_pause_excluded),
		cmocka_unit_test(test_harness__run_warmup_cut_off),
		cmocka_unit_test(test_harness__run_minimum_warmup_iterations),
		cmocka_unit_test(test_harness__run_dry_run),
		cmocka_unit_test(test_harness__throttle_ten_percent_rule),
		cmocka_unit_test(
		        test_harness__throttle_disabled_measures_nothing),
		cmocka_unit_test(test_harness__run_throttle_sleeps_and_redoes),
		cmocka_unit_test(test_harness__run_throttle_retry_cap),
		cmocka_unit_test(test_harness__run_time_cap_stops),
		cmocka_unit_test(test_harness__run_time_cap_excludes_sleeps),
		cmocka_unit_test(test_harness__run_misuse_reported),
		cmocka_unit_test(test_harness__run_args),
		cmocka_unit_test(
		        test_harness__run_loop_macro_same_as_keep_running),
		cmocka_unit_test(test_harness__run_loop_macro_break_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
