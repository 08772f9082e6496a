/*
 * Unit tests for the Android path: the adb devfs backend
 * (agent/probe/devfs_adb.c) and the dumpsys and getprop probes
 * (agent/probe/probe_android.c); Jetpack runs are test_android_run.c's.
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

static void test_android__battery(void **state)
{
	static const struct {
		const char *serial;
		int capacity;
		bool charging;
		const char *status;
		double temp_c;
	} cases[] = {
		{ "pixel-healthy", 87, true, "Charging", 29.3 },
		{ "pixel-hot-discharging", 18, false, "Discharging", 45.2 },
		/* Android 13 format; full on AC counts as charging. */
		{ "pixel-rooted", 100, true, "Full", 30.1 },
	};
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(cases); i++) {
		struct bf_devfs *fs = open_adb(cases[i].serial);
		struct bf_android_battery b;

		assert_int_equal(bf_android_battery(&b, fs, &err), 0);
		assert_int_equal(b.capacity, cases[i].capacity);
		assert_int_equal(b.charging, cases[i].charging);
		assert_true(b.present);
		assert_string_equal(b.status, cases[i].status);
		assert_float_equal(b.temp_c, cases[i].temp_c, 1e-9);
		bf_devfs_free(fs);
	}
}

static void test_android__thermal_status(void **state)
{
	struct bf_devfs *fs = open_adb("pixel-healthy");
	struct bf_err err = BF_ERR_INIT;
	int status = -1;

	(void)state;
	assert_int_equal(bf_android_thermal_status(&status, fs, &err), 0);
	assert_int_equal(status, 0);
	bf_devfs_free(fs);
	fs = open_adb("pixel-hot-discharging");
	assert_int_equal(bf_android_thermal_status(&status, fs, &err), 0);
	assert_int_equal(status, 3);
	assert_string_equal(bf_android_thermal_status_name(status), "severe");
	assert_string_equal(bf_android_thermal_status_name(7), "unknown");
	bf_devfs_free(fs);
	fs = open_adb("old-android");
	status = 42;
	assert_err(bf_android_thermal_status(&status, fs, &err), BF_ENOTFOUND,
	           &err, "thermalservice");
	assert_int_equal(status, 42);
	bf_devfs_free(fs);
}

static void assert_prop(json_t *props, const char *key, const char *want)
{
	const char *got = json_string_value(json_object_get(props, key));

	if (!got || strcmp(got, want))
		fail_msg("%s: expected '%s', got '%s'", key, want,
		         got ? got : "(absent)");
}

static void test_android__props(void **state)
{
	static const char *const want[][2] = {
		{ "ro.build.fingerprint", "google/oriole/oriole:14/"
		                          "AP2A.240805.005/12025142:user/"
		                          "release-keys" },
		{ "ro.build.id", "AP2A.240805.005" },
		{ "ro.build.type", "user" },
		{ "ro.build.version.sdk", "34" },
		{ "ro.build.version.codename", "REL" },
		{ "ro.product.brand", "google" },
		{ "ro.product.device", "oriole" },
		{ "ro.product.model", "Pixel 6" },
		{ "ro.product.manufacturer", "Google" },
		{ "ro.product.cpu.abi", "arm64-v8a" },
		{ "ro.hardware", "oriole" },
		{ "ro.board.platform", "gs101" },
		{ "ro.soc.model", "Tensor" },
		{ "ro.debuggable", "0" },
		{ "ro.serialno", "18281FDF6007K8" },
	};
	struct bf_devfs *fs = open_adb("pixel-healthy");
	struct bf_err err = BF_ERR_INIT;
	json_t *p = NULL;

	(void)state;
	assert_int_equal(bf_android_props(&p, fs, &err), 0);
	for (size_t i = 0; i < BF_ARRAY_SIZE(want); i++)
		assert_prop(p, want[i][0], want[i][1]);
	assert_null(json_object_get(p, "dalvik.vm.heapsize"));
	assert_null(json_object_get(p, "ro.kernel.qemu"));
	assert_int_equal(json_object_size(p), 20);
	json_decref(p);
	bf_devfs_free(fs);
	fs = open_adb("pixel-rooted");
	assert_int_equal(bf_android_props(&p, fs, &err), 0);
	assert_prop(p, "ro.build.type", "userdebug");
	assert_prop(p, "ro.build.version.sdk", "33");
	json_decref(p);
	bf_devfs_free(fs);
}

