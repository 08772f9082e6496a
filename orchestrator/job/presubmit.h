#ifndef BF_PRESUBMIT_H
#define BF_PRESUBMIT_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_cfg;
struct bf_err;
struct bf_store;

/*
 * What a job tells its caller as it goes. The engine prints nothing: the
 * caller shows each note under its own command's name, or keeps it.
 * text is one message (a build log's tail: several lines), with no
 * final newline.
 */
enum bf_job_note {
	BF_JOB_PREPARING, /* a side's build begins: "base 0123456789ab" */
	BF_JOB_STEP, /* a run ended: "[3/40] BM_x base run 2 on d1" */
	BF_JOB_STEPS_END, /* the runs are over (text ""): a step line ends */
	BF_JOB_WARNING, /* the job goes on */
	BF_JOB_ERROR, /* the job fails; its exit code says how */
	BF_JOB_BUILD_LOG, /* the failed build's log tail, after its error */
	/*
	 * Its place in the pool's queue changed: "waiting for a device of
	 * pool 'lab': 2 jobs ahead (ticket 7), 1 device leased" (a
	 * progress line on a terminal)
	 */
	BF_JOB_WAITING,
};

/*
 * Called from the job's thread and, for BF_JOB_STEP, from its device
 * threads: one call at a time (the job's lock is held).
 */
typedef void bf_job_note_fn(void *arg, enum bf_job_note kind, const char *text);

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
	int repeats; /* 0: runs.repeats; BF_REPEATS_AUTO: adaptive */
	int warmup; /* -1: runs.warmup */
	uint64_t seed;
	bool seed_set; /* else runs.seed, or a fresh one when that is 0 */
	double alpha; /* -1: presubmit.alpha */
	double min_effect;
	bf_job_note_fn *note; /* NULL: the notes are dropped */
	void *note_arg;
	/*
	 * Postsubmit (benchfarm run): measure the one commit "patch" names
	 * and record it in the history; no base, no verdict.
	 */
	bool record;
	const char *only_bench; /* run only this benchmark (bisect) */
	/*
	 * A compare without markdown_path: when set, gets the markdown
	 * report (caller frees) for the caller to show; else none is made.
	 */
	char **markdown_out;
	/*
	 * When set, gets the result (new reference) once the job has run;
	 * its "status" "infra_failure" and "infra_error" say when the runs
	 * were stopped, for the caller to show.
	 */
	json_t **result_out;
	const char *trace_bench; /* compare --trace: trace it after the runs */
	/*
	 * When set and the job fails after its run was created: what
	 * failed, as stored in the run's info (new reference): "stage"
	 * ("build" or "run"), "side" ("base", "patch" or "commit" for a
	 * postsubmit run), "commit" (for a build), "error" and, for a
	 * build, "log_tail". NULL when nothing failed.
	 */
	json_t **failure_out;
	/*
	 * Seconds to wait in the pool's queue while every device is
	 * leased; -1: devices.wait.
	 */
	int wait_s;
	/* compare --mode: 0: runs.mode; else BF_MODE_INTERLEAVED or _DUET */
	int mode;
	/*
	 * Postsubmit: measure the commit even when a complete run of its
	 * device class measured the same build (to watch the machine);
	 * else that run's samples stand for this commit.
	 */
	bool measure_every;
	/*
	 * A compare: build identities whose outcome the caller knows
	 * (bisect: good's and bad's). When the patch's build is one of
	 * them, the job builds but measures nothing, and its result's
	 * "known_build" names it. NULL: none.
	 */
	const char *known_builds[2];
};

enum { BF_MODE_INTERLEAVED = 1, BF_MODE_DUET = 2 };

/* bf_presubmit_opts.repeats: repeats: auto, whatever the config says. */
#define BF_REPEATS_AUTO (-1)

#define BF_PRESUBMIT_OPTS_INIT                                               \
	{                                                                    \
		NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
		        NULL, 0, -1, 0, false, -1, -1, NULL, NULL, false,    \
		        NULL, NULL, NULL, NULL, NULL, -1, 0, false,          \
		{                                                            \
			NULL, NULL                                           \
		}                                                            \
	}

/*
 * Which config produced a result: "fnv1a64:HEX", FNV-1a over the config
 * file at path (an unreadable file hashes as empty). Caller frees.
 */
char *bf_presubmit_config_digest(const char *path);

/*
 * The whole presubmit job: resolve and build both sides, run the plan on
 * the local agent storing every sample as it arrives, judge, write the
 * files asked for (json_path, markdown_path). Returns the exit code
 * (enum bf_exit). What stops it before the runs (a revision, the store,
 * a build) and a file it cannot write go to o->note as BF_JOB_ERROR, and
 * err (may be NULL) gets the first of them; runs that the devices could
 * not finish are said by the result and by failure_out.
 */
int bf_presubmit_run(const struct bf_presubmit_opts *o,
                     const struct bf_cfg *cfg, struct bf_store *store,
                     struct bf_err *err);

#endif /* BF_PRESUBMIT_H */
