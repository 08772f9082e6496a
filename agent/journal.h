#ifndef BF_AGENT_JOURNAL_H
#define BF_AGENT_JOURNAL_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * The agent's run journal: one JSON line per run request it served
 * (wall-clock start and end, the agent's pid, the request id, the
 * working directory and the program), appended to one file per device
 * user, whichever host sent the request. It is the device's own record
 * of when it ran what: two runs whose intervals overlap on one device
 * mean two jobs measured it at once.
 */
struct bf_journal_run {
	double start, end; /* wall clock, s since the epoch */
	int64_t id; /* the request's id */
	const char *cwd; /* NULL: the agent's own */
	const char *program; /* argv[0] */
	int exit_code; /* -1: killed by a signal, or never started */
	size_t samples; /* parsed and sent */
};

/*
 * The journal's path: $BENCHFARM_AGENT_JOURNAL, else
 * $XDG_STATE_HOME/benchfarm/agent-runs.jsonl (when absolute), else
 * ~/.local/state/benchfarm/agent-runs.jsonl. NULL (none kept) when
 * $BENCHFARM_AGENT_JOURNAL is set and empty, or nothing names a home.
 * Caller frees.
 */
char *bf_journal_path(void);

/* Wall-clock time now, s since the epoch, to the microsecond. */
double bf_journal_now(void);

/*
 * Append run's line to path: one write under an exclusive flock, so
 * agents serving several hosts at once never interleave their lines.
 * A journal past 8 MiB is first renamed to PATH.1 (the previous .1 is
 * replaced). Directories are made (0700) and the file created 0600 as
 * needed. A journal that cannot be written is an error for the caller
 * to log; the run itself is not affected.
 */
int bf_journal_append(const char *path, const struct bf_journal_run *run,
                      struct bf_err *err);

#endif /* BF_AGENT_JOURNAL_H */