/* Garbage or cut-short output: BF_EINVAL naming the command, no crash. */
static void bad_output(const char *serial, const char *battery_msg,
                       const char *thermal_msg, const char *props_msg)
{
	struct bf_devfs *fs = open_adb(serial);
	struct bf_android_battery b = { .capacity = -7 };
	struct bf_err err = BF_ERR_INIT;
	json_t *p = NULL;
	int status = -7;

	assert_err(bf_android_battery(&b, fs, &err), BF_EINVAL, &err,
	           battery_msg);
	assert_int_equal(b.capacity, -7);
	assert_err(bf_android_thermal_status(&status, fs, &err), BF_EINVAL,
	           &err, thermal_msg);
	assert_int_equal(status, -7);
	assert_err(bf_android_props(&p, fs, &err), BF_EINVAL, &err, props_msg);
	assert_null(p);
	bf_devfs_free(fs);
}

static void test_android__garbage_output(void **state)
{
	(void)state;
	bad_output("garbage", "'dumpsys battery': not a battery service dump",
	           "'dumpsys thermalservice': status not in 0..6: "
	           "'Thermal Status: hot'",
	           "'getprop': expected '[key]: [value]'");
}

static void test_android__truncated_output(void **state)
{
	(void)state;
	bad_output("truncated", "'dumpsys battery': no 'level' line",
	           "'dumpsys thermalservice': no 'Thermal Status' line",
	           "'getprop': last value has no closing ']'");
}

static void test_android__devfs_read_and_list(void **state)
{
	struct bf_devfs *fs = open_adb("pixel-healthy");
	struct bf_argv names = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;
	char *line = NULL;
	int64_t v = 0;

	(void)state;
	assert_string_equal(fs->desc, "adb device 'pixel-healthy'");
	assert_string_equal(fs->ops->name, "adb");
	assert_int_equal(
	        bf_devfs_read_i64(
	                &v, fs,
	                "/sys/devices/system/cpu/cpu6/cpufreq/cpuinfo_max_freq",
	                &err),
	        0);
	assert_int_equal(v, 2802000);
	assert_int_equal(
	        bf_devfs_read_line(
	                &line, fs,
	                "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
	                &err),
	        0);
	assert_string_equal(line, "sched_pixel");
	free(line);
	assert_int_equal(
	        bf_devfs_list(fs, "/sys/devices/system/cpu", &names, &err), 0);
	assert_int_equal(names.argc, 15);
	assert_string_equal(names.argv[0], "cpu0");
	assert_string_equal(names.argv[7], "cpu7");
	assert_string_equal(names.argv[14], "present");
	bf_argv_release(&names);
	bf_devfs_free(fs);
}

static void test_android__devfs_errors(void **state)
{
	struct bf_devfs *fs = open_adb("pixel-healthy");
	struct bf_buf b = BF_BUF_INIT;
	struct bf_argv names = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_err(bf_devfs_read(fs, "/sys/no/such/file", &b, &err),
	           BF_ENOTFOUND, &err, "No such file or directory");
	assert_err(
	        bf_devfs_read(
	                fs,
	                "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_cur_freq",
	                &b, &err),
	        BF_ESYS, &err, "Permission denied");
	assert_err(bf_devfs_read(fs, "/sys/devices/system/cpu", &b, &err),
	           BF_ESYS, &err, "Is a directory");
	assert_int_equal(b.len, 0);
	assert_err(bf_devfs_list(fs, "/sys/class/nope", &names, &err),
	           BF_ENOTFOUND, &err, "cannot list '/sys/class/nope'");
	assert_int_equal(names.argc, 0);
	/* A user build: sysfs is not writable from adb shell. */
	assert_err(bf_devfs_write(fs,
	                          "/sys/devices/system/cpu/cpu0/cpufreq/"
	                          "scaling_governor",
	                          "userspace", &err),
	           BF_ESYS, &err, "Permission denied");
	assert_err(bf_devfs_command(fs, (const char *const[]){ "frob", NULL },
	                            &b, &err),
	           BF_ERROR, &err, "'frob' failed (status 98)");
	bf_buf_release(&b);
	bf_devfs_free(fs);
}

