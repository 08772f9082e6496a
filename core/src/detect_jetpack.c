/*
 * Android Jetpack CI's step fit (androidx's benchmark step fitting,
 * "Fighting regressions with benchmarks in CI"), in doubles (§2).
 */
#include "benchfarm/detect.h"

#include <float.h>
#include <math.h>

#include "benchfarm/err.h"
#include "detect_stepfit_int.h"

struct jp_fit {
	double before, after; /* means */
	double err; /* stepError */
	double score;
};

static double dsse(const double *v, size_t n, double c)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += (v[k] - c) * (v[k] - c);
	return s;
}

/*
 * §2: stepError = sqrt(SSE(before) + SSE(after)) / (|before| + |after|),
 * score = (mean(before) - mean(after)) / stepError. Where stepError is 0
 * the reference (Jetpack as benchcomp transcribes it) scores 0, which
 * misses every step of a noise-free series: instruction counts, sizes,
 * and timings on a quiet machine whose clock ticks in 10 ns (t0040's
 * medians were exactly 649634 for ten commits, then 584668). Two
 * constant windows at different levels score DBL_MAX in the step's
 * direction instead (finite, so JSON holds it), as Skia's minimum-sigma
 * clamp makes them huge; equal constant windows still score 0.
 */
static void jp_score(struct jp_fit *f, const double *b, size_t nb,
                     const double *a, size_t na)
{
	f->before = bf_stepfit__mean(b, nb);
	f->after = bf_stepfit__mean(a, na);
	f->err = sqrt(dsse(b, nb, f->before) + dsse(a, na, f->after)) /
	         (double)(nb + na);
	if (f->err != 0)
		f->score = (f->before - f->after) / f->err;
	else if (f->before != f->after)
		f->score = f->before > f->after ? DBL_MAX : -DBL_MAX;
	else
		f->score = 0;
}

static int jp_check(const struct bf_detect_params *p, struct bf_err *err)
{
	if (p->jetpack_width < 1)
		return bf_err_set(err, BF_EINVAL,
		                  "jetpack_width must be at least 1 (got %d)",
		                  p->jetpack_width);
	if (!(p->jetpack_threshold > 0))
		return bf_err_set(
		        err, BF_EINVAL,
		        "jetpack_threshold must be greater than 0 (got %g)",
		        p->jetpack_threshold);
	return 0;
}

int bf_detect_jetpack(struct bf_change **out, size_t *nout,
                      const struct bf_detect_params *p, const double *x,
                      size_t n, struct bf_err *err)
{
	struct bf_stepfit_changes acc = { NULL, 0, 0 };
	struct bf_stepfit_run run = { false, 0, { 0 } };
	size_t w;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = jp_check(p, err)))
		return ret;
	w = (size_t)p->jetpack_width;
	/* i is the first value after the step: WIDTH values on each side */
	for (size_t i = w; n >= 2 * w && i <= n - w; i++) {
		struct jp_fit f;
		struct bf_change ch;

		jp_score(&f, x + i - w, w, x + i, w);
		if (!(fabs(f.score) >= p->jetpack_threshold)) {
			bf_stepfit__run_close(&run, &acc);
			continue;
		}
		ch.index = i;
		ch.score = f.score;
		ch.direction = f.after > f.before ? 1 : -1;
		ch.before = f.before;
		ch.after = f.after;
		ch.size = bf_stepfit__rel_size(f.before, f.after);
		ch.p_value = NAN;
		bf_stepfit__run_offer(&run, &acc, &ch, fabs(f.score));
	}
	bf_stepfit__run_close(&run, &acc);
	bf_stepfit__changes_give(out, nout, &acc);
	return 0;
}

/* The whole input is one window, split at floor(n/2) (2·WIDTH normally). */
int bf_detect_jetpack_window(struct bf_step_window *out,
                             const struct bf_detect_params *p, const double *x,
                             size_t n, struct bf_err *err)
{
	struct jp_fit f;
	double t = p->jetpack_threshold;
	int ret;

	bf_stepfit__window_reset(out, NAN);
	if ((ret = jp_check(p, err)))
		return ret;
	if (n < 2)
		return 0;
	jp_score(&f, x, n / 2, x + n / 2, n - n / 2);
	out->turning_point = n / 2;
	out->step_size = f.before - f.after;
	out->least_squares = f.err;
	out->regression = f.score;
	/* the §1.5 convention: before - after > 0 means the value fell */
	if (f.score >= t) {
		out->status = BF_STEPFIT_LOW;
		out->direction = -1;
	} else if (f.score <= -t) {
		out->status = BF_STEPFIT_HIGH;
		out->direction = 1;
	}
	return 0;
}
