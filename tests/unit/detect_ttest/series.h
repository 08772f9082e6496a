#ifndef BF_TEST_TTEST_SERIES_H
#define BF_TEST_TTEST_SERIES_H

/*
 * What the t-test detectors' tests share (tests/unit/detect_ttest/):
 * series of levels with a fixed noise, and the length of an array.
 * Header only (static inline).
 */
#include <stdint.h>
#include <stdlib.h>

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

#endif /* BF_TEST_TTEST_SERIES_H */