static void test_android__devfs_write_rooted(void **state)
{
	static const char gov[] =
	        "/sys/devices/system/cpu/cpu4/cpufreq/scaling_governor";
	struct bf_devfs *fs = open_adb("pixel-rooted");
	struct bf_err err = BF_ERR_INIT;
	char *line = NULL;
	char *log;

	(void)state;
	assert_int_equal(bf_devfs_write(fs, gov, "userspace\n", &err), 0);
	assert_int_equal(bf_devfs_read_line(&line, fs, gov, &err), 0);
	assert_string_equal(line, "userspace");
	free(line);
	log = adb_log(*state);
	assert_non_null(strstr(log, "-s pixel-rooted shell echo userspace > "
	                            "/sys/devices/system/cpu/cpu4/cpufreq/"
	                            "scaling_governor\n"));
	free(log);
	assert_err(bf_devfs_write(fs, "/sys/devices/system/cpu/cpu9/online",
	                          "1", &err),
	           BF_ENOTFOUND, &err, "can't create");
	bf_devfs_free(fs);
}

/* Unsafe paths, values and words are refused before adb runs. */
static void test_android__rejects_unsafe_input(void **state)
{
	static const char *const bad_paths[] = {
		"/sys/x; rm -rf /",
		"/sys/$(reboot)",
		"/sys/a b",
		"sys/relative",
		"/sys/x`id`",
		"/sys/x|sh",
		"",
	};
	struct bf_devfs *fs = open_adb("pixel-rooted");
	struct bf_argv names = BF_ARGV_INIT;
	struct bf_buf b = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;
	size_t calls = adb_calls(*state);

	for (size_t i = 0; i < BF_ARRAY_SIZE(bad_paths); i++) {
		assert_err(bf_devfs_read(fs, bad_paths[i], &b, &err), BF_EINVAL,
		           &err, "refusing path");
		assert_err(bf_devfs_list(fs, bad_paths[i], &names, &err),
		           BF_EINVAL, &err, "refusing path");
		assert_err(bf_devfs_write(fs, bad_paths[i], "1", &err),
		           BF_EINVAL, &err, "refusing to write");
	}
	assert_err(bf_devfs_write(fs, "/sys/x", "1; reboot", &err), BF_EINVAL,
	           &err, "refusing to write");
	assert_err(bf_devfs_write(fs, "/sys/x", "-e \\x41", &err), BF_EINVAL,
	           &err, "refusing to write");
	assert_err(bf_devfs_write(fs, "/sys/x", "", &err), BF_EINVAL, &err,
	           "refusing to write");
	assert_err(bf_devfs_command(fs,
	                            (const char *const[]){ "ls", "a;b", NULL },
	                            &b, &err),
	           BF_EINVAL, &err, "refusing command word 'a;b'");
	assert_err(bf_devfs_command(
	                   fs, (const char *const[]){ "echo", "$(id)", NULL },
	                   &b, &err),
	           BF_EINVAL, &err, "refusing command word");
	assert_err(bf_devfs_command(fs, (const char *const[]){ "", NULL }, &b,
	                            &err),
	           BF_EINVAL, &err, "refusing command word");
	assert_int_equal(adb_calls(*state), calls);
	assert_int_equal(b.len, 0);
	bf_devfs_free(fs);
	assert_err(bf_devfs_open_adb(&fs, "x;reboot", &err), BF_EINVAL, &err,
	           "invalid adb serial");
	assert_err(bf_devfs_open_adb(&fs, "-d", &err), BF_EINVAL, &err,
	           "invalid adb serial");
	assert_int_equal(adb_calls(*state), calls);
}

