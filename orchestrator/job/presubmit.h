#ifndef BF_PRESUBMIT_H
#define BF_PRESUBMIT_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_cfg;
struct bf_store;

/* What `benchfarm compare` was asked; NULL/negative means "config". */
struct bf_presubmit_opts {
	const char *config;
	const char *base; /* NULL: merge-base with target_branch */
	/*
	 * Run even when base and patch are one commit (the patch is on
	 * target_branch); refused otherwise unless base names it.
	 */
	bool allow_same;
	const char *patch; /* NULL: HEAD */
	const char *device;
	const char *pool;
	const char *json_path;
	const char *markdown_path;
	const char *report; /* compare --report: formats, comma-separated */
	const char *report_dir; /* where they go */
	const char *agent_path; /* NULL: find benchfarm-agent */
	int repeats; /* 0: runs.repeats */
	int warmup; /* -1: runs.warmup */
	uint64_t seed;
	bool seed_set; /* else runs.seed, or a fresh one when that is 0 */
	double alpha; /* -1: presubmit.alpha */
	double min_effect;
	bool progress; /* a progress line on stderr */
	/*
	 * Postsubmit (benchfarm run): measure the one commit "patch" names
	 * and record it in the history; no base, no verdict.
	 */
	bool record;
	const char *only_bench; /* run only this benchmark (bisect) */
	bool quiet; /* no markdown on stdout */
	json_t **result_out; /* when set, gets the result (new reference) */
	const char *trace_bench; /* compare --trace: trace it after the runs */
	/*
	 * When set and the job fails after its run was created: what
	 * failed, as stored in the run's info (new reference): "stage"
	 * ("build" or "run"), "side" ("base", "patch" or "commit" for a
	 * postsubmit run), "commit" (for a build), "error" and, for a
	 * build, "log_tail". NULL when nothing failed.
	 */
	json_t **failure_out;
};

#define BF_PRESUBMIT_OPTS_INIT                                               \
	{                                                                    \
		NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
		        NULL, 0, -1, 0, false, -1, -1, false, false, NULL,   \
		        false, NULL, NULL, NULL                              \
	}

/*
 * Which config produced a result: "fnv1a64:HEX", FNV-1a over the config
 * file at path (an unreadable file hashes as empty). Caller frees.
 */
char *bf_presubmit_config_digest(const char *path);

/*
 * The whole presubmit job: resolve and build both sides, run the plan on
 * the local agent storing every sample as it arrives, judge, write the
 * reports. Prints its own diagnostics and returns the exit code
 * (enum bf_exit).
 */
int bf_presubmit_run(const struct bf_presubmit_opts *o,
                     const struct bf_cfg *cfg, struct bf_store *store);

#endif /* BF_PRESUBMIT_H */
