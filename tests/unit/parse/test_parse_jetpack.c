/*
 * Unit tests for the Jetpack Microbenchmark parser
 * (agent/parse/parse_jetpack.c): the reference's examples of every
 * generation of the writer, sampled metrics, and every fixture compared
 * with its JSON as jansson reads it. Run from the repository root (make
 * check does).
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
#include "unit/testutil.h"

#define JETPACK_DIR "tests/fixtures/jetpack/"

#define JSON_BENCH "com.example.bench.JsonBenchmark.parseJson[size=1024]"

/* The reference's G5 (Moshi, doubles) and G3 (JsonWriter, integers). */
static void test_parse_jetpack__reference_examples(void **state)
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

static void test_parse_jetpack__g1_keeps_error_prefix(void **state)
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

static void test_parse_jetpack__sampled_metrics(void **state)
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
static void test_parse_jetpack__fixtures_match_json(void **state)
{
	(void)state;
	for (size_t f = 0; f < nfixtures; f++) {
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

static void test_parse_jetpack__repeated_benchmark_counts_on(void **state)
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
	expect_iterations(&s, 0, "C.a", "timeNs", "ns", VALUES(1, 2, 3));
	bf_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_jetpack__reference_examples),
		cmocka_unit_test(test_parse_jetpack__g1_keeps_error_prefix),
		cmocka_unit_test(test_parse_jetpack__sampled_metrics),
		cmocka_unit_test(test_parse_jetpack__fixtures_match_json),
		cmocka_unit_test(
		        test_parse_jetpack__repeated_benchmark_counts_on),
	};

	return cmocka_run_group_tests_name("parse_jetpack", tests, NULL, NULL);
}
