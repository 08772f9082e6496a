/*
 * Unit tests for the device health check (orchestrator/farm/devcheck.c), run
 * against the real benchfarm-agent on fixture sysroots over the local
 * transport, and for the registry rules around it in the store (a
 * drained device takes no new lease; the workdir field round-trips).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/parse.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "farm/devcheck.h"
#include "store/store.h"

struct fixture {
	char *dir; /* temporary directory */
	struct bf_store *store; /* dir/benchfarm.db */
};

static int setup(void **state)
{
	struct fixture *f = bf_xcalloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	struct bf_err err = BF_ERR_INIT;
	char *db;

	f->dir = bf_xasprintf("%s/bf-devcheck-XXXXXX",
	                      tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	/* The agent keeps its throttle baseline here, not in $HOME. */
	setenv("XDG_STATE_HOME", f->dir, 1);
	db = bf_xasprintf("%s/benchfarm.db", f->dir);
	if (bf_store_open(&f->store, db, &err)) {
		fprintf(stderr, "setup: %s\n", err.msg);
		free(db);
		return -1;
	}
	free(db);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	bf_store_close(f->store);
	bf_fs_rmtree(f->dir, NULL);
	free(f->dir);
	free(f);
	return 0;
}

static char *agent_path(void)
{
	const char *dir = getenv("BF_BUILD_ABS");

	return bf_xasprintf("%s/benchfarm-agent", dir ? dir : "build/default");
}

static char *fixture_root(const char *name)
{
	char cwd[PATH_MAX];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	return bf_xasprintf("%s/tests/fixtures/sysroot/%s", cwd, name);
}

/* Check the device of fixture sysroot root with thresholds c. */
static int check_fixture(struct bf_devcheck *out, const char *root,
                         const struct bf_cfg_checks *c, struct bf_err *err)
{
	struct bf_agentconn *agent = NULL;
	char *prog = agent_path(), *dir = fixture_root(root);
	int ret;

	ret = bf_agentconn_open_local(&agent, prog, dir, "dev1", err);
	assert_int_equal(ret, 0);
	ret = bf_devcheck_run(out, agent, c, "dev1", true, err);
	bf_agentconn_close(agent);
	free(prog);
	free(dir);
	return ret;
}

static int count_check(const struct bf_store_check *c, void *payload)
{
	size_t *n = payload;

	assert_string_equal(c->device, "dev1");
	assert_int_equal(c->run_id, 0);
	assert_int_equal(c->at, 1700000000);
	(*n)++;
	return 0;
}

static void test_devcheck__healthy_device_is_fit(void **state)
{
	struct fixture *f = *state;
	struct bf_cfg_checks c = BF_CFG_CHECKS_INIT;
	struct bf_devcheck dc = BF_DEVCHECK_INIT;
	struct bf_err err = BF_ERR_INIT;
	size_t n = 0;

	assert_int_equal(check_fixture(&dc, "healthy-locked", &c, &err), 0);
	assert_true(dc.fit);
	assert_int_equal(dc.fails, 0);
	assert_string_equal(dc.reason, "");
	assert_true(json_is_object(dc.info));
	assert_true(json_array_size(json_object_get(dc.result, "checks")) > 3);
	assert_int_equal(
	        bf_devcheck_store(f->store, &dc, 0, "dev1", 1700000000, &err),
	        0);
	assert_int_equal(bf_store_checks_foreach(f->store, 0, "dev1",
	                                         count_check, &n, &err),
	                 0);
	assert_int_equal(n,
	                 json_array_size(json_object_get(dc.result, "checks")));
	bf_devcheck_release(&dc);
	assert_null(dc.result);
}

static void test_devcheck__hot_device_is_unfit_naming_thermal(void **state)
{
	struct bf_cfg_checks c = BF_CFG_CHECKS_INIT;
	struct bf_devcheck dc = BF_DEVCHECK_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(check_fixture(&dc, "hot-95c", &c, &err), 0);
	assert_false(dc.fit);
	assert_true(dc.fails >= 1);
	assert_non_null(strstr(
	        dc.reason, "device 'dev1' is not fit to measure: thermal ("));
	assert_null(strchr(dc.reason, '\n'));
	bf_devcheck_release(&dc);
}

static void test_devcheck__suppressed_check_only_warns(void **state)
{
	struct bf_cfg_checks c = BF_CFG_CHECKS_INIT;
	struct bf_devcheck dc = BF_DEVCHECK_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	bf_argv_push(&c.suppress, "thermal");
	assert_int_equal(check_fixture(&dc, "hot-95c", &c, &err), 0);
	assert_true(dc.fit);
	assert_true(dc.warns >= 1);
	bf_devcheck_release(&dc);
	bf_argv_release(&c.suppress);
}

static void test_devcheck__request_carries_thresholds(void **state)
{
	struct bf_cfg_checks c = BF_CFG_CHECKS_INIT;
	json_t *req;

	(void)state;
	c.thermal_max = 55.5;
	c.wait_max_s = 30;
	bf_argv_push(&c.suppress, "load");
	req = bf_devcheck_request(&c);
	assert_string_equal(json_string_value(json_object_get(req, "type")),
	                    "check");
	assert_true(json_real_value(json_object_get(req, "thermal_max")) ==
	            55.5);
	assert_int_equal(json_integer_value(json_object_get(req, "wait_max")),
	                 30);
	assert_string_equal(json_string_value(json_array_get(
	                            json_object_get(req, "suppress"), 0)),
	                    "load");
	/* the load's default wait is sent, and given time to happen */
	assert_int_equal(json_integer_value(json_object_get(req, "load_wait")),
	                 30);
	assert_true(bf_devcheck_timeout(&c) >= 120.0);
	json_decref(req);
	bf_argv_release(&c.suppress);
}

static void test_devcheck__describe_unfit_is_one_line(void **state)
{
	json_t *checks =
	        json_pack("[{s:s, s:s, s:s}, {s:s, s:s, s:s}]", "id", "thermal",
	                  "status", "fail", "message", "95 C\nabove 70 C", "id",
	                  "load", "status", "pass", "message", "fine");
	char buf[64];

	(void)state;
	bf_devcheck_describe_unfit(buf, sizeof(buf), "d", checks);
	assert_string_equal(buf, "device 'd' is not fit to measure: "
	                         "thermal (95 C above 70 C)");
	bf_devcheck_describe_unfit(buf, 20, "d", checks);
	assert_int_equal(strlen(buf), 19);
	json_decref(checks);
}

static void add_device(struct bf_store *s, const char *name,
                       const char *workdir)
{
	struct bf_store_device d;
	struct bf_err err = BF_ERR_INIT;

	memset(&d, 0, sizeof(d));
	d.name = (char *)name;
	d.type = (char *)"linux";
	d.host = (char *)"127.0.0.1";
	d.workdir = (char *)workdir;
	assert_int_equal(bf_store_device_add(s, &d, &err), 0);
}

static void test_devcheck__workdir_round_trips(void **state)
{
	struct fixture *f = *state;
	struct bf_store_device d;
	struct bf_err err = BF_ERR_INIT;

	add_device(f->store, "a", "/srv/bf");
	add_device(f->store, "b", NULL);
	memset(&d, 0, sizeof(d));
	assert_int_equal(bf_store_device_get(&d, f->store, "a", &err), 0);
	assert_string_equal(d.workdir, "/srv/bf");
	bf_store_device_release(&d);
	assert_int_equal(bf_store_device_get(&d, f->store, "b", &err), 0);
	assert_null(d.workdir);
	bf_store_device_release(&d);
}

static void test_devcheck__drained_device_takes_no_new_lease(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;

	add_device(f->store, "d", NULL);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "d", "job1", 60, 1000, &err),
	        0);
	assert_int_equal(bf_store_device_set_health(f->store, "d",
	                                            "maintenance",
	                                            "drained by ann", 0, &err),
	                 0);
	/* The running job keeps and extends its lease... */
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "d", "job1", 60, 1010, &err),
	        0);
	assert_int_equal(
	        bf_store_lease_renew(f->store, "d", "job1", 60, 1020, &err), 0);
	assert_int_equal(bf_store_lease_release(f->store, "d", "job1", &err),
	                 0);
	/* ...but nobody gets a new one. */
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "d", "job2", 60, 1030, &err),
	        BF_EBUSY);
	assert_string_equal(err.msg, "device 'd' takes no new lease: its "
	                             "health is maintenance (drained by ann)");
	assert_int_equal(bf_store_device_set_health(f->store, "d", "unknown",
	                                            NULL, 0, &err),
	                 0);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "d", "job2", 60, 1040, &err),
	        0);
}

