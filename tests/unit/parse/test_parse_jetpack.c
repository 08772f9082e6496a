/*
 * Unit tests for the jetpack, hyperfine and native output parsers
 * (agent/parse/parse_jetpack.c, parse_hyperfine.c, parse_native.c): the
 * reference's Jetpack examples, captured and live output of Debian's
 * hyperfine, the native format of docs/formats.md, and bad input of
 * every kind. Run from the repository root (make check does).
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

#define JETPACK_DIR   "tests/fixtures/jetpack/"
#define HYPERFINE_DIR "tests/fixtures/hyperfine/"
#define NATIVE_DIR    "tests/fixtures/native/"
#define GBENCH_DIR    "tests/fixtures/gbench/"
#define LINES_DIR     "tests/fixtures/lines/"

#define JSON_BENCH "com.example.bench.JsonBenchmark.parseJson[size=1024]"

/* Every JSON fixture with the format that reads it. */
static const struct {
	const char *format;
	const char *path;
} fixtures[] = {
	{ "jetpack", JETPACK_DIR "g5_example.json" },
	{ "jetpack", JETPACK_DIR "g3_example.json" },
	{ "jetpack", JETPACK_DIR "g1_minimal.json" },
	{ "jetpack", JETPACK_DIR "sampled_metrics.json" },
	{ "hyperfine", HYPERFINE_DIR "two_commands.json" },
	{ "hyperfine", HYPERFINE_DIR "params_failures.json" },
	{ "hyperfine", HYPERFINE_DIR "single_run.json" },
	{ "native", NATIVE_DIR "basic.json" },
	{ "gbench", GBENCH_DIR "repetitions.json" },
	{ "lines", LINES_DIR "basic.txt" },
};

static const char *const formats[] = { "jetpack", "hyperfine", "native" };

static void test_parse_more__formats_are_registered(void **state)
{
	char list[128];

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++)
		assert_string_equal(bf_parser_find(formats[i])->name,
		                    formats[i]);
	assert_true(bf_parser_find("jetpack")->parse == bf_parse_jetpack);
	assert_true(bf_parser_find("hyperfine")->parse == bf_parse_hyperfine);
	assert_true(bf_parser_find("native")->parse == bf_parse_native);
	assert_null(bf_parser_find("Jetpack"));
	bf_parser_list(list, sizeof(list));
	assert_string_equal(list, "gbench, jetpack, hyperfine, native, lines");
}

/* The reference's G5 (Moshi, doubles) and G3 (JsonWriter, integers). */
static void test_parse_more__jetpack_reference_examples(void **state)
{
	static const double g5[] = { 1203.4, 1198.7, 1201.0, 1210.2, 1199.9 };
	static const double g3[] = { 1203, 1198, 1201, 1210, 1199 };
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	bf_samples_add(&s, "earlier", "value", "", 7, 0);
	parse_fixture(&s, "jetpack", JETPACK_DIR "g5_example.json");
	parse_fixture(&s, "jetpack", JETPACK_DIR "g3_example.json");
	assert_int_equal(s.n, 1 + 10 + 10);
	assert_string_equal(s.v[0].benchmark, "earlier");
	for (int i = 0; i < 5; i++) {
		expect_nth(&s, 1 + (size_t)i, JSON_BENCH, "timeNs", "ns", i,
		           g5[i]);
		expect_nth(&s, 6 + (size_t)i, JSON_BENCH, "allocationCount", "",
		           i, 12.0);
		/* Iterations count per document, not per sample array. */
		expect_nth(&s, 11 + (size_t)i, JSON_BENCH, "timeNs", "ns", i,
		           g3[i]);
		expect_nth(&s, 16 + (size_t)i, JSON_BENCH, "allocationCount",
		           "", i, 12);
	}
	/* Summaries, context and bookkeeping fields give no samples. */
	assert_int_equal(count_samples(&s, JSON_BENCH, NULL), 20);
	bf_samples_release(&s);
}

#define SORT_BENCH "com.example.bench.SortBenchmark."

