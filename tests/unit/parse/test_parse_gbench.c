/*
 * Unit tests for the Google Benchmark parser (agent/parse/parse_gbench.c):
 * captured fixtures, a live build of tests/fixtures/gbench/bench_fixture.cc
 * compared with its JSON as jansson reads it, and bad documents. Run
 * from the repository root (make check does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/sample.h"
#include "benchfarm/spawn.h"
#include "parse/parse.h"
#include "unit/parse/parse_helpers.h"

#define GBENCH_DIR "tests/fixtures/gbench/"

static void test_parse_gbench__repetitions_fixture(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "gbench", GBENCH_DIR "repetitions.json");
	/* 2 x 3 rows of 3 metrics, 3 rows of 5; aggregates and errors out */
	assert_int_equal(s.n, 33);
	expect_sample(&s, "BM_Sum/64", "real_time", "ns", 0,
	              1.5898113182130258e+01);
	expect_sample(&s, "BM_Sum/64", "cpu_time", "ns", 1,
	              1.4430037673363278e+01);
	expect_sample(&s, "BM_Sum/64", "items_per_second", "/s", 2,
	              4.7046947593155518e+09);
	expect_sample(&s, "BM_Sum/1024", "real_time", "ns", 2,
	              2.6063285886022493e+02);
	expect_sample(&s, "BM_Slow", "real_time", "ns", 1,
	              4.9365548950883714e-02 * 1e6);
	expect_sample(&s, "BM_Slow", "cpu_time", "ns", 2,
	              4.9494769230769224e-02 * 1e6);
	expect_sample(&s, "BM_Slow", "widgets", "", 0, 2002);
	expect_sample(&s, "BM_Slow", "frames_per_second", "/s", 1,
	              2.0256063557011508e+04);
	assert_null(find_sample(&s, "BM_Sum/64", "real_time", 3));
	assert_int_equal(count_samples(&s, "BM_Sum/64", NULL), 9);
	assert_int_equal(count_samples(&s, "BM_Sum/64_mean", NULL), 0);
	assert_int_equal(count_samples(&s, "BM_Slow_cv", NULL), 0);
	assert_int_equal(count_samples(&s, "BM_Broken", NULL), 0);
	for (size_t i = 0; i < s.n; i++) {
		assert_string_not_equal(s.v[i].metric, "iterations");
		assert_string_not_equal(s.v[i].metric, "repetition_index");
	}
	bf_samples_release(&s);
}

static void test_parse_gbench__ms_unit_and_user_counters(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "gbench", GBENCH_DIR "units_ms.json");
	assert_int_equal(s.n, 5);
	expect_sample(&s, "BM_Slow", "real_time", "ns", 0,
	              5.0053985915264748e-02 * 1e6);
	expect_sample(&s, "BM_Slow", "cpu_time", "ns", 0,
	              4.9825654929577474e-02 * 1e6);
	expect_sample(&s, "BM_Slow", "bytes_per_second", "/s", 0,
	              8.2206646471365005e+07);
	expect_sample(&s, "BM_Slow", "frames_per_second", "/s", 0,
	              2.0069982048673097e+04);
	expect_sample(&s, "BM_Slow", "widgets", "", 0, 1988);
	/* Metrics come in the order of the JSON fields. */
	assert_string_equal(s.v[0].metric, "real_time");
	assert_string_equal(s.v[1].metric, "cpu_time");
	assert_string_equal(s.v[4].metric, "widgets");
	bf_samples_release(&s);
}

static void test_parse_gbench__old_format_without_run_type(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "gbench", GBENCH_DIR "old_format.json");
	/* Aggregates are known by their suffix on a name seen before... */
	assert_int_equal(count_samples(&s, "BM_Copy/8", NULL), 6);
	assert_int_equal(count_samples(&s, "BM_Copy/8_mean", NULL), 0);
	assert_int_equal(count_samples(&s, "BM_Copy/8_stddev", NULL), 0);
	expect_sample(&s, "BM_Copy/8", "real_time", "ns", 0, 1.5 * 1e3);
	expect_sample(&s, "BM_Copy/8", "cpu_time", "ns", 1, 2.0 * 1e3);
	expect_sample(&s, "BM_Copy/8", "bytes_per_second", "/s", 1, 4e6);
	/* ...so a benchmark merely named like one is kept. */
	expect_sample(&s, "BM_Running_mean", "real_time", "ns", 0, 4.0 * 1e9);
	assert_int_equal(s.n, 8);
	bf_samples_release(&s);
}

