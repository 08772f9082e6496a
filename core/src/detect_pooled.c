/*
 * The "pooled" detector: a step test on each commit's repeats, not on
 * one number per commit. Formulas: docs/postsubmit.md ("pooled").
 *
 * A commit's level is the median of its repeats. Its variance has two
 * parts: the repeats' spread (within the commit, shrinking with their
 * count) and the commit-to-commit wander that more repeats do not
 * remove (another build's code layout, the machine's load that hour).
 * Both are estimated once over the whole series, robustly, so that a
 * window of five commits is judged with the series' many degrees of
 * freedom instead of its own eight (Jetpack's weakness on noisy data).
 * A window's level is the median of its commits' levels: one commit
 * measured during a burst of load moves it little.
 */
#include "benchfarm/detect.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "detect_stepfit_int.h"

/* median |d| of a normal d is 0.6744897501960817 of its sd */
#define MAD_NORMAL 0.6744897501960817
/* the variance of the median of many normal values over their mean's */
#define HALF_PI 1.5707963267948966

static double chi2_median_ratio(double k)
{
	/* Wilson-Hilferty: the median of chi2(k)/k */
	double a = 1.0 - 2.0 / (9.0 * k);

	return a * a * a;
}

void bf_pooled_noise(struct bf_pooled_noise *nz, const double *v,
                     const size_t *off, size_t m)
{
	double *lvl = bf_xcalloc(m + 1, sizeof(*lvl));
	double *tmp = bf_xcalloc(m + 1, sizeof(*tmp));
	double *dof = bf_xcalloc(m + 1, sizeof(*dof));
	double inv_n = 0, v_diff, within;
	size_t nvar = 0;

	memset(nz, 0, sizeof(*nz));
	for (size_t j = 0; j < m; j++) {
		size_t n = off[j + 1] - off[j];
		const double *r = v + off[j];

		lvl[j] = bf_stats_median(r, n);
		inv_n += 1.0 / (double)n;
		if (n >= 2) {
			double mean = 0, ss = 0;

			for (size_t k = 0; k < n; k++)
				mean += r[k];
			mean /= (double)n;
			for (size_t k = 0; k < n; k++)
				ss += (r[k] - mean) * (r[k] - mean);
			tmp[nvar] = ss / (double)(n - 1);
			dof[nvar++] = (double)(n - 1);
		}
	}
	/* within: the median commit variance, unbiased for a normal's */
	if (nvar) {
		double k = bf_stats_median_inplace(dof, nvar);

		nz->within = bf_stats_median_inplace(tmp, nvar) /
		             chi2_median_ratio(k);
	}
	nz->n_harmonic = m ? (double)m / inv_n : 0;
	/* total: from the differences of neighbouring commits' levels */
	for (size_t j = 0; j + 1 < m; j++)
		tmp[j] = fabs(lvl[j + 1] - lvl[j]);
	v_diff = 0;
	if (m >= 2) {
		double md = bf_stats_median_inplace(tmp, m - 1) / MAD_NORMAL;

		v_diff = md * md / 2;
	}
	within = HALF_PI * nz->within / (nz->n_harmonic ? nz->n_harmonic : 1);
	nz->between = v_diff > within ? v_diff - within : 0;
	free(lvl);
	free(tmp);
	free(dof);
}

double bf_pooled_commit_var(const struct bf_pooled_noise *nz, size_t n)
{
	return nz->between + HALF_PI * nz->within / (double)n;
}

/*
 * The variance of a side's level over that of the mean of its k
 * commits: the median's, pi/2, for three or more; 2 for two (a side of
 * two takes the level nearer the other side: one commit's variance);
 * 1 for one.
 */
static double level_factor(size_t k)
{
	return k == 1 ? 1.0 : k == 2 ? 2.0 : HALF_PI;
}

/* A side's level: see level_factor; other is the other side's median. */
static double side_level(double *t, size_t k, double other)
{
	if (k == 2)
		return fabs(t[0] - other) <= fabs(t[1] - other) ? t[0] : t[1];
	return bf_stats_median_inplace(t, k);
}

static double mean_of(const double *t, size_t k)
{
	double s = 0;

	for (size_t j = 0; j < k; j++)
		s += t[j];
	return s / (double)k;
}

static double z_of(double before, double after, double se)
{
	if (se > 0)
		return (after - before) / se;
	if (after != before)
		return after > before ? DBL_MAX : -DBL_MAX;
	return 0;
}

/*
 * The window on commits' levels lvl[] and their variances cv[] (each
 * computed once per series by the caller); t and u are scratch of at
 * least hi - lo values.
 */
static void window_on_levels(struct bf_pooled_window *w, const double *lvl,
                             const double *cv, size_t lo, size_t mid, size_t hi,
                             double *t, double *u)
{
	double vb = 0, va = 0, mb, ma;
	size_t nb = mid - lo, na = hi - mid;

	for (size_t j = lo; j < hi; j++) {
		t[j - lo] = u[j - lo] = lvl[j];
		if (j < mid)
			vb += cv[j];
		else
			va += cv[j];
	}
	w->mean_before = mean_of(t, nb);
	w->mean_after = mean_of(t + nb, na);
	mb = bf_stats_median_inplace(u, nb);
	ma = bf_stats_median_inplace(u + nb, na);
	w->before = side_level(t, nb, ma);
	w->after = side_level(t + nb, na, mb);
	w->se = sqrt(level_factor(nb) * vb / ((double)nb * (double)nb) +
	             level_factor(na) * va / ((double)na * (double)na));
	w->z = z_of(w->before, w->after, w->se);
	w->z_mean = z_of(w->mean_before, w->mean_after,
	                 sqrt(vb / ((double)nb * (double)nb) +
	                      va / ((double)na * (double)na)));
}

