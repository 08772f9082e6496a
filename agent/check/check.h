#ifndef BF_CHECK_H
#define BF_CHECK_H

#include <jansson.h>

#include "benchfarm/argv.h"
#include "benchfarm/common.h"

struct bf_devfs;
struct bf_err;
struct bf_probe;
struct bf_throttle_ops;

/*
 * Device checks before measuring (`benchfarm-agent check`, the protocol
 * `check` request): each check gives pass, warn, fail or skip with the
 * measured value, the threshold and a sentence. The device is fit when
 * nothing fails. Suppressed checks (Jetpack's suppressErrors) turn fail
 * into warn and are listed. With wait_max, failing battery, thermal and
 * throttle checks are re-probed until they pass or the cap is reached
 * (Trade Federation's recharge and cool-down waiters). Before anything
 * is probed, a busy device is given up to load_wait to settle: the load
 * alone is re-read every BF_CHECK_LOAD_POLL seconds until it is within
 * its limit (a build that just ended, say), so the throttle workload
 * and the other checks do not run under someone else's load; a load
 * that settled for a moment and is over its limit again when the
 * checks probe it is waited for again, until load_wait is spent in all.
 * A throttle is measured again after throttle_sleep, up to
 * throttle_retries times (throttle.h).
 *
 * Values (NAN when there is none): battery percent; cores online count
 * (threshold: possible count); clocks 1 locked, 0 not; thermal hottest
 * valid zone in degrees C; throttle workload time / baseline (threshold
 * 1 + tolerance) or the Android thermal status (threshold 0); load
 * the runnable tasks right now besides the agent reading the count
 * (/proc/loadavg's RUNNABLE), with threshold load_max x online cores:
 * more fails. The 1-minute average is only quoted: it lags a finished
 * build by minutes; boost 1 on (warns), 0 off.
 *
 * A check that cannot decide because a file is garbage or unreadable
 * fails (boost, which never fails, warns) and quotes the file; one that
 * can decide from the rest warns.
 * Missing files mean "not available": the check skips.
 */
enum bf_check_id {
	BF_CHECK_BATTERY,
	BF_CHECK_CORES,
	BF_CHECK_CLOCKS,
	BF_CHECK_THERMAL,
	BF_CHECK_THROTTLE,
	BF_CHECK_LOAD,
	BF_CHECK_BOOST,
	BF_CHECK_NIDS,
};

enum bf_check_status {
	BF_CHECK_PASS,
	BF_CHECK_WARN,
	BF_CHECK_FAIL,
	BF_CHECK_SKIP,
};

/* Thresholds; the defaults mirror the orchestrator's BF_CFG_CHECKS_INIT. */
struct bf_check_opts {
	int battery_min; /* percent; 0 disables */
	bool require_charging;
	bool require_all_cores; /* false: offline cores only warn */
	bool require_locked_clocks; /* false: unlocked clocks only warn */
	double thermal_max; /* degrees C; <= 0 disables */
	double throttle_tolerance; /* fraction slower than the baseline */
	double load_max; /* runnable tasks per online core; 0 disables */
	unsigned suppress; /* 1 << enum bf_check_id for each suppressed id */
	double wait_max_s; /* wait for recharge/cool-down; 0 = fail now */
	double load_wait_s; /* wait for the load to settle; 0 = fail now */
	int throttle_retries; /* re-measures of a throttle; 0 = fail now */
	double throttle_sleep_s; /* sleep before each re-measure */
	const char *state_dir; /* borrowed; NULL: bf_check_state_dir() */
};

#define BF_CHECK_WAIT_MAX_LIMIT 3600.0 /* seconds */
#define BF_CHECK_LOAD_WAIT      30.0 /* seconds, the default load_wait */
/* Jetpack's ThrottleDetector reaction: sleep 90 s and redo, twice */
#define BF_CHECK_THROTTLE_RETRIES   2
#define BF_CHECK_THROTTLE_SLEEP     90.0 /* seconds */
#define BF_CHECK_THROTTLE_RETRY_MAX 10

#define BF_CHECK_OPTS_INIT                                                 \
	{                                                                  \
		.battery_min = 25, .require_charging = false,              \
		.require_all_cores = true, .require_locked_clocks = false, \
		.thermal_max = 70.0, .throttle_tolerance = 0.10,           \
		.load_max = 1.0, .suppress = 0, .wait_max_s = 0,           \
		.load_wait_s = BF_CHECK_LOAD_WAIT,                         \
		.throttle_retries = BF_CHECK_THROTTLE_RETRIES,             \
		.throttle_sleep_s = BF_CHECK_THROTTLE_SLEEP,               \
		.state_dir = NULL,                                         \
	}

#define BF_CHECK_MSG_SIZE 320

struct bf_check_item {
	enum bf_check_id id;
	enum bf_check_status status;
	double value; /* NAN: none */
	double threshold; /* NAN: none */
	bool suppressed; /* was fail, turned into warn */
	char message[BF_CHECK_MSG_SIZE];
};

struct bf_check_result {
	struct bf_check_item items[BF_CHECK_NIDS]; /* indexed by id */
	bool fit; /* no item fails */
	double waited_s; /* time spent waiting, load_waited_s included */
	double load_waited_s; /* waiting for the load to settle */
	int probes; /* how many times the device was probed */
	unsigned suppressed; /* ids turned from fail into warn */
	char *device; /* "sysroot '/'"; owned */
	struct bf_argv errors; /* bad files of the last probe, named */
};

