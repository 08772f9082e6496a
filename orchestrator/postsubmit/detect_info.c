#include "postsubmit/detect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"

/*
 * What detect says about a series it fitted, so that "0 steps" can be
 * read: how many points it has, the points a step needs around it, how
 * many of the newest cannot be judged yet, and the strongest statistic
 * anywhere in it against the threshold an alert needs.
 */

void bf_detect_reach(size_t *before, size_t *after,
                     const struct bf_detect_params *p)
{
	size_t r;

	switch (p->detector) {
	case BF_DETECT_JETPACK:
		*before = *after = (size_t)p->jetpack_width;
		return;
	case BF_DETECT_SKIA:
		/* the window's centre is the first point after the step */
		r = (size_t)p->skia_radius;
		*before = r;
		*after = r + (p->skia_algo == BF_SKIA_ORIGINAL);
		return;
	case BF_DETECT_PERFHERDER:
		*before = (size_t)p->ph_min_back_window;
		*after = (size_t)p->ph_fore_window;
		return;
	case BF_DETECT_POOLED:
		/* near the ends a side may be shorter, down to this */
		*before = *after = BF_POOLED_MIN_SIDE;
		return;
	case BF_DETECT_EDIVISIVE:
	default:
		/* a split needs a point on each side; no fixed window */
		*before = *after = 1;
		return;
	}
}

/* Whether the detector's statistic is a p-value (lower is stronger). */
static bool p_based(const struct bf_detect_params *p)
{
	return p->detector == BF_DETECT_EDIVISIVE ||
	       (p->detector == BF_DETECT_SKIA &&
	        p->skia_algo == BF_SKIA_MANNWHITNEYU);
}

static double threshold_of(const struct bf_detect_params *p)
{
	switch (p->detector) {
	case BF_DETECT_JETPACK:
		return p->jetpack_threshold;
	case BF_DETECT_SKIA:
		return p->skia_interesting;
	case BF_DETECT_PERFHERDER:
		return p->ph_t_threshold;
	case BF_DETECT_POOLED:
		return p->pooled_threshold;
	case BF_DETECT_EDIVISIVE:
	default:
		return p->ed_pvalue;
	}
}

/*
 * The same detector with every position let through (a threshold no
 * statistic misses, no minimum change), so that its strongest statistic
 * shows even when it stays below the real threshold. jetpack and skia
 * score each position the same either way; perfherder's back window
 * then stays at its minimum (it grows only while no t passes), so its t
 * is over that window.
 */
static void permissive(struct bf_detect_params *q,
                       const struct bf_detect_params *p)
{
	*q = *p;
	q->jetpack_threshold = 1e-30;
	q->skia_interesting =
	        p->skia_algo == BF_SKIA_MANNWHITNEYU ? 0.999999 : 1e-30;
	q->ph_t_threshold = 1e-30;
	q->ph_min_percent = 0;
	q->pooled_threshold = 1e-30;
	q->pooled_min_change = 0;
}

/*
 * edivisive re-tests every change point against its neighbours, so with
 * every split let through its p-values say little: when it found none,
 * the strongest is the best candidate of its split pass.
 */
static int edivisive_best(bool *have, double *best_v, size_t *best,
                          const struct bf_detect_params *p, const double *v,
                          size_t n, struct bf_err *err)
{
	double *x = bf_xcalloc(n + 1, sizeof(*x));
	size_t *idx = bf_xcalloc(n + 1, sizeof(*idx)), m = 0, at;
	double pv;
	int rc;

	for (size_t k = 0; k < n; k++) {
		if (isnan(v[k]))
			continue;
		idx[m] = k;
		x[m++] = v[k];
	}
	rc = bf_detect_edivisive_best(&pv, &at, p, x, m, err);
	if (!rc && isfinite(pv) && at < m) {
		*have = true;
		*best_v = pv;
		*best = idx[at];
	}
	free(x);
	free(idx);
	return rc;
}

int bf_detect_series_info(json_t **out, const struct bf_detect_params *p,
                          const double *v, const char (*commits)[41], size_t n,
                          const struct bf_change *found, size_t nfound,
                          struct bf_err *err)
{
	return bf_detect_series_info_reps(out, p, v, NULL, NULL, commits, n,
	                                  found, nfound, err);
}

int bf_detect_series_info_reps(json_t **out, const struct bf_detect_params *p,
                               const double *v, const double *rv,
                               const size_t *roff, const char (*commits)[41],
                               size_t n, const struct bf_change *found,
                               size_t nfound, struct bf_err *err)
{
	struct bf_detect_params q;
	struct bf_change *ch = NULL;
	size_t nch = 0, points = 0, before, after, unjudged, best = 0;
	bool pval = p_based(p), have = false;
	double best_v = 0;
	json_t *strongest = json_null();
	int rc = 0;

	for (size_t k = 0; k < n; k++)
		points += !isnan(v[k]);
	bf_detect_reach(&before, &after, p);
	permissive(&q, p);
	/* edivisive: its alerts', else its best candidate (edivisive_best) */
	if (p->detector == BF_DETECT_EDIVISIVE && nfound) {
		ch = bf_xcalloc(nfound, sizeof(*ch));
		memcpy(ch, found, nfound * sizeof(*ch));
		nch = nfound;
	} else if (p->detector != BF_DETECT_EDIVISIVE && rv) {
		rc = bf_detect_series_reps(&ch, &nch, &q, rv, roff, n, err);
	} else if (p->detector != BF_DETECT_EDIVISIVE) {
		rc = bf_detect_series(&ch, &nch, &q, v, n, err);
	}
	if (rc)
		return rc;
	for (size_t i = 0; i < nch; i++) {
		double s = pval ? ch[i].p_value : fabs(ch[i].score);

		if (!isfinite(s))
			continue;
		if (!have || (pval ? s < best_v : s > best_v)) {
			have = true;
			best_v = s;
			best = ch[i].index;
		}
	}
	free(ch);
	if (!rc && !have && p->detector == BF_DETECT_EDIVISIVE)
		rc = edivisive_best(&have, &best_v, &best, p, v, n, err);
	if (rc)
		return rc;
	if (have)
		strongest = json_pack("{s:s, s:f, s:s}", "statistic",
		                      pval ? "p_value" : "score", "value",
		                      best_v, "commit", commits[best]);
	else if (!pval && points >= before + after)
		/* fitted everywhere, and no position scored above 0 */
		strongest = json_pack("{s:s, s:f, s:n}", "statistic", "score",
		                      "value", 0.0, "commit");
	/* the newest points have fewer than `after` points from them on */
	unjudged = points < before + after ? points : after > 0 ? after - 1 : 0;
	*out = json_pack("{s:I, s:I, s:I, s:I, s:o, s:s, s:f}", "points",
	                 (json_int_t)points, "needs_before", (json_int_t)before,
	                 "needs_after", (json_int_t)after, "unjudged",
	                 (json_int_t)unjudged, "strongest", strongest,
	                 "statistic", pval ? "p_value" : "score", "threshold",
	                 threshold_of(p));
	return 0;
}
