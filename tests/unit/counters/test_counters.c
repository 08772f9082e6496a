/*
 * Unit tests for the run's counters: the agent's bookkeeping of
 * perf_event_open values (agent/counters.c: scaling of a multiplexed
 * event, the "unavailable" reasons, the result's JSON), the cachegrind
 * totals (agent/cachegrind.c) and the orchestrator's reading of a
 * result's "counters" as samples (core/src/counters.c), all with
 * values fixed here and totals worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/counters.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/sample.h"
#include "cachegrind.h"
#include "counters.h"

static struct bf_counter *find(struct bf_counters *cs, const char *metric)
{
	for (int i = 0; i < BF_COUNTERS_N; i++)
		if (!strcmp(cs->c[i].metric, metric))
			return &cs->c[i];
	fail_msg("no counter %s", metric);
	return NULL;
}

/* The eight events, their units, none counted before a run. */
static void test_init(void **state)
{
	struct bf_counters cs;

	(void)state;
	bf_counters_init(&cs);
	assert_string_equal(find(&cs, "task_clock_ns")->unit, "ns");
	assert_int_equal(find(&cs, "task_clock_ns")->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(find(&cs, "page_faults")->config,
	                 PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(find(&cs, "instructions")->type, PERF_TYPE_HARDWARE);
	assert_int_equal(find(&cs, "cache_misses")->config,
	                 PERF_COUNT_HW_CACHE_MISSES);
	for (int i = 0; i < BF_COUNTERS_N; i++) {
		assert_false(cs.c[i].have);
		assert_int_equal(cs.c[i].fd, -1);
	}
}

/*
 * Counted all the time: the value as read. Multiplexed (running 250 of
 * 1000 ns enabled): 300 * 1000 / 250 = 1200. Never on the PMU: no value.
 */
static void test_take(void **state)
{
	struct bf_counters cs;
	struct bf_counter *c;
	const uint64_t full[3] = { 5000, 1000, 1000 };
	const uint64_t mux[3] = { 300, 1000, 250 };
	const uint64_t never[3] = { 0, 1000, 0 };
	const uint64_t zero[3] = { 0, 0, 0 };

	(void)state;
	bf_counters_init(&cs);
	c = find(&cs, "cycles");
	bf_counter_take(c, full);
	assert_true(c->have);
	assert_true(c->value == 5000.0);
	bf_counter_take(c, mux);
	assert_true(c->have);
	assert_true(c->value == 1200.0);
	bf_counter_take(c, never);
	assert_false(c->have);
	assert_non_null(strstr(c->why, "unavailable on this device: the event "
	                               "never got a PMU counter"));
	/* a program that exited at once: a true zero, counted */
	c = find(&cs, "cpu_migrations");
	bf_counter_take(c, zero);
	assert_true(c->have);
	assert_true(c->value == 0.0);
}

static void test_unavailable(void **state)
{
	struct bf_counters cs;

	(void)state;
	bf_counters_init(&cs);
	bf_counter_unavailable(find(&cs, "instructions"), ENOENT);
	assert_string_equal(find(&cs, "instructions")->why,
	                    "unavailable on this device: the CPU offers no "
	                    "such hardware event (no PMU, or a virtual "
	                    "machine without one) (No such file or "
	                    "directory)");
	bf_counter_unavailable(find(&cs, "page_faults"), EACCES);
	assert_non_null(strstr(find(&cs, "page_faults")->why,
	                       "not permitted (kernel.perf_event_paranoid"));
	bf_counters_all_unavailable(&cs, "counted only on Linux hosts");
	for (int i = 0; i < BF_COUNTERS_N; i++)
		assert_string_equal(cs.c[i].why, "unavailable on this device: "
		                                 "counted only on Linux hosts");
}

/* A value or the reason, never both and never a 0 for a missing one. */
static void test_json(void **state)
{
	struct bf_counters cs;
	const uint64_t tc[3] = { 123456, 10, 10 };
	json_t *arr, *e;

	(void)state;
	bf_counters_init(&cs);
	bf_counter_take(find(&cs, "task_clock_ns"), tc);
	bf_counter_unavailable(find(&cs, "instructions"), ENOENT);
	arr = bf_counters_json(&cs);
	assert_int_equal(json_array_size(arr), BF_COUNTERS_N);
	e = json_array_get(arr, 0);
	assert_string_equal(json_string_value(json_object_get(e, "metric")),
	                    "task_clock_ns");
	assert_true(json_real_value(json_object_get(e, "value")) == 123456.0);
	assert_null(json_object_get(e, "unavailable"));
	e = json_array_get(arr, 4);
	assert_string_equal(json_string_value(json_object_get(e, "metric")),
	                    "instructions");
	assert_null(json_object_get(e, "value"));
	assert_non_null(
	        strstr(json_string_value(json_object_get(e, "unavailable")),
	               "unavailable on this device"));
	json_decref(arr);
}

/* What cachegrind 3.19 writes, its per-function lines cut. */
static const char cg_file[] =
        "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
        "desc: D1 cache:         32768 B, 64 B, 8-way associative\n"
        "desc: LL cache:         33554432 B, 64 B, direct-mapped\n"
        "cmd: ./cg1 1000000\n"
        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
        "fl=???\n"
        "fn=main\n"
        "5 6000000 1 1 1000000 2 2 1000000 3 3\n"
        "summary: 6131386 1255 1180 1543210 1000 700 1012345 536 716\n";

/* Ir; I1mr; D1mr + D1mw = 1000 + 536; ILmr + DLmr + DLmw = 1180 + 700 + 716. */
static void test_cg_parse(void **state)
{
	struct bf_cg_totals t;
	struct bf_err err = BF_ERR_INIT;
	json_t *arr;

	(void)state;
	assert_int_equal(
	        bf_cg_parse(&t, cg_file, strlen(cg_file), "cg.out", &err), 0);
	assert_true(t.instructions == 6131386.0);
	assert_true(t.i1_misses == 1255.0);
	assert_true(t.d1_misses == 1536.0);
	assert_true(t.ll_misses == 2596.0);
	arr = bf_cg_json(&t);
	assert_int_equal(json_array_size(arr), 4);
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(arr, 0), "metric")),
	                    "instructions");
	json_decref(arr);
}

