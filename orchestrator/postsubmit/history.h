#ifndef BF_HISTORY_H
#define BF_HISTORY_H

#include "benchfarm/common.h"

struct bf_cfg;
struct bf_gitrepo;
struct bf_err;
struct bf_store;

/*
 * The postsubmit history: every commit that `benchfarm run` recorded on
 * a device class (the pool label, or the device name), read back from
 * the raw samples as one series per (suite, benchmark, metric) over a
 * given commit order. A commit's point is the median over its runs of
 * each run's median iteration, the same reduction as presubmit uses.
 */
struct bf_hist_series {
	char *suite; /* the config benchmark entry */
	char *benchmark; /* as the program names it */
	char *metric;
	char *unit;
	double *v; /* [ncommits], NaN where the commit has no point */
	double *lo, *hi; /* [ncommits], the least and greatest run median */
	/*
	 * Every run median ("repeat") of commit k, in the store's order:
	 * rv[roff[k] .. roff[k+1]); roff has ncommits + 1 entries. What
	 * the pooled detector reads (bf_detect_series_reps).
	 */
	double *rv;
	size_t *roff;
	size_t npoints; /* values that are not NaN */
};

/*
 * What each commit of the history was measured as: its newest complete
 * run, the build that run shipped, and the run whose samples are its
 * point (the run itself, or the earlier one that measured the same
 * build: the commit was then not measured again).
 */
struct bf_hist_commit {
	char *build_id; /* NULL: not known (not run, or an older store) */
	int64_t run_id; /* 0: no complete run */
	int64_t measured_by; /* the run whose samples are its point */
	int64_t at; /* when the run measured_by started */
};

struct bf_history {
	struct bf_hist_series *series;
	size_t n;
	size_t ncommits;
	struct bf_hist_commit *commit; /* [ncommits] */
};

/*
 * Whether commits i and j were measured as the same build: both builds
 * known and equal. Then no difference between their points is the
 * code's.
 */
bool bf_history_same_build(const struct bf_history *h, size_t i, size_t j);

/*
 * out[k] (ncommits of them) is set true where commit k was not
 * measured but recorded as the same build as a measurement that is a
 * commit of this history too: its point is a copy, and a fit that
 * counted it would count one measurement as many. Others false.
 */
void bf_history_copies(bool *out, const struct bf_history *h);

/*
 * Load the series of device_class over commits[0..ncommits) (oldest
 * first, 40-hex ids). Only complete `run` records count.
 */
int bf_history_load(struct bf_history *h, struct bf_store *store,
                    const char *device_class, char *const *commits,
                    size_t ncommits, struct bf_err *err);
void bf_history_release(struct bf_history *h);

/*
 * Leave out the series whose metric the config does not measure (a
 * benchmark's metrics: list that does not name it, bf_cfg_metric_wanted):
 * history recorded before the list changed keeps such series in the
 * store, and nothing may judge them. Returns how many were left out.
 */
size_t bf_history_drop_excluded(struct bf_history *h, const struct bf_cfg *cfg);

/*
 * The commits a history is read over, oldest first: the first-parent
 * commits of range ("A..B") when it is given, else of
 * project.target_branch (HEAD without one), in the config's repository,
 * which is opened into *repo (the caller frees it, and *out). An error
 * names --range, or project.target_branch and the config.
 */
int bf_history_commits(char (**out)[41], size_t *n, struct bf_gitrepo **repo,
                       const struct bf_cfg *cfg, const char *range,
                       struct bf_err *err);

/* Whether commit has a complete record on device_class. */
int bf_history_measured(bool *out, struct bf_store *store,
                        const char *device_class, const char *commit,
                        struct bf_err *err);

#endif /* BF_HISTORY_H */
