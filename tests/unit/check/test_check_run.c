/*
 * Unit tests for bf_check_run (agent/check/check.c) on every fixture tree
 * under tests/fixtures/sysroot/ end to end, thresholds, the load, and
 * the result JSON. Run from the repository root (make check does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "check/check.h"
#include "check/throttle.h"
#include "probe/devfs.h"
#include "probe/probe.h"
#include "unit/probe/tmptree.h"

#define FIXTURES "tests/fixtures/sysroot/"

static const struct {
	const char *fixture;
	const char *
	        statuses; /* battery cores clocks thermal throttle load boost */
	bool fit;
} fixtures[] = {
	{ "healthy-locked", "pass pass pass pass pass pass pass", true },
	{ "low-battery", "fail skip skip skip skip skip skip", false },
	{ "core-offline", "skip fail warn skip skip skip skip", false },
	{ "unlocked-schedutil", "skip pass warn skip skip skip skip", true },
	{ "hot-95c", "skip skip skip fail skip skip skip", false },
	{ "throttled", "skip skip skip skip fail skip skip", false },
	{ "garbage-sysfs", "fail fail warn warn skip fail warn", false },
	{ "after-build", "skip pass skip skip skip pass skip", true },
	{ "busy-now", "skip pass skip skip skip fail skip", false },
};

/* Injected time for the fixture runs: waiting never sleeps. */
static void fake_sleep(double seconds, void *hook)
{
	*(double *)hook += seconds;
}

static double fake_now(void *hook)
{
	return *(double *)hook;
}

static void run_fixture(struct bf_check_result *res, const char *name,
                        const struct bf_check_opts *o)
{
	struct bf_check_env env = { 0 };
	char *root = bf_xasprintf(FIXTURES "%s", name);
	double clock = 0;

	assert_int_equal(bf_devfs_open_local(&env.fs, root, NULL), 0);
	env.device_key = "local";
	env.sleep = fake_sleep;
	env.now = fake_now;
	env.hook = &clock;
	assert_int_equal(bf_check_run(res, o, &env, NULL), 0);
	bf_devfs_free(env.fs);
	free(root);
}

static void test_check_run__fixture_trees(void **state)
{
	struct tmptree *t = *state;
	char *baseline = bf_throttle_baseline_path(t->dir, "local");

	for (size_t i = 0; i < BF_ARRAY_SIZE(fixtures); i++) {
		struct bf_check_opts o = BF_CHECK_OPTS_INIT;
		struct bf_check_result res;
		char got[128] = "";

		/* the throttled fixture's baseline, as its state dir has it */
		assert_int_equal(
		        bf_throttle_baseline_save(baseline, 1e6, "local", NULL),
		        0);
		o.state_dir = t->dir;
		run_fixture(&res, fixtures[i].fixture, &o);
		for (int id = 0; id < BF_CHECK_NIDS; id++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
			         "%s%s", id ? " " : "",
			         bf_check_status_name(res.items[id].status));
		if (strcmp(got, fixtures[i].statuses) ||
		    res.fit != fixtures[i].fit)
			fail_msg("%s: got '%s' fit %d, want '%s' fit %d",
			         fixtures[i].fixture, got, res.fit,
			         fixtures[i].statuses, fixtures[i].fit);
		bf_check_result_release(&res);
	}
	free(baseline);
}

static void test_check_run__fixture_thresholds(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct tmptree *t = *state;
	struct bf_check_result res;

	o.state_dir = t->dir;
	o.thermal_max = 96;
	run_fixture(&res, "hot-95c", &o);
	assert_true(res.fit);
	bf_check_result_release(&res);
	o.require_locked_clocks = true;
	run_fixture(&res, "unlocked-schedutil", &o);
	assert_false(res.fit);
	assert_int_equal(res.items[BF_CHECK_CLOCKS].status, BF_CHECK_FAIL);
	assert_non_null(strstr(res.items[BF_CHECK_CLOCKS].message,
	                       "300000 kHz, its lowest available"));
	bf_check_result_release(&res);
	o.battery_min = 10;
	run_fixture(&res, "low-battery", &o);
	assert_int_equal(res.items[BF_CHECK_BATTERY].status, BF_CHECK_PASS);
	bf_check_result_release(&res);
}

