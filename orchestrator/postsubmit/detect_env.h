#ifndef BF_DETECT_ENV_H
#define BF_DETECT_ENV_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_err;
struct bf_history;
struct bf_store;

/*
 * Code or environment: a step between two points of one build cannot
 * be the code's. The history records each commit's build identity, and
 * a detector's step is placed against it:
 *
 * - the builds of the points either side of the step differ (or one is
 *   not known): a code step, where the detector put it;
 * - they are the same build: the run of consecutive measured points of
 *   that build around the step is looked at. When its points after the
 *   step are still at the level before it, the step belongs at the
 *   first build change after the run; when its points before the step
 *   are already at the level after it, at the build change that
 *   started the run (a detector's fit can put a step one point early
 *   or late where two points are equal, as a commit that changed only
 *   tests or CI is to its parent). Otherwise the level moved between
 *   points of one build: an environment shift, never a code alert.
 */
enum bf_step_place {
	BF_STEP_CODE, /* at *lo_out .. *k_out */
	BF_STEP_ENV, /* between lo and k, identical builds */
	BF_STEP_NONE, /* placed at a build change that has no point yet */
};

/*
 * Place the step a detector found between measured points lo and k (k
 * its first new point) of series values v (NaN: no point) over h's
 * commits, with the levels before and after it (NaN: read from v).
 * *lo_out and *k_out get the step's points (for BF_STEP_ENV, lo and k).
 */
enum bf_step_place bf_detect_place_step(size_t *lo_out, size_t *k_out,
                                        const struct bf_history *h,
                                        const double *v, size_t lo, size_t k,
                                        double before, double after);

/*
 * What the device checks said around a step between the runs of
 * commits lo and k of h: *out (new reference) gets "runs" [lo's, k's],
 * "gap_s" (seconds between their starts), "devices" (that ran the
 * checks) and "checks": per check with a value in both runs, "before"
 * and "after" (the mean of each run's values) and "changed" (load:
 * at least one more or fewer runnable task and half as many again;
 * thermal: 5 degrees C or more; others are shown, not judged), and
 * "changed" (any of them). 0 or a store error.
 */
int bf_detect_env_evidence(json_t **out, struct bf_store *store,
                           const struct bf_history *h, size_t lo, size_t k,
                           struct bf_err *err);

#endif /* BF_DETECT_ENV_H */
