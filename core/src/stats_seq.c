#include "benchfarm/stats_seq.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"

/* Not in POSIX (XSI extensions). */
#define SQRT2   1.41421356237309504880
#define SQRT2PI 2.50662827463100050242

/*
 * Group-sequential boundaries and repeated confidence intervals
 * (stats_seq.h). The numerical parts: the normal and t distributions,
 * and the recursive integration of the continuation density.
 */

double bf_stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / SQRT2);
}

static double norm_pdf(double x)
{
	return exp(-0.5 * x * x) / SQRT2PI;
}

double bf_stats_norm_quantile(double p)
{
	double lo = -40, hi = 40;

	if (!(p > 0 && p < 1))
		return NAN;
	/* Bisection on the monotone CDF, in the tail form that keeps
	 * precision for p near 0 or 1. */
	for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
		double mid = 0.5 * (lo + hi);
		bool below = p < 0.5 ? bf_stats_norm_cdf(mid) < p
		                     : 0.5 * erfc(mid / SQRT2) > 1 - p;

		if (below)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double bf_stats_t_sf(double x, double df)
{
	double tail = 0.5 * bf_stats_beta_inc(df / 2, 0.5, df / (df + x * x));

	return x >= 0 ? tail : 1 - tail;
}

double bf_stats_t_isf(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p > 0.5)
		return -bf_stats_t_isf(1 - p, df);
	while (bf_stats_t_sf(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = 0.5 * (lo + hi);

		if (bf_stats_t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double bf_seq_obf_spent(double t, double alpha)
{
	double z = bf_stats_norm_quantile(1 - alpha / 4);

	if (t <= 0)
		return 0;
	/* 2 (1 - Phi(z / sqrt(t))) per side, two sides. */
	return 2 * 2 * (0.5 * erfc(z / sqrt(t > 1 ? 1 : t) / SQRT2));
}

int bf_seq_plan_looks(struct bf_seq_design *d, int min, int max, int step,
                      struct bf_err *err)
{
	int k = 0;

	if (min < 2 || max < min || step < 1)
		return bf_err_set(err, BF_EINVAL,
		                  "looks need 2 <= min <= max and a step of at "
		                  "least 1 (min %d, max %d, step %d)",
		                  min, max, step);
	for (int n = min; n < max; n += step) {
		if (k == BF_SEQ_MAX_LOOKS - 1)
			return bf_err_set(
			        err, BF_EINVAL,
			        "more than %d looks between %d and %d "
			        "runs: lower the maximum",
			        BF_SEQ_MAX_LOOKS, min, max);
		d->n[k++] = n;
	}
	d->n[k++] = max;
	d->nlooks = k;
	for (int i = 0; i < k; i++)
		d->t[i] = (double)d->n[i] / max;
	return 0;
}

/* A grid over [-c, c] with Simpson weights (an even number of steps). */
struct grid {
	double *z, *w, *f;
	int n;
};

static void grid_make(struct grid *g, double c, double h)
{
	int m = (int)ceil(2 * c / h);

	m += m % 2;
	if (m < 2)
		m = 2;
	h = 2 * c / m;
	g->n = m + 1;
	g->z = bf_xcalloc((size_t)g->n, sizeof(double));
	g->w = bf_xcalloc((size_t)g->n, sizeof(double));
	g->f = bf_xcalloc((size_t)g->n, sizeof(double));
	for (int i = 0; i <= m; i++) {
		g->z[i] = -c + i * h;
		g->w[i] = h / 3 * (i == 0 || i == m ? 1 : i % 2 ? 4 : 2);
	}
}

static void grid_free(struct grid *g)
{
	free(g->z);
	free(g->w);
	free(g->f);
}

/* P(|Z_k| >= c, no crossing before) from the continuation density g. */
static double crossing(const struct grid *g, double c, double tp, double tk)
{
	double sd = sqrt(tk - tp), sum = 0;

	for (int i = 0; i < g->n; i++) {
		double m = g->z[i] * sqrt(tp);

		sum += g->w[i] * g->f[i] *
		       (bf_stats_norm_cdf((-c * sqrt(tk) - m) / sd) +
		        bf_stats_norm_cdf((-c * sqrt(tk) + m) / sd));
	}
	return sum;
}

void bf_seq_design_boundaries(struct bf_seq_design *d, double alpha)
{
	struct grid g = { 0 }, next;

	if (d->nlooks < 1 || d->nlooks > BF_SEQ_MAX_LOOKS || !(alpha > 0) ||
	    !(alpha < 1))
		BF_BUG("bad sequential design (%d looks, alpha %g)", d->nlooks,
		       alpha);
	d->alpha = alpha;
	for (int k = 0; k < d->nlooks; k++) {
		double target, lo = 0, hi = 40, h;

		d->spent[k] = bf_seq_obf_spent(d->t[k], alpha);
		target = d->spent[k] - (k ? d->spent[k - 1] : 0);
		if (k == 0) {
			d->z[0] = bf_stats_norm_quantile(1 - target / 2);
		} else {
			for (int i = 0; i < 100 && hi - lo > 1e-10; i++) {
				double mid = 0.5 * (lo + hi);

				if (crossing(&g, mid, d->t[k - 1], d->t[k]) >
				    target)
					lo = mid;
				else
					hi = mid;
			}
			d->z[k] = 0.5 * (lo + hi);
		}
		d->nominal[k] = 2 * (1 - bf_stats_norm_cdf(d->z[k]));
		if (k == d->nlooks - 1)
			break;
		/* The density of Z_{k} where it continues, for look k+1;
		 * the grid is fine against the kernel's width. */
		h = fmin(0.025,
		         sqrt((d->t[k + 1] - d->t[k]) / d->t[k + 1]) / 6);
		grid_make(&next, d->z[k], h);
		for (int j = 0; j < next.n; j++) {
			double sd, sum = 0;

			if (k == 0) {
				next.f[j] = norm_pdf(next.z[j]);
				continue;
			}
			sd = sqrt(d->t[k] - d->t[k - 1]);

			for (int i = 0; i < g.n; i++)
				sum += g.w[i] * g.f[i] *
				       norm_pdf((next.z[j] * sqrt(d->t[k]) -
				                 g.z[i] * sqrt(d->t[k - 1])) /
				                sd);
			next.f[j] = sum * sqrt(d->t[k]) / sd;
		}
		grid_free(&g);
		g = next;
	}
	grid_free(&g);
}

const char *bf_seq_decision_name(enum bf_seq_decision d)
{
	switch (d) {
	case BF_SEQ_DIFFERENT:
		return "different";
	case BF_SEQ_SAME:
		return "same";
	case BF_SEQ_MAX_REACHED:
		return "max_reached";
	default:
		return "open";
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * One side's part of Yuen's statistic on the logs of x: the trimmed
 * mean (g = floor(BF_SEQ_TRIM n) values cut from each end), its squared
 * standard error d = (n - 1) s_w^2 / (h (h - 1)) from the winsorized
 * variance s_w^2, and h = n - 2g. With g = 0 these are the mean, s^2 / n
 * and n: Welch's.
 */
static int side_part(double *mean, double *d, double *h, const double *x,
                     size_t n, const char *side, struct bf_err *err)
{
	double *v, s = 0, w = 0, ss = 0;
	size_t g, hh;

	if (n < 2)
		return bf_err_set(err, BF_EINVAL,
		                  "the %s side has %zu value%s; a look needs 2",
		                  side, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return bf_err_set(err, BF_EINVAL,
			                  "the %s side holds %g; the log-ratio "
			                  "needs positive values",
			                  side, x[i]);
	v = bf_xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		v[i] = log(x[i]);
	qsort(v, n, sizeof(double), cmp_double);
	g = (size_t)floor(BF_SEQ_TRIM * (double)n);
	hh = n - 2 * g;
	for (size_t i = g; i < n - g; i++)
		s += v[i];
	*mean = s / (double)hh;
	for (size_t i = 0; i < n; i++)
		w += v[i < g ? g : i >= n - g ? n - g - 1 : i];
	w /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double y = v[i < g ? g : i >= n - g ? n - g - 1 : i] - w;

		ss += y * y;
	}
	free(v);
	/* (n - 1) s_w^2 = ss */
	*d = hh > 1 ? ss / ((double)hh * (double)(hh - 1)) : 0;
	*h = (double)hh;
	return 0;
}

int bf_seq_look(struct bf_seq_look *out, const struct bf_seq_design *d, int k,
                const double *base, size_t nb, const double *patch, size_t np,
                double min_effect, struct bf_err *err)
{
	double mb, eb, hb, mp, ep, hp;
	int ret;

	if (k < 0 || k >= d->nlooks)
		return bf_err_set(err, BF_EINVAL, "look %d of %d", k + 1,
		                  d->nlooks);
	if ((ret = side_part(&mb, &eb, &hb, base, nb, "base", err)) ||
	    (ret = side_part(&mp, &ep, &hp, patch, np, "patch", err)))
		return ret;
	memset(out, 0, sizeof(*out));
	out->look = k;
	out->nb = nb;
	out->np = np;
	out->estimate = mp - mb;
	out->se = sqrt(eb + ep);
	/* Welch-Satterthwaite; equal-variance df when both are constant. */
	out->df = eb + ep > 0
	                  ? (eb + ep) * (eb + ep) /
	                            (eb * eb / (hb - 1) + ep * ep / (hp - 1))
	                  : hb + hp - 2;
	out->q = bf_stats_t_isf(d->nominal[k] / 2, out->df);
	out->low = out->estimate - out->q * out->se;
	out->high = out->estimate + out->q * out->se;
	out->bound = log1p(min_effect);
	if (out->low > out->bound || out->high < -out->bound)
		out->decision = BF_SEQ_DIFFERENT;
	else if (out->low >= -out->bound && out->high <= out->bound)
		out->decision = BF_SEQ_SAME;
	else
		out->decision =
		        k == d->nlooks - 1 ? BF_SEQ_MAX_REACHED : BF_SEQ_OPEN;
	return 0;
}

int bf_seq_first_decision(struct bf_seq_look *out,
                          const struct bf_seq_design *d, const double *base,
                          const double *patch, double min_effect,
                          struct bf_err *err)
{
	int ret;

	for (int k = 0; k < d->nlooks; k++) {
		if ((ret = bf_seq_look(out, d, k, base, (size_t)d->n[k], patch,
		                       (size_t)d->n[k], min_effect, err)))
			return ret;
		if (out->decision != BF_SEQ_OPEN)
			break;
	}
	return 0;
}
