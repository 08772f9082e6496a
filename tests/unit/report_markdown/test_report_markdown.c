/* Reporter unit tests (report_markdown): being written (issue #7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/plugin.h"

extern const struct bf_plugin bf_plugin_markdown;

static void test_report_markdown__descriptors(void **state)
{
	(void)state;
	assert_int_equal(bf_plugin_markdown.abi, BF_PLUGIN_ABI);
	assert_string_equal(bf_plugin_markdown.name, "markdown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_markdown__descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