static void test_parse_more__jetpack_g1_keeps_error_prefix(void **state)
{
	static const char clean[] = SORT_BENCH "sortList";
	static const char marked[] =
	        SORT_BENCH "EMULATOR_LOW-BATTERY_sortArray";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "jetpack", JETPACK_DIR "g1_minimal.json");
	assert_int_equal(s.n, 6);
	expect_sample(&s, clean, "timeNs", "ns", 0, 41800);
	expect_sample(&s, clean, "timeNs", "ns", 2, 43950);
	/* Results of a compromised run never pass for clean ones. */
	expect_sample(&s, marked, "timeNs", "ns", 1, 20100);
	assert_int_equal(count_samples(&s, marked, "timeNs"), 3);
	bf_samples_release(&s);
}

static void test_parse_more__jetpack_sampled_metrics(void **state)
{
	static const char bench[] =
	        "com.example.macro.ScrollBenchmark.scrollList";
	static const double cpu[] = { 4.5, 3.75, 7.25, 4.25, 5.0, 3.5, 6.0 };
	static const double overrun[] = { -6.5, -8.0, -2.0, -7.0,
		                          -6.0, -9.5, -4.0 };
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "jetpack", JETPACK_DIR "sampled_metrics.json");
	assert_int_equal(s.n, 2 + 7 + 7);
	expect_nth(&s, 0, bench, "frameCount", "", 0, 3);
	expect_nth(&s, 1, bench, "frameCount", "", 1, 4);
	/* runs[i] holds the frames of iteration i; ms become ns. */
	for (size_t i = 0; i < 7; i++) {
		int it = i < 3 ? 0 : 1;

		expect_nth(&s, 2 + i, bench, "frameDurationCpuMs", "ns", it,
		           cpu[i] * 1e6);
		expect_nth(&s, 9 + i, bench, "frameOverrunMs", "ns", it,
		           overrun[i] * 1e6);
	}
	bf_samples_release(&s);
}

/* Ns, Us and Ms metric names are times; any other name keeps its value. */
static double test_scale(const char *metric, const char **unit)
{
	size_t len = strlen(metric);
	const char *end = len > 2 ? metric + len - 2 : "";

	*unit = "ns";
	if (!strcmp(end, "Ns"))
		return 1;
	if (!strcmp(end, "Us"))
		return 1e3;
	if (!strcmp(end, "Ms"))
		return 1e6;
	*unit = "";
	return 1;
}

static bool has_sample(const struct bf_samples *s, const char *bench,
                       const char *metric, const char *unit, int iteration,
                       double value)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].benchmark, bench) &&
		    !strcmp(s->v[i].metric, metric) &&
		    !strcmp(s->v[i].unit, unit) &&
		    s->v[i].iteration == iteration && s->v[i].value == value)
			return true;
	return false;
}

/* Expected samples of one metric, as jansson reads the file. */
static size_t check_jetpack_metric(const struct bf_samples *s,
                                   const char *bench, const char *metric,
                                   const json_t *runs, bool sampled)
{
	const char *unit;
	double scale = test_scale(metric, &unit);
	size_t i, j, n = 0;
	json_t *v, *w;

	json_array_foreach(runs, i, v)
	{
		if (!sampled) {
			expect_sample(s, bench, metric, unit, (int)i,
			              json_number_value(v) * scale);
			n++;
			continue;
		}
		json_array_foreach(v, j, w)
		{
			if (!has_sample(s, bench, metric, unit, (int)i,
			                json_number_value(w) * scale))
				fail_msg("no sample %s %s #%zu = %g", bench,
				         metric, i, json_number_value(w));
			n++;
		}
	}
	return n;
}

static size_t check_jetpack_group(const struct bf_samples *s, const char *bench,
                                  const json_t *group, bool sampled)
{
	const char *key;
	json_t *m;
	size_t n = 0;

	json_object_foreach((json_t *)group, key, m)
	{
		n += check_jetpack_metric(s, bench, key,
		                          json_object_get(m, "runs"), sampled);
	}
	return n;
}