static void test_android__disconnected(void **state)
{
	struct bf_devfs *fs = NULL;
	struct bf_err err = BF_ERR_INIT;
	struct bf_android_battery b;
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_argv names = BF_ARGV_INIT;
	struct bf_buf buf = BF_BUF_INIT;
	json_t *p = NULL;
	int status;

	(void)state;
	assert_err(bf_devfs_open_adb(&fs, "disconnected", &err), BF_EPROTO,
	           &err,
	           "adb device 'disconnected' disconnected: error: device "
	           "'disconnected' not found");
	/* Plugged in when opened, unplugged afterwards. */
	fs = open_adb("pixel-healthy");
	setenv("BF_ADB_SCENARIO", "disconnected", 1);
	assert_err(bf_devfs_read(fs, "/proc/loadavg", &buf, &err), BF_EPROTO,
	           &err, "disconnected");
	assert_err(bf_devfs_list(fs, "/sys/class/thermal", &names, &err),
	           BF_EPROTO, &err, "disconnected");
	assert_err(bf_devfs_write(fs, "/sys/x", "1", &err), BF_EPROTO, &err,
	           "disconnected");
	assert_err(bf_android_battery(&b, fs, &err), BF_EPROTO, &err,
	           "not found (dumpsys battery)");
	assert_err(bf_android_thermal_status(&status, fs, &err), BF_EPROTO,
	           &err, "disconnected");
	assert_err(bf_android_props(&p, fs, &err), BF_EPROTO, &err,
	           "disconnected");
	assert_err(bf_android_run_jetpack(&s, fs,
	                                  "com.example.benchmark.test" RUNNER,
	                                  NULL, 60, &err),
	           BF_EPROTO, &err, "disconnected");
	assert_int_equal(s.n, 0);
	assert_int_equal(buf.len, 0);
	bf_devfs_free(fs);
}

static void test_android__adb_missing(void **state)
{
	struct bf_devfs *fs = NULL;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	setenv("BENCHFARM_ADB", "/nonexistent/adb", 1);
	assert_err(bf_devfs_open_adb(&fs, "pixel-healthy", &err), BF_ESYS, &err,
	           "cannot run adb");
	assert_null(fs);
}

static void test_android__local_devfs_has_no_adb(void **state)
{
	struct bf_devfs *fs = NULL;
	struct bf_err err = BF_ERR_INIT;
	struct bf_android_battery b;
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	assert_int_equal(bf_devfs_open_local(&fs,
	                                     "tests/fixtures/adb/"
	                                     "pixel-healthy/root",
	                                     &err),
	                 0);
	assert_err(bf_android_battery(&b, fs, &err), BF_ENOTFOUND, &err,
	           "needs an adb device");
	assert_err(bf_android_run_jetpack(&s, fs,
	                                  "com.example.benchmark.test" RUNNER,
	                                  NULL, 60, &err),
	           BF_EINVAL, &err, "needs an adb device");
	bf_devfs_free(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ADB_STANDIN_TEST(test_android__battery),
		ADB_STANDIN_TEST(test_android__thermal_status),
		ADB_STANDIN_TEST(test_android__props),
		ADB_STANDIN_TEST(test_android__garbage_output),
		ADB_STANDIN_TEST(test_android__truncated_output),
		ADB_STANDIN_TEST(test_android__devfs_read_and_list),
		ADB_STANDIN_TEST(test_android__devfs_errors),
		ADB_STANDIN_TEST(test_android__devfs_write_rooted),
		ADB_STANDIN_TEST(test_android__rejects_unsafe_input),
		ADB_STANDIN_TEST(test_android__disconnected),
		ADB_STANDIN_TEST(test_android__adb_missing),
		ADB_STANDIN_TEST(test_android__local_devfs_has_no_adb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
