/*
 * Unit tests for throttle detection (agent/check/throttle.c) and waiting in
 * bf_check_run (agent/check/check.c): the workload timed on a synthetic
 * clock, the baseline file, forced measurements, Android's thermal
 * status, and waiting with an injected sleep and clock, all without
 * sleeping. Run from the repository root (make check does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A synthetic workload: each sample "takes" the next duration. */
struct fake {
	const int64_t *durations;
	size_t n, next;
	int64_t now;
};

static void fake_work(void *ctx)
{
	struct fake *f = ctx;

	f->now += f->durations[f->next < f->n ? f->next : f->n - 1];
	f->next++;
}

static int64_t fake_clock(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static void fake_ops(struct bf_throttle_ops *ops, struct fake *f,
                     const int64_t *d, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->durations = d;
	f->n = n;
	ops->work = fake_work;
	ops->clock = fake_clock;
	ops->ctx = f;
	ops->samples = (int)n;
	ops->warmup_ns = 0;
}

static void test_throttle__measure_takes_the_minimum(void **state)
{
	static const int64_t d[] = { 500, 300, 900, 301 };
	static const int64_t zero[] = { 0 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_throttle_ops ops;
	struct fake f;
	double ns;

	(void)state;
	fake_ops(&ops, &f, d, 4);
	assert_int_equal(bf_throttle_measure(&ns, &ops, &err), 0);
	assert_true(ns == 300);
	assert_int_equal(f.next, 4);
	/* warm-up samples are not timed */
	fake_ops(&ops, &f, d, 4);
	ops.warmup_ns = 700; /* 500 + 300 */
	ops.samples = 2;
	assert_int_equal(bf_throttle_measure(&ns, &ops, &err), 0);
	assert_true(ns == 301);
	fake_ops(&ops, &f, zero, 1);
	assert_int_equal(bf_throttle_measure(&ns, &ops, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "did not advance"));
	fake_ops(&ops, &f, d, 4);
	ops.samples = 0;
	assert_int_equal(bf_throttle_measure(&ns, &ops, &err), BF_EINVAL);
}

/* The sleeps of a throttle's re-measures: counted, never slept. */
struct naps {
	int n;
	double now;
};

static void nap(double seconds, void *hook)
{
	struct naps *z = hook;

	z->n++;
	z->now += seconds;
}

static double nap_now(void *hook)
{
	return ((struct naps *)hook)->now;
}

/*
 * The throttle check on a fake workload whose measurements (samples
 * samples each) take d in turn, with retries re-measures; the naps and
 * the seconds bf_throttle_check said it slept into *z and *slept.
 */
/* checks.suppress of the next throttle_retry_run */
static unsigned run_suppress;

static void throttle_retry_run(struct bf_check_item *it, const char *state_dir,
                               const int64_t *d, size_t n, int samples,
                               int retries, struct naps *z, double *slept)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_env env = { 0 };
	struct bf_throttle_ops ops;
	struct bf_probe p;
	struct fake f;

	bf_probe_init(&p);
	fake_ops(&ops, &f, d, n);
	ops.samples = samples;
	o.state_dir = state_dir;
	o.throttle_retries = retries;
	o.suppress = run_suppress;
	memset(z, 0, sizeof(*z));
	assert_int_equal(bf_devfs_open_local(&env.fs, state_dir, NULL), 0);
	env.probe_flags = BF_PROBE_HOST;
	env.device_key = "unit";
	env.throttle = &ops;
	env.sleep = nap;
	env.now = nap_now;
	env.hook = z;
	*slept = bf_throttle_check(it, &p, &o, &env);
	bf_devfs_free(env.fs);
	bf_probe_release(&p);
}

static void throttle_run(struct bf_check_item *it, const char *state_dir,
                         const int64_t *d, size_t n, double tolerance)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_env env = { 0 };
	struct bf_throttle_ops ops;
	struct bf_probe p;
	struct naps z = { 0, 0 };
	struct fake f;

	bf_probe_init(&p);
	fake_ops(&ops, &f, d, n);
	o.state_dir = state_dir;
	o.throttle_tolerance = tolerance;
	assert_int_equal(bf_devfs_open_local(&env.fs, state_dir, NULL), 0);
	env.probe_flags = BF_PROBE_HOST;
	env.device_key = "unit";
	env.throttle = &ops;
	env.sleep = nap;
	env.now = nap_now;
	env.hook = &z;
	bf_throttle_check(it, &p, &o, &env);
	bf_devfs_free(env.fs);
	bf_probe_release(&p);
}

