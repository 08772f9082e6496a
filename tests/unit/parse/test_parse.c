/*
 * Unit tests for the parser registry and dispatcher (agent/parse/parse.c)
 * and for the input every parser refuses: unknown formats, another
 * format's documents, the bad_cases.txt files, truncated, damaged and
 * random documents, empty and oversized input, long names and NUL
 * bytes. Run from the repository root (make check does).
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

/* The formats the tests ending in _jetpack_hyperfine_native feed. */
static const char *const formats[] = { "jetpack", "hyperfine", "native" };

static void test_parse__finds_known_formats(void **state)
{
	char list[64];

	(void)state;
	assert_string_equal(bf_parser_find("gbench")->name, "gbench");
	assert_string_equal(bf_parser_find("lines")->name, "lines");
	assert_null(bf_parser_find("csv"));
	assert_null(bf_parser_find("GBENCH"));
	assert_null(bf_parser_find(NULL));
	bf_parser_list(list, sizeof(list));
	assert_string_equal(list, "gbench, jetpack, hyperfine, native, lines");
}

static void test_parse__unknown_format_lists_known_ones(void **state)
{
	struct bf_samples out = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_parse_output(&out, "csv", "a 1", 3, "f.csv", &err),
	                 BF_EINVAL);
	assert_string_equal(
	        err.msg,
	        "f.csv: unknown output format 'csv' (known: gbench, jetpack, hyperfine, native, lines)");
	assert_int_equal(bf_parse_output(&out, NULL, "a 1", 3, NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "output: unknown output format ''"));
	assert_int_equal(out.n, 0);
}

static void test_parse__formats_are_registered(void **state)
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

static void test_parse__wrong_format_is_an_error(void **state)
{
	struct bf_buf lines, json;

	(void)state;
	read_fixture(&lines, LINES_DIR "basic.txt");
	read_fixture(&json, GBENCH_DIR "units_ms.json");
	expect_fail("gbench", lines.buf, lines.len, "benchmark 'x' output",
	            BF_EINVAL, "benchmark 'x' output:1:1:");
	expect_fail(
	        "lines", json.buf, json.len, "benchmark 'x' output", BF_EINVAL,
	        "benchmark 'x' output:1: expected 'name value [unit]': missing value");
	bf_buf_release(&lines);
	bf_buf_release(&json);
}

/*
 * Fill text with 1 to size random bytes from seed, '{' first in odd
 * rounds (to get past a JSON parser's first byte); returns how many.
 */
static size_t noise(char *text, size_t size, uint64_t *seed, int round)
{
	size_t len = 1 + next_random(seed) % size;

	for (size_t i = 0; i < len; i++)
		text[i] = (char)next_random(seed);
	if (round % 2)
		text[0] = '{';
	return len;
}

static void test_parse__random_bytes_gbench_lines(void **state)
{
	char text[4096];
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (int round = 0; round < 200; round++) {
		size_t len = noise(text, sizeof(text), &seed, round);

		expect_fail("gbench", text, len, "noise", BF_EINVAL, "noise:");
		/* Control bytes are near certain in 4 KiB of noise. */
		if (len > 64)
			expect_fail("lines", text, len, "noise", BF_EINVAL,
			            "noise:");
	}
}

static void test_parse__empty_input_gbench_lines(void **state)
{
	(void)state;
	expect_fail("gbench", "", 0, "empty.json", BF_EINVAL,
	            "empty.json: empty output, expected Google Benchmark JSON");
	expect_einval("gbench", " \n\t\r\n", "empty output");
	expect_fail("lines", "", 0, "empty.txt", BF_EINVAL,
	            "empty.txt: no samples");
	expect_einval("lines", "# just a comment\n\n   \n", "no samples");
}

