/*
 * Unit tests for Jetpack runs on Android (agent/android_run.c) through
 * `am instrument`: samples, stale results, disconnects, failures and bad
 * arguments.
 *
 * No Android device can be attached where these tests run. They put
 * the stand-in adb (tests/fixtures/adb/adb) first through
 * BENCHFARM_ADB; it replays recorded device output from
 * tests/fixtures/adb/SCENARIO/, selected by the serial. Every call it
 * receives is appended to a log, so a test can check what ran, or that
 * nothing ran. Run from the repository root (as `make check` does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "android_run.h"
#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "parse/parse.h"
#include "probe/devfs.h"
#include "probe/probe_android.h"
#include "unit/android/adb_standin.h"

#define RUNNER "/androidx.benchmark.junit4.AndroidBenchmarkRunner"

/* The samples the jetpack parser gives for a fixture file. */
static void parse_file(struct bf_samples *out, const char *path)
{
	struct bf_buf b = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_buf_read_file(&b, path, &err), 0);
	assert_int_equal(
	        bf_parse_output(out, "jetpack", b.buf, b.len, path, &err), 0);
	bf_buf_release(&b);
}

static void assert_same_samples(const struct bf_samples *got, size_t from,
                                const struct bf_samples *want)
{
	assert_int_equal(got->n - from, want->n);
	for (size_t i = 0; i < want->n; i++) {
		const struct bf_sample *g = &got->v[from + i], *w = &want->v[i];

		assert_string_equal(g->benchmark, w->benchmark);
		assert_string_equal(g->metric, w->metric);
		assert_string_equal(g->unit, w->unit);
		assert_float_equal(g->value, w->value, 0);
		assert_int_equal(g->iteration, w->iteration);
	}
}

static void test_android__jetpack_run(void **state)
{
	struct bf_devfs *fs = open_adb("pixel-healthy");
	struct bf_samples s = BF_SAMPLES_INIT, want = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	char *log;

	bf_samples_add(&s, "earlier", "x", "", 1, 0);
	assert_int_equal(bf_android_run_jetpack(
	                         &s, fs, "com.example.benchmark.test" RUNNER,
	                         NULL, 60, &err),
	                 0);
	parse_file(&want,
	           "tests/fixtures/adb/pixel-healthy/benchmarkData.json");
	assert_same_samples(&s, 1, &want);
	assert_int_equal(s.n, 11); /* 5 timeNs + 5 allocationCount + earlier */
	assert_string_equal(
	        s.v[1].benchmark,
	        "com.example.bench.JsonBenchmark.parseJson[size=1024]");
	assert_string_equal(s.v[1].metric, "timeNs");
	assert_string_equal(s.v[1].unit, "ns");
	assert_float_equal(s.v[1].value, 1203.4, 1e-9);
	log = adb_log(*state);
	assert_non_null(strstr(
	        log, "-s pixel-healthy shell am instrument -w -r -e "
	             "androidx.benchmark.output.enable true "
	             "com.example.benchmark.test" RUNNER "\n"
	             "-s pixel-healthy shell cat /storage/emulated/0/Android/"
	             "media/com.example.benchmark.test/"
	             "com_example_benchmark_test-benchmarkData.json\n"));
	free(log);
	bf_samples_release(&want);
	bf_samples_release(&s);
	bf_devfs_free(fs);
}

static void test_android__jetpack_legacy_no_stale_results(void **state)
{
	struct bf_devfs *fs = open_adb("jetpack-legacy");
	struct bf_samples s = BF_SAMPLES_INIT, want = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	char *log, *rm, *run;

	assert_int_equal(
	        bf_android_run_jetpack(&s, fs, "com.example.legacy.test" RUNNER,
	                               NULL, 60, &err),
	        0);
	parse_file(&want,
	           "tests/fixtures/adb/jetpack-legacy/benchmarkData.json");
	assert_same_samples(&s, 0, &want);
	assert_float_equal(s.v[0].value, 1203, 0); /* G3: integers */
	log = adb_log(*state);
	rm = strstr(log, "shell rm -f /sdcard/Android/media/"
	                 "com.example.legacy.test/"
	                 "com.example.legacy.test-benchmarkData.json\n");
	run = strstr(log, "shell am instrument");
	assert_non_null(rm);
	assert_non_null(run);
	assert_true(rm < run);
	free(log);
	bf_samples_release(&want);
	bf_samples_release(&s);
	bf_devfs_free(fs);
}