static void test_throttle__baseline(void **state)
{
	static const int64_t base[] = { 1000, 1200 };
	static const int64_t slow[] = { 1105 };
	static const int64_t edge[] = { 1100 };
	struct tmptree *t = *state;
	char *path = bf_throttle_baseline_path(t->dir, "unit");
	struct bf_check_item it;
	struct stat st;
	double ns = 0;

	throttle_run(&it, t->dir, base, 2, 0.10);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_non_null(strstr(it.message, "recorded as the baseline"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(bf_throttle_baseline_load(&ns, path, NULL), 0);
	assert_true(ns == 1000);
	throttle_run(&it, t->dir, edge, 1, 0.10);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_true(fabs(it.value - 1.1) < 1e-9);
	throttle_run(&it, t->dir, slow, 1, 0.10);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(fabs(it.value - 1.105) < 1e-9);
	assert_true(fabs(it.threshold - 1.1) < 1e-9);
	throttle_run(&it, t->dir, slow, 1, 0.25);
	assert_int_equal(it.status, BF_CHECK_PASS);
	/* the baseline is the first measurement, never replaced */
	assert_int_equal(bf_throttle_baseline_load(&ns, path, NULL), 0);
	assert_true(ns == 1000);
	tmptree_put(t->dir, "/throttle-unit.json", "{\"version\": 9}");
	throttle_run(&it, t->dir, slow, 1, 0.10);
	assert_int_equal(it.status, BF_CHECK_WARN);
	assert_non_null(strstr(it.message, "throttle-unit.json"));
	free(path);
}

/*
 * A throttle is measured again after a sleep (Jetpack: 90 s, at most
 * twice) and fails only when the last measurement is throttled too.
 */
static void test_throttle__remeasure(void **state)
{
	static const int64_t base[] = { 1000 };
	static const int64_t once[] = { 1200, 1000 };
	static const int64_t twice[] = { 1200, 1150, 1050 };
	static const int64_t hot[] = { 1300 };
	struct tmptree *t = *state;
	struct bf_check_item it;
	struct naps z;
	double slept;

	throttle_retry_run(&it, t->dir, base, 1, 1, 2, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_int_equal(z.n, 0);
	/* not throttled: measured once, no sleep */
	throttle_retry_run(&it, t->dir, base, 1, 1, 2, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_int_equal(z.n, 0);
	assert_true(slept == 0);
	assert_null(strstr(it.message, "re-measure"));
	/* jitter: +20% once, then the baseline: passes after one sleep */
	throttle_retry_run(&it, t->dir, once, 2, 1, 2, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_int_equal(z.n, 1);
	assert_true(slept == BF_CHECK_THROTTLE_SLEEP);
	assert_true(fabs(it.value - 1.0) < 1e-9);
	assert_non_null(strstr(it.message, "passed after 1 re-measure 90 s "
	                                   "apart (the first at +20.0%)"));
	/* the shortest sample of each measurement counts, not of all */
	throttle_retry_run(&it, t->dir, twice, 3, 1, 2, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_int_equal(z.n, 2);
	assert_true(slept == 2 * BF_CHECK_THROTTLE_SLEEP);
	assert_true(fabs(it.value - 1.05) < 1e-9);
	/* one retry is not enough for that one */
	throttle_retry_run(&it, t->dir, twice, 3, 1, 1, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_int_equal(z.n, 1);
	assert_true(fabs(it.value - 1.15) < 1e-9);
	assert_non_null(strstr(it.message, "still throttled after 1 "
	                                   "re-measure"));
	/* really throttled: fails after its retries, no more */
	throttle_retry_run(&it, t->dir, hot, 1, 1, 2, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_int_equal(z.n, 2);
	assert_true(slept == 2 * BF_CHECK_THROTTLE_SLEEP);
	/* no retries: fails at once */
	throttle_retry_run(&it, t->dir, hot, 1, 1, 0, &z, &slept);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_int_equal(z.n, 0);
	/* suppressed, it refuses nothing: measured once, never waited for */
	run_suppress = 1u << BF_CHECK_THROTTLE;
	throttle_retry_run(&it, t->dir, hot, 1, 1, 2, &z, &slept);
	run_suppress = 0;
	assert_int_equal(it.status,
	                 BF_CHECK_FAIL); /* a warning once finished */
	assert_int_equal(z.n, 0);
	assert_true(slept == 0);
	/* a forced time reads the same again: never re-measured */
	setenv(BF_THROTTLE_ENV, "1300", 1);
	throttle_retry_run(&it, t->dir, base, 1, 1, 2, &z, &slept);
	unsetenv(BF_THROTTLE_ENV);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_int_equal(z.n, 0);
}

/* A baseline of the older, shorter workload is recorded anew. */
static void test_throttle__old_baseline_replaced(void **state)
{
	static const int64_t d[] = { 5000 };
	struct tmptree *t = *state;
	char *path = bf_throttle_baseline_path(t->dir, "unit");
	struct bf_check_item it;
	double ns = 0;

	tmptree_put(t->dir, "/throttle-unit.json",
	            "{\"version\": 1, \"baseline_ns\": 9781}");
	assert_int_equal(bf_throttle_baseline_load(&ns, path, NULL),
	                 BF_ENOTFOUND);
	throttle_run(&it, t->dir, d, 1, 0.10);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_non_null(strstr(it.message, "recorded as the baseline"));
	assert_int_equal(bf_throttle_baseline_load(&ns, path, NULL), 0);
	assert_true(ns == 5000);
	free(path);
}

static void test_throttle__forced_and_skipped(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_env env = { 0 };
	struct tmptree *t = *state;
	struct bf_check_item it;
	char *fixture = NULL;
	struct bf_probe p;

	bf_probe_init(&p);
	o.state_dir = t->dir;
	env.device_key = "local";
	assert_int_equal(bf_devfs_open_local(&env.fs, t->dir, NULL), 0);
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	tmptree_put(t->dir, BF_THROTTLE_FIXTURE, "fast\n");
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "/benchfarm/throttle_ns: 'fast'"));
	tmptree_put(t->dir, BF_THROTTLE_FIXTURE, "2000\n");
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_PASS); /* baseline recorded */
	setenv(BF_THROTTLE_ENV, "2500", 1);
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(fabs(it.value - 1.25) < 1e-9);
	unsetenv(BF_THROTTLE_ENV);
	/* Android: thermal status above none is throttled */
	fixture = bf_xasprintf("%s%s", t->dir, BF_THROTTLE_FIXTURE);
	assert_int_equal(unlink(fixture), 0);
	free(fixture);
	p.android = true;
	p.thermal_status = 1;
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "light"));
	p.thermal_status = 0;
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_PASS);
	p.thermal_status = -1;
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	p.thermal_status_bad = true;
	bf_argv_push(&p.errors, "'dumpsys thermalservice': status not in "
	                        "0..6: 'Thermal Status: hot'");
	bf_throttle_check(&it, &p, &o, &env);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "Thermal Status: hot"));
	bf_devfs_free(env.fs);
	bf_probe_release(&p);
}

