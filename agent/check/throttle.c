#include "check/throttle.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "check/check.h"
#include "probe/devfs.h"
#include "probe/probe.h"

#define COPY_BYTES 400000 /* Jetpack's two 400,000-byte arrays */
#define COPY_TIMES 10
/*
 * A sample takes about 1 ms and the measurement is the shortest of 64,
 * after 50 ms of warm-up: 10 us samples (20,000 calls) jittered past
 * the 10% tolerance on an idle 2-core VM in about 1 check in 50, their
 * minimum set by the cache and clock state of a moment.
 */
#define TRANSLATE_ITERS 2000000 /* translateM calls per sample */
#define DEFAULT_SAMPLES 64
#define DEFAULT_WARMUP  50000000 /* ns, lets the governor ramp up */
/* 2: the 1 ms workload; a version 1 baseline timed the 10 us one */
#define BASELINE_VERSION 2

struct workload {
	unsigned char src[COPY_BYTES], dst[COPY_BYTES];
	bool copied;
	float m[16];
};

static struct workload workload; /* the agent is single-threaded */

/* android.opengl.Matrix.translateM(m, 0, x, y, z) */
BF_NO_SANITIZE static void translate(float *m, float x, float y, float z)
{
	for (int i = 0; i < 4; i++)
		m[12 + i] += m[i] * x + m[4 + i] * y + m[8 + i] * z;
}

BF_NO_SANITIZE static void default_work(void *ctx)
{
	struct workload *w = ctx;

	if (!w->copied) {
		/* Disturb the caches once, as Jetpack does before timing. */
		for (int i = 0; i < COPY_TIMES; i++) {
			w->src[i] = (unsigned char)i;
			memcpy(w->dst, w->src, sizeof(w->src));
		}
		w->copied = true;
	}
	for (int i = 0; i < 16; i++)
		w->m[i] = (float)(i + 1) * 0.5f;
	for (int i = 0; i < TRANSLATE_ITERS; i++)
		translate(w->m, 1.0f, 2.0f, 3.0f);
}

static int64_t default_clock(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void bf_throttle_default_ops(struct bf_throttle_ops *out)
{
	out->work = default_work;
	out->clock = default_clock;
	out->ctx = &workload;
	out->samples = DEFAULT_SAMPLES;
	out->warmup_ns = DEFAULT_WARMUP;
}

int bf_throttle_measure(double *ns_out, const struct bf_throttle_ops *ops,
                        struct bf_err *err)
{
	int64_t start, t0, t1, best = -1;

	if (ops->samples < 1)
		return bf_err_set(err, BF_EINVAL,
		                  "throttle workload: %d samples is not enough",
		                  ops->samples);
	start = ops->clock(ops->ctx);
	for (int i = 0; i < BF_THROTTLE_WARMUP_MAX &&
	                ops->clock(ops->ctx) - start < ops->warmup_ns;
	     i++)
		ops->work(ops->ctx);
	for (int i = 0; i < ops->samples; i++) {
		t0 = ops->clock(ops->ctx);
		ops->work(ops->ctx);
		t1 = ops->clock(ops->ctx);
		if (t1 > t0 && (best < 0 || t1 - t0 < best))
			best = t1 - t0;
	}
	if (best < 0)
		return bf_err_set(
		        err, BF_EINVAL,
		        "throttle workload: the clock did not advance");
	*ns_out = (double)best;
	return 0;
}

int bf_throttle_state_dir(char **out, struct bf_err *err)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		*out = bf_xasprintf("%s/benchfarm-agent", xdg);
	else if (home && home[0] == '/')
		*out = bf_xasprintf("%s/.local/state/benchfarm-agent", home);
	else
		return bf_err_set(
		        err, BF_ENOTFOUND,
		        "no state directory: neither XDG_STATE_HOME nor HOME is an absolute path");
	return 0;
}

char *bf_throttle_baseline_path(const char *state_dir, const char *key)
{
	return bf_xasprintf("%s/throttle-%s.json", state_dir, key);
}

int bf_throttle_baseline_load(double *ns_out, const char *path,
                              struct bf_err *err)
{
	json_t *doc = NULL;
	int64_t version;
	double ns;
	int ret = bf_json_load_file(&doc, path, err);

