/*
 * Skia Perf's step fit with its five selectable variants (go/stepfit in
 * skia-buildbot's perf): one window (bf_detect_skia_window) and the scan
 * of a series (bf_detect_skia), whose flagged positions are grouped as
 * detect_stepfit.c says.
 *
 * Skia works in binary32 exactly as §1.11 asks: every operation rounds to
 * float (plain float expressions, one operation per statement where a
 * compiler could contract a*b+c), sums left to right, square roots in
 * double rounded to float. benchfarm has no missing-data sentinel (the
 * façade drops NaN first), so 1e32 is ordinary data here.
 */
#include "benchfarm/detect.h"

#include <float.h>
#include <math.h>

#include "benchfarm/alloc.h"
#include "benchfarm/common.h"
#include "benchfarm/err.h"
#include "detect_stepfit_int.h"

/* ---- Skia: vec32 helpers (§1.2), binary32 ---------------------------- */

static float f32_mean(const float *v, size_t n)
{
	float s = 0.0f;

	for (size_t k = 0; k < n; k++)
		s += v[k];
	return n ? s / (float)n : s;
}

static float f32_sse(const float *v, size_t n, float c)
{
	float s = 0.0f;

	for (size_t k = 0; k < n; k++) {
		float d = v[k] - c;
		float sq = d * d;

		s += sq;
	}
	return s;
}

/* Sample standard deviation about c; 0 when there are fewer than 2. */
static float f32_stddev(const float *v, size_t n, float c)
{
	if (n < 2)
		return 0.0f;
	return (float)sqrt((double)(f32_sse(v, n, c) / (float)(n - 1)));
}

/* x - mu, divided by the population sigma only when sigma > smin. */
static void f32_norm(float *v, size_t n, float smin)
{
	float mu, sd;

	if (!n)
		return;
	mu = f32_mean(v, n);
	sd = (float)sqrt((double)(f32_sse(v, n, mu) / (float)n));
	for (size_t k = 0; k < n; k++) {
		float d = v[k] - mu;

		v[k] = sd > smin ? d / sd : d;
	}
}

/* ---- Skia: one window (§1.3 - §1.5) ---------------------------------- */

struct skia_cfg {
	enum bf_skia_algo algo;
	float smin; /* stddevThreshold */
	float t; /* interesting */
};

struct skia_fit {
	bool valid; /* false: too short, or the U test failed */
	size_t turn;
	float step, lse, reg;
	int dir; /* +1 High (rose), -1 Low (fell), 0 Uninteresting */
	double p; /* mannwhitneyu's p; NaN otherwise */
	/*
	 * mannwhitneyu's effect: the rank-biserial correlation
	 * 1 - 2·U1/(n1·n2), from -1 (every value after the step below every
	 * value before) to +1 (every one above)
	 */
	double rbc;
};

static size_t skia_min_len(enum bf_skia_algo a)
{
	return a == BF_SKIA_ORIGINAL ? 3 : a == BF_SKIA_COHEN ? 4 : 2;
}

/* §1.4 original: LeastSquares is sqrt(D)/n (sic), clamped at smin. */
static void skia_original(struct skia_fit *f, const float *t, size_t n,
                          float y0, float y1, float smin)
{
	float lse = FLT_MAX, step = -1.0f;
	size_t i = n / 2;

	if (y0 != y1) {
		float d = f32_sse(t, i, y0) + f32_sse(t + i, n - i, y1);

		if (d < lse) {
			lse = d;
			step = y0 - y1;
		}
	}
	lse = (float)sqrt((double)lse) / (float)n;
	f->step = step;
	f->lse = lse;
	f->reg = lse < smin ? step / smin : step / lse;
}

/* §1.4 percent: (y0 - y1) / y0, ±Inf -> ±MaxFloat32, NaN -> 0. */
static float skia_percent(float y0, float y1)
{
	float s = (y0 - y1) / y0;

	if (isinf(s))
		s = y0 < y1 ? -FLT_MAX : FLT_MAX;
	if (isnan(s))
		s = 0.0f;
	return s;
}

