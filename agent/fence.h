#ifndef BF_AGENT_FENCE_H
#define BF_AGENT_FENCE_H

#include <jansson.h>
#include <sys/types.h>

#include "benchfarm/common.h"

struct bf_err;

/*
 * Lease fencing on the device. The orchestrator sends its lease's
 * fencing token with each request ("fence": {"device": NAME, "token":
 * N}, docs/architecture.md). The runs in progress for a device are
 * kept in one small state file, its lines "TOKEN PGID START OWNER
 * ENDED_BY", under an exclusive flock, that every agent process of
 * the device user sees (one `serve` per SSH connection):
 * $XDG_STATE_HOME/benchfarm/fence/HEX (when absolute), else
 * ~/.local/state/benchfarm/fence/HEX, HEX the SHA-256 of the device
 * name (two devices on one machine keep apart).
 *
 * A request with a greater token ends the runs in progress of smaller
 * ones: it kills their process groups (SIGKILL), marks them ended by
 * its token and waits until they are gone; each such run then reports
 * itself superseded. A request with a smaller token than a run in
 * progress is refused. Requests without a fence take no part.
 */
struct bf_fence {
	char *device; /* owned */
	int64_t token; /* > 0 */
	char *path; /* the device's state file; owned */
};

/*
 * The request's "fence" into *out (caller frees with bf_fence_free):
 * NULL when the request has none. BF_EINVAL naming the key when it is
 * malformed (not an object with a non-empty "device" string and a
 * positive integer "token"); BF_ENOTFOUND when no state directory is
 * known (no absolute $XDG_STATE_HOME, no $HOME).
 */
int bf_fence_from_request(struct bf_fence **out, const json_t *req,
                          struct bf_err *err);
void bf_fence_free(struct bf_fence *f);

/*
 * How long a request waits for the ended runs of older leases to be
 * gone: $BENCHFARM_AGENT_FENCE_WAIT seconds (0..60), else 10.
 */
#define BF_FENCE_WAIT_DEFAULT 10.0
double bf_fence_wait_s(void);

/* What bf_fence_claim did. */
struct bf_fence_claim {
	int ended; /* runs of smaller tokens it ended now */
	int64_t ended_token; /* the greatest of their tokens */
	/*
	 * A run of a smaller token (ended now or before) was still running
	 * when the wait ran out: what runs now overlaps it.
	 */
	bool overlap;
	int64_t overlap_token;
	int64_t newer; /* refused: the greater token in progress */
};

/*
 * Claim the device for f's token: end the runs in progress of smaller
 * tokens and wait up to wait_s for their process groups to be gone;
 * with pgid > 0 also record the process group pgid as a run in
 * progress of f's token (this process its owner). BF_EBUSY (out->newer
 * set, err saying so) when a run of a greater token is in progress,
 * and nothing is recorded; BF_ESYS when the state file cannot be
 * used.
 */
int bf_fence_claim(struct bf_fence_claim *out, const struct bf_fence *f,
                   pid_t pgid, double wait_s, struct bf_err *err);

/*
 * The run of pgid (owned by this process) is over: its line is
 * removed. *ended_by is the token of the request that ended it, 0 when
 * none did. BF_ESYS when the state file cannot be used (*ended_by 0).
 */
int bf_fence_release(int64_t *ended_by, const struct bf_fence *f, pid_t pgid,
                     struct bf_err *err);

#endif /* BF_AGENT_FENCE_H */