/*
 * The load: a busy device is given load_wait (30 s by default) to
 * settle, its load read every second, before it is refused; a device
 * whose 1-minute average is high but that runs nothing now is fit at
 * once.
 */
static void test_check_run__fixture_load(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct tmptree *t = *state;
	struct bf_check_result res;
	const struct bf_check_item *it = &res.items[BF_CHECK_LOAD];

	o.state_dir = t->dir;
	run_fixture(&res, "busy-now", &o);
	assert_false(res.fit);
	assert_true(res.load_waited_s == 30 && res.waited_s == 30);
	assert_int_equal(res.probes, 1);
	assert_non_null(strstr(it->message,
	                       "4 runnable tasks besides ours right now, "
	                       "limit 2"));
	assert_non_null(strstr(it->message, "still so after waiting 30 s"));
	bf_check_result_release(&res);
	o.load_wait_s = 0;
	run_fixture(&res, "busy-now", &o);
	assert_false(res.fit);
	assert_true(res.waited_s == 0);
	assert_null(strstr(it->message, "waiting"));
	bf_check_result_release(&res);
	/* suppressed: nothing to wait for */
	o.load_wait_s = 30;
	o.suppress = 1u << BF_CHECK_LOAD;
	run_fixture(&res, "busy-now", &o);
	assert_true(res.fit && res.waited_s == 0);
	bf_check_result_release(&res);
	o.suppress = 0;
	run_fixture(&res, "after-build", &o);
	assert_true(res.fit && res.waited_s == 0);
	assert_int_equal(it->status, BF_CHECK_PASS);
	assert_non_null(strstr(it->message, "1-minute average 3.50"));
	bf_check_result_release(&res);
	/* an unreadable load cannot settle: no waiting */
	run_fixture(&res, "garbage-sysfs", &o);
	assert_int_equal(it->status, BF_CHECK_FAIL);
	assert_true(res.waited_s == 0);
	bf_check_result_release(&res);
}

static void test_check_run__result_json(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct tmptree *t = *state;
	struct bf_check_result res;
	const json_t *c;
	json_t *j;

	o.state_dir = t->dir;
	o.suppress = 1u << BF_CHECK_THERMAL;
	run_fixture(&res, "hot-95c", &o);
	j = bf_check_result_json(&res);
	assert_true(json_is_true(json_object_get(j, "fit")));
	assert_int_equal(json_array_size(json_object_get(j, "checks")),
	                 BF_CHECK_NIDS);
	assert_string_equal(json_string_value(json_array_get(
	                            json_object_get(j, "suppressed"), 0)),
	                    "thermal");
	assert_true(json_integer_value(json_object_get(j, "waited_s")) == 0);
	c = json_array_get(json_object_get(j, "checks"), BF_CHECK_THERMAL);
	assert_string_equal(bf_json_str_or(c, "id", ""), "thermal");
	assert_string_equal(bf_json_str_or(c, "status", ""), "warn");
	assert_true(json_is_true(json_object_get(c, "suppressed")));
	assert_true(json_number_value(json_object_get(c, "value")) == 95);
	assert_true(json_number_value(json_object_get(c, "threshold")) == 70);
	assert_non_null(strstr(bf_json_str_or(c, "message", ""),
	                       "thermal_zone1 (soc-thermal) at 95.0 C"));
	c = json_array_get(json_object_get(j, "checks"), BF_CHECK_BATTERY);
	assert_true(json_is_null(json_object_get(c, "value")));
	assert_null(json_object_get(c, "suppressed"));
	json_decref(j);
	bf_check_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check_run__fixture_trees,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_check_run__fixture_thresholds, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_check_run__fixture_load,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_check_run__result_json,
		                                tmptree_setup,
		                                tmptree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