static void test_cg_errors(void **state)
{
	static const char no_sum[] = "events: Ir\n";
	static const char no_sim[] = "events: Ir\nsummary: 100\n";
	static const char uneven[] =
	        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
	        "summary: 1 2 3\n";
	struct bf_cg_totals t;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_cg_parse(&t, no_sum, strlen(no_sum), "f", &err),
	                 BF_EINVAL);
	assert_string_equal(err.msg, "f: no 'summary:' line: not a "
	                             "cachegrind output file");
	assert_int_equal(bf_cg_parse(&t, no_sim, strlen(no_sim), "f", &err),
	                 BF_EINVAL);
	assert_string_equal(err.msg, "f: no I1mr event in 'events:' "
	                             "(cachegrind needs --cache-sim=yes)");
	assert_int_equal(bf_cg_parse(&t, uneven, strlen(uneven), "f", &err),
	                 BF_EINVAL);
	assert_string_equal(err.msg, "f: 'events:' names 9 events but "
	                             "'summary:' has 3 values");
}

/*
 * valgrind's argv: the tool, the simulation, every child followed, one
 * file a process (%p: its pid, so no process overwrites another's),
 * then the command.
 */
static void test_cg_argv(void **state)
{
	struct bf_argv cmd = BF_ARGV_INIT, out = BF_ARGV_INIT;

	(void)state;
	bf_argv_push(&cmd, "./bench");
	bf_argv_push(&cmd, "a b;c");
	bf_cg_argv(&out, "/tmp/d", &cmd);
	assert_int_equal(out.argc, 7);
	assert_string_equal(out.argv[0], "valgrind");
	assert_string_equal(out.argv[1], "--tool=cachegrind");
	assert_string_equal(out.argv[2], "--cache-sim=yes");
	assert_string_equal(out.argv[3], "--trace-children=yes");
	assert_string_equal(out.argv[4],
	                    "--cachegrind-out-file=/tmp/d/cg.out.%p");
	assert_string_equal(out.argv[5], "./bench");
	assert_string_equal(out.argv[6], "a b;c");
	bf_argv_release(&cmd);
	bf_argv_release(&out);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A run's counts are the sums over every process's file (a parent and
 * its forked child here); other files in the directory are not read; a
 * malformed file fails the run naming it; no file at all is an error.
 */
static void test_cg_read_dir(void **state)
{
	static const char child[] =
	        "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
	        "summary: 70000000 5 4 0 10 3 0 6 2\n";
	char dir[] = "/tmp/bf-test-cg-XXXXXX";
	struct bf_cg_totals t = { 0 };
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bf_cg_read_dir(&t, dir, 0, NULL, &err), BF_ENOTFOUND);
	put(dir, "cg.out.100", cg_file);
	put(dir, "cg.out.101", child);
	put(dir, "cg.out.x", "junk");
	put(dir, "other", "junk");
	assert_int_equal(bf_cg_read_dir(&t, dir, 0, NULL, &err), 0);
	assert_true(t.instructions == 6131386.0 + 70000000.0);
	assert_true(t.i1_misses == 1255.0 + 5);
	assert_true(t.d1_misses == 1536.0 + 16);
	assert_true(t.ll_misses == 2596.0 + 9);
	/* the benchmark's own process (pid 100) ran its command to the end */
	assert_int_equal(bf_cg_read_dir(&t, dir, 100, "./cg1 1000000", &err),
	                 0);
	assert_true(t.instructions == 6131386.0 + 70000000.0);
	/* one that exec'd another program lost its count before the exec */
	assert_int_equal(bf_cg_read_dir(&t, dir, 100, "./bench", &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "ran './cg1 1000000' at its end, not "
	                                "'./bench': it exec'd another"));
	assert_int_equal(bf_cg_read_dir(&t, dir, 99, "./cg1 1000000", &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "own process never exited normally"));
	put(dir, "cg.out.102", "events: Ir\n");
	assert_int_equal(bf_cg_read_dir(&t, dir, 0, NULL, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "/cg.out.102: no 'summary:' line"));
	assert_true(t.instructions == 6131386.0 + 70000000.0);
	assert_int_equal(bf_fs_rmtree(dir, NULL), 0);
}