static void test_parse_gbench__nonfinite_counter_is_left_out(void **state)
{
	static const char nan_time[] =
	        "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": NaN,\n"
	        "\"cpu_time\": 1, \"time_unit\": \"ns\"}]}";
	static const char in_string[] =
	        "{\"benchmarks\": [{\"name\": \"BM_NaN \\\" Infinity\",\n"
	        "\"real_time\": 2, \"time_unit\": \"us\", \"x\": -Infinity,\n"
	        "\"y\": -NaN, \"z\": 3}]} Infinity";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "gbench", GBENCH_DIR "nonfinite.json");
	assert_int_equal(s.n, 5);
	expect_sample(&s, "BM_NonFinite", "real_time", "ns", 0,
	              2.9499727511197134e+00);
	assert_int_equal(count_samples(&s, "BM_NonFinite", NULL), 2);
	assert_null(find_sample(&s, "BM_NonFinite", "hits_per_miss", 0));
	bf_samples_release(&s);

	expect_einval(
	        "gbench", nan_time,
	        "test: benchmark 'BM_a': 'real_time' is not a finite number");
	/* Trailing garbage still fails, with the right column. */
	expect_einval("gbench", in_string, "test:3:");
	parse_ok(&s, "gbench", in_string, strlen(in_string) - 9);
	assert_int_equal(s.n, 2);
	expect_sample(&s, "BM_NaN \" Infinity", "real_time", "ns", 0, 2e3);
	expect_sample(&s, "BM_NaN \" Infinity", "z", "", 0, 3);
	bf_samples_release(&s);
}

static void test_parse_gbench__tolerates_leading_whitespace(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_buf b, text = BF_BUF_INIT;

	(void)state;
	read_fixture(&b, GBENCH_DIR "units_ms.json");
	bf_buf_addstr(&text, "\n\r\n \t ");
	bf_buf_add(&text, b.buf, b.len);
	bf_samples_add(&s, "earlier", "value", "", 7, 0);
	parse_ok(&s, "gbench", text.buf, text.len);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.v[0].benchmark, "earlier");
	assert_string_equal(s.v[1].benchmark, "BM_Slow");
	bf_samples_release(&s);
	bf_buf_release(&b);
	bf_buf_release(&text);
}

static void test_parse_gbench__truncated_json(void **state)
{
	struct bf_buf b;

	(void)state;
	read_fixture(&b, GBENCH_DIR "repetitions.json");
	expect_fail("gbench", b.buf, b.len / 2, "repetitions.json", BF_EINVAL,
	            "repetitions.json:");
	expect_fail("gbench", b.buf, b.len / 2, "repetitions.json", BF_EINVAL,
	            "premature end of input");
	/* Only the closing braces missing */
	expect_fail("gbench", b.buf, b.len - 3, "x", BF_EINVAL,
	            "x:428:3: '}' expected near end of file");
	bf_buf_release(&b);
}

static void test_parse_gbench__missing_or_bad_fields(void **state)
{
	static const struct {
		const char *json;
		const char *want;
	} cases[] = {
		{ "{}",
		  "test: not Google Benchmark JSON: no 'benchmarks' array" },
		{ "[1, 2]", "no 'benchmarks' array" },
		{ "{\"context\": {}, \"benchmarks\": {}}",
		  "no 'benchmarks' array" },
		{ "{\"benchmarks\": []}", "test: no benchmark results" },
		{ "{\"benchmarks\": [\"BM_a\"]}",
		  "test: benchmarks[0] is not an object" },
		{ "{\"benchmarks\": [{\"real_time\": 1, \"time_unit\": \"ns\"}]}",
		  "test: benchmarks[0]: missing 'name'" },
		{ "{\"benchmarks\": [{\"name\": 5}]}",
		  "benchmarks[0]: non-string 'name'" },
		{ "{\"benchmarks\": [{\"name\": \"\"}]}",
		  "benchmarks[0]: empty name" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"time_unit\": \"ns\","
		  " \"cpu_time\": 1}]}",
		  "test: benchmark 'BM_a': missing 'real_time'" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"time_unit\": \"ns\","
		  " \"real_time\": \"fast\"}]}",
		  "benchmark 'BM_a': 'real_time' is not a number" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"time_unit\": \"ns\","
		  " \"real_time\": 1, \"cpu_time\": -1}]}",
		  "benchmark 'BM_a': 'cpu_time' is negative" },
		/* finite, but infinite in nanoseconds: no sample to send */
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"time_unit\": \"s\","
		  " \"real_time\": 1e308}]}",
		  "benchmark 'BM_a': 'real_time' is too large in nanoseconds" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1,"
		  " \"time_unit\": \"fortnights\"}]}",
		  "benchmark 'BM_a': unknown time_unit 'fortnights' (expected ns, us, ms or s)" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1}]}",
		  "benchmark 'BM_a': missing time_unit" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1,"
		  " \"time_unit\": 3}]}",
		  "benchmark 'BM_a': missing time_unit" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1,"
		  " \"time_unit\": \"ns\", \"repetition_index\": -1}]}",
		  "'repetition_index' is not a non-negative integer" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"real_time\": 1,"
		  " \"time_unit\": \"ns\"}, 7]}",
		  "benchmarks[1] is not an object" },
		{ "{\"benchmarks\": [{\"name\": \"BM_a\", \"name\": \"BM_b\"}]}",
		  "test:1:" },
	};

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(cases); i++)
		expect_einval("gbench", cases[i].json, cases[i].want);
}

