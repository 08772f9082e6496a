/*
 * Step-fit detectors: Android Jetpack CI's score (androidx's
 * benchmark step fitting, "Fighting regressions with benchmarks in CI",
 * detect_jetpack.c) and Skia Perf's step fit with its five selectable
 * variants (go/stepfit in skia-buildbot's perf, detect_skia.c). This
 * file holds what both share.
 *
 * Scanning a series (bf_detect_jetpack, bf_detect_skia): every position
 * with a full window is scored as "the first value after the step". Around
 * one true step several neighbouring positions cross the threshold, so
 * flagged positions are grouped into runs of consecutive positions with
 * the same direction, and each run reports only its strongest position:
 * the largest |score| (jetpack), the largest |Regression| (Skia), or the
 * smallest p-value (Skia mannwhitneyu). Ties keep the earliest position.
 * A change of direction starts a new run, so a short spike (up, then
 * down) reports both of its edges.
 */
#include "detect_stepfit_int.h"

#include <math.h>

#include "benchfarm/alloc.h"

static void changes_push(struct bf_stepfit_changes *c,
                         const struct bf_change *ch)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->v = bf_xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	c->v[c->n++] = *ch;
}

void bf_stepfit__run_close(struct bf_stepfit_run *r,
                           struct bf_stepfit_changes *acc)
{
	if (r->open)
		changes_push(acc, &r->best);
	r->open = false;
}

/* A flagged position: it extends the run, or starts one. */
void bf_stepfit__run_offer(struct bf_stepfit_run *r,
                           struct bf_stepfit_changes *acc,
                           const struct bf_change *ch, double key)
{
	if (r->open && r->best.direction != ch->direction)
		bf_stepfit__run_close(r, acc);
	if (!r->open || key > r->key) {
		r->best = *ch;
		r->key = key;
		r->open = true;
	}
}

void bf_stepfit__changes_give(struct bf_change **out, size_t *nout,
                              struct bf_stepfit_changes *acc)
{
	*out = acc->v;
	*nout = acc->n;
	if (!acc->n) {
		free(acc->v);
		*out = NULL;
	}
}

double bf_stepfit__mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += v[k];
	return s / (double)n;
}

/* (after - before) / before; NaN when before is 0 (detect.h). */
double bf_stepfit__rel_size(double before, double after)
{
	return before == 0 ? NAN : (after - before) / before;
}

void bf_stepfit__window_reset(struct bf_step_window *out, double lse)
{
	memset(out, 0, sizeof(*out));
	out->least_squares = lse;
	out->status = BF_STEPFIT_NONE;
}
