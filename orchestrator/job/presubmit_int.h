#ifndef BF_PRESUBMIT_INT_H
#define BF_PRESUBMIT_INT_H

#include <jansson.h>
#include <pthread.h>

#include "benchfarm/err.h"
#include "git/artifacts.h"
#include "git/buildid.h"
#include "git/gitrepo.h"
#include "git/workspace.h"
#include "job/compare.h"
#include "job/duet_round.h"
#include "job/plan.h"
#include "job/presubmit.h"

/* The state of one presubmit job, shared by presubmit*.c. */
struct bf_job {
	const struct bf_presubmit_opts *o;
	const struct bf_cfg *cfg;
	struct bf_store *store;
	struct bf_gitrepo *repo;
	struct bf_side side[2]; /* base, patch */
	struct bf_gitcommit info[2];
	struct bf_artifacts arts[2]; /* what each prepared side ships */
	struct bf_build_id build[2]; /* each prepared side's identity */
	/*
	 * Base and patch ship the same build: every difference between
	 * them is the machine's, and no verdict says otherwise.
	 */
	bool same_build;
	/*
	 * A postsubmit record whose build a complete run of its device
	 * class measured already: that run (its id and commit) stands for
	 * this commit, which is not measured again.
	 */
	int64_t same_build_run;
	char same_build_commit[41];
	/* the patch's build is one of o->known_builds: not measured */
	bool known_build;
	pthread_mutex_t lock; /* guards what worker threads share */
	pthread_cond_t cond; /* a unit was finished or given back */
	struct bf_worker **workers;
	size_t nworkers;
	int64_t run_id;
	char *digest;
	uint64_t seed;
	/*
	 * The runs' counts (--repeats, --warmup, runs.repeats: max_repeats
	 * when adaptive), and what each benchmark of the config gets
	 * (runs[b]: the options', else its own resolved by the config).
	 */
	int repeats, warmup;
	struct bf_plan_runs *runs;
	bool adaptive; /* repeats: auto (cmp.design is set) */
	bool record; /* postsubmit: side 1 only, no verdict */
	bool duet; /* runs.mode: duet (--mode): rounds of both at once */
	int reconnects; /* agent connections re-opened */
	int moved_units; /* benchmarks given to another device */
	bool aborted; /* infrastructure failure stopped the plan */
	bool same_commit; /* base and patch are one commit (A/A) */
	char abort_msg[BF_ERR_SIZE]; /* why */
	double started, runs_wall_s, bench_wall_s;
	/* duet: how far apart the rounds' sides were, which were stopped */
	struct bf_duet_tally duet_tally;
	struct bf_comparison cmp;
	json_t *checks; /* every device check result, for the report */
	/*
	 * The leased devices found to be one machine (dispatch.c): an
	 * array of {devices, same, ran}; NULL when none were.
	 */
	json_t *machines;
	json_t *trace; /* compare --trace: files or error; NULL */
	json_t *failure; /* why the job failed, for the run's info; NULL */
	/*
	 * The pool's devices that did not measure for the job, and why:
	 * [{name, health, skipped, before_job, why}] (dispatch.c), skipped
	 * true for a device unfit for now (it keeps its health), before_job
	 * for one the registry kept out (bad, drained); NULL: none.
	 */
	json_t *devices_out;
	bool no_device; /* no device of the pool could measure */
	struct bf_err first_err; /* the first error noted (BF_JOB_ERROR) */
};

/*
 * compare --trace (presubmit_trace.c): trace bench once per side after
 * the measured runs, into dir; the result's "trace" object.
 */
json_t *bf_presubmit_trace(const struct bf_job *job, const char *bench,
                           const char *dir);

/*
 * Whether the comparison tallied in t fails the gate (exit 1): under
 * presubmit.fail_on: regression, a regressed series, or a missing one
 * when presubmit.missing_series is fail.
 */
bool bf_job_gate_fails(const struct bf_job *job, const struct bf_tally *t);

/* The complete result document (presubmit_result.c). New reference. */
json_t *bf_job_result_json(const struct bf_job *job);
/* The result of a postsubmit record (benchfarm run). New reference. */
json_t *bf_job_record_json(const struct bf_job *job);

#endif /* BF_PRESUBMIT_INT_H */
