/*
 * libbenchfarm_bench's decisions on their own (agent/harness): Jetpack's
 * warmup manager with synthetic durations (its 250 ms minimum, 8 s
 * maximum, 30 iterations and 41 similar iterations), loop sizing and
 * statistics; the registry and its macros, the command line, and the
 * clock-lock rule on sysfs fixtures. Whole runs on a scripted clock are
 * in test_harness_run.c, the JSON and the console table in
 * test_harness_report.c. Expected values
 * are worked out from Jetpack Microbenchmark's formulas
 * (androidx.benchmark: warmup, loop sizing, throttle pauses).
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "harness/harness.h"
#include "parse/parse.h"

#define MS 1000000ULL
#define S  1000000000ULL

/* Registered by the macros before main: the first test looks. */
BF_BENCHMARK(macro_plain)
{
	while (bf_bench_keep_running(state)) {
	}
}

BF_BENCHMARK_ARGS(macro_list, 5, 6)
{
	while (bf_bench_keep_running(state)) {
	}
}

BF_BENCHMARK_ARGS_N(macro_pairs, 2, 1, 2, 3, 4)
{
	while (bf_bench_keep_running(state)) {
	}
}

BF_BENCHMARK_RANGE(macro_range, 8, 100, 4)
{
	while (bf_bench_keep_running(state)) {
	}
}

/* ---- the decisions on their own ---- */

/* The iteration at which the warmup says done, feeding d(i) ns. */
static uint64_t done_at(uint64_t (*d)(uint64_t i), uint64_t max)
{
	struct bf_bench_warmup w;

	bf_bench__warmup_init(&w);
	for (uint64_t i = 1; i <= max; i++)
		if (bf_bench__warmup_add(&w, d(i)))
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
	return S;
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
static void test_harness__warmup_converges_after_41_similar(void **state)
{
	(void)state;
	assert_int_equal(done_at(ten_ms, 1000), 42);
}

/* 1 ms iterations are similar early, but 250 ms take 250 of them. */
static void test_harness__warmup_minimum_duration(void **state)
{
	(void)state;
	assert_int_equal(done_at(one_ms, 1000), 250);
}

/*
 * 1 s iterations pass 8 s at the 8th, but 30 iterations are needed: the
 * maximum duration ends the warmup at the 30th (similar is 29 then).
 */
static void test_harness__warmup_minimum_iterations(void **state)
{
	(void)state;
	assert_int_equal(done_at(one_s, 1000), 30);
}

/*
 * Iterations that keep getting slower (i ms) never settle: fast/slow
 * stays above 1.0945 (float32, worked through), so only the 8 s cap ends
 * it, at the first n with n(n+1)/2 ms >= 8 s: n = 126.
 */
static void test_harness__warmup_maximum_duration_cuts_off(void **state)
{
	struct bf_bench_warmup w;
	uint64_t n;

	(void)state;
	assert_int_equal(done_at(ramp, 1000), 126);
	bf_bench__warmup_init(&w);
	for (n = 1; n <= 126; n++)
		bf_bench__warmup_add(&w, ramp(n));
	assert_int_equal(w.similar, 0);
	assert_int_equal(w.total_ns, 126 * 127 / 2 * MS);
	assert_int_equal(w.last_ns, 126 * MS); /* the estimate handed on */
}

static void test_harness__loop_iterations_clamped(void **state)
{
	(void)state;
	assert_int_equal(bf_bench__loop_iterations(100 * MS, MS), 100);
	assert_int_equal(bf_bench__loop_iterations(100 * MS, 3 * MS), 33);
	assert_int_equal(bf_bench__loop_iterations(100 * MS, S), 1);
	assert_int_equal(bf_bench__loop_iterations(100 * MS, 0), 1000000);
	assert_int_equal(bf_bench__loop_iterations(100 * MS, 10), 1000000);
}

static void test_harness__stats_by_hand(void **state)
{
	const double v[] = { 4, 100, 1, 3, 2 };
	const double j[] = { 0, 50, 100 };
	const double even[] = { 4, 1, 3, 2 };
	struct bf_bench_stats s;

	(void)state;
	bf_bench__stats(&s, v, 5);
	assert_true(s.min == 1 && s.max == 100 && s.median == 3);
	assert_true(s.mean == 22);
	/* sqrt((21^2 + 20^2 + 19^2 + 18^2 + 78^2) / 4) = sqrt(1902.5) */
	assert_true(fabs(s.stddev - sqrt(1902.5)) < 1e-12);
	assert_true(fabs(s.cv - sqrt(1902.5) / 22) < 1e-12);
	/* p90: rank 0.9 * 4 = 3.6, between 4 and 100: 4 * 0.4 + 100 * 0.6 */
	assert_true(fabs(s.p90 - 61.6) < 1e-12);
	/* p99: rank 3.96: 4 * 0.04 + 100 * 0.96 */
	assert_true(fabs(s.p99 - 96.16) < 1e-12);
	/* an even count: the median between the middle two */
	bf_bench__stats(&s, even, 4);
	assert_true(s.median == 2.5);
	/* Jetpack's own test: 0, 50, 100 give P95 = 94.99999999999999 */
	bf_bench__stats(&s, j, 3);
	assert_true(s.p95 == 94.99999999999999);
	/* one value: no spread; none: all zero */
	bf_bench__stats(&s, v, 1);
	assert_true(s.stddev == 0 && s.median == 4 && s.cv == 0);
	bf_bench__stats(&s, v, 0);
	assert_true(s.min == 0 && s.max == 0 && s.mean == 0);
}

/* ---- the registry ---- */

static const char *names(char *buf, size_t len)
{
	size_t n, off = 0;
	const struct bf_bench_entry *e = bf_bench__entries(&n);

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		                        i ? " " : "", e[i].name);
	return buf;
}

