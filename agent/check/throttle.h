#ifndef BF_THROTTLE_H
#define BF_THROTTLE_H

#include "benchfarm/common.h"

struct bf_check_env;
struct bf_check_item;
struct bf_check_opts;
struct bf_err;
struct bf_probe;

/*
 * Thermal throttle detection, Jetpack's method (ThrottleDetector.kt): a
 * fixed small CPU workload is timed (the minimum over samples); the
 * first measurement on a device becomes its baseline, kept in the
 * agent's state directory; a later measurement more than the tolerance
 * (10%) slower than the baseline means throttled. On Android devices
 * that report a thermal status, status > 0 (LIGHT or worse) means
 * throttled, as Jetpack does on API 29+.
 *
 * Forcing a measurement (fixtures, tests): $BENCHFARM_THROTTLE_NS, else
 * the device file /benchfarm/throttle_ns (in a fixture sysroot), holds
 * the measured time in ns. Without either, the workload only runs when
 * the device is this machine (sysroot "/"); otherwise the check skips.
 */

/* One sample of the fixed workload; the clock in monotonic ns. */
typedef void bf_throttle_work_fn(void *ctx);
typedef int64_t bf_throttle_clock_fn(void *ctx);

struct bf_throttle_ops {
	bf_throttle_work_fn *work;
	bf_throttle_clock_fn *clock;
	void *ctx; /* borrowed; passed to work and clock */
	int samples; /* timed samples; the minimum is the measurement */
	int64_t warmup_ns; /* untimed samples first, for this long */
};

#define BF_THROTTLE_ENV        "BENCHFARM_THROTTLE_NS"
#define BF_THROTTLE_FIXTURE    "/benchfarm/throttle_ns"
#define BF_THROTTLE_WARMUP_MAX 100000 /* samples, whatever the clock says */

/* The built-in workload (Jetpack's: copy 400 kB, then a 4x4 matrix
 * translate loop) on CLOCK_MONOTONIC. Cannot fail. */
void bf_throttle_default_ops(struct bf_throttle_ops *out);

/*
 * Run ops: warm up, then time ops->samples samples; *ns_out gets the
 * shortest. BF_EINVAL when samples < 1 or the clock does not advance.
 */
int bf_throttle_measure(double *ns_out, const struct bf_throttle_ops *ops,
                        struct bf_err *err);

/*
 * The state directory: $XDG_STATE_HOME/benchfarm-agent, else
 * $HOME/.local/state/benchfarm-agent. Caller frees. BF_ENOTFOUND when
 * neither variable is set to an absolute path.
 */
int bf_throttle_state_dir(char **out, struct bf_err *err);

/* STATE_DIR/throttle-KEY.json; caller frees. Cannot fail. */
char *bf_throttle_baseline_path(const char *state_dir, const char *key);

/*
 * Read a baseline file. BF_ENOTFOUND when there is none, BF_ECORRUPT
 * (message naming the file) when it is not ours or damaged.
 */
int bf_throttle_baseline_load(double *ns_out, const char *path,
                              struct bf_err *err);
/*
 * Write a baseline atomically with mode 0600, creating the directory
 * (0700) when needed. device names the device in the file.
 */
int bf_throttle_baseline_save(const char *path, double ns, const char *device,
                              struct bf_err *err);

/*
 * The throttle check: measure (as above), compare with the baseline of
 * env->device_key in opts->state_dir, record the first measurement as
 * the baseline. A measured throttle is measured again after sleeping
 * opts->throttle_sleep_s (env->sleep), up to opts->throttle_retries
 * times, and fails only when the last one is throttled too; a forced
 * time is not measured again. Fills it; never fails (problems become
 * the status). Returns the seconds slept.
 */
double bf_throttle_check(struct bf_check_item *it, const struct bf_probe *p,
                         const struct bf_check_opts *opts,
                         const struct bf_check_env *env);

#endif /* BF_THROTTLE_H */
