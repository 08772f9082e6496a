/*
 * Step-fit detectors: Android Jetpack CI's score (androidx's
 * benchmark step fitting, "Fighting regressions with benchmarks in CI")
 * and Skia Perf's step fit with its five selectable variants
 * (go/stepfit in skia-buildbot's perf).
 *
 * Scanning a series (bf_detect_jetpack, bf_detect_skia): every position
 * with a full window is scored as "the first value after the step". Around
 * one true step several neighbouring positions cross the threshold, so
 * flagged positions are grouped into runs of consecutive positions with
 * the same direction, and each run reports only its strongest position:
 * the largest |score| (jetpack), the largest |Regression| (Skia), or the
 * smallest p-value (Skia mannwhitneyu). Ties keep the earliest position.
 * A change of direction starts a new run, so a short spike (up, then
 * down) reports both of its edges.
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

#define ST_NONE "Uninteresting"
#define ST_HIGH "High"
#define ST_LOW  "Low"

/* ---- shared: growing output and the local-maximum rule ---------------- */

struct changes {
	struct bf_change *v;
	size_t n, cap;
};

static void changes_push(struct changes *c, const struct bf_change *ch)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->v = bf_xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	c->v[c->n++] = *ch;
}

/* The best change of the current run of flagged positions. */
struct run {
	bool open;
	double key; /* larger is stronger */
	struct bf_change best;
};

static void run_close(struct run *r, struct changes *acc)
{
	if (r->open)
		changes_push(acc, &r->best);
	r->open = false;
}

/* A flagged position: it extends the run, or starts one. */
static void run_offer(struct run *r, struct changes *acc,
                      const struct bf_change *ch, double key)
{
	if (r->open && r->best.direction != ch->direction)
		run_close(r, acc);
	if (!r->open || key > r->key) {
		r->best = *ch;
		r->key = key;
		r->open = true;
	}
}

static void changes_give(struct bf_change **out, size_t *nout,
                         struct changes *acc)
{
	*out = acc->v;
	*nout = acc->n;
	if (!acc->n) {
		free(acc->v);
		*out = NULL;
	}
}

static double dmean(const double *v, size_t n)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += v[k];
	return s / (double)n;
}

/* (after - before) / before; NaN when before is 0 (detect.h). */
static double rel_size(double before, double after)
{
	return before == 0 ? NAN : (after - before) / before;
}

static void window_reset(struct bf_step_window *out, double lse)
{
	memset(out, 0, sizeof(*out));
	out->least_squares = lse;
	out->status = ST_NONE;
}

/* ---- Jetpack (§2), doubles ------------------------------------------- */

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
	f->before = dmean(b, nb);
	f->after = dmean(a, na);
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
	struct changes acc = { NULL, 0, 0 };
	struct run run = { false, 0, { 0 } };
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
			run_close(&run, &acc);
			continue;
		}
		ch.index = i;
		ch.score = f.score;
		ch.direction = f.after > f.before ? 1 : -1;
		ch.before = f.before;
		ch.after = f.after;
		ch.size = rel_size(f.before, f.after);
		ch.p_value = NAN;
		run_offer(&run, &acc, &ch, fabs(f.score));
	}
	run_close(&run, &acc);
	changes_give(out, nout, &acc);
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

	window_reset(out, NAN);
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
		out->status = ST_LOW;
		out->direction = -1;
	} else if (f.score <= -t) {
		out->status = ST_HIGH;
		out->direction = 1;
	}
	return 0;
}

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

/* ---- Skia: go-moremath's two-sided Mann-Whitney U test --------------- */

struct obs {
	double v;
	bool left;
};

