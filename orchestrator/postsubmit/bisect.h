#ifndef BF_BISECT_H
#define BF_BISECT_H

#include <jansson.h>
#include <stdio.h>

#include "benchfarm/common.h"
#include "job/presubmit.h"

struct bf_cfg;
struct bf_err;
struct bf_store;

/*
 * Bisect a step between a good and a bad commit down to the one commit
 * that caused it (benchfarm bisect, detect --bisect). Every probe is a
 * presubmit compare of the good commit against a commit of the
 * first-parent range, on one config benchmark entry, with repeated
 * interleaved runs on one device; a commit is bad when the followed
 * series moves the same way as between good and bad. Assumes one cause
 * in the range, as git bisect does. A probe whose commit does not
 * build, or whose verdict is still "unknown" (too noisy) when probed a
 * second time, is skipped, as git bisect skip: the nearest untested
 * commit is probed instead, and when only skipped commits are left the
 * culprit is one of them or the first bad commit after them.
 */
struct bf_bisect_opts {
	const char *good, *bad; /* revisions; required */
	const char *bench; /* config benchmark entry; required */
	const char *series, *metric; /* NULL: the clearest change (below) */
	int repeats; /* runs per side and probe; 0: runs.repeats */
	const char *device, *pool; /* NULL: devices.pool */
	FILE *log; /* the evidence, a line a probe; NULL: none */
	bf_job_note_fn *note; /* each probe's job notes; NULL: dropped */
	void *note_arg;
	const json_t *choice; /* why series was named (detect --bisect's
	                         "choice"), borrowed; NULL: none */
};

#define BF_BISECT_OPTS_INIT                                                    \
	{                                                                      \
		NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, \
		        NULL                                                   \
	}

/*
 * Run it. On success *result_out (new reference) holds "kind":
 * "bisect", "benchmark", "good", "bad", "commits" (the range's length),
 * "culprit" (a commit id, or null), "candidates" (when skipped commits
 * leave several, oldest first; else absent), "skipped" (commits that
 * could not be judged), "probes" (commit, verdict, bad, series
 * evidence; a skipped one has verdict "skipped" and a "reason"),
 * "endpoints" (every series of good against bad: series, metric,
 * verdict, effect, ci_low, ci_high, clarity) and, when good and bad
 * differ, "series", "metric", "direction" (regressed or improved) and
 * "choice" (why that series: bf_bisect_choice_json, or o->choice).
 * When no change between good and bad reproduces, culprit is null and
 * there is no "series".
 * Returns 0, BF_EINVAL (unknown benchmark; a range that is reversed,
 * empty or unknown) or BF_ERROR (a probe failed other than by its
 * commit's build: no device, the good or bad commit does not build).
 */
int bf_bisect_run(json_t **result_out, const struct bf_cfg *cfg,
                  struct bf_store *store, const struct bf_bisect_opts *o,
                  struct bf_err *err);

/*
 * Which side a probe is on when it is unclear (unknown: neither a
 * verdict against good nor within min_effect of it), from its interval
 * [ci_low, ci_high] against good and effect, the change between good
 * and bad: 1 (bad) or -1 (good) when the whole interval lies on one
 * side of half that change on the log scale, 0 when it spans the
 * half-way mark or a value is missing. A probe at -0.3% [-4.2%, +0.5%]
 * of a +300% step is good, however unsure it is of being within 2% of
 * good.
 */
int bf_bisect_side(double effect, double ci_low, double ci_high);

/*
 * The next position to probe strictly between lo (good) and hi (bad):
 * the midpoint lo + (hi - lo) / 2, or when skipped[] marks it, the
 * nearest position that is not skipped (above first, then below, then
 * further out). 0 when every position between them is skipped or
 * there is none. Exposed for tests.
 */
size_t bf_bisect_next(size_t lo, size_t hi, const bool *skipped);

/*
 * Which series a bisect follows (bisect_choose.c). Not the one that
 * changed most: a noisy series can show the largest change between good
 * and bad and still leave the probes between them unclear, while a
 * quiet one with a smaller change answers every probe. The followed
 * series is the one whose change between good and bad is the most
 * certain: its clarity, |log(1 + effect)| over the half-width of the
 * bootstrap interval of the change on the same scale,
 * (log(1 + ci_high) - log(1 + ci_low)) / 2, is the largest among the
 * series whose verdict is a change (regressed or improved). An
 * interval of no width (exact counts) is clearer than any other;
 * between two such, the larger change.
 */

/*
 * The clarity of one series of a compare result (its JSON: effect,
 * ci_low, ci_high): as above; INFINITY when the interval has no width
 * and the change is not 0; NAN when it is undefined (no interval, a
 * change or bound of -100% or less). Cannot fail.
 */
double bf_bisect_clarity(const json_t *series);

/*
 * Choose from the "results" of a compare result: the series that match
 * name and metric (NULL: any), and with need_change only those whose
 * verdict is regressed or improved; of them the clearest (above).
 * Returns the chosen one (borrowed from result) or NULL when none
 * fits; *runner_up_out (may be NULL) gets the next clearest, or NULL.
 * Cannot fail.
 */
json_t *bf_bisect_choose(json_t **runner_up_out, const json_t *result,
                         const char *name, const char *metric,
                         bool need_change);

/*
 * The "choice" of a bisect result for chosen (and runner_up, may be
 * NULL), both from bf_bisect_choose: "rule" ("clearest", or "named"
 * when named is true: --series or --metric chose it), "series",
 * "metric", "effect", "ci_low", "ci_high", "clarity" (null when
 * infinite) and "runner_up" (the same five, or null). New reference.
 */
json_t *bf_bisect_choice_json(const json_t *chosen, const json_t *runner_up,
                              bool named);

/*
 * The "endpoints" of a bisect result: every series of result (the
 * compare of good against bad) as series, metric, verdict, effect,
 * ci_low, ci_high and clarity. New reference.
 */
json_t *bf_bisect_endpoints_json(const json_t *result);

/*
 * Write the one-line reason for choice (from bf_bisect_choice_json, or
 * detect --bisect's) to f, ending with a newline. Cannot fail.
 */
void bf_bisect_choice_print(FILE *f, const json_t *choice);

/*
 * Whether the change a bisect result found explains an alert of series
 * name, metric and direction over the same commits: that series'
 * verdict between good and bad (the result's "endpoints") is that
 * direction, as the followed series' always is. Cannot fail.
 */
bool bf_bisect_explains(const json_t *result, const char *name,
                        const char *metric, const char *direction);

/*
 * A stand-alone bisect's culprit with the alerts it answers
 * (bisect_alert.c): every open alert of suite result's "benchmark" on
 * device class klass whose commit range commit_lo..commit_hi holds the
 * bisect's (good is commit_lo or after it, bad is commit_hi or before
 * it, on the first-parent history) and that the change explains
 * (bf_bisect_explains) gets result's culprit stored. result gets
 * "alerts": [{id, benchmark, metric, commit_lo, commit_hi, culprit,
 * culprit_is_commit_hi}, ...] (empty when none), and each is said on
 * log (NULL: not), with whether the culprit is the alert's commit_hi,
 * which an alert blames until a bisect names its culprit. A result
 * without a culprit records nothing. Returns 0 or an error code of the
 * store or the repository.
 */
int bf_bisect_record_alerts(json_t *result, const struct bf_cfg *cfg,
                            struct bf_store *store, const char *klass,
                            FILE *log, struct bf_err *err);

#endif /* BF_BISECT_H */
