#ifndef BF_ORCH_DETECT_H
#define BF_ORCH_DETECT_H

#include <jansson.h>

#include "benchfarm/common.h"
#include "benchfarm/detect.h"

struct bf_bisect_opts;
struct bf_cfg;
struct bf_cfg_detector;
struct bf_err;
struct bf_store;

/*
 * Postsubmit detection over the recorded history of one device class:
 * the first-parent history of project.target_branch, one series per
 * (suite, benchmark, metric), the configured detector on each, an
 * alert per step (grouped by the commit that caused it). Points of a
 * suite-wide spike (most series leaving their level for one build and
 * coming back) are left out of the fits and reported as suppressed;
 * points of ignored alerts are left out too.
 */
struct bf_detect_opts {
	const char *device_class; /* NULL: devices.pool */
	const char *algorithm; /* NULL: postsubmit.detector */
	double spike_share; /* share of series that makes a spike suite-wide */
	bool store_alerts; /* false: report only */
};

#define BF_DETECT_OPTS_INIT           \
	{                             \
		NULL, NULL, 0.5, true \
	}

/*
 * Run it. *result_out gets the result JSON (new reference): "alerts"
 * (each with "new" true when stored by this call), "suppressed",
 * "series" count and the detector used. Returns 0 or an error code.
 */
int bf_postsubmit_detect(json_t **result_out, const struct bf_cfg *cfg,
                         struct bf_store *store, const struct bf_detect_opts *o,
                         struct bf_err *err);

/*
 * detect --bisect (detect_bisect.c): every alert of result (from
 * bf_postsubmit_detect) that this detect stored ("new") and whose range
 * commit_lo..commit_hi has unmeasured commits is bisected with o (good,
 * bad and bench are taken from the alert). The alerts of one suite
 * over one range are bisected once, on the series of the one with the
 * largest |score| when they share a detector, else on the clearest
 * change (bisect.h). Each alert's JSON gets "culprit" (a commit, or
 * null when the change found does not explain it: bf_bisect_explains)
 * and "bisect" (the bisect's result, or its "error"); a culprit is
 * stored with the alert. Every step is tried; returns 0, or BF_ERROR
 * with the first failure in err.
 */
int bf_detect_bisect(json_t *result, const struct bf_cfg *cfg,
                     struct bf_store *store, const struct bf_bisect_opts *o,
                     struct bf_err *err);

/* The detector parameters the config asks for (name may override). */
int bf_detect_params_from_cfg(struct bf_detect_params *p,
                              const struct bf_cfg *cfg, const char *name,
                              struct bf_err *err);

/*
 * The parameters of one detector of the config (d->name set, its
 * defaults and the user's values filled in, as the config loader and
 * bf_cfg_detector_init do).
 */
int bf_detect_params_from_detector(struct bf_detect_params *p,
                                   const struct bf_cfg_detector *d,
                                   struct bf_err *err);

/*
 * Likewise for one series: the detector of metric METRIC of config
 * benchmark SUITE if it names one, else SUITE's, else postsubmit's;
 * NAME, when not NULL, overrides them all (--algorithm).
 */
int bf_detect_params_for_series(struct bf_detect_params *p,
                                const struct bf_cfg *cfg, const char *suite,
                                const char *metric, const char *name,
                                struct bf_err *err);

/*
 * Indexes k of commits where at least share of the series that have a
 * point at k (and at least three series) spike: the point leaves the
 * series' level (beyond 4 robust noise units and 2 %) and the next
 * point comes back. out[k] is set true. Exposed for tests.
 */
void bf_detect_suite_spikes(bool *out, double *const *series, size_t nseries,
                            size_t npoints, double share);

/*
 * What detector p needs around a step (detect_info.c): *before points
 * before it and *after from its first new point on (jetpack WIDTH and
 * WIDTH, skia its radius and the rest of its window, perfherder its
 * minimum back window and its fore window, edivisive 1 and 1).
 */
void bf_detect_reach(size_t *before, size_t *after,
                     const struct bf_detect_params *p);

/*
 * Why a series has the steps it has, for people: *out (new reference)
 * gets "points" (values that are not NaN in v[0..n)), "needs_before"
 * and "needs_after" (bf_detect_reach), "unjudged" (how many of the
 * newest points cannot be the first point of a step yet: fewer than
 * needs_after points from them on; every point while the series has
 * fewer than needs_before + needs_after), "statistic" ("score", or
 * "p_value" for edivisive and skia's mannwhitneyu), "threshold" (what
 * an alert needs: |score| at least, or a p-value at most) and
 * "strongest" (the strongest statistic at any position, with the
 * commit of its first new point; a score of 0 with a null commit when
 * every position scored 0; null when no position could be fitted).
 * commits[k] names point k; found[0..nfound) are the changes the
 * detector found in v with p (edivisive's strongest is theirs).
 * Returns 0 or the detector's error.
 */
int bf_detect_series_info(json_t **out, const struct bf_detect_params *p,
                          const double *v, const char (*commits)[41], size_t n,
                          const struct bf_change *found, size_t nfound,
                          struct bf_err *err);
/*
 * The same, for the changes found with bf_detect_series_reps on the
 * repeats rv[roff[k] .. roff[k+1]) of each commit k whose v[k] is not
 * NaN (NULL rv: v alone, as bf_detect_series_info).
 */
int bf_detect_series_info_reps(json_t **out, const struct bf_detect_params *p,
                               const double *v, const double *rv,
                               const size_t *roff, const char (*commits)[41],
                               size_t n, const struct bf_change *found,
                               size_t nfound, struct bf_err *err);

#endif /* BF_ORCH_DETECT_H */
