#include "postsubmit/detect_env.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "postsubmit/history.h"
#include "store/store.h"

/* Nearest measured point before (dir -1) or after (+1) k; -1 if none. */
static long next_point(const double *v, size_t n, size_t k, int dir)
{
	for (long i = (long)k + dir; i >= 0 && (size_t)i < n; i += dir)
		if (!isnan(v[i]))
			return i;
	return -1;
}

/* The median of the measured points of v[a..b]; NaN when none. */
static double median_of(const double *v, size_t a, size_t b)
{
	double *x = bf_xcalloc(b - a + 2, sizeof(*x));
	double m;
	size_t n = 0;

	for (size_t i = a; i <= b; i++)
		if (!isnan(v[i]))
			x[n++] = v[i];
	m = n ? bf_stats_median(x, n) : NAN;
	free(x);
	return m;
}

/* The sum of |v[i] - m| over the measured points of v[a..b]. */
static double deviation(const double *v, size_t a, size_t b, double m)
{
	double s = 0;

	for (size_t i = a; i <= b; i++)
		if (!isnan(v[i]))
			s += fabs(v[i] - m);
	return s;
}

double bf_detect_noise(const double *v, size_t n)
{
	double *d = bf_xcalloc(n + 1, sizeof(*d));
	double prev = NAN, sigma;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (!isnan(prev))
			d[m++] = v[i] - prev;
		prev = v[i];
	}
	sigma = m ? bf_stats_mad_scaled(d, m) / sqrt(2.0) : 0;
	free(d);
	return sigma;
}

/*
 * The level of the build of measured point i: the median of the run of
 * consecutive measured points of that build from i on (dir), at most
 * BF_PLACE_REACH of them.
 */
static double level_from(const struct bf_history *h, const double *v, size_t n,
                         long i, int dir)
{
	double x[BF_PLACE_REACH];
	size_t m = 0;
	long at = i;

	for (; at >= 0 && (size_t)at < n && m < BF_PLACE_REACH; at += dir) {
		if (isnan(v[at]))
			continue;
		if (m && !bf_history_same_build(h, (size_t)i, (size_t)at))
			break;
		x[m++] = v[at];
	}
	return m ? bf_stats_median(x, m) : NAN;
}

static void put(struct bf_step_placed *out, size_t *n, enum bf_step_place kind,
                size_t lo, size_t k, double before, double after)
{
	out[(*n)++] = (struct bf_step_placed){ kind, lo, k, before, after };
}

size_t bf_detect_place_step(struct bf_step_placed out[3],
                            const struct bf_history *h, const double *v,
                            size_t lo, size_t k)
{
	size_t n = h->ncommits, gs = lo, ge = k, np = 0, split = 0;
	double before, after, ml = NAN, mr = NAN, tol, best = -1, fit = 0;
	long p, q;

	if (!bf_history_same_build(h, lo, k)) {
		put(out, &np, BF_STEP_CODE, lo, k, NAN, NAN);
		return np;
	}
	/* G: the points of this build either side of the step */
	while ((p = next_point(v, n, gs, -1)) >= 0 &&
	       bf_history_same_build(h, (size_t)p, gs))
		gs = (size_t)p;
	while ((q = next_point(v, n, ge, +1)) >= 0 &&
	       bf_history_same_build(h, (size_t)q, ge))
		ge = (size_t)q;
	p = next_point(v, n, gs, -1);
	q = next_point(v, n, ge, +1);
	before = p >= 0 ? level_from(h, v, n, p, -1) : NAN;
	after = q >= 0 ? level_from(h, v, n, q, +1) : NAN;
	/*
	 * G as two levels: the split whose two medians leave the least
	 * absolute deviation (the best fit of one change point)
	 */
	for (long j = next_point(v, n, gs, +1); j >= 0 && (size_t)j <= ge;
	     j = next_point(v, n, (size_t)j, +1)) {
		double l = median_of(v, gs, (size_t)j - 1);
		double r = median_of(v, (size_t)j, ge);
		double cost = deviation(v, gs, (size_t)j - 1, l) +
		              deviation(v, (size_t)j, ge, r);

		if (best < 0 || cost < fit) {
			fit = cost;
			best = fabs(r - l);
			split = (size_t)j;
			ml = l;
			mr = r;
		}
	}
	tol = 4 * bf_detect_noise(v, n);
	if (best >= 0 && best > fmax(tol, 0.02 * fmin(fabs(ml), fabs(mr)))) {
		/* the same build measured two levels: the machine moved */
		put(out, &np, BF_STEP_ENV, (size_t)next_point(v, n, split, -1),
		    split, ml, mr);
		if (p >= 0 &&
		    fabs(ml - before) > fmax(tol, 0.02 * fabs(before)))
			put(out, &np, BF_STEP_CODE, (size_t)p, gs, before, ml);
		if (q >= 0 && fabs(after - mr) > fmax(tol, 0.02 * fabs(mr)))
			put(out, &np, BF_STEP_CODE, ge, (size_t)q, mr, after);
		return np;
	}
	/* one level: the step is the build change it differs from */
	ml = median_of(v, gs, ge);
	{
		double db = p >= 0 ? fabs(ml - before) : -1;
		double da = q >= 0 ? fabs(after - ml) : -1;

		if (db >= da && db > fmax(tol, 0.02 * fabs(before)))
			put(out, &np, BF_STEP_CODE, (size_t)p, gs, before, ml);
		else if (da > db && da > fmax(tol, 0.02 * fabs(ml)))
			put(out, &np, BF_STEP_CODE, ge, (size_t)q, ml, after);
	}
	return np;
}

