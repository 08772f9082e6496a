/*
 * Unit tests for benchfarm's native format (agent/parse/parse_native.c,
 * docs/formats.md): the fixture, versions, units and iterations. Run
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
#include "unit/testutil.h"

#define NATIVE_DIR "tests/fixtures/native/"

static void test_parse_native__fixture(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_fixture(&s, "native", NATIVE_DIR "basic.json");
	assert_int_equal(s.n, 8);
	expect_iterations(&s, 0, "decode/small", "time", "ns",
	                  VALUES(1250, 1.5 * 1e3, 1300));
	/* Without "iteration", samples count per benchmark and metric. */
	expect_nth(&s, 3, "decode/large", "time", "ns", 0, 2.5 * 1e6);
	expect_nth(&s, 4, "decode/large", "time", "ns", 1, 0.003 * 1e9);
	expect_nth(&s, 5, "decode/large", "peak_rss", "KiB", 0, 20480);
	expect_nth(&s, 6, "decode/large", "allocations", "", 0, 12);
	expect_nth(&s, 7, "frames", "slack", "", 0, -250);
	bf_samples_release(&s);
}

static void test_parse_native__future_version_is_refused(void **state)
{
	struct bf_buf b;

	(void)state;
	read_fixture(&b, NATIVE_DIR "future_version.json");
	expect_fail(
	        "native", b.buf, b.len, "v2.json", BF_EINVAL,
	        "v2.json: benchfarm-native version 2 is newer than this agent reads (1); upgrade benchfarm-agent");
	bf_buf_release(&b);
}

static void test_parse_native__units_and_iterations(void **state)
{
	static const char text[] =
	        "{\"samples\": ["
	        "{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"s\","
	        " \"value\": 2},"
	        "{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"\","
	        " \"value\": 3, \"iteration\": 7},"
	        "{\"benchmark\": \"b\", \"metric\": \"t\", \"unit\": \"S\","
	        " \"value\": 4},"
	        "{\"benchmark\": \"b\", \"metric\": \"u\", \"value\": 1,"
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
	expect_nth(&s, 3, "b", "u", "ns", 0, 1e3);
	bf_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_native__fixture),
		cmocka_unit_test(test_parse_native__future_version_is_refused),
		cmocka_unit_test(test_parse_native__units_and_iterations),
	};

	return cmocka_run_group_tests_name("parse_native", tests, NULL, NULL);
}
