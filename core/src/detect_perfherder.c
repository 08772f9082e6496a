/*
 * Mozilla Perfherder's alert detection (treeherder perfalert analyze,
 * calc_t and detect_changes, and the alert filter of perf/alerts.py):
 * a Welch-style t over a linearly weighted back window (nearest value
 * first) and fore window at every point, kept where it passes the
 * threshold and is a local maximum, then dropped when the uniform means
 * differ by less than ph_min_percent. Reference: Mozilla Treeherder's
 * perfalert (detect_changes), which Perfherder runs.
 *
 * Each series value is one revision holding one value, so windows of
 * values and windows of revisions are the same thing here.
 */
#include "benchfarm/detect.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

/* What alerts.py stores for an infinite t (both variances 0). */
#define PH_T_INFINITE 1000.0

/*
 * A window of m values: v[0], v[step], ..., v[(m - 1) * step], so the
 * back window walks backwards with step -1 from the value just before
 * the point, nearest first.
 */
struct ph_win {
	const double *v;
	ptrdiff_t step;
	size_t m;
};

static double win_at(const struct ph_win *w, size_t j)
{
	return w->v[(ptrdiff_t)j * w->step];
}

/*
 * analyze() of one window: the mean with weights w_j = (m - j) / m
 * (linear) or 1 (uniform), and the unweighted sum of squared deviations
 * from that mean over N - 1 (0 when N <= 1). The mean is taken as an
 * offset from the first value, which leaves it unchanged in exact
 * arithmetic and makes it exactly that value for a constant window, so
 * rounding cannot invent a difference between two flat windows.
 */
static void analyze(double *avg_out, double *var_out, const struct ph_win *w,
                    bool linear)
{
	double x0, sw = 0, swd = 0, avg, ss = 0;

	*avg_out = 0;
	*var_out = 0;
	if (w->m == 0)
		return;
	x0 = win_at(w, 0);
	for (size_t j = 0; j < w->m; j++) {
		double wt = linear ? (double)(w->m - j) / (double)w->m : 1.0;

		sw += wt;
		swd += wt * (win_at(w, j) - x0);
	}
	avg = x0 + swd / sw;
	for (size_t j = 0; j < w->m; j++) {
		double d = win_at(w, j) - avg;

		ss += d * d;
	}
	*avg_out = avg;
	*var_out = w->m > 1 ? ss / (double)(w->m - 1) : 0;
}

/*
 * calc_t(back, fore) with linear weights: 0 when a window is empty or
 * the weighted means are equal, +-infinity when both variances are 0,
 * else delta / sqrt(var_b / n_b + var_f / n_f). Signed: positive when
 * the fore window is higher.
 */
static double calc_t(const struct ph_win *back, const struct ph_win *fore)
{
	double ab, vb, af, vf, delta, t;

	if (back->m == 0 || fore->m == 0)
		return 0;
	analyze(&ab, &vb, back, true);
	analyze(&af, &vf, fore, true);
	delta = af - ab;
	if (delta == 0)
		return 0;
	if (vb == 0 && vf == 0)
		return delta > 0 ? INFINITY : -INFINITY;
	t = delta / sqrt(vb / (double)back->m + vf / (double)fore->m);
	return isnan(t) ? 0 : t; /* only from overflowing magnitudes */
}

static double uniform_mean(const struct ph_win *w)
{
	double avg, var;

	analyze(&avg, &var, w, false);
	return avg;
}

static int check_params(const struct bf_detect_params *p, struct bf_err *err)
{
	if (p->ph_min_back_window < 1)
		return bf_err_set(
		        err, BF_EINVAL,
		        "ph_min_back_window must be at least 1 (got %d)",
		        p->ph_min_back_window);
	if (p->ph_max_back_window < 1)
		return bf_err_set(
		        err, BF_EINVAL,
		        "ph_max_back_window must be at least 1 (got %d)",
		        p->ph_max_back_window);
	if (p->ph_max_back_window < p->ph_min_back_window)
		return bf_err_set(
		        err, BF_EINVAL,
		        "ph_max_back_window (%d) is less than ph_min_back_window (%d)",
		        p->ph_max_back_window, p->ph_min_back_window);
	if (p->ph_fore_window < 1)
		return bf_err_set(err, BF_EINVAL,
		                  "ph_fore_window must be at least 1 (got %d)",
		                  p->ph_fore_window);
	if (!(p->ph_t_threshold > 0) || isinf(p->ph_t_threshold))
		return bf_err_set(
		        err, BF_EINVAL,
		        "ph_t_threshold must be a positive number (got %g)",
		        p->ph_t_threshold);
	if (!(p->ph_min_percent >= 0) || isinf(p->ph_min_percent))
		return bf_err_set(err, BF_EINVAL,
		                  "ph_min_percent must be 0 or more (got %g)",
		                  p->ph_min_percent);
	return 0;
}