/* checks: "id:status:value" words, value "-" for none (null) */
static json_t *checks_of(const char *const *words, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		char id[32], st[16], val[16];
		double v = 0;

		assert_int_equal(
		        sscanf(words[i], "%31[^:]:%15[^:]:%15s", id, st, val),
		        3);
		if (strcmp(val, "-"))
			assert_int_equal(bf_parse_double(&v, val, false, NULL),
			                 0);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "id",
		                                     id, "status", st, "value",
		                                     strcmp(val, "-")
		                                             ? json_real(v)
		                                             : json_null()));
	}
	return arr;
}

static bool transient(const char *const *words, size_t n)
{
	json_t *checks = checks_of(words, n);
	bool t = bf_devcheck_is_transient(checks);

	json_decref(checks);
	return t;
}

/*
 * What waiting can fix (load, heat, battery, throttle, boost) skips the
 * device for the job; a fault of the device (cores offline, clocks, a
 * check that could not read its input, a check unknown here) marks it
 * bad. Nothing failing is not transient: there is nothing to skip.
 */
static void test_devcheck__transient_or_fault(void **state)
{
	static const char *const busy[] = { "load:fail:3", "cores:pass:2" };
	static const char *const env[] = { "thermal:fail:95", "battery:fail:10",
		                           "throttle:fail:1.2",
		                           "boost:warn:1" };
	static const char *const cores[] = { "load:fail:3", "cores:fail:1" };
	static const char *const clocks[] = { "clocks:fail:0" };
	static const char *const unread[] = { "load:fail:-" };
	static const char *const unknown[] = { "gpu:fail:1" };
	static const char *const fit[] = { "load:pass:0", "cores:warn:1" };

	(void)state;
	assert_true(transient(busy, 2));
	assert_true(transient(env, 4));
	assert_false(transient(cores, 2));
	assert_false(transient(clocks, 1));
	assert_false(transient(unread, 1));
	assert_false(transient(unknown, 1));
	assert_false(transient(fit, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_devcheck__healthy_device_is_fit),
		T(test_devcheck__hot_device_is_unfit_naming_thermal),
		T(test_devcheck__suppressed_check_only_warns),
		T(test_devcheck__request_carries_thresholds),
		T(test_devcheck__describe_unfit_is_one_line),
		T(test_devcheck__workdir_round_trips),
		T(test_devcheck__drained_device_takes_no_new_lease),
		T(test_devcheck__transient_or_fault),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
