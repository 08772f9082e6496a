/*
 * Unit tests for the device probes (agent/probe_*.c) and the info JSON
 * (agent/info.c): the fixture trees under tests/fixtures/sysroot/, and
 * small trees written per test for garbage, truncated and unreadable
 * files. Run from the repository root (make check does).
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

#include "agent.h"
#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "check/check.h"
#include "info.h"
#include "probe/devfs.h"
#include "probe/probe.h"
#include "unit/probe/tmptree.h"

#define FIXTURES "tests/fixtures/sysroot/"

static void probe_root(struct bf_probe *p, const char *root)
{
	struct bf_devfs *fs = NULL;

	assert_int_equal(bf_devfs_open_local(&fs, root, NULL), 0);
	assert_int_equal(bf_probe_all(p, fs, 0, NULL), 0);
	bf_devfs_free(fs);
}

static bool has_error(const struct bf_probe *p, const char *needle)
{
	return *bf_check__probe_error(p, needle) != '\0';
}

static bool has_string(const struct bf_argv *a, const char *s)
{
	for (size_t i = 0; i < a->argc; i++)
		if (!strcmp(a->argv[i], s))
			return true;
	return false;
}

static void parse_ok(const char *s, const char *formatted, size_t n)
{
	struct bf_cpulist l;
	char *back;

	if (bf_cpulist_parse(&l, s, NULL))
		fail_msg("'%s' should parse", s);
	assert_true(l.known);
	assert_int_equal(l.n, n);
	back = bf_cpulist_format(&l);
	assert_string_equal(back, formatted);
	free(back);
	bf_cpulist_release(&l);
}

static void test_probe__cpulist_parses_kernel_range_lists(void **state)
{
	(void)state;
	parse_ok("0-3", "0-3", 4);
	parse_ok("0-3,5\n", "0-3,5", 5);
	parse_ok("5,0-1,1", "0-1,5", 3);
	parse_ok("7", "7", 1);
	parse_ok("", "", 0);
	parse_ok("\n", "", 0);
	parse_ok("0-4095", "0-4095", 4096);
}

static void test_probe__cpulist_rejects_garbage(void **state)
{
	static const char *const bad[] = {
		"0-", "3-1",  "a",     "0,,1",    "0,",  " 0",    "0-3 ",
		"-1", "4096", "99999", "0-3\n\n", "0x1", "1-2-3", ",0",
	};
	struct bf_err err = BF_ERR_INIT;
	struct bf_cpulist l;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		if (bf_cpulist_parse(&l, bad[i], &err) != BF_EINVAL)
			fail_msg("'%s' should not parse", bad[i]);
		assert_false(l.known);
		assert_null(l.cpus);
		assert_non_null(strstr(err.msg, "is not a CPU list"));
	}
}

static void test_probe__healthy_fixture(void **state)
{
	struct bf_probe p;
	const struct bf_probe_core *c;

	(void)state;
	probe_root(&p, FIXTURES "healthy-locked");
	assert_int_equal(p.errors.argc, 0);
	assert_string_equal(p.arch, "aarch64");
	assert_string_equal(p.cpu_model, "Fixture Board (healthy-locked)");
	assert_string_equal(p.kernel, "5.10.168-android12-9-fixture");
	assert_string_equal(p.hostname, "fixture-healthy");
	assert_int_equal(p.aslr, 2);
	assert_int_equal(p.possible.n, 4);
	assert_int_equal(p.isolated.n, 0);
	assert_true(p.isolated.known);
	assert_int_equal(bf_probe_online_count(&p), 4);
	assert_int_equal(p.ncores, 4);
	c = &p.cores[3];
	assert_int_equal(c->cpu, 3);
	assert_true(c->online);
	assert_string_equal(c->governor, "userspace");
	assert_int_equal(c->min_khz, 1000000);
	assert_int_equal(c->max_khz, 1000000);
	assert_int_equal(c->setspeed_khz, 1000000);
	assert_int_equal(c->hw_max_khz, 1800000);
	assert_int_equal(c->navail, 5);
	assert_int_equal(c->avail_khz[0], 300000);
	assert_int_equal(p.boost, 0);
	assert_int_equal(p.nzones, 1);
	assert_true(p.zones[0].valid);
	assert_true(fabs(p.zones[0].temp_c - 45.0) < 1e-9);
	assert_int_equal(p.nsupplies, 2);
	assert_string_equal(p.supplies[0].name, "AC");
	assert_int_equal(p.supplies[0].online, 1);
	assert_int_equal(p.supplies[1].capacity, 80);
	assert_string_equal(p.supplies[1].status, "Charging");
	assert_int_equal(p.mem_total_kb, 3809472);
	assert_int_equal(p.mem_available_kb, 1987652);
	assert_true(fabs(p.load1 - 0.20) < 1e-9);
	assert_int_equal(p.runnable, 1);
	assert_int_equal(p.threads, 180);
	/* cpu0 has no online file, like real kernels: noted, still online */
	assert_true(has_string(&p.unavailable,
	                       "/sys/devices/system/cpu/cpu0/online"));
	assert_true(p.cores[0].online);
	bf_probe_release(&p);
}

