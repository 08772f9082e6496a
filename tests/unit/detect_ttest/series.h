#ifndef BF_TEST_TTEST_SERIES_H
#define BF_TEST_TTEST_SERIES_H

/*
 * What the t-test detectors' tests share (tests/unit/detect_ttest/):
 * series of levels with a fixed noise, the check of a rejected
 * parameter, and the length of an array. Header only (static inline).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/testutil.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A fixed pseudo-random sequence (the Numerical Recipes LCG): uniform
 * noise in [-amp, amp), the same on every platform.
 */
static inline double lcg_noise(uint32_t *s, double amp)
{
	*s = *s * 1664525u + 1013904223u;
	return (2 * (*s / 4294967296.0) - 1) * amp;
}

/* levels[k] for values k*seg .. (k+1)*seg - 1, plus noise; malloc'd. */
static inline double *leveled(const double *levels, size_t nlevels, size_t seg,
                              double amp, uint32_t seed)
{
	double *x = malloc(nlevels * seg * sizeof(*x));

	assert_non_null(x);
	for (size_t i = 0; i < nlevels * seg; i++)
		x[i] = levels[i / seg] + lcg_noise(&seed, amp);
	return x;
}

/*
 * p (Perfherder's or E-divisive's) is refused with BF_EINVAL and a
 * message naming the parameter name, by the series and window calls
 * alike, and the series call leaves no changes.
 */
static inline void expect_einval(const struct bf_detect_params *p,
                                 const char *name)
{
	const double x[] = { 1, 2, 3, 4 };
	struct bf_step_window w;
	struct bf_change *c = NULL;
	size_t nc = 7;
	struct bf_err err = BF_ERR_INIT;

	if (p->detector == BF_DETECT_PERFHERDER) {
		assert_int_equal(bf_detect_perfherder(&c, &nc, p, x, 4, &err),
		                 BF_EINVAL);
	} else {
		assert_int_equal(bf_detect_edivisive(&c, &nc, p, x, 4, &err),
		                 BF_EINVAL);
	}
	assert_null(c);
	assert_int_equal(nc, 0);
	assert_non_null(strstr(err.msg, name));
	bf_err_clear(&err);
	assert_int_equal(bf_detect_window(&w, p, x, 4, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, name));
}

#endif /* BF_TEST_TTEST_SERIES_H */