/* The first pass of detect_changes at one point. */
struct ph_point {
	double t; /* |calc_t|, possibly +infinity; 0 at index 0 */
	double t_signed;
	size_t nback, nfore; /* values in the two windows */
};

int bf_detect_perfherder(struct bf_change **out, size_t *nout,
                         const struct bf_detect_params *p, const double *x,
                         size_t n, struct bf_err *err)
{
	size_t minb, maxb, fore, last_seen = 0, count = 0;
	double thr = p->ph_t_threshold;
	struct ph_point *pt;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = check_params(p, err)))
		return ret;
	minb = (size_t)p->ph_min_back_window;
	maxb = (size_t)p->ph_max_back_window;
	fore = (size_t)p->ph_fore_window;
	pt = bf_xcalloc(n + 1, sizeof(*pt));
	*out = bf_xcalloc(n + 1, sizeof(**out));

	/*
	 * First pass. The back window holds at most
	 * L = min(max(last_seen, min_back), max_back) revisions (one value
	 * each, so also at most max_back values) and stops at the start;
	 * last_seen counts the points since the last t above the threshold.
	 */
	for (size_t i = 1; i < n; i++) {
		size_t lim = last_seen > minb ? last_seen : minb;
		struct ph_win b, f;

		if (lim > maxb)
			lim = maxb;
		b.v = x + i - 1;
		b.step = -1;
		b.m = i < lim ? i : lim;
		f.v = x + i;
		f.step = 1;
		f.m = n - i < fore ? n - i : fore;
		pt[i].t_signed = calc_t(&b, &f);
		pt[i].t = fabs(pt[i].t_signed);
		pt[i].nback = b.m;
		pt[i].nfore = f.m;
		if (pt[i].t > thr)
			last_seen = 0;
		else
			last_seen++;
	}

	/* Second pass: enough data, over the threshold, a local maximum. */
	for (size_t i = 1; i < n; i++) {
		struct ph_win b, f;
		double prev, cur, pct;
		struct bf_change *c;

		if (pt[i].nback < minb || pt[i].nfore < fore)
			continue;
		if (!(pt[i].t > thr) || pt[i - 1].t > pt[i].t)
			continue;
		if (i + 1 < n && pt[i + 1].t > pt[i].t)
			continue;
		/* The alert (alerts.py): uniform means, percent filter. */
		b.v = x + i - 1;
		b.step = -1;
		b.m = pt[i].nback;
		f.v = x + i;
		f.step = 1;
		f.m = pt[i].nfore;
		prev = uniform_mean(&b);
		cur = uniform_mean(&f);
		pct = prev != 0 ? 100 * fabs(cur - prev) / prev : 0;
		if (pct < p->ph_min_percent)
			continue;
		c = &(*out)[count++];
		c->index = i;
		c->score = isinf(pt[i].t) ? PH_T_INFINITE : pt[i].t;
		if (cur != prev)
			c->direction = cur > prev ? 1 : -1;
		else
			c->direction = pt[i].t_signed > 0 ? 1 : -1;
		c->before = prev;
		c->after = cur;
		c->size = prev != 0 ? (cur - prev) / prev : NAN;
		c->p_value = NAN;
	}
	free(pt);
	*nout = count;
	return 0;
}

int bf_detect_perfherder_window(struct bf_step_window *out,
                                const struct bf_detect_params *p,
                                const double *x, size_t n, struct bf_err *err)
{
	struct ph_win b, f;
	size_t mid = n / 2;
	double t;
	int ret;

	if ((ret = check_params(p, err)))
		return ret;
	b.v = mid ? x + mid - 1 : x;
	b.step = -1;
	b.m = mid;
	f.v = x + mid;
	f.step = 1;
	f.m = n - mid;
	t = calc_t(&b, &f);
	out->turning_point = mid;
	if (isinf(t))
		out->regression = t > 0 ? PH_T_INFINITE : -PH_T_INFINITE;
	else
		out->regression = t;
	out->least_squares = NAN;
	out->step_size = b.m && f.m ? uniform_mean(&b) - uniform_mean(&f) : 0;
	if (fabs(t) > p->ph_t_threshold) {
		out->direction = t > 0 ? 1 : -1;
		out->status = t > 0 ? "High" : "Low";
	} else {
		out->direction = 0;
		out->status = "Uninteresting";
	}
	return 0;
}