static void test_probe__garbage_fixture_names_every_bad_file(void **state)
{
	static const char *const files[] = {
		"/sys/devices/system/cpu/online: '0-'",
		"scaling_available_frequencies: 'abc'",
		"/sys/devices/system/cpu/cpufreq/boost: 'yes'",
		"/proc/meminfo",
		"/proc/loadavg: '0.52 0.4'",
		"/sys/class/thermal/thermal_zone0/temp: 'abc'",
		"/sys/class/thermal/thermal_zone2/temp: 250.0 C",
		"/sys/class/power_supply/BAT0/capacity: ''",
	};
	struct bf_probe p;

	(void)state;
	probe_root(&p, FIXTURES "garbage-sysfs");
	for (size_t i = 0; i < BF_ARRAY_SIZE(files); i++)
		if (!has_error(&p, files[i]))
			fail_msg("no error names '%s'", files[i]);
	assert_int_equal(p.errors.argc, BF_ARRAY_SIZE(files));
	assert_true(p.cpulists_bad);
	assert_false(p.online.known);
	assert_true(p.possible.known);
	assert_true(p.load_bad);
	assert_true(isnan(p.load1));
	assert_int_equal(p.runnable, -1);
	assert_int_equal(p.mem_total_kb, -1);
	assert_int_equal(p.boost, -1);
	assert_true(p.boost_bad);
	assert_int_equal(p.nzones, 3);
	assert_false(p.zones[0].valid);
	assert_true(isnan(p.zones[0].temp_c));
	/* a negative temperature is a real one */
	assert_true(p.zones[1].valid);
	assert_true(fabs(p.zones[1].temp_c + 5.0) < 1e-9);
	assert_false(p.zones[2].valid);
	assert_int_equal(p.supplies[0].capacity, -1);
	assert_true(p.supplies[0].capacity_bad);
	/* truncated cpuinfo: no model, no error, no crash */
	assert_null(p.cpu_model);
	assert_int_equal(p.cores[0].navail, 0);
	assert_null(p.cores[0].avail_khz);
	bf_probe_release(&p);
}

static void test_probe__empty_tree_is_all_unavailable(void **state)
{
	struct tmptree *t = *state;
	struct bf_probe p;

	probe_root(&p, t->dir);
	assert_int_equal(p.errors.argc, 0);
	assert_true(has_string(&p.unavailable, "/proc/cpuinfo"));
	assert_true(has_string(&p.unavailable, "/sys/class/thermal"));
	assert_true(has_string(&p.unavailable, "/sys/class/power_supply"));
	assert_true(has_string(&p.unavailable, "/sys/devices/system/cpu"));
	assert_int_equal(p.ncores, 0);
	assert_int_equal(bf_probe_online_count(&p), -1);
	assert_null(p.kernel);
	assert_null(p.arch);
	bf_probe_release(&p);
}