/* Compares the parse of every Jetpack fixture with jansson's reading. */
static void test_parse_more__jetpack_fixtures_match_json(void **state)
{
	(void)state;
	for (size_t f = 0; f < BF_ARRAY_SIZE(fixtures); f++) {
		struct bf_samples s = BF_SAMPLES_INIT;
		json_t *root, *row;
		size_t i, expected = 0;

		if (strcmp(fixtures[f].format, "jetpack"))
			continue;
		parse_fixture(&s, "jetpack", fixtures[f].path);
		root = load_json(fixtures[f].path);
		json_array_foreach(json_object_get(root, "benchmarks"), i, row)
		{
			char *bench = bf_xasprintf(
			        "%s.%s", bf_json_str_or(row, "className", "?"),
			        bf_json_str_or(row, "name", "?"));

			expected += check_jetpack_group(
			        &s, bench, json_object_get(row, "metrics"),
			        false);
			expected += check_jetpack_group(
			        &s, bench,
			        json_object_get(row, "sampledMetrics"), true);
			free(bench);
		}
		assert_int_equal(s.n, expected);
		json_decref(root);
		bf_samples_release(&s);
	}
}

static void test_parse_more__jetpack_repeated_benchmark_counts_on(void **state)
{
	static const char text[] =
	        "{\"benchmarks\": ["
	        "{\"name\": \"a\", \"className\": \"C\", \"metrics\":"
	        " {\"timeNs\": {\"runs\": [1, 2]}}},"
	        "{\"name\": \"a\", \"className\": \"C\", \"metrics\":"
	        " {\"timeNs\": {\"runs\": [3]}, \"x\": {\"runs\": []}},"
	        " \"sampledMetrics\": null, \"context\": 5}]}";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_ok(&s, "jetpack", text, strlen(text));
	assert_int_equal(s.n, 3);
	expect_nth(&s, 0, "C.a", "timeNs", "ns", 0, 1);
	expect_nth(&s, 1, "C.a", "timeNs", "ns", 1, 2);
	expect_nth(&s, 2, "C.a", "timeNs", "ns", 2, 3);
	bf_samples_release(&s);
}

/* Compares the parse of a hyperfine export with jansson's reading. */
static void check_hyperfine(const struct bf_samples *s, const json_t *root,
                            size_t results)
{
	json_t *row, *v;
	size_t i, j, expected = 0;

	assert_int_equal(json_array_size(json_object_get(root, "results")),
	                 results);
	json_array_foreach(json_object_get(root, "results"), i, row)
	{
		const char *cmd = bf_json_str_or(row, "command", "?");

		json_array_foreach(json_object_get(row, "times"), j, v)
		{
			expect_sample(s, cmd, "wall_time", "ns", (int)j,
			              json_number_value(v) * 1e9);
			expected++;
		}
		expect_sample(s, cmd, "user_time_mean", "ns", 0,
		              json_number_value(json_object_get(row, "user")) *
		                      1e9);
		expect_sample(
		        s, cmd, "system_time_mean", "ns", 0,
		        json_number_value(json_object_get(row, "system")) *
		                1e9);
		expected += 2;
		assert_int_equal(count_samples(s, cmd, NULL), j + 2);
	}
	assert_int_equal(s->n, expected);
}

static void test_parse_more__hyperfine_fixtures(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;
	json_t *root;

	(void)state;
	parse_fixture(&s, "hyperfine", HYPERFINE_DIR "two_commands.json");
	assert_int_equal(s.n, 2 * (5 + 2));
	expect_nth(&s, 0, "true", "wall_time", "ns", 0, 0.000838361 * 1e9);
	expect_nth(&s, 4, "true", "wall_time", "ns", 4,
	           0.0007562980000000001 * 1e9);
	expect_nth(&s, 5, "true", "user_time_mean", "ns", 0, 0.0006592 * 1e9);
	expect_nth(&s, 6, "true", "system_time_mean", "ns", 0, 0);
	expect_nth(&s, 7, "sleep 0.01", "wall_time", "ns", 0,
	           0.011456477000000001 * 1e9);
	root = load_json(HYPERFINE_DIR "two_commands.json");
	check_hyperfine(&s, root, 2);
	json_decref(root);
	bf_samples_release(&s);

	/* --command-name and -L name the benchmark; -i failures are kept. */
	parse_fixture(&s, "hyperfine", HYPERFINE_DIR "params_failures.json");
	expect_sample(&s, "exit 3", "wall_time", "ns", 2, 0.001187852 * 1e9);
	root = load_json(HYPERFINE_DIR "params_failures.json");
	check_hyperfine(&s, root, 2);
	json_decref(root);
	bf_samples_release(&s);

	/* stddev is null for a single run. */
	parse_fixture(&s, "hyperfine", HYPERFINE_DIR "single_run.json");
	assert_int_equal(s.n, 3);
	expect_sample(&s, "true", "wall_time", "ns", 0, 0.001328301 * 1e9);
	bf_samples_release(&s);
}

