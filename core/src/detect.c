#include "benchfarm/detect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/common.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"

/*
 * The detectors' front door: defaults from the reference, names, and
 * the handling shared by all of them (missing values, infinities,
 * indexes mapped back to the caller's series).
 */

const char *const bf_detector_names[] = { "jetpack",   "skia",   "perfherder",
	                                  "edivisive", "pooled", NULL };
const char *const bf_skia_algo_names[] = { "original",     "absolute",
	                                   "percent",      "cohen",
	                                   "mannwhitneyu", NULL };

static int index_of(const char *const *names, const char *name)
{
	for (int i = 0; name && names[i]; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int bf_detector_from_name(const char *name)
{
	return index_of(bf_detector_names, name);
}

const char *bf_detector_name(enum bf_detector d)
{
	return (unsigned)d < 5 ? bf_detector_names[d] : "?";
}

int bf_skia_algo_from_name(const char *name)
{
	return index_of(bf_skia_algo_names, name);
}

const char *bf_skia_algo_name(enum bf_skia_algo a)
{
	return (unsigned)a < 5 ? bf_skia_algo_names[a] : "?";
}

double bf_skia_default_interesting(enum bf_skia_algo a)
{
	static const double t[] = { 50.0, 0.0, 0.1, 2.0, 0.05 };

	return (unsigned)a < BF_ARRAY_SIZE(t) ? t[a] : 0.0;
}

void bf_detect_params_default(struct bf_detect_params *p, enum bf_detector d)
{
	memset(p, 0, sizeof(*p));
	p->detector = d;
	p->jetpack_width = 5; /* Jetpack CI: 5 builds each side */
	p->jetpack_threshold = 25;
	p->skia_radius = 7; /* Perf's radius flag */
	p->skia_interesting = 50; /* Perf's interesting flag */
	p->skia_stddev_threshold = 0.001; /* config.MinStdDev */
	p->skia_algo = BF_SKIA_ORIGINAL;
	p->ph_min_back_window = 12;
	p->ph_max_back_window = 24;
	p->ph_fore_window = 12;
	p->ph_t_threshold = 7;
	p->ph_min_percent = 2; /* PERFHERDER_REGRESSION_THRESHOLD */
	p->ed_pvalue = 0.001; /* Otava's -P */
	p->ed_window = 50;
	p->ed_min_magnitude = 0.0;
	p->pooled_width = 8;
	p->pooled_threshold = 4;
	p->pooled_min_change = 0.02;
}

/* The finite values of x in order, with their input indexes. */
static int compact(double **vals, size_t **idx, size_t *m, const double *x,
                   size_t n, struct bf_err *err)
{
	*vals = bf_xcalloc(n + 1, sizeof(**vals));
	*idx = bf_xcalloc(n + 1, sizeof(**idx));
	*m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		if (isinf(x[i])) {
			free(*vals);
			free(*idx);
			*vals = NULL;
			*idx = NULL;
			return bf_err_set(err, BF_EINVAL,
			                  "value %zu of the series is infinite",
			                  i + 1);
		}
		(*vals)[*m] = x[i];
		(*idx)[(*m)++] = i;
	}
	return 0;
}

/*
 * The pooled detector on one value per commit: each is a commit of one
 * repeat (no within-commit spread is known; all the noise is between).
 */
static int pooled_single(struct bf_change **out, size_t *nout,
                         struct bf_step_window *win,
                         const struct bf_detect_params *p, const double *v,
                         size_t m, struct bf_err *err)
{
	size_t *off = bf_xcalloc(m + 1, sizeof(*off));
	int ret;

	for (size_t i = 0; i <= m; i++)
		off[i] = i;
	ret = win ? bf_detect_pooled_window(win, p, v, off, m, err)
	          : bf_detect_pooled(out, nout, p, v, off, m, err);
	free(off);
	return ret;
}

int bf_detect_series(struct bf_change **out, size_t *nout,
                     const struct bf_detect_params *p, const double *x,
                     size_t n, struct bf_err *err)
{
	double *v;
	size_t *idx, m;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = compact(&v, &idx, &m, x, n, err)))
		return ret;
	switch (p->detector) {
	case BF_DETECT_JETPACK:
		ret = bf_detect_jetpack(out, nout, p, v, m, err);
		break;
	case BF_DETECT_SKIA:
		ret = bf_detect_skia(out, nout, p, v, m, err);
		break;
	case BF_DETECT_PERFHERDER:
		ret = bf_detect_perfherder(out, nout, p, v, m, err);
		break;
	case BF_DETECT_EDIVISIVE:
		ret = bf_detect_edivisive(out, nout, p, v, m, err);
		break;
	case BF_DETECT_POOLED:
		ret = pooled_single(out, nout, NULL, p, v, m, err);
		break;
	default:
		ret = bf_err_set(err, BF_EINVAL, "unknown detector %d",
		                 (int)p->detector);
	}
	/*
	 * Each detector signs its statistic its own way (Jetpack and Skia
	 * as before - after: negative when the metric rose); an alert's
	 * score takes the sign of its direction, positive when it rose.
	 */
	for (size_t i = 0; !ret && i < *nout; i++) {
		struct bf_change *c = &(*out)[i];

		c->index = idx[c->index];
		c->score = c->direction < 0 ? -fabs(c->score) : fabs(c->score);
	}
	if (ret) {
		free(*out);
		*out = NULL;
		*nout = 0;
	}
	free(v);
	free(idx);
	return ret;
}