/*
 * Injected time: sleeping advances the clock, and after change_after
 * sleeps the device changes: the device file path is rewritten with
 * text (the device cools down, or a build ends).
 */
struct clockwork {
	double now;
	int sleeps, change_after;
	const char *root;
	const char *path, *text;
};

#define ZONE0_TEMP  "/sys/class/thermal/thermal_zone0/temp"
#define COOLED_DOWN "45000\n"
#define LOADAVG     "/proc/loadavg"
#define SETTLED     "2.90 1.70 0.80 1/180 4242\n"

static void fake_sleep(double seconds, void *hook)
{
	struct clockwork *c = hook;

	c->now += seconds;
	if (++c->sleeps == c->change_after)
		tmptree_put(c->root, c->path, c->text);
}

static double fake_now(void *hook)
{
	return ((struct clockwork *)hook)->now;
}

static void run_wait(struct bf_check_result *res, struct clockwork *c,
                     const struct bf_check_opts *o)
{
	struct bf_check_env env = { 0 };

	assert_int_equal(bf_devfs_open_local(&env.fs, c->root, NULL), 0);
	env.sleep = fake_sleep;
	env.now = fake_now;
	env.hook = c;
	env.device_key = "local";
	assert_int_equal(bf_check_run(res, o, &env, NULL), 0);
	bf_devfs_free(env.fs);
}