static void test_parse_gbench__all_rows_failed(void **state)
{
	static const char skipped[] =
	        "{\"benchmarks\": [{\"name\": \"BM_a\", \"skipped\": true,"
	        " \"skip_message\": \"no GPU\", \"real_time\": 0,"
	        " \"time_unit\": \"ns\"}]}";
	struct bf_buf b;

	(void)state;
	read_fixture(&b, GBENCH_DIR "all_failed.json");
	expect_fail(
	        "gbench", b.buf, b.len, "all_failed.json", BF_EINVAL,
	        "all_failed.json: all 2 benchmark runs failed; first 'BM_Broken': fixture failure");
	bf_buf_release(&b);
	expect_einval("gbench", skipped, "first 'BM_a': no GPU");
}

static void test_parse_gbench__only_aggregates_is_an_error(void **state)
{
	struct bf_buf b;

	(void)state;
	read_fixture(&b, GBENCH_DIR "aggregates_only.json");
	expect_fail("gbench", b.buf, b.len, "agg.json", BF_EINVAL,
	            "agg.json: only aggregate rows");
	expect_fail("gbench", b.buf, b.len, "agg.json", BF_EINVAL,
	            "--benchmark_report_aggregates_only");
	bf_buf_release(&b);
}

/* Nanoseconds per Google Benchmark time_unit, written out independently. */
static double test_scale(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1;
	if (!strcmp(unit, "us"))
		return 1e3;
	if (!strcmp(unit, "ms"))
		return 1e6;
	if (!strcmp(unit, "s"))
		return 1e9;
	fail_msg("unexpected time_unit '%s'", unit);
	return 0;
}

static bool is_bookkeeping(const char *key)
{
	static const char *const keys[] = {
		"family_index", "per_family_instance_index",
		"repetitions",  "repetition_index",
		"threads",      "iterations",
	};

	for (size_t i = 0; i < BF_ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i], key))
			return true;
	return false;
}

/* Checks one raw iteration row; returns the samples it should give. */
static size_t check_row(const struct bf_samples *s, json_t *row)
{
	const char *name = json_string_value(json_object_get(row, "name"));
	int rep = (int)json_integer_value(
	        json_object_get(row, "repetition_index"));
	double scale = test_scale(
	        json_string_value(json_object_get(row, "time_unit")));
	size_t n = 0, len;
	bool rate;
	const char *key;
	json_t *v;

	json_object_foreach(row, key, v)
	{
		if (!json_is_number(v) || is_bookkeeping(key))
			continue;
		len = strlen(key);
		rate = len > 11 && !strcmp(key + len - 11, "_per_second");
		if (!strcmp(key, "real_time") || !strcmp(key, "cpu_time"))
			expect_sample(s, name, key, "ns", rep,
			              json_number_value(v) * scale);
		else
			expect_sample(s, name, key, rate ? "/s" : "", rep,
			              json_number_value(v));
		n++;
	}
	return n;
}

