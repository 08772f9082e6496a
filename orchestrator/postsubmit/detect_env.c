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

enum bf_step_place bf_detect_place_step(size_t *lo_out, size_t *k_out,
                                        const struct bf_history *h,
                                        const double *v, size_t lo, size_t k,
                                        double before, double after)
{
	size_t n = h->ncommits, gs = lo, ge = k;
	double ml, mr;
	bool right_old, left_new;
	long p, q;

	*lo_out = lo;
	*k_out = k;
	if (!bf_history_same_build(h, lo, k))
		return BF_STEP_CODE;
	/* the points of this build either side of the step */
	while ((p = next_point(v, n, gs, -1)) >= 0 &&
	       bf_history_same_build(h, (size_t)p, gs))
		gs = (size_t)p;
	while ((q = next_point(v, n, ge, +1)) >= 0 &&
	       bf_history_same_build(h, (size_t)q, ge))
		ge = (size_t)q;
	ml = median_of(v, gs, lo);
	mr = median_of(v, k, ge);
	p = next_point(v, n, gs, -1);
	q = next_point(v, n, ge, +1);
	if (isnan(before))
		before = p >= 0 ? v[p] : ml;
	if (isnan(after))
		after = q >= 0 ? v[q] : mr;
	right_old = fabs(mr - before) <= fabs(mr - after);
	left_new = fabs(ml - after) < fabs(ml - before);
	if (right_old && !left_new) {
		/* still the old level: the step is the next build's */
		if (q < 0)
			return BF_STEP_NONE;
		*lo_out = ge;
		*k_out = (size_t)q;
		return BF_STEP_CODE;
	}
	if (left_new && !right_old) {
		/* already the new level: the step is this build's own */
		if (p < 0)
			return BF_STEP_NONE;
		*lo_out = (size_t)p;
		*k_out = gs;
		return BF_STEP_CODE;
	}
	return BF_STEP_ENV;
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