static void test_harness__registry_macros(void **state)
{
	char buf[512];
	size_t n;
	const struct bf_bench_entry *e = bf_bench__entries(&n);

	(void)state;
	/* constructors in one file run in order of definition */
	assert_string_equal(
	        names(buf, sizeof(buf)),
	        "macro_plain macro_list/5 macro_list/6 macro_pairs/1/2 macro_pairs/3/4 macro_range/8 macro_range/32 macro_range/100");
	assert_int_equal(e[4].nargs, 2);
	assert_true(e[4].args[0] == 3 && e[4].args[1] == 4);
	assert_null(bf_bench__registration_error());
}

static void dummy(struct bf_bench_state *state)
{
	(void)state;
}

static void test_harness__registry_mistakes(void **state)
{
	const long long three[] = { 1, 2, 3 };
	char buf[256];

	(void)state;
	bf_bench__registry_clear();
	bf_bench_register_args("odd", dummy, three, 2, 3);
	assert_string_equal(
	        bf_bench__registration_error(),
	        "benchmark 'odd': the argument values are not a whole number of runs (BF_BENCHMARK_ARGS_N)");
	bf_bench__registry_clear();
	bf_bench_register("dup", dummy);
	bf_bench_register("dup", dummy);
	assert_string_equal(bf_bench__registration_error(),
	                    "benchmark 'dup': defined twice");
	bf_bench__registry_clear();
	bf_bench_register_range("r", dummy, 10, 1, 2);
	assert_string_equal(bf_bench__registration_error(),
	                    "benchmark 'r': range with lo > hi");
	bf_bench__registry_clear();
	bf_bench_register_range("r", dummy, 0, 8, 2);
	bf_bench_register_range("one", dummy, 1, 1, 8);
	bf_bench_register_range("neg", dummy, -3, 2, 2);
	assert_null(bf_bench__registration_error());
	assert_string_equal(names(buf, sizeof(buf)),
	                    "r/0 r/8 one/1 neg/-3 neg/2");
	bf_bench__registry_clear();
}

/* ---- the command line ---- */

static enum bf_bench_opts_result parse(struct bf_bench_opts *o, char *msg,
                                       int argc, ...)
{
	char *argv[16] = { (char *)"prog" };
	va_list ap;

	va_start(ap, argc);
	for (int i = 1; i < argc; i++)
		argv[i] = (char *)va_arg(ap, const char *);
	va_end(ap);
	bf_bench__opts_init(o);
	msg[0] = '\0';
	return bf_bench__opts_parse(o, argc, argv, msg, 200);
}

