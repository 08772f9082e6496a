#ifndef BF_DEVCHECK_H
#define BF_DEVCHECK_H

#include <jansson.h>

#include "benchfarm/common.h"
#include "benchfarm/err.h"

struct bf_agentconn;
struct bf_cfg_checks;
struct bf_store;

/*
 * A device health check over an open agent connection: the agent's
 * `info` and `check` requests, the latter with the thresholds of a
 * config's `checks:` section. Used by `benchfarm device check` and by
 * the dispatcher before it measures on a device. Nothing here knows the
 * transport: the connection may be local or over SSH.
 */

/* What one check found. */
struct bf_devcheck {
	json_t *info; /* the agent's "info" object; NULL if not asked */
	json_t *result; /* the check answer: fit, checks, suppressed, ... */
	bool fit; /* the agent's verdict */
	/* unfit for now only (bf_devcheck_is_transient): keeps its health */
	bool transient;
	int fails; /* checks with status "fail" */
	int warns; /* checks with status "warn" */
	char reason[BF_ERR_SIZE]; /* one line: why unfit; "" when fit */
};

#define BF_DEVCHECK_INIT                        \
	{                                       \
		NULL, NULL, false, false, 0, 0, \
		{                               \
			0                       \
		}                               \
	}

/* Default seconds to wait for the agent's info answer. */
#define BF_DEVCHECK_INFO_TIMEOUT_S 30.0

/*
 * The protocol `check` request for thresholds c (borrowed): a new JSON
 * object the caller json_decref()s. Cannot fail.
 */
json_t *bf_devcheck_request(const struct bf_cfg_checks *c);

/*
 * Seconds to wait for the answer to bf_devcheck_request(c): the agent
 * may wait up to c->load_wait_s for the load to settle, sleep
 * c->throttle_sleep_s before each of c->throttle_retries re-measures of
 * a throttle, and then wait up to c->wait_max_s for a cool-down. Cannot
 * fail.
 */
double bf_devcheck_timeout(const struct bf_cfg_checks *c);

/*
 * Run `info` (when with_info) and then `check` with thresholds c on the
 * open connection agent, for the device called device (for messages).
 * On success (0) *out owns the answers (release with
 * bf_devcheck_release()) and out->fit says whether the device may
 * measure; an unfit device is success, with out->reason naming the
 * failed checks. Errors name the device: BF_ERROR (the agent answered
 * an error), BF_EPROTO (bad answer, connection lost), BF_ETIMEOUT; then
 * *out holds what was received before the failure (release it anyway).
 * *out is initialised here.
 */
int bf_devcheck_run(struct bf_devcheck *out, struct bf_agentconn *agent,
                    const struct bf_cfg_checks *c, const char *device,
                    bool with_info, struct bf_err *err);

/*
 * Store every check of dc->result for device (run_id 0: no run) at
 * time at (0: now). dc is borrowed. Returns 0 or the first store error;
 * the checks after a failure are still tried.
 */
int bf_devcheck_store(struct bf_store *store, const struct bf_devcheck *dc,
                      int64_t run_id, const char *device, int64_t at,
                      struct bf_err *err);

/*
 * "device 'NAME' is not fit to measure: ID (MESSAGE); ..." into buf (a
 * single line, truncated to len) from a check answer's "checks" array
 * (borrowed). Cannot fail.
 */
void bf_devcheck_describe_unfit(char *buf, size_t len, const char *device,
                                const json_t *checks);

/*
 * Whether a check answer's failures (its "checks" array, borrowed) are
 * the device's state of the moment rather than a fault of the device:
 * true when at least one check fails and every failing one is battery,
 * thermal, throttle, load or boost with a measured value (the device
 * recharges, cools down, finishes someone else's work). A failing
 * cores or clocks check (cores offline, clocks not locked), a check
 * that could not read its input (no value: a garbage or unreadable
 * file), or an id this orchestrator does not know is a fault. A
 * transient failure makes the device skip the job; a fault marks it
 * bad. Cannot fail.
 */
bool bf_devcheck_is_transient(const json_t *checks);

/* Free what dc holds and reset it; NULL is ok. */
void bf_devcheck_release(struct bf_devcheck *dc);

#endif /* BF_DEVCHECK_H */
