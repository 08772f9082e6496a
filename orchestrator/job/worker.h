#ifndef BF_WORKER_H
#define BF_WORKER_H

#include <jansson.h>
#include <pthread.h>

#include "benchfarm/argv.h"
#include "benchfarm/common.h"
#include "benchfarm/err.h"
#include "benchfarm/sample.h"
#include "job/plan.h"
#include "store/store.h"

struct bf_agentconn;
struct bf_cfg_benchmark;
struct bf_err;
struct bf_job;
struct bf_ssh;

/*
 * One device working for a presubmit job: the local machine (an agent
 * started as a child) or a registered device reached over SSH, with the
 * job's artifacts uploaded to it. Each worker runs in its own thread
 * with its own SSH session; everything shared lives in struct bf_job
 * behind job->lock.
 */
struct bf_worker {
	struct bf_job *job;
	char *name; /* device name; "local" */
	bool local; /* the machine benchfarm runs on */
	struct bf_store_device dev; /* registry record (remote only) */
	struct bf_ssh *ssh;
	struct bf_agentconn *agent;
	json_t *info; /* the agent's info answer */
	struct bf_argv art_local[2]; /* artifact paths as configured */
	struct bf_argv art_remote[2]; /* where they are on the device */
	/*
	 * What each side's run asks the agent to check first: every
	 * artifact's device path and the SHA-256 it is cached under
	 * ("verify" of a run request); NULL for the local machine.
	 */
	json_t *art_verify[2];
	char *remote_cwd; /* remote working directory */
	bool leased;
	int64_t lease_token; /* the fencing token of its lease */
	bool lease_lost; /* a renewal or a fence was refused (another
	                  holder, or gone): no longer renewed, and the worker
	                  runs nothing more; other failures are retried */
	bool dead; /* gave up: unreachable, unfit or broken */
	/*
	 * It gave up because a check found it unfit for now only (load,
	 * heat, battery, throttle: bf_devcheck_is_transient): out of this
	 * job, its health unchanged.
	 */
	bool transient;
	/*
	 * The last failure was the job's (an artifact it cannot ship, a
	 * sample the store refused), not the device's: the job stops, the
	 * device keeps its health.
	 */
	bool job_fault;
	bool counters_noted; /* its unavailable counters were logged */
	char why[BF_ERR_SIZE]; /* why it gave up */
	int steps_done; /* measured and warmup runs completed */
	/*
	 * Its machine among the job's devices (dispatch.c): the index of
	 * the pool's first device on that machine, -1 when no other
	 * device of the pool is (or its machine is not known).
	 */
	int machine;
	pthread_t thread;
};

/*
 * Whether w still holds its lease (the store's fence, and no renewal
 * refused by the heartbeat): 0, or BF_EBUSY with w->lease_lost and
 * w->job_fault set and err naming the device and saying whose lease it
 * is now; another code (job_fault set) when the store cannot tell. A
 * worker checks it before each run of a benchmark and before it
 * records a benchmark's failure. The local machine holds no lease and
 * is not fenced. Under job->lock.
 */
int bf_worker_lease_check(struct bf_worker *w, struct bf_err *err);

/*
 * Open the write transaction of what w stores for the job (samples,
 * check results), fenced by w's lease: refused (BF_EBUSY, w->lease_lost
 * and w->job_fault set, err saying whose lease it is now) when the
 * lease was lost, so a job whose device went to another job stores
 * nothing more for it. The local machine holds no lease and is not
 * fenced. Under job->lock.
 */
int bf_worker_fence_begin(struct bf_worker *w, int *txn, struct bf_err *err);
/* Commit (rc 0) or roll back what bf_worker_fence_begin opened. */
int bf_worker_fence_end(struct bf_worker *w, int txn, int rc,
                        struct bf_err *err);

/* A worker for the local machine. Cannot fail. */
struct bf_worker *bf_worker_new_local(struct bf_job *job);
/* A worker for a registered device; dev is copied. Cannot fail. */
struct bf_worker *bf_worker_new_remote(struct bf_job *job,
                                       const struct bf_store_device *dev);
