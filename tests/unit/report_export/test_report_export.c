/* Reporter unit tests (report_export): being written (issue #7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/plugin.h"

extern const struct bf_plugin bf_plugin_junit;
extern const struct bf_plugin bf_plugin_skia_perf;
extern const struct bf_plugin bf_plugin_bmf;

static void test_report_export__descriptors(void **state)
{
	(void)state;
	assert_int_equal(bf_plugin_junit.abi, BF_PLUGIN_ABI);
	assert_string_equal(bf_plugin_junit.name, "junit");
	assert_int_equal(bf_plugin_skia_perf.abi, BF_PLUGIN_ABI);
	assert_string_equal(bf_plugin_skia_perf.name, "skia-perf");
	assert_int_equal(bf_plugin_bmf.abi, BF_PLUGIN_ABI);
	assert_string_equal(bf_plugin_bmf.name, "bmf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_export__descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
