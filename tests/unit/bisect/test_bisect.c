/*
 * The probe order of orchestrator/postsubmit/bisect.c (bf_bisect_next):
 * positions 0 (good) .. n (bad); the midpoint first, and around a commit that
 * does not build, the nearest untested one, above first, as git bisect
 * skip moves to a commit near the skipped one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "postsubmit/bisect.h"

static void test_bisect__midpoints(void **state)
{
	bool none[17] = { false };

	(void)state;
	assert_int_equal(bf_bisect_next(0, 16, none), 8);
	assert_int_equal(bf_bisect_next(0, 8, none), 4);
	assert_int_equal(bf_bisect_next(3, 5, none), 4);
	assert_int_equal(bf_bisect_next(0, 3, none), 1);
	assert_int_equal(bf_bisect_next(0, 2, none), 1);
	/* one commit left: nothing to probe */
	assert_int_equal(bf_bisect_next(0, 1, none), 0);
	assert_int_equal(bf_bisect_next(6, 7, none), 0);
}

static void test_bisect__skips_to_the_nearest(void **state)
{
	bool skip[9] = { false };

	(void)state;
	skip[4] = true; /* the midpoint of 0..8 does not build */
	assert_int_equal(bf_bisect_next(0, 8, skip), 5);
	skip[5] = true;
	assert_int_equal(bf_bisect_next(0, 8, skip), 3);
	skip[3] = true;
	assert_int_equal(bf_bisect_next(0, 8, skip), 6);
	skip[6] = skip[2] = skip[7] = true;
	assert_int_equal(bf_bisect_next(0, 8, skip), 1);
	skip[1] = true;
	/* every commit between good and bad is skipped */
	assert_int_equal(bf_bisect_next(0, 8, skip), 0);
	/* only those strictly between lo and hi count */
	assert_int_equal(bf_bisect_next(4, 8, skip), 0);
	skip[6] = false;
	assert_int_equal(bf_bisect_next(4, 8, skip), 6);
	assert_int_equal(bf_bisect_next(3, 5, skip), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect__midpoints),
		cmocka_unit_test(test_bisect__skips_to_the_nearest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