static void test_harness__opts_values(void **state)
{
	struct bf_bench_opts o;
	char msg[200];

	(void)state;
	assert_int_equal(parse(&o, msg, 1), BF_OPTS_RUN);
	assert_int_equal(o.repeats, 50);
	assert_true(o.throttle && o.time_cap_s == 600 && o.sleep_s == 90);
	assert_int_equal(o.retries, 2);
	assert_int_equal(o.target_ns, 100 * MS);
	assert_int_equal(parse(&o, msg, 14, "--repeats", "7", "--filter=a|b",
	                       "--out", "f.json", "--target-ms=2.5",
	                       "--time-cap", "0", "--no-throttle", "--dry-run",
	                       "--list", "--throttle-retries=0", "--sustained"),
	                 BF_OPTS_RUN);
	assert_int_equal(o.repeats, 7);
	assert_string_equal(o.filter, "a|b");
	assert_string_equal(o.out, "f.json");
	assert_int_equal(o.target_ns, 2500000);
	assert_true(o.time_cap_s == 0 && !o.throttle && o.dry_run && o.list);
	assert_true(o.retries == 0 && o.sustained);
	assert_int_equal(parse(&o, msg, 3, "--list", "--help"), BF_OPTS_HELP);
	assert_int_equal(parse(&o, msg, 2, "-h"), BF_OPTS_HELP);
}

static void test_harness__opts_errors(void **state)
{
	static const char *const cases[][3] = {
		{ "--frobnicate", NULL, "unknown option '--frobnicate'" },
		{ "positional", NULL, "unknown option 'positional'" },
		{ "--repeats", NULL, "--repeats needs a value" },
		{ "--repeats", "0",
		  "--repeats: '0' is not a count from 1 to 100000" },
		{ "--repeats", "1.5",
		  "--repeats: '1.5' is not a count from 1 to 100000" },
		{ "--repeats=", NULL,
		  "--repeats: '' is not a count from 1 to 100000" },
		{ "--target-ms", "fast",
		  "--target-ms: 'fast' is not a time from 0.001 to 60000" },
		{ "--time-cap", "-1",
		  "--time-cap: '-1' is not a number of seconds (0: none)" },
		{ "--throttle-retries", "101",
		  "--throttle-retries: '101' is not a count from 0 to 100" },
		{ "--list=yes", NULL, "--list takes no value" },
		{ "--filter=", NULL, "--filter: empty value" },
		{ "--out", "", "--out: empty value" },
	};
	struct bf_bench_opts o;
	char msg[200];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int argc = cases[i][1] ? 3 : 2;

		assert_int_equal(parse(&o, msg, argc, cases[i][0], cases[i][1]),
		                 BF_OPTS_USAGE);
		assert_string_equal(msg, cases[i][2]);
	}
}

/* ---- the machine's context from sysfs fixtures ---- */

static char root[64];

static void fixture(const char *rel, const char *content)
{
	char path[256], *dir;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	dir = bf_fs_dirname(path);
	assert_int_equal(bf_fs_mkdirs(dir, 0755, NULL), 0);
	free(dir);
	assert_int_equal(
	        bf_fs_write_atomic(path, content, strlen(content), 0644, NULL),
	        0);
}

/* cpuN with available frequencies avail (NULL: none) set to min_khz. */
static void cpu(int n, const char *avail, const char *min_khz)
{
	char rel[128];

	if (avail) {
		snprintf(
		        rel, sizeof(rel),
		        "sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_frequencies",
		        n);
		fixture(rel, avail);
	}
	snprintf(rel, sizeof(rel),
	         "sys/devices/system/cpu/cpu%d/cpufreq/scaling_min_freq", n);
	fixture(rel, min_khz);
}

static void fresh_root(void)
{
	if (root[0])
		bf_fs_rmtree(root, NULL);
	snprintf(root, sizeof(root), "/tmp/bf-harness-test.XXXXXX");
	assert_non_null(mkdtemp(root));
}

#define STEPS "300000 600000 900000 \n"