/* (a + b) / 2 in float, without overflow (as bf_stats_mid in double). */
static float f32_mid(float a, float b)
{
	float m = (a + b) / 2.0f;

	if (isfinite(m) || !isfinite(a) || !isfinite(b))
		return m;
	return a / 2.0f + b / 2.0f;
}

/* §1.4 cohen: (y0 - y1) / s, s = (s1 + s2) / 2; NaN or s < smin: smin. */
static float skia_cohen(const float *t, size_t n, float y0, float y1,
                        float smin)
{
	size_t i = n / 2;
	float s1 = f32_stddev(t, i, y0), s2 = f32_stddev(t + i, n - i, y1);
	float s = f32_mid(s1, s2);
	float diff = y0 - y1;

	if (n < 4)
		return 0.0f;
	return isnan(s) || s < smin ? diff / smin : diff / s;
}

/* §1.5: inclusive thresholds; mannwhitneyu flags p <= T, High as -p. */
static void skia_status(struct skia_fit *f, const struct skia_cfg *c)
{
	if (c->algo == BF_SKIA_MANNWHITNEYU) {
		if (f->reg <= c->t) {
			f->dir = f->step < 0 ? 1 : -1;
			if (f->dir > 0)
				f->reg = -f->reg;
		}
	} else if (f->reg >= c->t) {
		f->dir = -1;
	} else if (f->reg <= -c->t) {
		f->dir = 1;
	}
}

/* Evaluate the window t[0..n) (modified: original normalises in place). */
static void skia_eval(struct skia_fit *f, const struct skia_cfg *c, float *t,
                      size_t n)
{
	float y0, y1;
	double u1;

	memset(f, 0, sizeof(*f));
	f->p = NAN;
	if (n < skia_min_len(c->algo))
		return;
	if (c->algo == BF_SKIA_ORIGINAL)
		f32_norm(t, n, c->smin);
	else
		n -= n % 2; /* §1.3: an odd window loses its last value */
	f->turn = n / 2;
	y0 = f32_mean(t, n / 2);
	y1 = f32_mean(t + n / 2, n - n / 2);
	f->lse = -1.0f; /* InvalidLeastSquaresError */
	f->step = y0 - y1;
	switch (c->algo) {
	case BF_SKIA_ORIGINAL:
		skia_original(f, t, n, y0, y1, c->smin);
		break;
	case BF_SKIA_ABSOLUTE:
		f->reg = f->step;
		break;
	case BF_SKIA_PERCENT:
		f->step = f->reg = skia_percent(y0, y1);
		break;
	case BF_SKIA_COHEN:
		f->step = f->reg = skia_cohen(t, n, y0, y1, c->smin);
		break;
	case BF_SKIA_MANNWHITNEYU:
		if (!bf_skia__mwu_test(&u1, &f->p, t, n / 2, t + n / 2,
		                       n - n / 2))
			return; /* no result: Uninteresting, all 0 */
		f->lse = (float)u1;
		f->reg = (float)f->p;
		f->rbc = 1 - 2 * u1 / ((double)(n / 2) * (double)(n - n / 2));
		break;
	}
	f->valid = true;
	skia_status(f, c);
}

static int skia_check(struct skia_cfg *c, const struct bf_detect_params *p,
                      struct bf_err *err)
{
	if (p->skia_radius < 1)
		return bf_err_set(err, BF_EINVAL,
		                  "skia_radius must be at least 1 (got %d)",
		                  p->skia_radius);
	if (!(p->skia_interesting > 0) || p->skia_interesting > FLT_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "skia_interesting must be greater than 0 and fit a float32 (got %g)",
		        p->skia_interesting);
	if (!(p->skia_stddev_threshold > 0) ||
	    p->skia_stddev_threshold > FLT_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "skia_stddev_threshold must be greater than 0 and fit a float32 (got %g)",
		        p->skia_stddev_threshold);
	if ((unsigned)p->skia_algo > BF_SKIA_MANNWHITNEYU)
		return bf_err_set(err, BF_EINVAL, "skia_algo %d is unknown",
		                  (int)p->skia_algo);
	c->algo = p->skia_algo;
	c->smin = (float)p->skia_stddev_threshold;
	c->t = (float)p->skia_interesting;
	return 0;
}