/* The orchestrator's side: values become samples, reasons a list. */
static void test_samples(void **state)
{
	const char *text =
	        "{\"type\":\"result\",\"counters\":["
	        "{\"metric\":\"task_clock_ns\",\"unit\":\"ns\",\"value\":2500},"
	        "{\"metric\":\"page_faults\",\"unit\":\"\",\"value\":64},"
	        "{\"metric\":\"cycles\",\"unit\":\"\",\"unavailable\":"
	        "\"unavailable on this device: no PMU\"}]}";
	json_t *res = json_loads(text, 0, NULL);
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_buf why = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_counters_samples(&s, res, "bench", &why, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].benchmark, "bench");
	assert_string_equal(s.v[0].metric, "task_clock_ns");
	assert_string_equal(s.v[0].unit, "ns");
	assert_true(s.v[0].value == 2500.0);
	assert_int_equal(s.v[0].iteration, 0);
	assert_string_equal(s.v[1].metric, "page_faults");
	assert_true(s.v[1].value == 64.0);
	assert_string_equal(why.buf, "cycles: unavailable on this device: no "
	                             "PMU\n");
	json_decref(res);
	bf_samples_release(&s);
	bf_buf_release(&why);
	assert_true(bf_counter_often_zero("cpu_migrations"));
	assert_true(bf_counter_often_zero("context_switches"));
	assert_false(bf_counter_often_zero("page_faults"));
}

/*
 * A counter's series is the agent's alone: a benchmark that printed a
 * task_clock_ns of its own beside the kernel's is refused, naming it,
 * and nothing is added; the same metric of another benchmark is its own
 * series and stays.
 */
static void test_counters_add(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;
	char bench[] = "cnt", metric[] = "task_clock_ns", unit[] = "ns";
	struct bf_sample c = { bench, metric, unit, 2500, 0 };
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	bf_samples_add(&s, "cnt", "value", "ns", 5, 0);
	bf_samples_add(&s, "other", "task_clock_ns", "ns", 1, 0);
	assert_int_equal(bf_counters_add(&s, &c, &err), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.v[2].value == 2500.0);
	bf_samples_release(&s);
	bf_samples_add(&s, "cnt", "task_clock_ns", "ns", 1, 0);
	assert_int_equal(bf_counters_add(&s, &c, &err), BF_EINVAL);
	assert_int_equal(s.n, 1);
	assert_non_null(strstr(err.msg, "benchmark 'cnt' printed a metric "
	                                "'task_clock_ns' of its own"));
	bf_samples_release(&s);
}

/* An older agent sends none; a malformed entry adds nothing at all. */
static void test_samples_bad(void **state)
{
	static const char *const bad[] = {
		"{\"counters\":{}}",
		"{\"counters\":[{\"metric\":\"a\",\"unit\":\"\",\"value\":1},"
		"{\"metric\":\"b\",\"unit\":\"\",\"value\":-1}]}",
		"{\"counters\":[{\"metric\":\"a\",\"unit\":\"\"}]}",
		"{\"counters\":[{\"metric\":\"a\",\"unit\":\"\",\"value\":1,"
		"\"unavailable\":\"x\"}]}",
		"{\"counters\":[{\"unit\":\"\",\"value\":1}]}",
		"{\"counters\":[{\"metric\":\"a\",\"value\":1}]}",
	};
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *res = json_loads("{\"type\":\"result\"}", 0, NULL);

	(void)state;
	assert_int_equal(bf_counters_samples(&s, res, "b", NULL, &err), 0);
	assert_int_equal(s.n, 0);
	json_decref(res);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		res = json_loads(bad[i], 0, NULL);
		assert_non_null(res);
		assert_int_equal(bf_counters_samples(&s, res, "b", NULL, &err),
		                 BF_EPROTO);
		assert_int_equal(s.n, 0);
		json_decref(res);
	}
	res = json_loads(bad[1], 0, NULL);
	bf_counters_samples(&s, res, "b", NULL, &err);
	assert_string_equal(err.msg, "result: \"counters\"[1]: \"value\" is "
	                             "not a count (a number, at least 0)");
	json_decref(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_cg_parse),
		cmocka_unit_test(test_cg_errors),
		cmocka_unit_test(test_cg_argv),
		cmocka_unit_test(test_cg_read_dir),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_samples_bad),
		cmocka_unit_test(test_counters_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
