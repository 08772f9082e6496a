#ifndef BF_SANDBOX_H
#define BF_SANDBOX_H

#include "benchfarm/argv.h"
#include "benchfarm/common.h"
#include "benchfarm/err.h"
#include "config/cfg.h"

/*
 * The sandbox a build of the (untrusted) patch runs in: bubblewrap
 * (bwrap) with the whole file system read-only, the build's own tree
 * the only writable one, a private /dev (its /dev/shm, TMPDIR, a fresh
 * tmpfs) and /proc, its own PID, IPC, UTS, cgroup and (unless
 * project.build_network) network namespaces, no capabilities, a new
 * session, and killed when benchfarm dies. So a build cannot write
 * another entry of the build cache, the cache's records, the store,
 * known_hosts or anything else of this user, and cannot see, signal
 * or trace benchfarm's processes.
 */

/* How a build runs. */
struct bf_sandbox {
	bool on; /* in the sandbox */
	char why[BF_ERR_SIZE]; /* !on: why not, for the output */
};

/*
 * The sandbox's program: $BENCHFARM_BWRAP when set and not empty, else
 * "bwrap" (looked up in PATH). Borrowed. Cannot fail.
 */
const char *bf_sandbox_program(void);

/*
 * Append to out the argv that runs cmd in the sandbox, with dir (an
 * absolute path, an existing directory) writable and its working
 * directory; network shares the host's network. Cannot fail.
 */
void bf_sandbox_argv(struct bf_argv *out, const char *dir, bool network,
                     const struct bf_argv *cmd);

/*
 * Decide how a build in dir runs under mode. auto and require try the
 * sandbox once per process (bwrap running `true` in it); when it cannot
 * run, auto gives out->on false with why naming the program and what
 * it said, and require fails with BF_ENOTFOUND naming
 * project.build_sandbox and what to do. off gives out->on false.
 */
int bf_sandbox_choose(struct bf_sandbox *out, enum bf_build_sandbox mode,
                      const char *dir, bool network, struct bf_err *err);

#endif /* BF_SANDBOX_H */