/* One check's values in one run. */
struct check_acc {
	char *id;
	double sum[2];
	size_t n[2];
};

struct evidence {
	struct check_acc *v;
	size_t n;
	int side; /* 0: the run before the step, 1: after */
	json_t *devices;
};

static int add_check(const struct bf_store_check *ch, void *payload)
{
	struct evidence *e = payload;
	struct check_acc *a = NULL;
	size_t i;

	if (!json_array_size(e->devices) ||
	    strcmp(json_string_value(json_array_get(
	                   e->devices, json_array_size(e->devices) - 1)),
	           ch->device)) {
		bool seen = false;
		json_t *d;

		json_array_foreach(e->devices, i, d) seen |=
		        !strcmp(json_string_value(d), ch->device);
		if (!seen)
			json_array_append_new(e->devices,
			                      json_string(ch->device));
	}
	if (!isfinite(ch->value))
		return 0;
	for (i = 0; i < e->n && !a; i++)
		if (!strcmp(e->v[i].id, ch->check_id))
			a = &e->v[i];
	if (!a) {
		e->v = bf_xrealloc(e->v, (e->n + 1) * sizeof(*e->v));
		a = &e->v[e->n++];
		memset(a, 0, sizeof(*a));
		a->id = bf_xstrdup(ch->check_id);
	}
	a->sum[e->side] += ch->value;
	a->n[e->side]++;
	return 0;
}

/*
 * Whether a check's value moved enough to call it the environment's
 * change: the runnable tasks beside the benchmark (load) by at least
 * one and half as many again, the temperature by 5 degrees C.
 */
static bool check_changed(const char *id, double before, double after)
{
	double lo = fmin(before, after), hi = fmax(before, after);

	if (!strcmp(id, "load"))
		return hi - lo >= 1 && hi >= 1.5 * lo;
	if (!strcmp(id, "thermal"))
		return hi - lo >= 5;
	return false;
}

int bf_detect_env_evidence(json_t **out, struct bf_store *store,
                           const struct bf_history *h, size_t lo, size_t k,
                           struct bf_err *err)
{
	const struct bf_hist_commit *a = &h->commit[lo], *b = &h->commit[k];
	struct evidence e = { NULL, 0, 0, json_array() };
	json_t *checks = json_array();
	bool any = false;
	int rc = 0;

	if (a->measured_by)
		rc = bf_store_checks_foreach(store, a->measured_by, NULL,
		                             add_check, &e, err);
	e.side = 1;
	if (!rc && b->measured_by)
		rc = bf_store_checks_foreach(store, b->measured_by, NULL,
		                             add_check, &e, err);
	for (size_t i = 0; i < e.n; i++) {
		struct check_acc *c = &e.v[i];
		double before, after;
		bool changed;

		if (!rc && c->n[0] && c->n[1]) {
			before = c->sum[0] / (double)c->n[0];
			after = c->sum[1] / (double)c->n[1];
			changed = check_changed(c->id, before, after);
			any |= changed;
			json_array_append_new(
			        checks,
			        json_pack("{s:s, s:f, s:f, s:b}", "check",
			                  c->id, "before", before, "after",
			                  after, "changed", changed));
		}
		free(c->id);
	}
	free(e.v);
	if (rc) {
		json_decref(checks);
		json_decref(e.devices);
		return rc;
	}
	*out = json_pack("{s:[I, I], s:I, s:o, s:o, s:b}", "runs",
	                 (json_int_t)a->measured_by, (json_int_t)b->measured_by,
	                 "gap_s", (json_int_t)(b->at - a->at), "devices",
	                 e.devices, "checks", checks, "changed", any);
	return 0;
}
