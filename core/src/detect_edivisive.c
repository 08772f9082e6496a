/*
 * E-divisive change points as Apache Otava computes them
 * (otava/analysis.py compute_change_points, split and merge, with
 * change_point_divisive/calculator.py and detector.py): the series is
 * cut into windows of ed_window values overlapping by half; in each
 * window the split maximising the E-divisive statistic Q-hat is tested
 * with a two-sided Student t-test and kept while significant at a
 * relaxed first-pass level; the union of these weak change points is
 * re-tested over the whole series and thinned by the merge step.
 * Deterministic: Otava's permutation test (--orig-edivisive) is not
 * implemented. Reference: Matteson and James, "A nonparametric approach
 * for multiple change point analysis" (2014), as Apache Otava applies it.
 */
#include "benchfarm/detect.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"

/* Two-sided p-value of Student's t with df degrees of freedom. */
static double student_t_p(double t, double df)
{
	double p;

	if (isinf(t))
		return 0;
	p = bf_stats_beta_inc(df / 2, 0.5, df / (df + t * t));
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

/*
 * Mean and population variance (ddof 0) of v[0..n), n >= 1. The mean is
 * an offset from the first value: unchanged in exact arithmetic, and
 * exactly that value for a constant segment, so two flat segments at
 * the same level never look different by rounding.
 */
static void seg_stats(double *mean_out, double *var_out, const double *v,
                      size_t n)
{
	double s = 0, ss = 0, mean;

	for (size_t i = 0; i < n; i++)
		s += v[i] - v[0];
	mean = v[0] + s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	*mean_out = mean;
	*var_out = ss / (double)n;
}

struct ttest {
	double t, p;
	double m1, m2; /* means of the left and right sides */
};

/*
 * Otava's TTestSignificanceTester.compare: scipy's ttest_ind_from_stats
 * (equal variances, two-sided) fed with np.std (ddof 0), which scipy
 * then weights by n - 1 as if they were sample deviations. p = 1 when
 * the sides hold only 2 values together. When both sides are constant
 * the t is +-infinity (p = 0) if the means differ; if they are equal,
 * scipy's 0/0 gives NaN, which Otava never accepts, so it is p = 1 here.
 */
static void ttest(struct ttest *o, const double *l, size_t nl, const double *r,
                  size_t nr)
{
	double v1, v2, df, svar, denom;

	seg_stats(&o->m1, &v1, l, nl);
	seg_stats(&o->m2, &v2, r, nr);
	o->t = 0;
	o->p = 1;
	if (nl + nr <= 2)
		return;
	df = (double)(nl + nr - 2);
	svar = ((double)(nl - 1) * v1 + (double)(nr - 1) * v2) / df;
	denom = sqrt(svar * (1 / (double)nl + 1 / (double)nr));
	if (o->m1 == o->m2)
		return;
	if (denom == 0) {
		o->t = o->m1 > o->m2 ? INFINITY : -INFINITY;
		o->p = 0;
		return;
	}
	o->t = (o->m1 - o->m2) / denom;
	o->p = isnan(o->t) ? 1 : student_t_p(fabs(o->t), df);
}

/*
 * The candidate of z[a..b) (b - a >= 2): the tau maximising Q-hat over
 * a < tau < kappa <= b, with X = z[a..tau) (n values), Y = z[tau..kappa)
 * (m values) and
 *   Q = 2/(n+m) SXY - 2m/((n+m)(n-1)) SX - 2n/((n+m)(m-1)) SY
 * where SXY sums |X_i - Y_j| and SX, SY sum |.| over pairs within X and
 * within Y; a coefficient is 0 when its n - 1 or m - 1 is 0 (Otava's
 * calculator.py). Ties go to the smallest tau, as numpy's argmax over
 * Otava's (tau, kappa) matrix does; Q(a+1, a+2) = |z[a] - z[a+1]| >= 0
 * comes first, so the zeros outside that matrix's triangle never win.
 *
 * O((b - a)^2) time with two scratch arrays of b - a values:
 *   r[k]  = sum of |z_i - z_k| for a <= i < k (fixed),
 *   xp[k] = sum of |z_i - z_k| for a <= i < tau (grows with tau),
 * so adding z[kappa - 1] to Y adds xp to SXY and r - xp to SY.
 */
static void best_split(size_t *tau_out, double *q_out, const double *z,
                       size_t a, size_t b, double *r, double *xp)
{
	double sx = 0, best = -INFINITY;
	size_t best_tau = a + 1;

	for (size_t k = a; k < b; k++) {
		double s = 0;

		for (size_t i = a; i < k; i++)
			s += fabs(z[i] - z[k]);
		r[k - a] = s;
		xp[k - a] = 0;
	}
	for (size_t tau = a + 1; tau < b; tau++) {
		double n = (double)(tau - a), sxy = 0, sy = 0;

		/* X gains z[tau - 1] */
		sx += r[tau - 1 - a];
		for (size_t k = tau; k < b; k++)
			xp[k - a] += fabs(z[tau - 1] - z[k]);
		for (size_t kappa = tau + 1; kappa <= b; kappa++) {
			size_t j = kappa - 1 - a; /* Y gains z[kappa - 1] */
			double m = (double)(kappa - tau), q;

			sxy += xp[j];
			sy += r[j] - xp[j];
			q = 2 / (n + m) * sxy;
			if (n > 1)
				q -= 2 * m / ((n + m) * (n - 1)) * sx;
			if (m > 1)
				q -= 2 * n / ((n + m) * (m - 1)) * sy;
			if (q > best) {
				best = q;
				best_tau = tau;
			}
		}
	}
	*tau_out = best_tau;
	*q_out = best;
}

/* A change point: its index, the Q-hat that found it, its t-test. */
struct ed_cp {
	size_t index;
	double qhat;
	struct ttest tt;
};

/*
 * Otava's ChangePointDetector over one window z[0..len): repeatedly take
 * the best candidate over the intervals between the change points found
 * so far (the first of equal Q-hats), test it against its enclosing
 * interval, keep it if p <= thr, and stop at the first rejection or
 * when no interval has 2 values. found (len slots) ends up sorted by
 * index; returns how many.
 */
static size_t window_detect(struct ed_cp *found, const double *z, size_t len,
                            double thr, double *r, double *xp)
{
	size_t nf = 0;

	for (;;) {
		size_t prev = 0, tau = 0, ca = 0, cb = 0, pos = 0;
		double q = -INFINITY;
		bool any = false;
		struct ttest tt;

		for (size_t k = 0; k <= nf; k++) {
			size_t b = k < nf ? found[k].index : len, t;
			double qq;

			if (b - prev > 1) {
				best_split(&t, &qq, z, prev, b, r, xp);
				if (!any || qq > q) {
					any = true;
					q = qq;
					tau = t;
					ca = prev;
					cb = b;
					pos = k;
				}
			}
			prev = b;
		}
		if (!any)
			break;
		ttest(&tt, z + ca, tau - ca, z + tau, cb - tau);
		if (!(tt.p <= thr))
			break;
		for (size_t k = nf; k > pos; k--)
			found[k] = found[k - 1];
		found[pos].index = tau;
		found[pos].qhat = q;
		found[pos].tt = tt;
		nf++;
	}
	return nf;
}

/* The t-test of cps[k] between its neighbours (or the series ends). */
static void retest(struct ed_cp *cps, size_t ncp, size_t k, const double *x,
                   size_t n)
{
	size_t a = k ? cps[k - 1].index : 0;
	size_t b = k + 1 < ncp ? cps[k + 1].index : n;
	size_t c = cps[k].index;

	ttest(&cps[k].tt, x + a, c - a, x + c, b - c);
}

/* Otava's relative change, 0 when its denominator mean is 0. */
static double magnitude(const struct ttest *tt)
{
	double fwd = tt->m1 != 0 ? tt->m2 / tt->m1 - 1 : 0;
	double back = tt->m2 != 0 ? tt->m1 / tt->m2 - 1 : 0;

	return fmax(fabs(fwd), fabs(back));
}

/*
 * The merge step: while there are change points, take the one with the
 * largest p (the first of equals); if even that p < max_pvalue, take the
 * one with the smallest magnitude instead and stop if it exceeds
 * min_magnitude; delete the one taken and re-test its two neighbours,
 * whose intervals it bounded. Returns the new count.
 */
static size_t merge(struct ed_cp *cps, size_t ncp, const double *x, size_t n,
                    double max_pvalue, double min_magnitude)
{
	while (ncp) {
		size_t w = 0;

		for (size_t k = 1; k < ncp; k++)
			if (cps[k].tt.p > cps[w].tt.p)
				w = k;
		if (cps[w].tt.p < max_pvalue) {
			w = 0;
			for (size_t k = 1; k < ncp; k++)
				if (magnitude(&cps[k].tt) <
				    magnitude(&cps[w].tt))
					w = k;
			if (magnitude(&cps[w].tt) > min_magnitude)
				break;
		}
		for (size_t k = w; k + 1 < ncp; k++)
			cps[k] = cps[k + 1];
		ncp--;
		if (w > 0)
			retest(cps, ncp, w - 1, x, n);
		if (w < ncp)
			retest(cps, ncp, w, x, n);
	}
	return ncp;
}

static int check_params(const struct bf_detect_params *p, struct bf_err *err)
{
	if (p->ed_window < 2)
		return bf_err_set(err, BF_EINVAL,
		                  "ed_window must be at least 2 (got %d)",
		                  p->ed_window);
	if (!(p->ed_pvalue > 0 && p->ed_pvalue < 1))
		return bf_err_set(err, BF_EINVAL,
		                  "ed_pvalue must be inside (0, 1) (got %g)",
		                  p->ed_pvalue);
	if (!(p->ed_min_magnitude >= 0) || isinf(p->ed_min_magnitude))
		return bf_err_set(err, BF_EINVAL,
		                  "ed_min_magnitude must be 0 or more (got %g)",
		                  p->ed_min_magnitude);
	return 0;
}

/* Otava's first-pass level for the weak change points. */
static double first_pass_pvalue(double max_pvalue)
{
	if (max_pvalue < 0.05)
		return max_pvalue * 10;
	if (max_pvalue < 0.5)
		return max_pvalue * 2;
	return max_pvalue;
}

int bf_detect_edivisive(struct bf_change **out, size_t *nout,
                        const struct bf_detect_params *p, const double *x,
                        size_t n, struct bf_err *err)
{
	size_t wlen, step, start = 0, nweak = 0;
	struct ed_cp *found, *weak;
	double *r, *xp, thr;
	bool *seen;
	double *qhat;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = check_params(p, err)))
		return ret;
	*out = bf_xcalloc(n + 1, sizeof(**out));
	if (n < 3)
		return 0; /* a t-test needs 3 values */
	wlen = (size_t)p->ed_window < n ? (size_t)p->ed_window : n;
	step = (size_t)p->ed_window / 2;
	thr = first_pass_pvalue(p->ed_pvalue);
	found = bf_xcalloc(wlen, sizeof(*found));
	r = bf_xcalloc(wlen, sizeof(*r));
	xp = bf_xcalloc(wlen, sizeof(*xp));
	seen = bf_xcalloc(n, sizeof(*seen));
	qhat = bf_xcalloc(n, sizeof(*qhat));

	/* Split: windows [start, start + W), start advancing by >= W/2. */
	while (start < n) {
		size_t end = n - start > wlen ? start + wlen : n;
		size_t nf = window_detect(found, x + start, end - start, thr, r,
		                          xp);
		size_t last = nf ? start + found[nf - 1].index : 0;

		for (size_t k = 0; k < nf; k++) {
			size_t at = start + found[k].index;

			if (!seen[at]) {
				seen[at] = true;
				qhat[at] = found[k].qhat;
				nweak++;
			}
		}
		start = last > start + step ? last : start + step;
	}

	/* The weak change points, sorted, re-tested over the whole series. */
	weak = bf_xcalloc(nweak + 1, sizeof(*weak));
	nweak = 0;
	for (size_t i = 0; i < n; i++) {
		if (!seen[i])
			continue;
		weak[nweak].index = i;
		weak[nweak++].qhat = qhat[i];
	}
	for (size_t k = 0; k < nweak; k++)
		retest(weak, nweak, k, x, n);
	nweak = merge(weak, nweak, x, n, p->ed_pvalue, p->ed_min_magnitude);

	for (size_t k = 0; k < nweak; k++) {
		struct bf_change *c = &(*out)[k];
		const struct ttest *tt = &weak[k].tt;

		c->index = weak[k].index;
		c->score = weak[k].qhat;
		c->p_value = tt->p;
		c->before = tt->m1;
		c->after = tt->m2;
		c->direction = tt->m2 > tt->m1 ? 1 : -1;
		c->size = tt->m1 != 0 ? (tt->m2 - tt->m1) / tt->m1 : NAN;
	}
	*nout = nweak;
	free(weak);
	free(qhat);
	free(seen);
	free(xp);
	free(r);
	free(found);
	return 0;
}