static void test_probe__unreadable_files_are_errors(void **state)
{
	struct tmptree *t = *state;
	char *zone =
	        bf_xasprintf("%s/sys/class/thermal/thermal_zone0/temp", t->dir);
	char *load = bf_xasprintf("%s/proc/loadavg", t->dir);
	struct bf_probe p;

	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone0/type", "cpu\n");
	/* A directory where a file should be fails even for root. */
	assert_int_equal(bf_fs_mkdirs(zone, 0755, NULL), 0);
	tmptree_put(t->dir, "/proc/loadavg", "0.10 0.10 0.10 1/10 5\n");
	assert_int_equal(chmod(load, 0000), 0);
	probe_root(&p, t->dir);
	assert_true(has_error(&p, "thermal_zone0/temp"));
	assert_false(p.zones[0].valid);
	if (geteuid() != 0) {
		assert_true(has_error(&p, "/proc/loadavg"));
		assert_true(has_error(&p, "Permission denied"));
		assert_true(p.load_bad);
	} else {
		print_message("note: running as root, mode 000 does not make "
		              "a file unreadable; that part is not checked\n");
	}
	chmod(load, 0644);
	bf_probe_release(&p);
	free(zone);
	free(load);
}

static void test_probe__loadavg_is_parsed_strictly(void **state)
{
	static const struct {
		const char *text;
		bool ok;
	} cases[] = {
		{ "1.00 0.50 0.25 3/200 123\n", true },
		{ "0 0 0 0/0 1", true },
		{ "1.00 0.50 0.25 3/200\n", false },
		{ "1.00 0.50 0.25 300/200 1\n", false },
		{ "nan 0.50 0.25 3/200 1\n", false },
		{ "1.00 0.50 0.25 3 1\n", false },
		{ "1.00  0.50 0.25 3/200 1\n", false },
		{ "1.00 0.50 0.25 3/200 1 extra\n", false },
		{ "-1 0.50 0.25 3/200 1\n", false },
		{ "", false },
	};
	struct tmptree *t = *state;

	for (size_t i = 0; i < BF_ARRAY_SIZE(cases); i++) {
		struct bf_probe p;

		tmptree_put(t->dir, "/proc/loadavg", cases[i].text);
		probe_root(&p, t->dir);
		if (p.load_bad == cases[i].ok)
			fail_msg("'%s': expected %s", cases[i].text,
			         cases[i].ok ? "ok" : "an error");
		if (cases[i].ok)
			assert_true(isfinite(p.load1));
		else
			assert_true(has_error(&p, "/proc/loadavg"));
		bf_probe_release(&p);
	}
}

static void test_probe__meminfo_fields(void **state)
{
	struct tmptree *t = *state;
	struct bf_probe p;

	tmptree_put(t->dir, "/proc/meminfo",
	            "MemTotal:       1000 kB\nMemFree: 1 kB\n");
	probe_root(&p, t->dir);
	assert_int_equal(p.mem_total_kb, 1000);
	assert_int_equal(p.mem_available_kb, -1); /* old kernels lack it */
	assert_int_equal(p.errors.argc, 0);
	bf_probe_release(&p);
	tmptree_put(t->dir, "/proc/meminfo",
	            "MemTotal: 12 MB\nMemAvailable: x kB\n");
	probe_root(&p, t->dir);
	assert_int_equal(p.mem_total_kb, -1);
	assert_true(has_error(&p, "bad MemTotal"));
	assert_true(has_error(&p, "bad MemAvailable"));
	bf_probe_release(&p);
}

static const json_t *get(const json_t *o, const char *path);

/* The machine's ids are read through the sysroot; empty is absent. */
static void test_probe__machine_ids(void **state)
{
	struct tmptree *t = *state;
	struct bf_probe p;
	json_t *info;

	probe_root(&p, t->dir);
	assert_null(p.machine_id);
	assert_null(p.boot_id);
	assert_true(has_string(&p.unavailable, "/etc/machine-id"));
	bf_probe_release(&p);
	tmptree_put(t->dir, "/etc/machine-id",
	            "0123456789abcdef0123456789abcdef\n");
	tmptree_put(t->dir, "/proc/sys/kernel/random/boot_id",
	            "5a1f8a43-0d2c-4a8e-9b1b-2a6c3c1d9e77\n");
	probe_root(&p, t->dir);
	assert_string_equal(p.machine_id, "0123456789abcdef0123456789abcdef");
	assert_string_equal(p.boot_id, "5a1f8a43-0d2c-4a8e-9b1b-2a6c3c1d9e77");
	info = bf_info_json(&p, t->dir);
	assert_string_equal(json_string_value(get(info, "machine_id")),
	                    "0123456789abcdef0123456789abcdef");
	assert_string_equal(json_string_value(get(info, "boot_id")),
	                    "5a1f8a43-0d2c-4a8e-9b1b-2a6c3c1d9e77");
	json_decref(info);
	bf_probe_release(&p);
	tmptree_put(t->dir, "/etc/machine-id", "\n");
	probe_root(&p, t->dir);
	assert_null(p.machine_id);
	assert_int_equal(p.errors.argc, 0);
	bf_probe_release(&p);
}