static int cmp_obs(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* The pooled sample, sorted, and its tie groups (sizes, in order). */
struct pooled {
	size_t n1, n2, ngroups;
	size_t *t;
	double u1; /* pairs (l, r) with l > r, ties counting 0.5 */
};

static void pool(struct pooled *pl, const float *l, size_t n1, const float *r,
                 size_t n2)
{
	size_t n = n1 + n2, i, j;
	struct obs *o = bf_xcalloc(n, sizeof(*o));
	double r1 = 0;

	for (i = 0; i < n; i++) {
		o[i].v = i < n1 ? (double)l[i] : (double)r[i - n1];
		o[i].left = i < n1;
	}
	qsort(o, n, sizeof(*o), cmp_obs);
	pl->n1 = n1;
	pl->n2 = n2;
	pl->ngroups = 0;
	pl->t = bf_xcalloc(n, sizeof(*pl->t));
	for (i = 0; i < n; i = j) {
		size_t in_left = 0;

		for (j = i; j < n && o[j].v == o[i].v; j++)
			in_left += o[j].left;
		/* ranks i + 1 .. j share their average */
		r1 += (double)(i + 1 + j) / 2 * (double)in_left;
		pl->t[pl->ngroups++] = j - i;
	}
	pl->u1 = r1 - (double)(n1 * (n1 + 1)) / 2;
	free(o);
}

/*
 * The number of ways (tied values told apart) of picking the n1 left
 * values with 2U <= cap2u, by going through the tie groups in order:
 * taking r of a group's t values when a left values came from earlier
 * groups adds 2r(before - a) (each beats the right values before it) plus
 * r(t - r) (ties within the group count a half). Contributions are never
 * negative, so states above cap2u are dropped. Exact Mann-Whitney
 * distribution without ties, Klotz's with them.
 */
static double u_count(const struct pooled *pl, size_t cap2u)
{
	size_t n1 = pl->n1, w = cap2u + 1, before = 0;
	double *c = bf_xcalloc((n1 + 1) * w, sizeof(*c));
	double total = 0;

	c[0] = 1;
	for (size_t g = 0; g < pl->ngroups; before += pl->t[g++]) {
		size_t tg = pl->t[g];

		/* a descending: a + r is already done when it is written */
		for (size_t a = (before < n1 ? before : n1) + 1; a-- > 0;) {
			for (size_t u = 0; u < w; u++) {
				double ways = c[a * w + u], binom = 1;

				for (size_t r = 1;
				     ways != 0 && r <= tg && a + r <= n1; r++) {
					size_t du = 2 * r * (before - a) +
					            r * (tg - r);

					binom = binom * (double)(tg - r + 1) /
					        (double)r;
					if (u + du < w)
						c[(a + r) * w + u + du] +=
						        ways * binom;
				}
			}
		}
	}
	for (size_t u = 0; u < w; u++)
		total += c[n1 * w + u];
	free(c);
	return total;
}

static double choose(size_t n, size_t k)
{
	double c = 1;

	for (size_t i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c;
}

/* Normal approximation with tie and continuity corrections. */
static double mwu_normal_p(const struct pooled *pl)
{
	double t = 0, nn = (double)(pl->n1 + pl->n2);
	double prod = (double)(pl->n1 * pl->n2), mu = prod / 2;
	double sd, numer, z, phi;

	for (size_t g = 0; g < pl->ngroups; g++) {
		double tg = (double)pl->t[g];

		t += tg * tg * tg - tg;
	}
	sd = sqrt(prod * ((nn + 1) - t / (nn * (nn - 1))) / 12);
	numer = pl->u1 - mu;
	numer -= (double)((numer > 0) - (numer < 0)) * 0.5;
	z = numer / sd;
	phi = (1 + erf(z / sqrt(2.0))) / 2;
	return 2 * fmin(phi, 1 - phi);
}

/*
 * go-moremath stats.MannWhitneyUTest(l, r, LocationDiffers) (§1.4): the
 * exact distribution when there are no ties and both samples have at most
 * 50 values, or ties and both at most 25; then p = 1 when U1 == U2, else
 * 2·CDF(min(U1, U2)). Otherwise the normal approximation. Returns false
 * (the test's error) when a sample is empty or every value is equal.
 */
static bool mwu_test(double *u1, double *p, const float *l, size_t n1,
                     const float *r, size_t n2)
{
	struct pooled pl;
	bool ok, exact;
	double u2;

	if (!n1 || !n2)
		return false;
	pool(&pl, l, n1, r, n2);
	ok = pl.ngroups > 1;
	exact = pl.ngroups == n1 + n2 ? n1 <= 50 && n2 <= 50
	                              : n1 <= 25 && n2 <= 25;
	*u1 = pl.u1;
	u2 = (double)(n1 * n2) - pl.u1;
	/* every value equal: the test fails (whichever way it goes) */
	if (ok && !exact)
		*p = mwu_normal_p(&pl);
	else if (ok && pl.u1 == u2)
		*p = 1;
	else if (ok)
		*p = 2 * (u_count(&pl, (size_t)llround(2 * fmin(pl.u1, u2))) /
		          choose(n1 + n2, n1));
	free(pl.t);
	return ok;
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

/* §1.4 cohen: (y0 - y1) / s, s = (s1 + s2) / 2; NaN or s < smin: smin. */
static float skia_cohen(const float *t, size_t n, float y0, float y1,
                        float smin)
{
	size_t i = n / 2;
	float s1 = f32_stddev(t, i, y0), s2 = f32_stddev(t + i, n - i, y1);
	float s = (s1 + s2) / 2.0f;
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
		if (!mwu_test(&u1, &f->p, t, n / 2, t + n / 2, n - n / 2))
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

	window_reset(out, 0); /* no result: every field 0 (§1.3) */
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
	out->status = f.dir > 0 ? ST_HIGH : f.dir < 0 ? ST_LOW : ST_NONE;
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
	ch->before = dmean(x + s, r);
	ch->after = dmean(x + s + r, w - r);
	ch->size = rel_size(ch->before, ch->after);
	ch->p_value = f->p;
}

int bf_detect_skia(struct bf_change **out, size_t *nout,
                   const struct bf_detect_params *p, const double *x, size_t n,
                   struct bf_err *err)
{
	struct changes acc = { NULL, 0, 0 };
	struct run run = { false, 0, { 0 } };
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
			run_close(&run, &acc);
			continue;
		}
		skia_change(&ch, &f, x, s, r, w);
		run_offer(&run, &acc, &ch,
		          c.algo == BF_SKIA_MANNWHITNEYU ? -f.p : fabs(f.reg));
	}
	run_close(&run, &acc);
	free(buf);
	free(t);
	changes_give(out, nout, &acc);
	return 0;
}