static void test_parse__rejects_oversized_input(void **state)
{
	size_t len = BF_PARSE_INPUT_MAX + 1;
	char *big = bf_xcalloc(len, 1);
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	memset(big, ' ', len);
	expect_fail("gbench", big, len, "big", BF_ETOOBIG,
	            "big: 67108865 bytes exceed the limit of 67108864 bytes");
	expect_fail("lines", big, len, "big", BF_ETOOBIG, "exceed the limit");
	assert_int_equal(bf_parse_gbench(&s, big, len, "big", &err),
	                 BF_ETOOBIG);
	assert_int_equal(bf_parse_lines(&s, big, len, "big", &err), BF_ETOOBIG);
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

static void test_parse__rejects_long_names(void **state)
{
	char name[BF_PARSE_NAME_MAX + 2];
	struct bf_samples s = BF_SAMPLES_INIT;
	char *text;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[BF_PARSE_NAME_MAX + 1] = '\0';
	text = bf_xasprintf("%s 1\n", name);
	expect_einval(
	        "lines", text,
	        "test:1: expected 'name value [unit]': name longer than 1024 bytes");
	free(text);
	text = bf_xasprintf("{\"benchmarks\": [{\"name\": \"%s\", "
	                    "\"real_time\": 1, \"time_unit\": \"ns\"}]}",
	                    name);
	expect_einval(
	        "gbench", text,
	        "test: benchmarks[0]: name of 1025 bytes exceeds the limit of 1024");
	free(text);

	name[BF_PARSE_NAME_MAX] = '\0';
	text = bf_xasprintf("%s 1\n", name);
	parse_ok(&s, "lines", text, strlen(text));
	free(text);
	text = bf_xasprintf("{\"benchmarks\": [{\"name\": \"%s\", "
	                    "\"real_time\": 1, \"time_unit\": \"ns\"}]}",
	                    name);
	parse_ok(&s, "gbench", text, strlen(text));
	free(text);
	assert_int_equal(s.n, 2);
	assert_int_equal(strlen(s.v[1].benchmark), BF_PARSE_NAME_MAX);
	bf_samples_release(&s);

	/* The same for jetpack, hyperfine and native. */
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

static void test_parse__nul_bytes_gbench_lines(void **state)
{
	static const char lines[] = "a 1\nb 2\0 ns\nc 3\n";
	static const char json[] =
	        "{\"benchmarks\": [{\"name\": \"BM_a\0\", \"real_time\": 1,"
	        " \"time_unit\": \"ns\"}]}";
	static const char escaped[] =
	        "{\"benchmarks\": [{\"name\": \"BM_a\\u0000b\", \"real_time\": 1,"
	        " \"time_unit\": \"ns\"}]}";

	(void)state;
	expect_fail(
	        "lines", lines, sizeof(lines) - 1, "t", BF_EINVAL,
	        "t:2: expected 'name value [unit]': control character 0x00 in column 4");
	expect_fail("gbench", json, sizeof(json) - 1, "t", BF_EINVAL, "t:1:");
	expect_fail("gbench", escaped, sizeof(escaped) - 1, "t", BF_EINVAL,
	            "t:1:");
	/* The length bounds the text: nothing after it is read. */
	expect_fail("lines", "a 1\n", 2, "t", BF_EINVAL, "t:1:");
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

static void test_parse__bad_cases_files(void **state)
{
	(void)state;
	run_bad_cases("jetpack", JETPACK_DIR "bad_cases.txt");
	run_bad_cases("hyperfine", HYPERFINE_DIR "bad_cases.txt");
	run_bad_cases("native", NATIVE_DIR "bad_cases.txt");
}

/* Every fixture fed to every parser that does not read it. */
static void test_parse__other_formats_are_rejected(void **state)
{
	static const char *const all[] = { "gbench", "jetpack", "hyperfine",
		                           "native", "lines" };
	static const char *const wants[] = {
		"not Jetpack benchmark JSON",
		"not hyperfine JSON",
		"not benchfarm-native JSON",
	};

	(void)state;
	for (size_t f = 0; f < nfixtures; f++) {
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
static void test_parse__truncated_documents(void **state)
{
	(void)state;
	for (size_t f = 0; f < nfixtures; f++) {
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

static void test_parse__random_bytes_jetpack_hyperfine_native(void **state)
{
	char text[4096];
	uint64_t seed = 0x2545f4914f6cdd1du;

	(void)state;
	for (int round = 0; round < 300; round++) {
		size_t len = noise(text, sizeof(text), &seed, round);

		for (size_t i = 0; i < BF_ARRAY_SIZE(formats); i++)
			expect_fail(formats[i], text, len, "noise", BF_EINVAL,
			            "noise:");
	}
}

/* Random single-byte damage to real documents: an error or a parse. */
static void test_parse__damaged_documents_never_crash(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t f = 0; f < nfixtures; f++) {
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

static void test_parse__empty_input_jetpack_hyperfine_native(void **state)
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

static void test_parse__nul_bytes_jetpack_hyperfine_native(void **state)
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

/*
 * A time, a size or a count cannot be below 0: -10 ns against -5 ns
 * would read "improved" through the ratio. Every format refuses such a
 * value as a parse error of the run, naming it, and keeps nothing; a
 * unitless value may be negative here (compare refuses it, not the
 * parser).
 */
static void test_parse__negative_amounts_refused(void **state)
{
	static const struct {
		const char *format, *doc;
	} bad[] = {
		{ "lines", "slowed -10 ns\n" },
		{ "lines", "ok 5 ns\nslowed -0.5 ms\n" },
		{ "lines", "slowed -4096 bytes\n" },
		{ "lines", "slowed -3 items/s\n" },
		{ "gbench",
		  "{\"benchmarks\": [{\"name\": \"slowed\", \"run_type\": "
		  "\"iteration\", \"iterations\": 1, \"real_time\": -10, "
		  "\"cpu_time\": 5, \"time_unit\": \"ns\"}]}" },
		{ "gbench",
		  "{\"benchmarks\": [{\"name\": \"slowed\", \"run_type\": "
		  "\"iteration\", \"iterations\": 1, \"real_time\": 10, "
		  "\"cpu_time\": 5, \"time_unit\": \"ns\", "
		  "\"items_per_second\": -1}]}" },
		{ "hyperfine",
		  "{\"results\": [{\"command\": \"slowed\", \"times\": [0.1, "
		  "-0.2]}]}" },
		{ "native",
		  "{\"format\": \"benchfarm-native\", \"version\": 1, "
		  "\"samples\": [{\"benchmark\": \"slowed\", \"metric\": "
		  "\"time\", \"unit\": \"ms\", \"value\": -1.5}]}" },
		{ "native",
		  "{\"format\": \"benchfarm-native\", \"version\": 1, "
		  "\"samples\": [{\"benchmark\": \"slowed\", \"metric\": "
		  "\"instr\", \"unit\": \"instructions\", \"value\": -7}]}" },
	};
	struct bf_samples out = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		int ret = bf_parse_output(&out, bad[i].format, bad[i].doc,
		                          strlen(bad[i].doc), "out", &err);

		if (ret != BF_EINVAL || out.n || !strstr(err.msg, "negative"))
			fail_msg("case %zu (%s): ret %d, %zu samples kept, "
			         "'%s'",
			         i, bad[i].format, ret, out.n, err.msg);
		if (!strstr(err.msg, "slowed"))
			fail_msg("case %zu: '%s' names no benchmark", i,
			         err.msg);
		bf_samples_release(&out);
	}
	assert_int_equal(
	        bf_parse_output(&out, "lines", "delta -3\n", 9, "out", &err),
	        0);
	assert_int_equal(out.n, 1);
	assert_true(out.v[0].value == -3);
	bf_samples_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse__finds_known_formats),
		cmocka_unit_test(test_parse__unknown_format_lists_known_ones),
		cmocka_unit_test(test_parse__formats_are_registered),
		cmocka_unit_test(test_parse__wrong_format_is_an_error),
		cmocka_unit_test(test_parse__random_bytes_gbench_lines),
		cmocka_unit_test(test_parse__empty_input_gbench_lines),
		cmocka_unit_test(test_parse__rejects_oversized_input),
		cmocka_unit_test(test_parse__rejects_long_names),
		cmocka_unit_test(test_parse__nul_bytes_gbench_lines),
		cmocka_unit_test(test_parse__bad_cases_files),
		cmocka_unit_test(test_parse__other_formats_are_rejected),
		cmocka_unit_test(test_parse__truncated_documents),
		cmocka_unit_test(
		        test_parse__random_bytes_jetpack_hyperfine_native),
		cmocka_unit_test(test_parse__damaged_documents_never_crash),
		cmocka_unit_test(test_parse__negative_amounts_refused),
		cmocka_unit_test(
		        test_parse__empty_input_jetpack_hyperfine_native),
		cmocka_unit_test(
		        test_parse__nul_bytes_jetpack_hyperfine_native),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