static void test_probe__cpufreq_details(void **state)
{
	struct tmptree *t = *state;
	struct bf_probe p;

	tmptree_put(t->dir,
	            "/sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed",
	            "<unsupported>\n");
	tmptree_put(t->dir,
	            "/sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq",
	            "300000\n");
	tmptree_put(t->dir,
	            "/sys/devices/system/cpu/cpu0/cpufreq/"
	            "scaling_available_frequencies",
	            "1800000 300000 1000000 \n");
	tmptree_put(t->dir, "/sys/devices/system/cpu/cpu2/online", "0\n");
	tmptree_put(t->dir, "/sys/devices/system/cpu/cpufreq_not_a_core/x",
	            "1\n");
	tmptree_put(t->dir, "/sys/devices/system/cpu/intel_pstate/no_turbo",
	            "0\n");
	probe_root(&p, t->dir);
	/* cpu dirs give the cores when the lists are missing */
	assert_int_equal(p.ncores, 2);
	assert_int_equal(p.cores[1].cpu, 2);
	assert_false(p.cores[1].online);
	assert_int_equal(bf_probe_online_count(&p), 1);
	assert_int_equal(p.cores[0].setspeed_khz, -1);
	assert_false(has_error(&p, "scaling_setspeed"));
	assert_int_equal(p.cores[0].navail, 3);
	assert_int_equal(p.cores[0].avail_khz[0], 300000);
	assert_int_equal(p.cores[0].avail_khz[2], 1800000);
	/* no_turbo 0 means turbo is on */
	assert_int_equal(p.boost, 1);
	assert_string_equal(p.boost_source,
	                    "/sys/devices/system/cpu/intel_pstate/no_turbo");
	bf_probe_release(&p);
}

static void test_probe__thermal_range_and_order(void **state)
{
	struct tmptree *t = *state;
	struct bf_probe p;

	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone10/temp",
	            "30000\n");
	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone2/temp",
	            "-50000\n");
	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone3/temp",
	            "-50001\n");
	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone4/temp",
	            "200000\n");
	tmptree_put(t->dir, "/sys/class/thermal/cooling_device0/type", "fan\n");
	probe_root(&p, t->dir);
	assert_int_equal(p.nzones, 4);
	assert_string_equal(p.zones[0].name, "thermal_zone2");
	assert_string_equal(p.zones[3].name, "thermal_zone10");
	assert_true(p.zones[0].valid);
	assert_false(p.zones[1].valid);
	assert_true(has_error(&p, "thermal_zone3/temp: -50.0 C is outside"));
	assert_true(p.zones[2].valid);
	assert_null(p.zones[0].type);
	assert_true(has_string(&p.unavailable,
	                       "/sys/class/thermal/thermal_zone2/type"));
	bf_probe_release(&p);
}

static void test_probe__power_supply_values(void **state)
{
	struct tmptree *t = *state;
	struct bf_probe p;

	tmptree_put(t->dir, "/sys/class/power_supply/BAT1/type", "Battery\n");
	tmptree_put(t->dir, "/sys/class/power_supply/BAT1/capacity", "101\n");
	tmptree_put(t->dir, "/sys/class/power_supply/usb/type", "USB\n");
	tmptree_put(t->dir, "/sys/class/power_supply/usb/online", "2\n");
	probe_root(&p, t->dir);
	assert_int_equal(p.nsupplies, 2);
	assert_int_equal(p.supplies[0].capacity, -1);
	assert_true(p.supplies[0].capacity_bad);
	assert_true(has_error(&p, "BAT1/capacity: 101 is not a percentage"));
	assert_int_equal(p.supplies[1].online, -1);
	assert_true(has_error(&p, "usb/online: 2 is not 0 or 1"));
	bf_probe_release(&p);
}

static const json_t *get(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return json_object_get(o, path);
}