/* Each commit's level and its variance: *lvl and *cv (free both). */
static void levels(double **lvl, double **cv, const double *v,
                   const size_t *off, const struct bf_pooled_noise *nz,
                   size_t m)
{
	*lvl = bf_xcalloc(m + 1, sizeof(**lvl));
	*cv = bf_xcalloc(m + 1, sizeof(**cv));
	for (size_t j = 0; j < m; j++) {
		size_t n = off[j + 1] - off[j];

		(*lvl)[j] = bf_stats_median(v + off[j], n);
		(*cv)[j] = bf_pooled_commit_var(nz, n);
	}
}

void bf_pooled_window_eval(struct bf_pooled_window *w, const double *v,
                           const size_t *off, const struct bf_pooled_noise *nz,
                           size_t lo, size_t mid, size_t hi)
{
	double *lvl, *cv, *t = bf_xcalloc(hi - lo + 1, sizeof(*t));
	double *u = bf_xcalloc(hi - lo + 1, sizeof(*u));

	levels(&lvl, &cv, v, off, nz, hi);
	window_on_levels(w, lvl, cv, lo, mid, hi, t, u);
	free(lvl);
	free(cv);
	free(t);
	free(u);
}

static int pooled_check(const struct bf_detect_params *p, struct bf_err *err)
{
	if (p->pooled_width < 2)
		return bf_err_set(err, BF_EINVAL,
		                  "pooled_width must be at least 2 (got %d)",
		                  p->pooled_width);
	if (!(p->pooled_threshold > 0))
		return bf_err_set(
		        err, BF_EINVAL,
		        "pooled_threshold must be greater than 0 (got %g)",
		        p->pooled_threshold);
	if (!(p->pooled_min_change >= 0))
		return bf_err_set(
		        err, BF_EINVAL,
		        "pooled_min_change must be 0 or more (got %g)",
		        p->pooled_min_change);
	return 0;
}

double bf_pooled_threshold(const struct bf_detect_params *p, size_t side)
{
	size_t w = (size_t)p->pooled_width;

	if (side >= w)
		return p->pooled_threshold;
	return p->pooled_threshold * sqrt((double)w / (double)side);
}

int bf_detect_pooled(struct bf_change **out, size_t *nout,
                     const struct bf_detect_params *p, const double *v,
                     const size_t *off, size_t m, struct bf_err *err)
{
	struct bf_stepfit_changes acc = { NULL, 0, 0 };
	struct bf_stepfit_run run = { false, 0, { 0 } };
	struct bf_pooled_noise nz;
	size_t w, last = 0;
	double *lvl, *cv, *t, *u;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = pooled_check(p, err)))
		return ret;
	w = (size_t)p->pooled_width;
	if (m < 2 * BF_POOLED_MIN_SIDE)
		return 0;
	bf_pooled_noise(&nz, v, off, m);
	levels(&lvl, &cv, v, off, &nz, m);
	t = bf_xcalloc(2 * w + 1, sizeof(*t));
	u = bf_xcalloc(2 * w + 1, sizeof(*u));
	/*
	 * i: the first commit after the step; each side up to w commits.
	 * Flagged commits in one direction less than w apart are one step
	 * (a window cannot tell two apart): the strongest by z_mean.
	 */
	for (size_t i = BF_POOLED_MIN_SIDE; i + BF_POOLED_MIN_SIDE <= m; i++) {
		size_t lo = i >= w ? i - w : 0;
		size_t hi = i + w <= m ? i + w : m;
		size_t side = i - lo < hi - i ? i - lo : hi - i;
		struct bf_pooled_window pw;
		struct bf_change ch;

		if (run.open && i - last >= w)
			bf_stepfit__run_close(&run, &acc);
		window_on_levels(&pw, lvl, cv, lo, i, hi, t, u);
		ch.size = bf_stepfit__rel_size(pw.before, pw.after);
		if (!(fabs(pw.z) >= bf_pooled_threshold(p, side)) ||
		    (!isnan(ch.size) && fabs(ch.size) < p->pooled_min_change))
			continue;
		ch.index = i;
		ch.score = pw.z;
		ch.direction = pw.after > pw.before ? 1 : -1;
		ch.before = pw.before;
		ch.after = pw.after;
		ch.p_value = NAN;
		last = i;
		bf_stepfit__run_offer(&run, &acc, &ch, fabs(pw.z_mean));
	}
	bf_stepfit__run_close(&run, &acc);
	bf_stepfit__changes_give(out, nout, &acc);
	free(lvl);
	free(cv);
	free(t);
	free(u);
	return 0;
}

/* The whole input is one window, split at floor(m/2). */
int bf_detect_pooled_window(struct bf_step_window *out,
                            const struct bf_detect_params *p, const double *v,
                            const size_t *off, size_t m, struct bf_err *err)
{
	struct bf_pooled_noise nz;
	struct bf_pooled_window pw;
	double t;
	int ret;

	bf_stepfit__window_reset(out, NAN);
	if ((ret = pooled_check(p, err)))
		return ret;
	if (m < 2)
		return 0;
	bf_pooled_noise(&nz, v, off, m);
	bf_pooled_window_eval(&pw, v, off, &nz, 0, m / 2, m);
	t = bf_pooled_threshold(p, m / 2);
	out->turning_point = m / 2;
	out->step_size = pw.after - pw.before;
	out->regression = pw.z;
	if (pw.z >= t) {
		out->status = BF_STEPFIT_HIGH;
		out->direction = 1;
	} else if (pw.z <= -t) {
		out->status = BF_STEPFIT_LOW;
		out->direction = -1;
	}
	return 0;
}