	if (ret == BF_ENOTFOUND)
		return ret;
	/* an older workload's time: not comparable, recorded anew */
	if (!ret && !bf_json_get_int(&version, doc, "version", path, NULL) &&
	    version >= 1 && version < BASELINE_VERSION) {
		json_decref(doc);
		return BF_ENOTFOUND;
	}
	if (ret || bf_json_get_int(&version, doc, "version", path, NULL) ||
	    version != BASELINE_VERSION ||
	    bf_json_get_num(&ns, doc, "baseline_ns", path, NULL) ||
	    !isfinite(ns) || ns <= 0) {
		if (!ret)
			bf_err_set(err, BF_ECORRUPT,
			           "'%s' is not a version %d throttle baseline",
			           path, BASELINE_VERSION);
		ret = BF_ECORRUPT;
	} else {
		*ns_out = ns;
	}
	json_decref(doc);
	return ret;
}

int bf_throttle_baseline_save(const char *path, double ns, const char *device,
                              struct bf_err *err)
{
	char *dir = bf_fs_dirname(path), stamp[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	json_t *doc;
	int ret;

	if (gmtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ret = bf_fs_mkdirs(dir, 0700, err);
	free(dir);
	if (ret)
		return ret;
	doc = json_pack(
	        "{s:i, s:s, s:f, s:s, s:s}", "version", BASELINE_VERSION,
	        "device", device, "baseline_ns", ns, "recorded_at", stamp,
	        "method",
	        "minimum time of a fixed workload (Jetpack ThrottleDetector)");
	ret = bf_json_write_file(doc, path, true, true, err);
	json_decref(doc);
	return ret;
}

/* Android API 29+: any status above none counts as throttled. */
static void check_android_status(struct bf_check_item *it, int status)
{
	const char *name = bf_android_thermal_status_name(status);

	if (status > 0)
		bf_check__set(it, BF_CHECK_FAIL, status, 0,
		              "Android thermal status %d (%s) is above none: "
		              "the device is throttling",
		              status, name);
	else
		bf_check__set(it, BF_CHECK_PASS, status, 0,
		              "Android thermal status 0 (none)");
}

/* A forced measurement: 0, BF_ENOTFOUND, or an error set on it. */
static int forced_ns(double *ns, const char **src, struct bf_check_item *it,
                     struct bf_devfs *fs)
{
	struct bf_err err = BF_ERR_INIT;
	const char *env = getenv(BF_THROTTLE_ENV);
	char *line = NULL;
	int ret;

	*src = env ? "$" BF_THROTTLE_ENV : BF_THROTTLE_FIXTURE;
	ret = env ? 0
	          : bf_devfs_read_line(&line, fs, BF_THROTTLE_FIXTURE, &err);
	if (ret == BF_ENOTFOUND)
		return ret;
	if (!ret &&
	    (bf_parse_double(ns, env ? env : line, false, NULL) || *ns <= 0))
		ret = bf_err_set(&err, BF_EINVAL,
		                 "%s: '%.40s' is not a duration in ns", *src,
		                 env ? env : line);
	if (ret)
		bf_check__set(it, BF_CHECK_FAIL, NAN, NAN,
		              "cannot read the forced measurement: %s",
		              err.msg);
	free(line);
	return ret;
}

static void compare(struct bf_check_item *it, double ns, const char *src,
                    const char *path, const char *key,
                    const struct bf_check_opts *opts)
{
	struct bf_err err = BF_ERR_INIT;
	double base, limit = 1.0 + opts->throttle_tolerance, ratio;
	int ret = bf_throttle_baseline_load(&base, path, &err);

	if (ret == BF_ENOTFOUND) {
		if (bf_throttle_baseline_save(path, ns, key, &err))
			bf_check__set(it, BF_CHECK_WARN, NAN, limit,
			              "cannot record the baseline: %s",
			              err.msg);
		else
			bf_check__set(
			        it, BF_CHECK_PASS, 1.0, limit,
			        "first measurement on this device: %.0f ns "
			        "(%s) recorded as the baseline in '%s'",
			        ns, src, path);
		return;
	}
	if (ret) {
		bf_check__set(it, BF_CHECK_WARN, NAN, limit,
		              "%s; delete it to record a new baseline",
		              err.msg);
		return;
	}
	ratio = ns / base;
	bf_check__set(it, ratio > limit ? BF_CHECK_FAIL : BF_CHECK_PASS, ratio,
	              limit,
	              "workload took %.0f ns (%s), %+.1f%% against the %.0f ns "
	              "baseline; throttled above +%.0f%%",
	              ns, src, (ratio - 1.0) * 100.0, base,
	              opts->throttle_tolerance * 100.0);
}

/*
 * Measure with the workload and compare; on a throttle, sleep
 * opts->throttle_sleep_s and measure again, up to opts->throttle_retries
 * times (Jetpack's ThrottleDetector reaction: sleep 90 s, redo, at most
 * 2 times), so a moment's jitter or a short burst of heat does not
 * refuse the device. A suppressed throttle check refuses nothing, so it
 * is measured once and never waited for. Returns the seconds slept.
 */
static double measure_until_cool(struct bf_check_item *it, const char *path,
                                 const char *key,
                                 const struct bf_check_opts *opts,
                                 const struct bf_check_env *env)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_throttle_ops ops;
	double ns, first = NAN, slept = 0;
	int tries = 0;
	size_t len;

	if (env->throttle)
		ops = *env->throttle;
	else
		bf_throttle_default_ops(&ops);
	for (;;) {
		double t0;

		if (bf_throttle_measure(&ns, &ops, &err)) {
			bf_check__set(it, BF_CHECK_FAIL, NAN, NAN, "%s",
			              err.msg);
			return slept;
		}
		compare(it, ns, "measured", path, key, opts);
		if (tries == 0)
			first = it->value;
		if (it->status != BF_CHECK_FAIL ||
		    tries >= opts->throttle_retries ||
		    (opts->suppress & (1u << BF_CHECK_THROTTLE)))
			break;
		t0 = bf_check__now(env);
		bf_check__sleep(env, opts->throttle_sleep_s);
		slept += bf_check__now(env) - t0;
		tries++;
	}
	len = strlen(it->message);
	if (tries)
		snprintf(it->message + len, sizeof(it->message) - len,
		         "; %s after %d re-measure%s %.0f s apart (the first "
		         "at %+.1f%%)",
		         it->status == BF_CHECK_FAIL ? "still throttled"
		                                     : "passed",
		         tries, tries == 1 ? "" : "s", opts->throttle_sleep_s,
		         (first - 1.0) * 100.0);
	return slept;
}

static double measure_and_compare(struct bf_check_item *it,
                                  const struct bf_probe *p,
                                  const struct bf_check_opts *opts,
                                  const struct bf_check_env *env)
{
	struct bf_err err = BF_ERR_INIT;
	char *dir = NULL, *path = NULL;
	const char *src = NULL,
	           *key = env->device_key ? env->device_key : "local";
	double ns = NAN, slept = 0;
	int ret = forced_ns(&ns, &src, it, env->fs);

	if (ret && ret != BF_ENOTFOUND)
		return 0;
	if (ret && p->android && p->thermal_status >= 0) {
		check_android_status(it, p->thermal_status);
		return 0;
	}
	if (ret && p->android && p->thermal_status_bad) {
		bf_check__set(
		        it, BF_CHECK_FAIL, NAN, 0,
		        "cannot read the thermal status: %s",
		        bf_check__probe_error(p, "dumpsys thermalservice"));
		return 0;
	}
	if (ret && p->android) {
		bf_check__set(
		        it, BF_CHECK_SKIP, NAN, NAN,
		        "the device reports no thermal status, and the workload cannot run over adb");
		return 0;
	}
	if (ret && !(env->probe_flags & BF_PROBE_HOST)) {
		bf_check__set(
		        it, BF_CHECK_SKIP, NAN, NAN,
		        "the workload runs only on this machine (sysroot '/'); a fixture tree gives its time in %s",
		        BF_THROTTLE_FIXTURE);
		return 0;
	}
	if (!opts->state_dir && bf_throttle_state_dir(&dir, &err)) {
		bf_check__set(it, BF_CHECK_WARN, NAN, NAN,
		              "no baseline to compare the workload with: %s",
		              err.msg);
		return 0;
	}
	path = bf_throttle_baseline_path(
	        opts->state_dir ? opts->state_dir : dir, key);
	/* a forced time is not measured again: it would read the same */
	if (ret)
		slept = measure_until_cool(it, path, key, opts, env);
	else
		compare(it, ns, src, path, key, opts);
	free(path);
	free(dir);
	return slept;
}

double bf_throttle_check(struct bf_check_item *it, const struct bf_probe *p,
                         const struct bf_check_opts *opts,
                         const struct bf_check_env *env)
{
	it->id = BF_CHECK_THROTTLE;
	return measure_and_compare(it, p, opts, env);
}
