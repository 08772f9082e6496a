/*
 * The suite-wide spike rule of orchestrator/detect.c: being extended
 * (issue #6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "detect.h"

/* Three flat series that all jump 30 % at point 5 and come back. */
static void test_detect_suite__three_series_spike_together(void **state)
{
	double a[10], b[10], c[10];
	double *s[] = { a, b, c };
	bool out[10];

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = 100 + (i % 2);
		b[i] = 200 + (i % 3);
		c[i] = 50 + 0.5 * (i % 2);
	}
	a[5] *= 1.3;
	b[5] *= 1.3;
	c[5] *= 1.3;
	bf_detect_suite_spikes(out, s, 3, 10, 0.5);
	for (int i = 0; i < 10; i++)
		assert_int_equal(out[i], i == 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		        test_detect_suite__three_series_spike_together),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