/* Injectable time, so tests can wait without sleeping. */
typedef void bf_check_sleep_fn(double seconds, void *hook);
typedef double bf_check_now_fn(void *hook);

/* What to check and how: all pointers borrowed. */
struct bf_check_env {
	struct bf_devfs *fs; /* the device */
	unsigned probe_flags; /* enum bf_probe_flags */
	const char *device_key; /* names per-device state: "local" */
	const struct bf_throttle_ops *throttle; /* NULL: built-in workload */
	bf_check_sleep_fn *sleep; /* NULL: nanosleep */
	bf_check_now_fn *now; /* NULL: bf_now_monotonic */
	void *hook; /* for sleep and now */
	double wait_interval_s; /* 0: BF_CHECK_WAIT_INTERVAL */
	double load_poll_s; /* 0: BF_CHECK_LOAD_POLL */
};

#define BF_CHECK_WAIT_INTERVAL 5.0 /* seconds between re-probes */
#define BF_CHECK_LOAD_POLL     1.0 /* seconds between reads of the load */

/* "battery" etc.; NULL out of range. Cannot fail. */
const char *bf_check_id_name(enum bf_check_id id);
/* The id named name, or -1. */
int bf_check_id_find(const char *name);
const char *bf_check_status_name(enum bf_check_status status);

/*
 * Add the ids of a comma-separated list ("cores, clocks"; items are
 * trimmed, empty ones dropped) to *suppress. BF_EINVAL names an
 * unknown id; *suppress is then unchanged.
 */
int bf_check_suppress_parse(unsigned *suppress, const char *list,
                            struct bf_err *err);

/*
 * Fill opts from a protocol request's fields (battery_min,
 * require_charging, require_all_cores, require_locked_clocks,
 * thermal_max, throttle_tolerance, load_max, suppress, wait_max,
 * load_wait, throttle_retries, throttle_sleep);
 * missing fields keep their value. BF_EINVAL names the bad field.
 */
int bf_check_opts_from_json(struct bf_check_opts *opts, const json_t *req,
                            struct bf_err *err);
/* Range checks shared by the flags and the request. BF_EINVAL. */
int bf_check_opts_validate(const struct bf_check_opts *opts,
                           struct bf_err *err);

/* Cannot fail. */
void bf_check_result_init(struct bf_check_result *res);
void bf_check_result_release(struct bf_check_result *res);

/*
 * Every check but throttle, from probed facts only (no I/O): fills
 * res->items except BF_CHECK_THROTTLE (set to skip). Cannot fail.
 */
void bf_check_eval(struct bf_check_result *res, const struct bf_probe *p,
                   const struct bf_check_opts *opts);
/* Apply opts->suppress and compute res->fit. Cannot fail. */
void bf_check_finish(struct bf_check_result *res,
                     const struct bf_check_opts *opts);

/*
 * Probe, check, and wait when asked: res is initialised by this call
 * (release it even on failure). Returns 0 whether or not the device is
 * fit (see res->fit); BF_EINVAL for bad opts.
 */
int bf_check_run(struct bf_check_result *res, const struct bf_check_opts *opts,
                 const struct bf_check_env *env, struct bf_err *err);

/* The result as the JSON object of the schema above; a new reference. */
json_t *bf_check_result_json(const struct bf_check_result *res);

/*
 * Jetpack's "locked" decision (CpuInfo.kt, newest): over online cores,
 * grouped by identical available-frequency lists, not locked when the
 * set speeds (scaling_setspeed, else scaling_min_freq) of a group
 * differ or any core's set speed is its lowest available frequency;
 * unreadable cpufreq counts as -1 and so as not locked. why (may be
 * NULL) gets the reason when not locked.
 */
bool bf_check_clocks_are_locked(const struct bf_probe *p, char *why,
                                size_t why_len);
/* True when every online core has the "performance" governor. */
bool bf_check_governor_is_performance(const struct bf_probe *p);

/* The per-check evaluators, for check.c and tests. */
void bf_check_battery(struct bf_check_item *it, const struct bf_probe *p,
                      const struct bf_check_opts *opts);
void bf_check_cores(struct bf_check_item *it, const struct bf_probe *p,
                    const struct bf_check_opts *opts);
void bf_check_clocks(struct bf_check_item *it, const struct bf_probe *p,
                     const struct bf_check_opts *opts);
void bf_check_thermal(struct bf_check_item *it, const struct bf_probe *p,
                      const struct bf_check_opts *opts);
void bf_check_load(struct bf_check_item *it, const struct bf_probe *p,
                   const struct bf_check_opts *opts);
void bf_check_boost(struct bf_check_item *it, const struct bf_probe *p,
                    const struct bf_check_opts *opts);

/* For the check_*.c files (check_item.c): an item's outcome and message. */
void bf_check__set(struct bf_check_item *it, enum bf_check_status status,
                   double value, double threshold, const char *fmt, ...)
        BF_PRINTF(5, 6);
/* Sleep (env->sleep, else nanosleep) and the clock (env->now, else
 * monotonic), for the waits of the check_*.c and throttle files. */
void bf_check__sleep(const struct bf_check_env *env, double seconds);
double bf_check__now(const struct bf_check_env *env);
/* The first probe error mentioning needle, or "" (borrowed). */
const char *bf_check__probe_error(const struct bf_probe *p, const char *needle);

#endif /* BF_CHECK_H */