int bf_detect_edivisive_window(struct bf_step_window *out,
                               const struct bf_detect_params *p,
                               const double *x, size_t n, struct bf_err *err)
{
	double *r, *xp, q;
	struct ttest tt;
	size_t tau;
	int ret;

	if ((ret = check_params(p, err)))
		return ret;
	out->turning_point = 0;
	out->regression = 0;
	out->step_size = 0;
	out->least_squares = NAN;
	out->direction = 0;
	out->status = "Uninteresting";
	if (n < 2)
		return 0;
	r = bf_xcalloc(n, sizeof(*r));
	xp = bf_xcalloc(n, sizeof(*xp));
	best_split(&tau, &q, x, 0, n, r, xp);
	free(xp);
	free(r);
	ttest(&tt, x, tau, x + tau, n - tau);
	out->turning_point = tau;
	out->regression = q;
	out->step_size = tt.m1 - tt.m2;
	if (tt.p <= p->ed_pvalue && tt.m1 != tt.m2) {
		out->direction = tt.m2 > tt.m1 ? 1 : -1;
		out->status = tt.m2 > tt.m1 ? "High" : "Low";
	}
	return 0;
}

int bf_detect_edivisive_best(double *p_out, size_t *index_out,
                             const struct bf_detect_params *p, const double *x,
                             size_t n, struct bf_err *err)
{
	size_t wlen, step;
	double *r, *xp;
	int ret;

	*p_out = NAN;
	*index_out = 0;
	if ((ret = check_params(p, err)))
		return ret;
	if (n < 3)
		return 0; /* a t-test needs 3 values */
	wlen = (size_t)p->ed_window < n ? (size_t)p->ed_window : n;
	step = (size_t)p->ed_window / 2;
	r = bf_xcalloc(wlen, sizeof(*r));
	xp = bf_xcalloc(wlen, sizeof(*xp));
	/* the split pass's windows while it finds nothing */
	for (size_t start = 0; start < n; start += step) {
		size_t end = n - start > wlen ? start + wlen : n, tau;
		double q;
		struct ttest tt;

		if (end - start < 2)
			continue; /* no split: nothing tested */
		best_split(&tau, &q, x + start, 0, end - start, r, xp);
		ttest(&tt, x + start, tau, x + start + tau, end - start - tau);
		if (isnan(*p_out) || tt.p < *p_out) {
			*p_out = tt.p;
			*index_out = start + tau;
		}
	}
	free(xp);
	free(r);
	return 0;
}
