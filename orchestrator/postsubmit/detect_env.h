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
 * - they are the same build: the run G of consecutive measured points
 *   of that build around the step is read with the levels of the
 *   builds measured before and after it (the median of their own runs
 *   of points, up to BF_PLACE_REACH each). Levels differ
 *   when they are further apart than the series' noise allows: 4 times
 *   its robust noise (the scaled MAD of successive differences), and
 *   at least 2%. When G's points themselves split into two levels (at
 *   the best fit of one change point: the split whose two medians
 *   leave the least absolute deviation), the machine
 *   moved between two measurements of one build: an environment shift
 *   there, never a code alert; and where G's first level differs from
 *   the level before G, or its last from the level after, that is a
 *   code step at the build change (one detector step can hold both,
 *   when a code step and a shift of the machine are a few commits
 *   apart). When G is at one level, the step belongs to the build
 *   change that G's level differs from (the larger difference): a
 *   detector's fit can put a step a point early or late where
 *   neighbouring points are equal, as a commit that changed only tests
 *   or CI is to its parent.
 */
enum bf_step_place {
	BF_STEP_CODE, /* an alert */
	BF_STEP_ENV, /* an environment shift */
};

#define BF_PLACE_REACH 8

/*
 * A series' robust noise: the scaled MAD of the differences of its
 * successive measured points (NaN: none), over sqrt(2).
 */
double bf_detect_noise(const double *v, size_t n);

struct bf_step_placed {
	enum bf_step_place kind;
	size_t lo, k; /* the last point before it, its first new point */
	/*
	 * The levels either side, when the placement measured them (NaN:
	 * the detector's stand).
	 */
	double before, after;
};

/*
 * Place the step a detector found between measured points lo and k (k
 * its first new point) of series values v (NaN: no point) over h's
 * commits. out gets up to 3 placements; returns how many (0: none can
 * be placed yet, a build change with no point after it).
 */
size_t bf_detect_place_step(struct bf_step_placed out[3],
                            const struct bf_history *h, const double *v,
                            size_t lo, size_t k);

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
