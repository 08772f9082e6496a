/*
 * Unit tests for what the orchestrator reads from a duet round
 * (orchestrator/job/duet_round.c): a side the agent saw stopped by a
 * signal is flagged whichever it is; a base that spent far more of its
 * wall time neither running nor waiting for a CPU than the patch is
 * flagged, a base that waited for a busy core is not, and a patch that
 * idles more than the base is not (its waiting is its measurement);
 * the tally says how many rounds were isolated and why not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "job/duet_round.h"

static void test_duet_round__idle_share(void **state)
{
	struct bf_duet_times t = { 1.0, 0.5, 0.2, 0 };
	struct bf_duet_times busy = { 1.0, 0.9, 0.3, 0 };
	struct bf_duet_times none = { 0, 0, 0, 0 };

	(void)state;
	assert_true(bf_duet_idle_share(&t) > 0.29 &&
	            bf_duet_idle_share(&t) < 0.31);
	/* several threads: more CPU than wall time is no negative idle */
	assert_true(bf_duet_idle_share(&busy) == 0);
	assert_true(bf_duet_idle_share(&none) == 0);
}

static void test_duet_round__stopped_side(void **state)
{
	char msg[256];
	/* the base stopped half its time, the patch spinning */
	struct bf_duet_times stopped[2] = { { 1.0, 0.5, 0.0, 0 },
		                            { 0.5, 0.5, 0.0, 0 } };
	/* the base's core shared with a busy loop: it waited, runnable */
	struct bf_duet_times waited[2] = { { 1.0, 0.3, 0.65, 0 },
		                           { 0.3, 0.3, 0.0, 0 } };
	/* the patch sleeps: its own time, measured, not a stop */
	struct bf_duet_times sleeps[2] = { { 0.3, 0.3, 0.0, 0 },
		                           { 1.0, 0.3, 0.0, 0 } };
	/* a stop the agent saw, on either side, whatever the times */
	struct bf_duet_times signalled[2] = { { 0.3, 0.3, 0.0, 0 },
		                              { 0.3, 0.3, 0.0, 2 } };

	(void)state;
	assert_int_equal(bf_duet_stopped_side(stopped, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "50% of its 1.000 s neither running"));
	assert_int_equal(bf_duet_stopped_side(waited, msg, sizeof(msg)), -1);
	assert_int_equal(bf_duet_stopped_side(sleeps, msg, sizeof(msg)), -1);
	assert_int_equal(bf_duet_stopped_side(signalled, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "stopped or continued 2 times"));
	signalled[0].stops = 1;
	assert_int_equal(bf_duet_stopped_side(signalled, msg, sizeof(msg)), 0);
	/* just inside the margin: not flagged */
	stopped[0].cpu_s = 1.0 - BF_DUET_STOP_MARGIN + 0.01;
	assert_int_equal(bf_duet_stopped_side(stopped, msg, sizeof(msg)), -1);
}

static void test_duet_round__times_of(void **state)
{
	json_t *fin = json_pack("{s:f, s:f, s:f, s:{s:f, s:i}}", "wall_s", 2.0,
	                        "user_s", 0.5, "sys_s", 0.25, "cpu",
	                        "run_delay_s", 0.125, "stops", 3);
	struct bf_duet_times t;

	(void)state;
	bf_duet_times_of(&t, fin);
	assert_true(t.wall_s == 2.0 && t.cpu_s == 0.75 &&
	            t.run_delay_s == 0.125 && t.stops == 3);
	json_decref(fin);
	/* an older agent's result: no delay, no stops */
	fin = json_pack("{s:f, s:f, s:f}", "wall_s", 1.0, "user_s", 0.5,
	                "sys_s", 0.0);
	bf_duet_times_of(&t, fin);
	assert_true(t.run_delay_s == 0 && t.stops == 0);
	json_decref(fin);
}

static void test_duet_round__tally(void **state)
{
	struct bf_duet_tally t;
	json_t *iso = json_pack("{s:b, s:b, s:s}", "processes", 1, "cores", 0,
	                        "cores_why", "no cpuset");
	json_t *none = json_pack("{s:b, s:b, s:s, s:s}", "processes", 0,
	                         "cores", 0, "processes_why", "no userns",
	                         "cores_why", "none either");
	json_t *all = json_pack("{s:b, s:b}", "processes", 1, "cores", 1);
	json_t *o;

	(void)state;
	memset(&t, 0, sizeof(t));
	bf_duet_tally_add(&t, all);
	o = bf_duet_tally_json(&t, "full");
	assert_true(json_is_true(json_object_get(o, "isolated")));
	assert_true(json_is_null(json_object_get(o, "not_isolated")));
	json_decref(o);
	bf_duet_tally_add(&t, iso);
	bf_duet_tally_add(&t, none);
	bf_duet_tally_add(&t, NULL);
	t.stopped = 1;
	o = bf_duet_tally_json(&t, "best_effort");
	assert_int_equal(json_integer_value(json_object_get(o, "rounds")), 4);
	assert_int_equal(
	        json_integer_value(json_object_get(o, "processes_isolated")),
	        2);
	assert_int_equal(
	        json_integer_value(json_object_get(o, "cores_isolated")), 1);
	assert_int_equal(
	        json_integer_value(json_object_get(o, "stopped_rounds")), 1);
	assert_true(json_is_false(json_object_get(o, "isolated")));
	/* the first reason the agent gave for each */
	assert_string_equal(
	        json_string_value(json_object_get(o, "not_isolated")),
	        "processes: no userns; cores: no cpuset");
	json_decref(o);
	memset(&t, 0, sizeof(t));
	bf_duet_tally_add(&t, NULL);
	o = bf_duet_tally_json(&t, "best_effort");
	assert_non_null(
	        strstr(json_string_value(json_object_get(o, "not_isolated")),
	               "an older agent"));
	json_decref(o);
	json_decref(iso);
	json_decref(none);
	json_decref(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duet_round__idle_share),
		cmocka_unit_test(test_duet_round__stopped_side),
		cmocka_unit_test(test_duet_round__times_of),
		cmocka_unit_test(test_duet_round__tally),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