static void test_parse_more__hyperfine_repeated_command(void **state)
{
	static const char text[] =
	        "{\"results\": [{\"command\": \"x\", \"times\": [1, 2]},"
	        " {\"command\": \"x\", \"times\": [3], \"user\": 0.5,"
	        " \"system\": null, \"exit_codes\": [null]}]}";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_ok(&s, "hyperfine", text, strlen(text));
	assert_int_equal(s.n, 4);
	expect_nth(&s, 0, "x", "wall_time", "ns", 0, 1e9);
	expect_nth(&s, 1, "x", "wall_time", "ns", 1, 2e9);
	expect_nth(&s, 2, "x", "wall_time", "ns", 2, 3e9);
	expect_nth(&s, 3, "x", "user_time_mean", "ns", 1, 0.5e9);
	bf_samples_release(&s);
}

/*
 * Runs Debian's hyperfine (argv, no shell; -N runs the command without
 * one too) and compares what the parser makes of its export with the
 * file as jansson reads it.
 */
static void test_parse_more__hyperfine_real_program(void **state)
{
	static const char hint[] =
	        "this test needs hyperfine (make check installs it through ci/deps.sh)";
	char dir[] = "/tmp/bf-test-parse-more-XXXXXX";
	char *path;
	struct bf_spawn_result run;
	struct bf_samples s = BF_SAMPLES_INIT;
	json_t *root;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = bf_xasprintf("%s/hyperfine.json", dir);
	{
		const char *const argv[] = {
			"hyperfine", "--runs",        "5",  "--style", "basic",
			"-N",        "--export-json", path, "true",    NULL
		};

		run_or_fail(&run, argv, 120, hint);
	}
	parse_fixture(&s, "hyperfine", path);
	assert_int_equal(count_samples(&s, "true", "wall_time"), 5);
	root = load_json(path);
	check_hyperfine(&s, root, 1);
	json_decref(root);
	bf_spawn_result_release(&run);

	/* A failing run without -i: exit 1 and an empty export file. */
	{
		const char *const argv[] = {
			"hyperfine", "--runs",        "2",  "--style", "basic",
			"-N",        "--export-json", path, "false",   NULL
		};
		struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
		struct bf_buf b;

		opts.argv = argv;
		opts.timeout_s = 120;
		assert_int_equal(bf_spawn_run(&run, &opts, NULL), 0);
		assert_int_equal(run.exit_code, 1);
		read_fixture(&b, path);
		expect_fail("hyperfine", b.buf, b.len, path, BF_EINVAL,
		            "empty output, expected hyperfine --export-json");
		bf_buf_release(&b);
	}

	unlink(path);
	rmdir(dir);
	free(path);
	bf_spawn_result_release(&run);
	bf_samples_release(&s);
}

static void test_parse_more__native_fixture(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "native", NATIVE_DIR "basic.json");
	assert_int_equal(s.n, 8);
	expect_nth(&s, 0, "decode/small", "time", "ns", 0, 1250);
	expect_nth(&s, 1, "decode/small", "time", "ns", 1, 1.5 * 1e3);
	expect_nth(&s, 2, "decode/small", "time", "ns", 2, 1300);
	/* Without "iteration", samples count per benchmark and metric. */
	expect_nth(&s, 3, "decode/large", "time", "ns", 0, 2.5 * 1e6);
	expect_nth(&s, 4, "decode/large", "time", "ns", 1, 0.003 * 1e9);
	expect_nth(&s, 5, "decode/large", "peak_rss", "KiB", 0, 20480);
	expect_nth(&s, 6, "decode/large", "allocations", "", 0, 12);
	expect_nth(&s, 7, "frames", "overrun", "ns", 0, -250 * 1e3);
	bf_samples_release(&s);
}

static void test_parse_more__native_future_version_is_refused(void **state)
{
	struct bf_buf b;

	(void)state;
	read_fixture(&b, NATIVE_DIR "future_version.json");
	expect_fail(
	        "native", b.buf, b.len, "v2.json", BF_EINVAL,
	        "v2.json: benchfarm-native version 2 is newer than this agent reads (1); upgrade benchfarm-agent");
	bf_buf_release(&b);
}