static void test_throttle__wait_for_cool_down(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct tmptree *t = *state;
	struct clockwork c = { 0, 0, 2, t->dir, ZONE0_TEMP, COOLED_DOWN };
	struct bf_check_result res;

	o.state_dir = t->dir;
	o.wait_max_s = 60;
	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone0/temp", "95000\n");
	run_wait(&res, &c, &o);
	assert_true(res.fit);
	assert_int_equal(res.probes, 3);
	assert_true(res.waited_s == 10);
	assert_int_equal(res.items[BF_CHECK_THERMAL].status, BF_CHECK_PASS);
	bf_check_result_release(&res);

	/* the cap: 5 s, then the 2 s left, then give up */
	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone0/temp", "95000\n");
	c = (struct clockwork){ 0, 0, 100, t->dir, ZONE0_TEMP, COOLED_DOWN };
	o.wait_max_s = 7;
	run_wait(&res, &c, &o);
	assert_false(res.fit);
	assert_int_equal(res.probes, 3);
	assert_true(res.waited_s == 7);
	assert_int_equal(res.items[BF_CHECK_THERMAL].status, BF_CHECK_FAIL);
	bf_check_result_release(&res);

	/* no waiting when the device cannot get fit by waiting */
	tmptree_put(t->dir, "/sys/devices/system/cpu/possible", "0-1\n");
	tmptree_put(t->dir, "/sys/devices/system/cpu/online", "0\n");
	c = (struct clockwork){ 0, 0, 100, t->dir, ZONE0_TEMP, COOLED_DOWN };
	run_wait(&res, &c, &o);
	assert_false(res.fit);
	assert_int_equal(res.probes, 1);
	assert_true(res.waited_s == 0);
	assert_int_equal(c.sleeps, 0);
	bf_check_result_release(&res);

	/* nor without wait_max */
	tmptree_put(t->dir, "/sys/devices/system/cpu/online", "0-1\n");
	o.wait_max_s = 0;
	run_wait(&res, &c, &o);
	assert_int_equal(res.probes, 1);
	assert_int_equal(c.sleeps, 0);
	bf_check_result_release(&res);
}

static void test_throttle__wait_for_load_to_settle(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct tmptree *t = *state;
	struct clockwork l = { 0, 0, 3, t->dir, LOADAVG, SETTLED };
	struct bf_check_result res;
	const struct bf_check_item *it = &res.items[BF_CHECK_LOAD];

	/* a 2-core device running 4 other tasks: its build */
	o.state_dir = t->dir;
	tmptree_put(t->dir, "/sys/devices/system/cpu/online", "0-1\n");
	tmptree_put(t->dir, "/proc/loadavg", "3.10 1.60 0.70 5/180 4242\n");
	run_wait(&res, &l, &o);
	assert_true(res.fit);
	/* polled every second, by default; one full probe once settled */
	assert_int_equal(l.sleeps, 3);
	assert_true(res.load_waited_s == 3 && res.waited_s == 3);
	assert_int_equal(res.probes, 1);
	assert_int_equal(it->status, BF_CHECK_PASS);
	assert_non_null(strstr(it->message, "0 runnable tasks besides ours"));
	assert_non_null(strstr(it->message, "settled after waiting 3 s"));
	bf_check_result_release(&res);

	/* load_wait is its own budget: wait_max still has all its time */
	tmptree_put(t->dir, "/proc/loadavg", "3.10 1.60 0.70 5/180 4242\n");
	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone0/temp", "95000\n");
	l = (struct clockwork){ 0, 0, 3, t->dir, LOADAVG, SETTLED };
	o.wait_max_s = 7;
	run_wait(&res, &l, &o);
	assert_false(res.fit);
	assert_int_equal(res.items[BF_CHECK_THERMAL].status, BF_CHECK_FAIL);
	assert_int_equal(it->status, BF_CHECK_PASS);
	assert_true(res.load_waited_s == 3 && res.waited_s == 10);
	bf_check_result_release(&res);
}

static void test_throttle__state_dir_default(void **state)
{
	char *dir = NULL;

	(void)state;
	setenv("XDG_STATE_HOME", "/xdg", 1);
	assert_int_equal(bf_throttle_state_dir(&dir, NULL), 0);
	assert_string_equal(dir, "/xdg/benchfarm-agent");
	free(dir);
	setenv("XDG_STATE_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(bf_throttle_state_dir(&dir, NULL), 0);
	assert_string_equal(dir, "/home/u/.local/state/benchfarm-agent");
	free(dir);
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_int_equal(bf_throttle_state_dir(&dir, NULL), BF_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_throttle__measure_takes_the_minimum),
		cmocka_unit_test_setup_teardown(test_throttle__baseline,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_throttle__remeasure,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_throttle__old_baseline_replaced, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_throttle__forced_and_skipped, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_throttle__wait_for_cool_down, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_throttle__wait_for_load_to_settle, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test(test_throttle__state_dir_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