void bf_worker_free(struct bf_worker *w);

/*
 * Connect (SSH when remote), upload the artifacts of the sides the job
 * measures and start the agent; reconnects a broken agent. Errors name
 * the device; w->job_fault tells a failure that is the job's (a local
 * artifact it cannot ship) from the device's.
 */
int bf_worker_connect(struct bf_worker *w, struct bf_err *err);

/*
 * Upload the artifacts of each side the job measures (worker_art.c)
 * over w->ssh, and set art_local, art_remote and art_verify. A local
 * artifact that cannot be shipped (missing, not a regular file, too
 * big, changed since it was checked) sets w->job_fault.
 */
int bf_worker__upload_artifacts(struct bf_worker *w, struct bf_err *err);

/*
 * Every raw sample of nruns measured runs (st[i] and s[i]) in one
 * transaction fenced by the device's lease. The history (job->record:
 * run, backfill) does not keep a metric the benchmark's metrics: list
 * leaves out: nothing may judge it. A compare keeps them all, as its
 * result's samples has them.
 */
int bf_worker__store_runs(struct bf_worker *w, const struct bf_plan_step *st,
                          const struct bf_samples *s, int nruns,
                          struct bf_err *err);
/* The "run" request of one side's step (st->side base or patch). */
json_t *bf_worker__run_request(const struct bf_worker *w,
                               const struct bf_plan_step *st);
/*
 * A run's counters from its final answer into s, as metrics keep them;
 * BF_ERROR (the benchmark's error, err set) when the benchmark printed
 * a metric of a kept counter's name itself (bf_counters_add).
 */
int bf_worker__add_counters(struct bf_worker *w, struct bf_samples *s,
                            const json_t *final,
                            const struct bf_cfg_benchmark *b,
                            struct bf_err *err);
/*
 * A duet round (st->side BF_SIDE_BOTH, worker_duet.c): both sides at
 * once on two cores, recorded together or not at all; returns as
 * bf_worker_run_step(). A device with fewer than 2 cores sets
 * w->job_fault and fails with BF_EINVAL naming it.
 */
int bf_worker__run_duet(struct bf_worker *w, const struct bf_plan_step *st,
                        struct bf_err *err);

/*
 * Run the device checks before a measurement block (presubmit_check.c):
 * BF_EBUSY when the device is not fit.
 */
int bf_worker_check(struct bf_worker *w, int block, struct bf_err *err);

/*
 * One step of the plan on this device. 0 when the run was measured or
 * failed as a benchmark (recorded as a per-benchmark error); another
 * code when the device could not do it (connection lost after the
 * configured retries): the step is not recorded and may be redone
 * elsewhere; or, with w->job_fault set, when the orchestrator could not
 * record it (the store refused the samples), or when w's lease is lost
 * (w->lease_lost): then the benchmark is not run and nothing of the
 * step is recorded.
 */
int bf_worker_run_step(struct bf_worker *w, const struct bf_plan_step *st,
                       struct bf_err *err);

/*
 * What one run's events add up to, bounded: at most max samples, and
 * at most BF_WORKER_RUN_TEXT_MAX bytes of their names, metrics and
 * units, so a run that never stops reporting cannot exhaust memory.
 */
struct bf_worker_run {
	struct bf_samples s;
	size_t max; /* runs.samples_max */
	size_t text; /* bytes of strings kept so far */
	struct bf_err err; /* why the run was stopped */
};
#define BF_WORKER_RUN_TEXT_MAX ((size_t)64 << 20)

/*
 * A "run" request's events into samples: each "sample" event with a
 * numeric value is added to payload (a struct bf_worker_run); other
 * events and malformed samples are ignored. 0, or BF_ETOOBIG (the
 * payload's err names the limit) for a sample beyond a limit, which
 * ends the request.
 */
int bf_worker_on_event(const json_t *ev, void *payload);

#endif /* BF_WORKER_H */