static void test_parse_more__native_units_and_iterations(void **state)
{
	static const char text[] =
	        "{\"samples\": ["
	        "{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"s\","
	        " \"value\": 2},"
	        "{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"\","
	        " \"value\": 3, \"iteration\": 7},"
	        "{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"S\","
	        " \"value\": 4},"
	        "{\"benchmark\": \"b\", \"metric\": \"u\", \"value\": -1,"
	        " \"unit\": \"\\u03bcs\"}],"
	        " \"version\": 1, \"format\": \"benchfarm-native\"}";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_ok(&s, "native", text, strlen(text));
	assert_int_equal(s.n, 4);
	expect_nth(&s, 0, "b", "t", "ns", 0, 2e9);
	expect_nth(&s, 1, "b", "t", "", 7, 3);
	/* Default iterations count every earlier sample of b/t. */
	expect_nth(&s, 2, "b", "t", "S", 2, 4);
	expect_nth(&s, 3, "b", "u", "ns", 0, -1e3);
	bf_samples_release(&s);
}

/*
 * Runs the cases of a bad_cases.txt file: pairs of lines, a document
 * (parsed as "test") and text its error message must contain.
 */
static void run_bad_cases(const char *format, const char *path)
{
	struct bf_buf b;
	char *line, *doc = NULL;
	size_t lineno = 0, cases = 0;

	read_fixture(&b, path);
	for (char *p = b.buf; p && *p; p = line) {
		struct bf_samples out = BF_SAMPLES_INIT;
		struct bf_err err = BF_ERR_INIT;
		int ret;

		line = strchr(p, '\n');
		if (line)
			*line++ = '\0';
		lineno++;
		if (!*p || *p == '#')
			continue;
		if (!doc) {
			doc = p;
			continue;
		}
		bf_samples_add(&out, "keep", "value", "", 1.0, 0);
		ret = bf_parse_output(&out, format, doc, strlen(doc), "test",
		                      &err);
		if (ret != BF_EINVAL || !strstr(err.msg, p) || out.n != 1)
			fail_msg(
			        "%s:%zu: got %d '%s' (%zu samples), expected '%s'",
			        path, lineno - 1, ret, err.msg, out.n, p);
		bf_samples_release(&out);
		doc = NULL;
		cases++;
	}
	assert_null(doc);
	assert_true(cases >= 10);
	bf_buf_release(&b);
}

static void test_parse_more__bad_cases(void **state)
{
	(void)state;
	run_bad_cases("jetpack", JETPACK_DIR "bad_cases.txt");
	run_bad_cases("hyperfine", HYPERFINE_DIR "bad_cases.txt");
	run_bad_cases("native", NATIVE_DIR "bad_cases.txt");
}

/* Every fixture fed to every parser that does not read it. */
static void test_parse_more__other_formats_are_rejected(void **state)
{
	static const char *const all[] = { "gbench", "jetpack", "hyperfine",
		                           "native", "lines" };
	static const char *const wants[] = {
		"not Jetpack benchmark JSON",
		"not hyperfine JSON",
		"not benchfarm-native JSON",
	};

	(void)state;
	for (size_t f = 0; f < BF_ARRAY_SIZE(fixtures); f++) {
		struct bf_buf b;

		read_fixture(&b, fixtures[f].path);
		for (size_t i = 0; i < BF_ARRAY_SIZE(all); i++)
			if (strcmp(fixtures[f].format, all[i]))
				expect_fail(all[i], b.buf, b.len,
				            fixtures[f].path, BF_EINVAL,
				            fixtures[f].path);
		for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++) {
			if (!strcmp(fixtures[f].format, formats[i]))
				continue;
			expect_fail(formats[i], b.buf, b.len, "x", BF_EINVAL,
			            strcmp(fixtures[f].format, "lines")
			                    ? wants[i]
			                    : "x:1:1:");
		}
		bf_buf_release(&b);
	}
	/* Google Benchmark JSON also has a 'benchmarks' array. */
	{
		struct bf_buf b;

		read_fixture(&b, GBENCH_DIR "repetitions.json");
		expect_fail(
		        "jetpack", b.buf, b.len, "gb.json", BF_EINVAL,
		        "gb.json: benchmarks[0]: missing 'className' (not Jetpack benchmark JSON?)");
		bf_buf_release(&b);
	}
}