/* x as float32; a value beyond float32's range is BF_EINVAL. */
static int to_f32(float **out, const double *x, size_t n, struct bf_err *err)
{
	*out = bf_xcalloc(n + 1, sizeof(**out));
	for (size_t k = 0; k < n; k++) {
		if (!(fabs(x[k]) <= FLT_MAX)) {
			BF_FREE(*out);
			return bf_err_set(
			        err, BF_EINVAL,
			        "skia computes in float32: value %g is out of its range",
			        x[k]);
		}
		(*out)[k] = (float)x[k];
	}
	return 0;
}

int bf_detect_skia_window(struct bf_step_window *out,
                          const struct bf_detect_params *p, const double *x,
                          size_t n, struct bf_err *err)
{
	struct skia_cfg c;
	struct skia_fit f;
	float *t;
	int ret;

	bf_stepfit__window_reset(out, 0); /* no result: every field 0 (§1.3) */
	if ((ret = skia_check(&c, p, err)) || (ret = to_f32(&t, x, n, err)))
		return ret;
	skia_eval(&f, &c, t, n);
	free(t);
	if (!f.valid)
		return 0;
	out->turning_point = f.turn;
	out->step_size = f.step;
	out->least_squares = f.lse;
	out->regression = f.reg;
	out->direction = f.dir;
	out->status = f.dir > 0   ? BF_STEPFIT_HIGH
	              : f.dir < 0 ? BF_STEPFIT_LOW
	                          : BF_STEPFIT_NONE;
	return 0;
}

/* The change at centre c of the window at x[s..s+w), r values before c. */
static void skia_change(struct bf_change *ch, const struct skia_fit *f,
                        const double *x, size_t s, size_t r, size_t w)
{
	ch->index = s + r;
	/* a p-value is no score: mannwhitneyu's is its effect size */
	ch->score = isnan(f->p) ? f->reg : f->rbc;
	ch->direction = f->dir;
	ch->before = bf_stepfit__mean(x + s, r);
	ch->after = bf_stepfit__mean(x + s + r, w - r);
	ch->size = bf_stepfit__rel_size(ch->before, ch->after);
	ch->p_value = f->p;
}

int bf_detect_skia(struct bf_change **out, size_t *nout,
                   const struct bf_detect_params *p, const double *x, size_t n,
                   struct bf_err *err)
{
	struct bf_stepfit_changes acc = { NULL, 0, 0 };
	struct bf_stepfit_run run = { false, 0, { 0 } };
	struct skia_cfg c;
	float *t, *buf;
	size_t r, w;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = skia_check(&c, p, err)) || (ret = to_f32(&t, x, n, err)))
		return ret;
	r = (size_t)p->skia_radius;
	w = 2 * r + (c.algo == BF_SKIA_ORIGINAL); /* §1.1 window length */
	buf = bf_xcalloc(w, sizeof(*buf));
	for (size_t s = 0; n >= w && s <= n - w; s++) {
		struct skia_fit f;
		struct bf_change ch;

		memcpy(buf, t + s, w * sizeof(*buf));
		skia_eval(&f, &c, buf, w);
		if (!f.dir) {
			bf_stepfit__run_close(&run, &acc);
			continue;
		}
		skia_change(&ch, &f, x, s, r, w);
		bf_stepfit__run_offer(
		        &run, &acc, &ch,
		        c.algo == BF_SKIA_MANNWHITNEYU ? -f.p : fabs(f.reg));
	}
	bf_stepfit__run_close(&run, &acc);
	free(buf);
	free(t);
	bf_stepfit__changes_give(out, nout, &acc);
	return 0;
}