int bf_detect_window(struct bf_step_window *out,
                     const struct bf_detect_params *p, const double *x,
                     size_t n, struct bf_err *err)
{
	double *v;
	size_t *idx, m;
	int ret;

	memset(out, 0, sizeof(*out));
	out->least_squares = NAN;
	out->status = "Uninteresting";
	if ((ret = compact(&v, &idx, &m, x, n, err)))
		return ret;
	switch (p->detector) {
	case BF_DETECT_JETPACK:
		ret = bf_detect_jetpack_window(out, p, v, m, err);
		break;
	case BF_DETECT_SKIA:
		ret = bf_detect_skia_window(out, p, v, m, err);
		break;
	case BF_DETECT_PERFHERDER:
		ret = bf_detect_perfherder_window(out, p, v, m, err);
		break;
	case BF_DETECT_EDIVISIVE:
		ret = bf_detect_edivisive_window(out, p, v, m, err);
		break;
	case BF_DETECT_POOLED:
		ret = pooled_single(NULL, NULL, out, p, v, m, err);
		break;
	default:
		ret = bf_err_set(err, BF_EINVAL, "unknown detector %d",
		                 (int)p->detector);
	}
	if (!ret && m && out->turning_point < m)
		out->turning_point = idx[out->turning_point];
	free(v);
	free(idx);
	return ret;
}

/*
 * The repeats of the commits that have any (NaN repeats dropped), their
 * offsets, and each kept commit's input index. An infinite repeat is
 * BF_EINVAL.
 */
struct reps {
	double *v;
	size_t *off, *idx, m;
};

static int reps_compact(struct reps *r, const double *v, const size_t *off,
                        size_t n, struct bf_err *err)
{
	size_t nv = off[n], k = 0;

	r->v = bf_xcalloc(nv + 1, sizeof(*r->v));
	r->off = bf_xcalloc(n + 2, sizeof(*r->off));
	r->idx = bf_xcalloc(n + 1, sizeof(*r->idx));
	r->m = 0;
	for (size_t i = 0; i < n; i++) {
		size_t start = k;

		for (size_t j = off[i]; j < off[i + 1]; j++) {
			if (isinf(v[j]))
				return bf_err_set(err, BF_EINVAL,
				                  "repeat %zu of commit %zu of "
				                  "the series is infinite",
				                  j - off[i] + 1, i + 1);
			if (!isnan(v[j]))
				r->v[k++] = v[j];
		}
		if (k == start)
			continue;
		r->off[r->m] = start;
		r->idx[r->m++] = i;
	}
	r->off[r->m] = k;
	return 0;
}

static void reps_release(struct reps *r)
{
	free(r->v);
	free(r->off);
	free(r->idx);
}

/* One value per input commit: its median, NaN where it has none. */
static double *reps_medians(const struct reps *r, size_t n)
{
	double *x = bf_xcalloc(n + 1, sizeof(*x));

	for (size_t i = 0; i < n; i++)
		x[i] = NAN;
	for (size_t j = 0; j < r->m; j++)
		x[r->idx[j]] = bf_stats_median(r->v + r->off[j],
		                               r->off[j + 1] - r->off[j]);
	return x;
}

int bf_detect_series_reps(struct bf_change **out, size_t *nout,
                          const struct bf_detect_params *p, const double *v,
                          const size_t *off, size_t n, struct bf_err *err)
{
	struct reps r;
	double *x;
	int ret;

	*out = NULL;
	*nout = 0;
	if ((ret = reps_compact(&r, v, off, n, err))) {
		reps_release(&r);
		return ret;
	}
	if (p->detector != BF_DETECT_POOLED) {
		x = reps_medians(&r, n);
		ret = bf_detect_series(out, nout, p, x, n, err);
		free(x);
		reps_release(&r);
		return ret;
	}
	ret = bf_detect_pooled(out, nout, p, r.v, r.off, r.m, err);
	for (size_t i = 0; !ret && i < *nout; i++)
		(*out)[i].index = r.idx[(*out)[i].index];
	reps_release(&r);
	return ret;
}

int bf_detect_window_reps(struct bf_step_window *out,
                          const struct bf_detect_params *p, const double *v,
                          const size_t *off, size_t n, struct bf_err *err)
{
	struct reps r;
	double *x;
	int ret;

	memset(out, 0, sizeof(*out));
	out->least_squares = NAN;
	out->status = "Uninteresting";
	if ((ret = reps_compact(&r, v, off, n, err))) {
		reps_release(&r);
		return ret;
	}
	if (p->detector != BF_DETECT_POOLED) {
		x = reps_medians(&r, n);
		ret = bf_detect_window(out, p, x, n, err);
		free(x);
		reps_release(&r);
		return ret;
	}
	ret = bf_detect_pooled_window(out, p, r.v, r.off, r.m, err);
	if (!ret && r.m && out->turning_point < r.m)
		out->turning_point = r.idx[out->turning_point];
	reps_release(&r);
	return ret;
}
