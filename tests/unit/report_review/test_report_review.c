/* Reporter unit tests (report_review): being written (issue #7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/plugin.h"

extern const struct bf_plugin bf_plugin_github;
extern const struct bf_plugin bf_plugin_gitlab;

static void test_report_review__descriptors(void **state)
{
	(void)state;
	assert_int_equal(bf_plugin_github.abi, BF_PLUGIN_ABI);
	assert_string_equal(bf_plugin_github.name, "github");
	assert_int_equal(bf_plugin_gitlab.abi, BF_PLUGIN_ABI);
	assert_string_equal(bf_plugin_gitlab.name, "gitlab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_review__descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
