#ifndef BF_TEST_TESTUTIL_H
#define BF_TEST_TESTUTIL_H

/*
 * What the numeric unit tests share (include as "unit/testutil.h"):
 * comparing doubles with a tolerance that the failure message names,
 * arrays of doubles written in place, and pi. Header only, so a test
 * binary needs no extra object for it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* after the headers it needs but does not include itself */
#include <cmocka.h>

#include <math.h>

/* M_PI is not in POSIX (it is an XSI extension). */
#define PI 3.14159265358979323846

/*
 * Fail the test at file:line unless |got - want| <= tol (so NaN always
 * fails), printing what was compared, both values and the tolerance.
 */
static inline void check_close(double got, double want, double tol,
                               const char *what, const char *file, int line)
{
	if (fabs(got - want) <= tol)
		return;
	print_error("%s = %.17g, want %.17g (tolerance %g)\n", what, got, want,
	            tol);
	_fail(file, line);
}

#define assert_close(got, want, tol) \
	check_close((got), (want), (tol), #got, __FILE__, __LINE__)

/* A pointer to a static array of doubles, then its length. */
#define VALUES(...)                      \
	(const double[]){ __VA_ARGS__ }, \
	        sizeof((const double[]){ __VA_ARGS__ }) / sizeof(double)

#endif /* BF_TEST_TESTUTIL_H */
