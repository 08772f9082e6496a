#ifndef BF_SPAWN_H
#define BF_SPAWN_H

#include <sys/types.h>

#include "benchfarm/buf.h"
#include "benchfarm/common.h"

struct bf_err;

/*
 * Called by bf_spawn_run in the parent with the child's pid while the
 * child runs (every tick_s seconds) or once it has exited (before it is
 * reaped, so /proc/PID still describes it with its final CPU times).
 * payload is bf_spawn_opts.payload. Must not wait for or signal pid.
 */
typedef void bf_spawn_tick_fn(pid_t pid, void *payload);

/* CPU numbers bf_spawn_opts.cpus accepts: 0..BF_SPAWN_CPUS_MAX-1. */
#define BF_SPAWN_CPUS_MAX 1024

/*
 * Running programs without a shell: argv arrays only. The child gets
 * /dev/null as stdin unless stdin_data is set, runs in its own process
 * group, and the whole group is killed on timeout.
 */
struct bf_spawn_opts {
	const char *const *argv; /* argv[0] is looked up in PATH */
	const char *cwd; /* NULL: inherit */
	const char *const *env_set; /* "K=V" entries added/overriding; NULL */
	const char *stdin_data; /* NULL: /dev/null */
	size_t stdin_len;
	double timeout_s; /* 0: none */
	size_t out_max; /* cap on captured stdout; 0: 1 MiB */
	size_t err_max; /* cap on captured stderr; 0: 64 KiB */
	bool kill_on_overflow; /* kill the group when a cap is hit */
	bool merge_stderr; /* stderr into the stdout capture */
	/* Periodic sampling (0 / NULL: none); see bf_spawn_tick_fn. */
	double tick_s; /* interval between calls of tick */
	bf_spawn_tick_fn *tick; /* called every tick_s while the child runs */
	bf_spawn_tick_fn *exited; /* called once after exit, before reaping */
	void *payload; /* borrowed; handed to tick, exited and started */
	/*
	 * Called once in the parent right after fork, while the child waits
	 * before exec (after taking its affinity and niceness): what is set
	 * up on the child's pid here, such as a perf event with
	 * enable_on_exec, sees the program from its first instruction.
	 * NULL: the child does not wait.
	 */
	bf_spawn_tick_fn *started;
	/* Applied in the child before exec; inherited by its children. */
	const int *cpus; /* CPU affinity (sched_setaffinity); NULL: inherit */
	size_t ncpus; /* entries in cpus, each 0..BF_SPAWN_CPUS_MAX-1 */
	bool set_nice; /* apply nice below */
	int nice; /* absolute niceness (setpriority), -20..19 */
};

#define BF_SPAWN_OPTS_INIT \
	{                  \
		0          \
	}

struct bf_spawn_result {
	int exit_code; /* exit status, or -1 when killed by a signal */
	int term_signal; /* the signal, or 0 */
	bool timed_out; /* killed because of timeout_s */
	bool out_truncated; /* stdout exceeded out_max; the rest discarded */
	bool err_truncated;
	double wall_s; /* from fork to reaping */
	double user_s; /* CPU time of the child (and its reaped children) */
	double sys_s;
	long maxrss_kb;
	long nvcsw, nivcsw; /* voluntary and involuntary context switches */
	struct bf_buf out; /* captured stdout, owned by the result */
	struct bf_buf err; /* captured stderr, owned by the result */
};

void bf_spawn_result_init(struct bf_spawn_result *res);
/* Frees the captured output; NULL is ok. */
void bf_spawn_result_release(struct bf_spawn_result *res);

/*
 * Runs opts->argv to completion and fills res (initialised by this
 * call; release it even on failure). Returns 0 when the program ran,
 * whatever its exit status: check res->exit_code, timed_out and
 * term_signal. Returns BF_ENOTFOUND when argv[0] cannot be executed
 * (message names it), BF_EINVAL for a CPU number out of range, BF_ESYS
 * for other system failures, including an affinity or niceness the
 * child could not take (message says which; the program did not run).
 */
int bf_spawn_run(struct bf_spawn_result *res, const struct bf_spawn_opts *opts,
                 struct bf_err *err);

/* True when the program ran and exited 0. */
bool bf_spawn_is_success(const struct bf_spawn_result *res);

/*
 * Describe how the program ended: "exited with status 2", "killed by
 * signal 9", "timed out after 5 s". Writes into buf of size len.
 */
void bf_spawn_describe(const struct bf_spawn_result *res, double timeout_s,
                       char *buf, size_t len);

/*
 * A long-running child that we talk to over pipes (the local agent).
 * Its stderr is inherited, so its diagnostics reach the user.
 */
struct bf_child {
	pid_t pid; /* 0 when not running */
	int in_fd; /* write end of the child's stdin, or -1 */
	int out_fd; /* read end of the child's stdout, or -1 */
};

/* Start argv with pipes on stdin/stdout. BF_ENOTFOUND, BF_ESYS. */
int bf_child_start(struct bf_child *c, const char *const *argv,
                   const char *const *env_set, struct bf_err *err);

/*
 * Close the child's stdin, wait up to grace_s for it to exit, then kill
 * it. Sets *status_out (exit status, or 128 + signal) when non-NULL.
 * Safe on a child that was never started.
 */
void bf_child_stop(struct bf_child *c, double grace_s, int *status_out);

/*
 * Kill (SIGKILL) and reap every child of this process, then theirs as
 * they are reparented to it, until none is left: for a subreaper
 * (PR_SET_CHILD_SUBREAPER, the agent) after a run, the processes the
 * run left behind outside its process group (a setsid daemon), which
 * were adopted as their parents ended. Only for a process with no
 * children of its own still running. Reads /proc; returns how many it
 * killed (0 without /proc).
 */
int bf_spawn_kill_strays(void);

/* Monotonic seconds, for timing and deadlines. */
double bf_now_monotonic(void);

#endif /* BF_SPAWN_H */
