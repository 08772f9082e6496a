/*
 * The junit exporter: a regression is a failure, what was not measured
 * an error in a suite of its own; hostile names escaped or replaced, so
 * the XML stays valid (t0057 checks it against the JUnit schema).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/plugin.h"
#include "benchfarm/report.h"
#include "mocks/report_fixture.h"

extern const struct bf_plugin bf_plugin_junit;

/* The primary output of p on d; fails the test on an error. */
static char *render(const struct bf_plugin *p, json_t *d, const char *name)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;

	return report_render_primary(p, d, &opts, name);
}

static void test_junit__failures_and_errors(void **state)
{
	json_t *d = report_fixture("compare-regressed");
	char *x = render(&bf_plugin_junit, d, "junit.xml");

	(void)state;
	assert_int_equal(strncmp(x,
	                         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	                         "\n<testsuites name=\"benchfarm\" "
	                         "tests=\"4\" failures=\"1\" errors=\"0\" "
	                         "time=\"12.500\">",
	                         116),
	                 0);
	assert_int_equal(report_count(x, "<testcase "), 4);
	assert_int_equal(report_count(x, "<failure "), 1);
	assert_non_null(strstr(x, "<testcase classname=\"micro\" "
	                          "name=\"BM_sort/1024 real_time\" "
	                          "time=\"0.000\">\n      "
	                          "<failure type=\"regression\" "
	                          "message=\"regressed: +12.3% [+8.0%, "
	                          "+17.0%], p 0.002\">"));
	assert_null(strstr(x, "<error"));
	free(x);
	json_decref(d);
	/* infrastructure: errors, never failures, in their own suite */
	d = report_fixture("compare-infra");
	x = render(&bf_plugin_junit, d, "junit.xml");
	assert_non_null(strstr(x, "tests=\"4\" failures=\"0\" errors=\"3\" "
	                          "time="));
	assert_int_equal(report_count(x, "<failure"), 0);
	assert_int_equal(report_count(x, "<error type=\"infrastructure\""), 2);
	assert_non_null(strstr(x, "<testsuite name=\"benchfarm."
	                          "infrastructure\" tests=\"2\" "
	                          "failures=\"0\" errors=\"2\""));
	assert_non_null(strstr(x, "<error type=\"infra\" message=\"connection "
	                          "to &apos;pixel-7&apos; lost\"/>"));
	free(x);
	json_decref(d);
}

static void test_junit__escapes_hostile_names(void **state)
{
	json_t *d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s}]}", "kind",
	                      "compare", "results", "benchmark", "s]]>", "name",
	                      "a<b>&\"c'\x01\t\xef\xbf\xbe", "metric", "m",
	                      "verdict", "regressed");
	char *x = render(&bf_plugin_junit, d, "junit.xml");

	(void)state;
	assert_non_null(strstr(x, "name=\"a&lt;b&gt;&amp;&quot;c&apos;"
	                          "\xef\xbf\xbd&#9;\xef\xbf\xbd m\""));
	assert_non_null(strstr(x, "classname=\"s]]&gt;\""));
	assert_null(strstr(x, "\x01"));
	assert_null(strstr(x, "\xef\xbf\xbe"));
	free(x);
	json_decref(d);
}

/* A series one side does not report is a failure of type "missing". */
static void test_junit__missing_series_fail(void **state)
{
	json_t *d = report_fixture("compare-missing");
	char *x = render(&bf_plugin_junit, d, "junit.xml");

	(void)state;
	assert_non_null(strstr(x, "<failure type=\"missing\" "
	                          "message=\"missing on the patch side: "));
	assert_non_null(strstr(x, "message=\"missing on the base side: "));
	assert_non_null(strstr(x, "failures=\"2\""));
	free(x);
	json_object_set_new(json_object_get(d, "settings"), "missing_series",
	                    json_string("ignore"));
	x = render(&bf_plugin_junit, d, "junit.xml");
	assert_null(strstr(x, "<failure"));
	assert_non_null(strstr(x, "<skipped message=\"missing on the patch"));
	free(x);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_junit__failures_and_errors),
		cmocka_unit_test(test_junit__missing_series_fail),
		cmocka_unit_test(test_junit__escapes_hostile_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