/* Every proper prefix of every fixture fails cleanly. */
static void test_parse_more__truncated_documents(void **state)
{
	(void)state;
	for (size_t f = 0; f < BF_ARRAY_SIZE(fixtures); f++) {
		const char *format = fixtures[f].format;
		struct bf_buf b;
		size_t end;

		if (!strcmp(format, "gbench") || !strcmp(format, "lines"))
			continue;
		read_fixture(&b, fixtures[f].path);
		end = b.len;
		while (end && strchr(" \t\r\n", b.buf[end - 1]))
			end--;
		for (size_t len = 0; len < end; len++)
			expect_fail(format, b.buf, len, "cut.json", BF_EINVAL,
			            "cut.json:");
		bf_buf_release(&b);
	}
}

static void test_parse_more__random_bytes_are_rejected(void **state)
{
	char text[4096];
	uint64_t seed = 0x2545f4914f6cdd1du;

	(void)state;
	for (int round = 0; round < 300; round++) {
		size_t len = 1 + next_random(&seed) % sizeof(text);

		for (size_t i = 0; i < len; i++)
			text[i] = (char)next_random(&seed);
		if (round % 2)
			text[0] = '{';
		for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++)
			expect_fail(formats[i], text, len, "noise", BF_EINVAL,
			            "noise:");
	}
}

/* Random single-byte damage to real documents: an error or a parse. */
static void test_parse_more__damaged_documents_never_crash(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t f = 0; f < BF_ARRAY_SIZE(fixtures); f++) {
		const char *format = fixtures[f].format;
		struct bf_buf b;

		if (!strcmp(format, "gbench") || !strcmp(format, "lines"))
			continue;
		read_fixture(&b, fixtures[f].path);
		for (int round = 0; round < 500; round++) {
			struct bf_samples s = BF_SAMPLES_INIT;
			struct bf_err err = BF_ERR_INIT;
			char *copy = bf_xstrndup(b.buf, b.len);
			size_t pos = next_random(&seed) % b.len;
			int ret;

			copy[pos] = (char)next_random(&seed);
			bf_samples_add(&s, "keep", "value", "", 1.0, 0);
			ret = bf_parse_output(&s, format, copy, b.len, "d",
			                      &err);
			if (ret) {
				assert_int_equal(ret, BF_EINVAL);
				assert_int_equal(s.n, 1);
				assert_non_null(strstr(err.msg, "d:"));
			}
			assert_true(s.n >= 1);
			bf_samples_release(&s);
			free(copy);
		}
		bf_buf_release(&b);
	}
}

static void test_parse_more__empty_input_is_an_error(void **state)
{
	(void)state;
	expect_fail("jetpack", "", 0, "e.json", BF_EINVAL,
	            "e.json: empty output, expected Jetpack benchmark JSON");
	expect_fail(
	        "hyperfine", "", 0, "e.json", BF_EINVAL,
	        "e.json: empty output, expected hyperfine --export-json (did a run fail?)");
	expect_fail("native", "", 0, "e.json", BF_EINVAL,
	            "e.json: empty output, expected benchfarm-native JSON");
	for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++) {
		expect_einval(formats[i], " \r\n\t\n", "test: empty output");
		expect_einval(formats[i], "null", "test:1:");
		expect_einval(formats[i], "{}", "test: not ");
	}
}

static void test_parse_more__rejects_oversized_input(void **state)
{
	size_t len = BF_PARSE_INPUT_MAX + 1;
	char *big = bf_xcalloc(len, 1);
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	memset(big, ' ', len);
	for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++)
		expect_fail(
		        formats[i], big, len, "big", BF_ETOOBIG,
		        "big: 67108865 bytes exceed the limit of 67108864 bytes");
	assert_int_equal(bf_parse_jetpack(&s, big, len, "big", &err),
	                 BF_ETOOBIG);
	assert_int_equal(bf_parse_hyperfine(&s, big, len, "big", &err),
	                 BF_ETOOBIG);
	assert_int_equal(bf_parse_native(&s, big, len, NULL, &err), BF_ETOOBIG);
	assert_non_null(strstr(err.msg, "output: "));
	assert_int_equal(s.n, 0);
	free(big);
}

