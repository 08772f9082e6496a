#ifndef BF_TEST_STEPFIT_H
#define BF_TEST_STEPFIT_H

/*
 * What the step-fit detectors' tests share (tests/unit/detect_stepfit/):
 * the parameters of one detector, one window's result that must be
 * computed, the checks of a window without a result and of a rejected
 * parameter, and the step series' building blocks.
 */
#include <string.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "unit/testutil.h"

/* Exactly this value (a float32 result, written as its exact decimal). */
#define assert_exact(got, want) assert_close((got), (want), 0)

/* Noise around 10 and 12 used by the step series: mean 10, SSE 0.02. */
#define LO 10, 10.1, 9.9, 10, 10
#define HI 12, 12.1, 11.9, 12, 12

static inline struct bf_detect_params jp(int width, double threshold)
{
	struct bf_detect_params p;

	bf_detect_params_default(&p, BF_DETECT_JETPACK);
	p.jetpack_width = width;
	p.jetpack_threshold = threshold;
	return p;
}

static inline struct bf_detect_params sk(enum bf_skia_algo a, int radius,
                                         double t)
{
	struct bf_detect_params p;

	bf_detect_params_default(&p, BF_DETECT_SKIA);
	p.skia_algo = a;
	p.skia_radius = radius;
	p.skia_interesting = t;
	return p;
}

/* A detector's window and scan functions, as detect.h declares them. */
typedef int stepfit_window_fn(struct bf_step_window *out,
                              const struct bf_detect_params *p, const double *x,
                              size_t n, struct bf_err *err);
typedef int stepfit_scan_fn(struct bf_change **out, size_t *nout,
                            const struct bf_detect_params *p, const double *x,
                            size_t n, struct bf_err *err);

/* The window fn computes of x[0..n) under p; the call must succeed. */
static inline struct bf_step_window window_ok(stepfit_window_fn *fn,
                                              const struct bf_detect_params *p,
                                              const double *x, size_t n)
{
	struct bf_step_window w;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(fn(&w, p, x, n, &err), 0);
	return w;
}

static inline struct bf_step_window jp_win(const struct bf_detect_params *p,
                                           const double *x, size_t n)
{
	return window_ok(bf_detect_jetpack_window, p, x, n);
}

static inline struct bf_step_window sk_win(const struct bf_detect_params *p,
                                           const double *x, size_t n)
{
	return window_ok(bf_detect_skia_window, p, x, n);
}

static inline void assert_no_result(const struct bf_step_window *w)
{
	assert_int_equal(w->turning_point, 0);
	assert_exact(w->step_size, 0);
	assert_exact(w->least_squares, 0);
	assert_exact(w->regression, 0);
	assert_int_equal(w->direction, 0);
	assert_string_equal(w->status, "Uninteresting");
}

static inline void expect_einval(int rc, const struct bf_err *err,
                                 const char *name)
{
	assert_int_equal(rc, BF_EINVAL);
	assert_non_null(strstr(err->msg, name));
}

/*
 * The changes fn finds in x[0..n) under p, into *ch (the caller frees
 * it; NULL when there are none); returns how many. The call must
 * succeed, and must set the count: it starts at SIZE_MAX, which no
 * expectation matches.
 */
static inline size_t scan_ok(stepfit_scan_fn *fn, struct bf_change **ch,
                             const struct bf_detect_params *p, const double *x,
                             size_t n)
{
	struct bf_err err = BF_ERR_INIT;
	size_t got = SIZE_MAX;

	assert_int_equal(fn(ch, &got, p, x, n, &err), 0);
	return got;
}

static inline size_t jp_scan(struct bf_change **ch,
                             const struct bf_detect_params *p, const double *x,
                             size_t n)
{
	return scan_ok(bf_detect_jetpack, ch, p, x, n);
}

static inline size_t sk_scan(struct bf_change **ch,
                             const struct bf_detect_params *p, const double *x,
                             size_t n)
{
	return scan_ok(bf_detect_skia, ch, p, x, n);
}

/* x[0..n): uniform noise in [99, 101), the same for the same seed. */
static inline void noise(double *x, size_t n, uint64_t seed)
{
	struct bf_rng rng;

	bf_rng_seed(&rng, seed);
	for (size_t i = 0; i < n; i++)
		x[i] = 99 + 2 * bf_rng_uniform(&rng);
}

#endif /* BF_TEST_STEPFIT_H */