static void test_probe__info_json_healthy(void **state)
{
	struct bf_probe p;
	json_t *info;

	(void)state;
	probe_root(&p, FIXTURES "healthy-locked");
	info = bf_info_json(&p, "ROOT");
	assert_string_equal(json_string_value(get(info, "agent")), BF_VERSION);
	assert_string_equal(json_string_value(get(info, "root")), "ROOT");
	assert_string_equal(json_string_value(get(info, "hostname")),
	                    "fixture-healthy");
	assert_string_equal(json_string_value(get(info, "arch")), "aarch64");
	assert_int_equal(json_integer_value(get(info, "cpus_online")), 4);
	assert_string_equal(json_string_value(get(info, "cpu.online")), "0-3");
	assert_true(json_is_true(get(info, "cpu.clocks_locked")));
	assert_true(json_is_false(get(info, "cpu.boost")));
	assert_int_equal(json_array_size(get(info, "cpu.cores")), 4);
	assert_int_equal(json_array_size(get(info, "thermal")), 1);
	assert_int_equal(json_integer_value(get(info, "memory.total_kb")),
	                 3809472);
	assert_int_equal(json_integer_value(get(info, "load.runnable")), 1);
	assert_int_equal(json_array_size(get(info, "errors")), 0);
	assert_null(get(info, "android"));
	json_decref(info);
	bf_probe_release(&p);
}

static void test_probe__info_json_unknowns_and_bytes(void **state)
{
	struct tmptree *t = *state;
	const json_t *zone;
	struct bf_probe p;
	json_t *info;

	tmptree_put(t->dir, "/sys/class/thermal/thermal_zone0/type",
	            "cpu\xff\xfe\n");
	probe_root(&p, t->dir);
	info = bf_info_json(&p, NULL);
	assert_true(json_is_null(get(info, "root")));
	assert_true(json_is_null(get(info, "cpus_online")));
	assert_true(json_is_null(get(info, "aslr")));
	assert_true(json_is_null(get(info, "cpu.possible")));
	zone = json_array_get(get(info, "thermal"), 0);
	assert_string_equal(json_string_value(json_object_get(zone, "type")),
	                    "cpu??");
	assert_true(json_is_null(json_object_get(zone, "temp_c")));
	assert_true(json_array_size(get(info, "unavailable")) > 5);
	json_decref(info);
	bf_probe_release(&p);
}

static void test_probe__open_names_the_device(void **state)
{
	struct bf_agent_ctx ctx = { "/", NULL, NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;
	unsigned flags = 0;
	char *key = NULL;

	(void)state;
	assert_int_equal(
	        bf_probe_open(&fs, &flags, &key, ctx.root, ctx.adb, NULL), 0);
	assert_int_equal(flags, BF_PROBE_HOST);
	assert_string_equal(key, "local");
	bf_devfs_free(fs);
	free(key);
	key = NULL;
	ctx.root = FIXTURES "healthy-locked";
	assert_int_equal(
	        bf_probe_open(&fs, &flags, &key, ctx.root, ctx.adb, NULL), 0);
	assert_int_equal(flags, 0);
	bf_devfs_free(fs);
	free(key);
	ctx.root = FIXTURES "no-such-fixture";
	assert_int_not_equal(
	        bf_probe_open(&fs, &flags, NULL, ctx.root, ctx.adb, &err), 0);
	assert_non_null(strstr(err.msg, "no-such-fixture"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe__cpulist_parses_kernel_range_lists),
		cmocka_unit_test(test_probe__cpulist_rejects_garbage),
		cmocka_unit_test(test_probe__healthy_fixture),
		cmocka_unit_test(
		        test_probe__garbage_fixture_names_every_bad_file),
		cmocka_unit_test_setup_teardown(
		        test_probe__empty_tree_is_all_unavailable,
		        tmptree_setup, tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_probe__unreadable_files_are_errors, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_probe__loadavg_is_parsed_strictly, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_probe__meminfo_fields,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_probe__machine_ids,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_probe__cpufreq_details,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test_setup_teardown(
		        test_probe__thermal_range_and_order, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_probe__power_supply_values,
		                                tmptree_setup,
		                                tmptree_teardown),
		cmocka_unit_test(test_probe__info_json_healthy),
		cmocka_unit_test_setup_teardown(
		        test_probe__info_json_unknowns_and_bytes, tmptree_setup,
		        tmptree_teardown),
		cmocka_unit_test(test_probe__open_names_the_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