static void test_android__jetpack_mid_run_disconnect(void **state)
{
	struct bf_devfs *fs = open_adb("mid-run-disconnect");
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	bf_samples_add(&s, "earlier", "x", "", 1, 0);
	assert_err(bf_android_run_jetpack(&s, fs,
	                                  "com.example.benchmark.test" RUNNER,
	                                  NULL, 60, &err),
	           BF_EPROTO, &err,
	           "disconnected during 'am instrument' (in test "
	           "'com.example.bench.JsonBenchmark#parseJson[size=4096]'); "
	           "partial results discarded");
	assert_int_equal(s.n, 1);
	bf_samples_release(&s);
	bf_devfs_free(fs);
	/* Without state the device stays: still no result, still EPROTO. */
	unsetenv("BF_ADB_STATE");
	fs = open_adb("mid-run-disconnect");
	assert_err(bf_android_run_jetpack(&s, fs,
	                                  "com.example.benchmark.test" RUNNER,
	                                  NULL, 60, &err),
	           BF_EPROTO, &err, "ended before INSTRUMENTATION_CODE");
	assert_int_equal(s.n, 0);
	bf_devfs_free(fs);
}

static void run_fails(struct bf_devfs *fs, const char *pkg,
                      const char *const *extra, double timeout_s, int code,
                      const char *needle)
{
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	char runner[160];

	snprintf(runner, sizeof(runner), "%s%s", pkg, RUNNER);
	assert_err(
	        bf_android_run_jetpack(&s, fs, runner, extra, timeout_s, &err),
	        code, &err, needle);
	assert_int_equal(s.n, 0);
}

static void test_android__jetpack_failures(void **state)
{
	static const char *const dry[] = {
		"androidx.benchmark.dryRunMode.enable", "true", NULL
	};
	struct bf_devfs *fs = open_adb("jetpack-failures");
	char *log;

	run_fails(fs, "com.example.failing.test", NULL, 60, BF_ERROR,
	          "benchmark 'com.example.bench.JsonBenchmark#parseJson[size="
	          "1024]' failed: java.lang.AssertionError: ERRORS (not "
	          "suppressed): LOW-BATTERY");
	run_fails(fs, "com.example.crashing.test", NULL, 60, BF_ERROR,
	          "the test process crashed in "
	          "'com.example.bench.NativeBenchmark#decodeFrame': Process "
	          "crashed.");
	run_fails(fs, "com.example.missing.test", NULL, 60, BF_ERROR,
	          "INSTRUMENTATION_FAILED: com.example.missing.test");
	run_fails(fs, "com.example.benchmark.test", dry, 60, BF_ENOTFOUND,
	          "the run announced no benchmarkData.json");
	run_fails(fs, "com.example.hanging.test", NULL, 0.3, BF_ETIMEOUT,
	          "timed out after 0.3 s");
	log = adb_log(*state);
	assert_non_null(strstr(log, "shell am force-stop "
	                            "com.example.hanging.test\n"));
	free(log);
	run_fails(fs, "com.example.unplugged.test", NULL, 60, BF_EPROTO,
	          "disconnected during 'am instrument'");
	bf_devfs_free(fs);
}

static void test_android__jetpack_bad_arguments(void **state)
{
	static const char *const odd[] = { "androidx.benchmark.iterations",
		                           NULL };
	static const char *const bad_key[] = { "a key", "1", NULL };
	static const char *const bad_value[] = {
		"androidx.benchmark.suppressErrors", "LOW-BATTERY;reboot", NULL
	};
	static const char *const forced[] = {
		"androidx.benchmark.output.enable", "false", NULL
	};
	struct bf_devfs *fs = open_adb("pixel-healthy");
	size_t calls = adb_calls(*state);

	run_fails(fs, "com.example.benchmark.test", odd, 60, BF_EINVAL,
	          "needs a key");
	run_fails(fs, "com.example.benchmark.test", bad_key, 60, BF_EINVAL,
	          "needs a key");
	run_fails(fs, "com.example.benchmark.test", bad_value, 60, BF_EINVAL,
	          "value 'LOW-BATTERY;reboot'");
	run_fails(fs, "com.example.benchmark.test", forced, 60, BF_EINVAL,
	          "always true");
	run_fails(fs, "com.example;reboot", NULL, 60, BF_EINVAL,
	          "is not PACKAGE/RUNNER");
	assert_int_equal(adb_calls(*state), calls);
	bf_devfs_free(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ADB_STANDIN_TEST(test_android__jetpack_run),
		ADB_STANDIN_TEST(test_android__jetpack_legacy_no_stale_results),
		ADB_STANDIN_TEST(test_android__jetpack_mid_run_disconnect),
		ADB_STANDIN_TEST(test_android__jetpack_failures),
		ADB_STANDIN_TEST(test_android__jetpack_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
