#ifndef BF_DETECT_STEPFIT_INT_H
#define BF_DETECT_STEPFIT_INT_H

#include "benchfarm/detect.h"

/*
 * Shared by the step-fit detectors only: detect_jetpack.c and
 * detect_skia.c use detect_stepfit.c (grouping flagged positions into
 * runs, the window's defaults) and detect_skia.c uses detect_skia_mwu.c;
 * neither of those two calls back.
 */

/* bf_step_window.status */
#define BF_STEPFIT_NONE "Uninteresting"
#define BF_STEPFIT_HIGH "High"
#define BF_STEPFIT_LOW  "Low"

/* The changes found so far, growing; { NULL, 0, 0 } to start. */
struct bf_stepfit_changes {
	struct bf_change *v;
	size_t n, cap;
};

/* The best change of the current run of flagged positions. */
struct bf_stepfit_run {
	bool open;
	double key; /* larger is stronger */
	struct bf_change best;
};

/*
 * End the run r: its best change, if any, goes to acc. Cannot fail
 * (aborts on OOM).
 */
void bf_stepfit__run_close(struct bf_stepfit_run *r,
                           struct bf_stepfit_changes *acc);

/*
 * A flagged position ch of strength key: it extends the run (kept when
 * stronger than the run's best), or starts one when the direction
 * changed or no run is open.
 */
void bf_stepfit__run_offer(struct bf_stepfit_run *r,
                           struct bf_stepfit_changes *acc,
                           const struct bf_change *ch, double key);

/*
 * Hand acc's changes to the caller: *out (caller frees; NULL when there
 * are none) and *nout.
 */
void bf_stepfit__changes_give(struct bf_change **out, size_t *nout,
                              struct bf_stepfit_changes *acc);

/* The mean of v[0..n), n > 0. */
double bf_stepfit__mean(const double *v, size_t n);

/* (after - before) / before; NaN when before is 0 (detect.h). */
double bf_stepfit__rel_size(double before, double after);

/* out zeroed, least_squares lse, status "Uninteresting". */
void bf_stepfit__window_reset(struct bf_step_window *out, double lse);

/*
 * go-moremath stats.MannWhitneyUTest(l, r, LocationDiffers) on the n1
 * values of l and the n2 of r (detect_skia_mwu.c): *u1 the U of l,
 * *p the two-sided p-value. false (the test's error, *p unset) when a
 * sample is empty or every value is equal.
 */
bool bf_skia__mwu_test(double *u1, double *p, const float *l, size_t n1,
                       const float *r, size_t n2);

#endif /* BF_DETECT_STEPFIT_INT_H */