static void test_harness__cpu_locked_rule(void **state)
{
	(void)state;
	/* the same steps, the same set speed above the lowest: locked */
	fresh_root();
	cpu(0, STEPS, "600000\n");
	cpu(1, STEPS, "600000\n");
	assert_true(bf_bench__cpu_locked(root));
	/* an offline core does not count, even at its lowest step */
	cpu(2, STEPS, "300000\n");
	fixture("sys/devices/system/cpu/cpu2/online", "0\n");
	assert_true(bf_bench__cpu_locked(root));
	/* online again: at its lowest step, so not locked */
	fixture("sys/devices/system/cpu/cpu2/online", "1\n");
	assert_false(bf_bench__cpu_locked(root));

	/* the same steps at different speeds: not locked */
	fresh_root();
	cpu(0, STEPS, "600000\n");
	cpu(1, STEPS, "900000\n");
	assert_false(bf_bench__cpu_locked(root));

	/* big.LITTLE: groups with different steps may differ */
	fresh_root();
	cpu(0, "300000 600000\n", "600000\n");
	cpu(1, "400000 800000 1200000\n", "800000\n");
	assert_true(bf_bench__cpu_locked(root));

	/* scaling_setspeed wins over scaling_min_freq unless unsupported */
	fixture("sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed",
	        "<unsupported>\n");
	assert_true(bf_bench__cpu_locked(root));
	fixture("sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed",
	        "300000\n");
	assert_false(bf_bench__cpu_locked(root));

	/* no list of steps (intel_pstate), or no cores: not locked */
	fresh_root();
	cpu(0, NULL, "600000\n");
	assert_false(bf_bench__cpu_locked(root));
	fresh_root();
	assert_false(bf_bench__cpu_locked(root));
	bf_fs_rmtree(root, NULL);
	root[0] = '\0';
}

static void test_harness__context_probe(void **state)
{
	struct bf_bench_context c;

	(void)state;
	fresh_root();
	cpu(0, STEPS, "600000\n");
	cpu(1, STEPS, "600000\n");
	fixture("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
	        "2000000\n");
	fixture("sys/devices/system/cpu/cpu1/cpufreq/cpuinfo_max_freq",
	        "2500000\n");
	fixture("sys/devices/system/cpu/cpu2/online", "0\n");
	fixture("sys/devices/system/cpu/cpufreq/policy0/x", "");
	fixture("proc/meminfo", "MemFree: 5 kB\nMemTotal:    1000 kB\n");
	fixture("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU 9\n");
	bf_bench__context_probe(&c, root);
	assert_int_equal(c.cpu_cores, 3); /* offline ones too */
	assert_int_equal(c.cpu_max_freq_hz, 2500000000LL);
	assert_int_equal(c.mem_total_bytes, 1024000);
	assert_true(c.cpu_locked);
	assert_string_equal(c.model, "Test CPU 9");
	assert_string_equal(c.brand, "unknown"); /* no build.prop: Linux */
	assert_int_equal(c.sdk, -1);
	bf_fs_rmtree(root, NULL);

	/* Android: android.os.Build's values, from the system properties */
	fresh_root();
	fixture("system/build.prop",
	        "# begin build properties\nro.build.id=AP2A.240805.005\n"
	        "ro.build.type=user\nro.product.brand=google\n"
	        "ro.build.version.sdk=34\nro.build.version.codename=REL\n"
	        "ro.build.version.sdk_int_full=1\n");
	bf_bench__context_probe(&c, root);
	assert_string_equal(c.brand, "google");
	assert_string_equal(c.build_id, "AP2A.240805.005");
	assert_string_equal(c.build_type, "user");
	assert_string_equal(c.codename, "REL");
	assert_int_equal(c.sdk, 34);
	bf_fs_rmtree(root, NULL);

	/* nothing readable: unknowns, as Jetpack writes them */
	bf_bench__context_probe(&c, root);
	assert_int_equal(c.cpu_cores, 0);
	assert_int_equal(c.cpu_max_freq_hz, -1);
	assert_int_equal(c.mem_total_bytes, -1);
	assert_false(c.cpu_locked);
	assert_string_equal(c.model, "unknown");
	assert_string_equal(c.build_id, "unknown");
	assert_string_equal(c.codename, "unknown");
	root[0] = '\0';
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: it sees what the constructors registered */
		cmocka_unit_test(test_harness__registry_macros),
		cmocka_unit_test(test_harness__registry_mistakes),
		cmocka_unit_test(
		        test_harness__warmup_converges_after_41_similar),
		cmocka_unit_test(test_harness__warmup_minimum_duration),
		cmocka_unit_test(test_harness__warmup_minimum_iterations),
		cmocka_unit_test(
		        test_harness__warmup_maximum_duration_cuts_off),
		cmocka_unit_test(test_harness__loop_iterations_clamped),
		cmocka_unit_test(test_harness__stats_by_hand),
		cmocka_unit_test(test_harness__opts_values),
		cmocka_unit_test(test_harness__opts_errors),
		cmocka_unit_test(test_harness__cpu_locked_rule),
		cmocka_unit_test(test_harness__context_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