/* Compares parsed samples with the JSON read by jansson directly. */
static void check_against_json(const struct bf_samples *s, json_t *root)
{
	json_t *rows = json_object_get(root, "benchmarks"), *row;
	size_t i, kept = 0, aggregates = 0, failed = 0, expected = 0;

	assert_true(json_is_array(rows));
	json_array_foreach(rows, i, row)
	{
		const char *type =
		        json_string_value(json_object_get(row, "run_type"));
		const char *name =
		        json_string_value(json_object_get(row, "name"));

		assert_non_null(type);
		if (!strcmp(type, "aggregate")) {
			aggregates++;
			assert_int_equal(count_samples(s, name, NULL), 0);
		} else if (json_is_true(
		                   json_object_get(row, "error_occurred"))) {
			failed++;
			assert_int_equal(count_samples(s, name, NULL), 0);
		} else {
			assert_string_equal(type, "iteration");
			kept++;
			expected += check_row(s, row);
		}
	}
	/* BM_Sum/64, BM_Sum/1024 and BM_Slow, 3 repetitions each */
	assert_int_equal(kept, 9);
	assert_int_equal(aggregates, 12);
	assert_int_equal(failed, 3);
	assert_int_equal(s->n, expected);
	assert_non_null(find_sample(s, "BM_Sum/1024", "items_per_second", 2));
	assert_non_null(find_sample(s, "BM_Slow", "widgets", 2));
}

/*
 * Builds the fixture program against the installed libbenchmark, runs
 * it with repetitions (flag syntax of 1.7.1: --benchmark_min_time takes
 * a bare number of seconds; 1.8 also accepts "0.01s", 1.7.1 does not),
 * and compares what the parser made of stdout and of --benchmark_out
 * with the file as jansson reads it.
 */
static void test_parse_gbench__real_program(void **state)
{
	static const char hint[] =
	        "this test needs g++ and libbenchmark-dev (make check installs them through ci/deps.sh)";
	char dir[] = "/tmp/bf-test-parse-XXXXXX";
	char *exe, *json_path, *out_flag;
	struct bf_spawn_result build, run;
	struct bf_samples from_stdout = BF_SAMPLES_INIT;
	struct bf_samples from_file = BF_SAMPLES_INIT;
	json_t *root;
	json_error_t je;

	(void)state;
	assert_int_equal(access(GBENCH_DIR "bench_fixture.cc", R_OK), 0);
	assert_non_null(mkdtemp(dir));
	exe = bf_xasprintf("%s/bench_fixture", dir);
	json_path = bf_xasprintf("%s/out.json", dir);
	out_flag = bf_xasprintf("--benchmark_out=%s", json_path);
	{
		const char *const cc[] = { "g++",
			                   "-O2",
			                   "-o",
			                   exe,
			                   GBENCH_DIR "bench_fixture.cc",
			                   "-lbenchmark",
			                   "-lpthread",
			                   NULL };
		const char *const bench[] = {
			exe,
			"--benchmark_filter=^BM_(Sum|Slow|Broken)",
			"--benchmark_format=json",
			"--benchmark_repetitions=3",
			"--benchmark_min_time=0.01",
			out_flag,
			NULL
		};

		run_or_fail(&build, cc, 600, hint);
		run_or_fail(&run, bench, 300, "the fixture benchmark failed");
	}
	parse_fixture(&from_file, "gbench", json_path);
	parse_ok(&from_stdout, "gbench", run.out.buf, run.out.len);

	root = json_load_file(json_path, 0, &je);
	if (!root)
		fail_msg("%s:%d: %s", json_path, je.line, je.text);
	check_against_json(&from_file, root);
	json_decref(root);
	root = json_loadb(run.out.buf, run.out.len, 0, &je);
	if (!root)
		fail_msg("stdout:%d: %s", je.line, je.text);
	check_against_json(&from_stdout, root);
	json_decref(root);

	unlink(json_path);
	unlink(exe);
	rmdir(dir);
	free(out_flag);
	free(json_path);
	free(exe);
	bf_spawn_result_release(&build);
	bf_spawn_result_release(&run);
	bf_samples_release(&from_file);
	bf_samples_release(&from_stdout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_gbench__repetitions_fixture),
		cmocka_unit_test(test_parse_gbench__ms_unit_and_user_counters),
		cmocka_unit_test(
		        test_parse_gbench__old_format_without_run_type),
		cmocka_unit_test(
		        test_parse_gbench__nonfinite_counter_is_left_out),
		cmocka_unit_test(
		        test_parse_gbench__tolerates_leading_whitespace),
		cmocka_unit_test(test_parse_gbench__truncated_json),
		cmocka_unit_test(test_parse_gbench__missing_or_bad_fields),
		cmocka_unit_test(test_parse_gbench__all_rows_failed),
		cmocka_unit_test(
		        test_parse_gbench__only_aggregates_is_an_error),
		cmocka_unit_test(test_parse_gbench__real_program),
	};

	return cmocka_run_group_tests_name("parse_gbench", tests, NULL, NULL);
}
