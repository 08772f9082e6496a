/*
 * Unit tests for the lines parser (agent/parse/parse_lines.c): "name
 * value [unit]" per line, units, line ends, names in any script, and
 * errors naming the line. Run from the repository root (make check does).
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

#define LINES_DIR "tests/fixtures/lines/"

static void test_parse_lines__fixture(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "lines", LINES_DIR "basic.txt");
	assert_int_equal(s.n, 7);
	expect_sample(&s, "parse_small", "value", "ns", 0, 1250);
	expect_sample(&s, "parse_small", "value", "ns", 1, 1.5 * 1e3);
	expect_sample(&s, "parse_small", "value", "ns", 2, 1300);
	expect_sample(&s, "parse_large", "value", "ns", 0, 2.5 * 1e6);
	expect_sample(&s, "parse_large", "value", "ns", 1, 0.003 * 1e9);
	expect_sample(&s, "throughput", "value", "MB/s", 0, 812.5);
	expect_sample(&s, "score", "value", "", 0, 42);
	assert_string_equal(s.v[0].benchmark, "parse_small");
	assert_string_equal(s.v[6].benchmark, "parse_small");
	bf_samples_release(&s);
}

static void test_parse_lines__units_and_line_ends(void **state)
{
	static const char text[] = "a 1 s\r\n\r\nb\t2\t\xc2\xb5s\r\n"
	                           "c 3.5e2 us\nd 4 S\n\te 5 ns  \nf 7";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_ok(&s, "lines", text, sizeof(text) - 1);
	assert_int_equal(s.n, 6);
	expect_sample(&s, "a", "value", "ns", 0, 1e9);
	expect_sample(&s, "b", "value", "ns", 0, 2e3);
	expect_sample(&s, "c", "value", "ns", 0, 3.5e2 * 1e3);
	expect_sample(&s, "d", "value", "S", 0, 4);
	expect_sample(&s, "e", "value", "ns", 0, 5);
	expect_sample(&s, "f", "value", "", 0, 7);
	bf_samples_release(&s);
}

static void test_parse_lines__errors_name_the_line(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "a\n",
		  "test:1: expected 'name value [unit]': missing value" },
		{ "a 1\n\n# c\nb 2 ns extra\n",
		  "test:4: expected 'name value [unit]': more than 3 fields" },
		{ "a 1\nb nan\n",
		  "test:2: expected 'name value [unit]': 'nan' is not a finite number" },
		{ "a inf ns",
		  "test:1: expected 'name value [unit]': 'inf' is not a finite number" },
		{ "a 1e999 ns", "'1e999' is not a finite number" },
		{ "p 1.7976931348623157e308 s",
		  "test:1: expected 'name value [unit]': "
		  "'1.7976931348623157e308' is too large in nanoseconds" },
		{ "a 12abc", "'12abc' is not a finite number" },
		{ "a 1\nb 2\x1b[0m ns\n",
		  "test:2: expected 'name value [unit]': control character 0x1b in column 4" },
		{ "a 123456789012345678901234567890123456789012345678901234567890"
		  "12345",
		  "is too long for a number" },
		/* Latin-1, a lone continuation byte, an overlong '/', a
		   surrogate */
		{ "caf\xe9 1\n",
		  "test:1: expected 'name value [unit]': the line is not valid UTF-8" },
		{ "a 1\n\x80"
		  "b 2\n",
		  "test:2: expected 'name value [unit]': the line is not valid UTF-8" },
		{ "\xc0\xaf 1\n", "the line is not valid UTF-8" },
		{ "\xed\xa0\x80 1\n", "the line is not valid UTF-8" },
		{ "caf\xc3 1\n", "the line is not valid UTF-8" },
	};
	struct bf_buf b;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(cases); i++)
		expect_einval("lines", cases[i].text, cases[i].want);
	read_fixture(&b, LINES_DIR "bad_value.txt");
	expect_fail(
	        "lines", b.buf, b.len, LINES_DIR "bad_value.txt", BF_EINVAL,
	        LINES_DIR
	        "bad_value.txt:5: expected 'name value [unit]': 'fast' is not a finite number");
	bf_buf_release(&b);
}

/* Names in any script pass: two-, three- and four-byte UTF-8. */
static void test_parse_lines__utf8_names(void **state)
{
	static const char text[] = "caf\xc3\xa9 1\n\xe2\x98\x83 2 ns\n"
	                           "\xf0\x9f\x90\xa2 3\n";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_ok(&s, "lines", text, sizeof(text) - 1);
	assert_int_equal(s.n, 3);
	expect_sample(&s, "caf\xc3\xa9", "value", "", 0, 1);
	expect_sample(&s, "\xe2\x98\x83", "value", "ns", 0, 2);
	expect_sample(&s, "\xf0\x9f\x90\xa2", "value", "", 0, 3);
	bf_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines__fixture),
		cmocka_unit_test(test_parse_lines__units_and_line_ends),
		cmocka_unit_test(test_parse_lines__errors_name_the_line),
		cmocka_unit_test(test_parse_lines__utf8_names),
	};

	return cmocka_run_group_tests_name("parse_lines", tests, NULL, NULL);
}
