#ifndef BF_AGENT_RUN_MEASURE_H
#define BF_AGENT_RUN_MEASURE_H

#include "benchfarm/argv.h"
#include "benchfarm/json.h"
#include "benchfarm/spawn.h"
#include "counters.h"

struct bf_err;

/*
 * What a "run" request measures beside (or instead of) what the
 * benchmark prints: "measure": "time" (the default) counts the run with
 * perf_event_open (counters.h); "measure": "instructions" runs it under
 * cachegrind (cachegrind.h) in a private temporary directory, and what
 * the benchmark prints is not parsed.
 */
struct bf_run_measure {
	bool instructions;
	struct bf_counters counters;
	struct bf_argv argv; /* valgrind's, in instructions mode */
	/* the private directory of cachegrind's files (one a process), or NULL
	 */
	char *dir;
	char *cmd_line; /* the command's words joined by blanks */
	pid_t pid; /* the benchmark's process, once started */
};

/*
 * From the request's "measure" (NULL: "time"): BF_EINVAL naming the
 * key for another value. In instructions mode creates the private
 * directory (BF_ESYS) and points opts->argv at valgrind's argv around
 * cmd. Release m in any case.
 */
int bf_run_measure_prepare(struct bf_run_measure *m, const char *measure,
                           const struct bf_argv *cmd,
                           struct bf_spawn_opts *opts, struct bf_err *err);

/* bf_spawn_opts.started's work: open the counters on pid (time mode). */
void bf_run_measure_started(struct bf_run_measure *m, pid_t pid);

/*
 * Read the perf counters (time mode) as soon as the benchmark has been
 * reaped, before what it left running is killed: a process it started
 * counts up to its own exit, not beyond the benchmark's.
 */
void bf_run_measure_stop(struct bf_run_measure *m);

/*
 * The result's "counters" once the program has exited: the perf
 * counters read by bf_run_measure_stop (time mode) or cachegrind's totals
 * (BF_EINVAL, BF_ESYS when its file is missing or unreadable, message naming
 * it).
 */
int bf_run_measure_finish(json_t **out, struct bf_run_measure *m,
                          struct bf_err *err);

/* The error for a valgrind that is not installed (code "system"). */
const char *bf_run_measure_no_valgrind(void);

/* Closes counters, removes the private directory. */
void bf_run_measure_release(struct bf_run_measure *m);

#endif /* BF_AGENT_RUN_MEASURE_H */