static void test_parse_more__rejects_long_names(void **state)
{
	char name[BF_PARSE_NAME_MAX + 2];
	struct bf_samples s = BF_SAMPLES_INIT;
	char *text;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[BF_PARSE_NAME_MAX + 1] = '\0';
	text = bf_xasprintf("{\"results\": [{\"command\": \"%s\","
	                    " \"times\": [1]}]}",
	                    name);
	expect_einval(
	        "hyperfine", text,
	        "test: results[0]: 'command' of 1025 bytes exceeds the limit of 1024");
	free(text);
	text = bf_xasprintf("{\"format\": \"benchfarm-native\", \"version\": 1,"
	                    " \"samples\": [{\"benchmark\": \"%s\","
	                    " \"metric\": \"m\", \"value\": 1}]}",
	                    name);
	expect_einval("native", text, "samples[0]: 'benchmark' is too long");
	free(text);
	/* className "C", a dot and the name: 1026 bytes */
	name[BF_PARSE_NAME_MAX] = '\0';
	text = bf_xasprintf("{\"benchmarks\": [{\"name\": \"%s\","
	                    " \"className\": \"C\", \"metrics\":"
	                    " {\"timeNs\": {\"runs\": [1]}}}]}",
	                    name);
	expect_einval(
	        "jetpack", text,
	        "test: benchmarks[0]: name of 1026 bytes exceeds the limit of 1024");
	free(text);

	name[BF_PARSE_NAME_MAX - 2] = '\0';
	text = bf_xasprintf("{\"benchmarks\": [{\"name\": \"%s\","
	                    " \"className\": \"C\", \"metrics\":"
	                    " {\"timeNs\": {\"runs\": [1]}}}]}",
	                    name);
	parse_ok(&s, "jetpack", text, strlen(text));
	free(text);
	assert_int_equal(s.n, 1);
	assert_int_equal(strlen(s.v[0].benchmark), BF_PARSE_NAME_MAX);
	bf_samples_release(&s);
}

static void test_parse_more__nul_bytes_are_rejected(void **state)
{
	static const char raw[] = "{\"results\": [{\"command\": \"a\0\","
	                          " \"times\": [1]}]}";
	static const char escaped[] =
	        "{\"results\": [{\"command\": \"a\\u0000\","
	        " \"times\": [1]}]}";

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++) {
		expect_fail(formats[i], raw, sizeof(raw) - 1, "t", BF_EINVAL,
		            "t:1:");
		expect_fail(formats[i], escaped, sizeof(escaped) - 1, "t",
		            BF_EINVAL, "t:1:");
	}
	/* The length bounds the text: nothing after it is read. */
	expect_fail("hyperfine", "{\"results\": []}", 5, "t", BF_EINVAL,
	            "t:1:");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_more__formats_are_registered),
		cmocka_unit_test(test_parse_more__jetpack_reference_examples),
		cmocka_unit_test(
		        test_parse_more__jetpack_g1_keeps_error_prefix),
		cmocka_unit_test(test_parse_more__jetpack_sampled_metrics),
		cmocka_unit_test(test_parse_more__jetpack_fixtures_match_json),
		cmocka_unit_test(
		        test_parse_more__jetpack_repeated_benchmark_counts_on),
		cmocka_unit_test(test_parse_more__hyperfine_fixtures),
		cmocka_unit_test(test_parse_more__hyperfine_repeated_command),
		cmocka_unit_test(test_parse_more__hyperfine_real_program),
		cmocka_unit_test(test_parse_more__native_fixture),
		cmocka_unit_test(
		        test_parse_more__native_future_version_is_refused),
		cmocka_unit_test(test_parse_more__native_units_and_iterations),
		cmocka_unit_test(test_parse_more__bad_cases),
		cmocka_unit_test(test_parse_more__other_formats_are_rejected),
		cmocka_unit_test(test_parse_more__truncated_documents),
		cmocka_unit_test(test_parse_more__random_bytes_are_rejected),
		cmocka_unit_test(
		        test_parse_more__damaged_documents_never_crash),
		cmocka_unit_test(test_parse_more__empty_input_is_an_error),
		cmocka_unit_test(test_parse_more__rejects_oversized_input),
		cmocka_unit_test(test_parse_more__rejects_long_names),
		cmocka_unit_test(test_parse_more__nul_bytes_are_rejected),
	};

	return cmocka_run_group_tests_name("parse_more", tests, NULL, NULL);
}
