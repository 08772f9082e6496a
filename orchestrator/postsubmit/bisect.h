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
	const char *series, *metric; /* NULL: the one that changed most */
	int repeats; /* runs per side and probe; 0: runs.repeats */
	const char *device, *pool; /* NULL: devices.pool */
	FILE *log; /* the evidence, a line a probe; NULL: none */
	bf_job_note_fn *note; /* each probe's job notes; NULL: dropped */
	void *note_arg;
};

#define BF_BISECT_OPTS_INIT                                                   \
	{                                                                     \
		NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL \
	}

/*
 * Run it. On success *result_out (new reference) holds "kind":
 * "bisect", "benchmark", "good", "bad", "commits" (the range's length),
 * "culprit" (a commit id, or null), "candidates" (when skipped commits
 * leave several, oldest first; else absent), "skipped" (commits that
 * could not be judged), "probes" (commit, verdict, bad, series
 * evidence; a skipped one has verdict "skipped" and a "reason") and,
 * when good and bad differ, "series", "metric" and "direction"
 * (regressed or improved). When no change between good and bad
 * reproduces, culprit is null and there is no "series".
 * Returns 0, BF_EINVAL (unknown benchmark; a range that is reversed,
 * empty or unknown) or BF_ERROR (a probe failed other than by its
 * commit's build: no device, the good or bad commit does not build).
 */
int bf_bisect_run(json_t **result_out, const struct bf_cfg *cfg,
                  struct bf_store *store, const struct bf_bisect_opts *o,
                  struct bf_err *err);

/*
 * The next position to probe strictly between lo (good) and hi (bad):
 * the midpoint lo + (hi - lo) / 2, or when skipped[] marks it, the
 * nearest position that is not skipped (above first, then below, then
 * further out). 0 when every position between them is skipped or
 * there is none. Exposed for tests.
 */
size_t bf_bisect_next(size_t lo, size_t hi, const bool *skipped);

#endif /* BF_BISECT_H */
