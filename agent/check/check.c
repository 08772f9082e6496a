#include "check/check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"
#include "check/throttle.h"
#include "probe/probe.h"

static const char *const id_names[BF_CHECK_NIDS] = {
	"battery", "cores", "clocks", "thermal", "throttle", "load", "boost",
};

static const char *const status_names[] = { "pass", "warn", "fail", "skip" };

/* Checks worth waiting for: the device recharges or cools down. */
#define WAITABLE                                               \
	((1u << BF_CHECK_BATTERY) | (1u << BF_CHECK_THERMAL) | \
	 (1u << BF_CHECK_THROTTLE))

const char *bf_check_id_name(enum bf_check_id id)
{
	return (unsigned)id < BF_CHECK_NIDS ? id_names[id] : NULL;
}

int bf_check_id_find(const char *name)
{
	for (int i = 0; i < BF_CHECK_NIDS; i++)
		if (!strcmp(id_names[i], name))
			return i;
	return -1;
}

const char *bf_check_status_name(enum bf_check_status status)
{
	return (unsigned)status < BF_ARRAY_SIZE(status_names)
	               ? status_names[status]
	               : "?";
}

static int suppress_one(unsigned *bits, const char *s, size_t len,
                        struct bf_err *err)
{
	char name[32];
	int id = -1;

	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return 0;
	if (len < sizeof(name)) {
		memcpy(name, s, len);
		name[len] = '\0';
		id = bf_check_id_find(name);
	}
	if (id < 0)
		return bf_err_set(
		        err, BF_EINVAL,
		        "unknown check id '%.*s' (known: battery, cores, clocks, thermal, throttle, load, boost)",
		        (int)(len < 32 ? len : 32), s);
	*bits |= 1u << id;
	return 0;
}

int bf_check_suppress_parse(unsigned *suppress, const char *list,
                            struct bf_err *err)
{
	unsigned bits = 0;
	const char *s = list, *comma;

	do {
		comma = strchr(s, ',');
		if (suppress_one(&bits, s,
		                 comma ? (size_t)(comma - s) : strlen(s), err))
			return BF_EINVAL;
		s = comma + 1;
	} while (comma);
	*suppress |= bits;
	return 0;
}

int bf_check_opts_validate(const struct bf_check_opts *o, struct bf_err *err)
{
	if (o->battery_min < 0 || o->battery_min > 100)
		return bf_err_set(
		        err, BF_EINVAL,
		        "battery_min (--battery-min) %d is not a percentage 0..100",
		        o->battery_min);
	if (!isfinite(o->thermal_max) || o->thermal_max > BF_PROBE_TEMP_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "thermal_max (--thermal-max) must be at most %.0f C",
		        BF_PROBE_TEMP_MAX);
	if (!isfinite(o->throttle_tolerance) || o->throttle_tolerance < 0 ||
	    o->throttle_tolerance > 10)
		return bf_err_set(
		        err, BF_EINVAL,
		        "throttle_tolerance (--throttle-tolerance) must be a fraction 0..10");
	if (!isfinite(o->load_max) || o->load_max < 0)
		return bf_err_set(
		        err, BF_EINVAL,
		        "load_max (--load-max) must be a number >= 0");
	if (!isfinite(o->wait_max_s) || o->wait_max_s < 0 ||
	    o->wait_max_s > BF_CHECK_WAIT_MAX_LIMIT)
		return bf_err_set(
		        err, BF_EINVAL,
		        "wait_max (--wait-max) must be 0..%.0f seconds",
		        BF_CHECK_WAIT_MAX_LIMIT);
	if (!isfinite(o->load_wait_s) || o->load_wait_s < 0 ||
	    o->load_wait_s > BF_CHECK_WAIT_MAX_LIMIT)
		return bf_err_set(
		        err, BF_EINVAL,
		        "load_wait (--load-wait) must be 0..%.0f seconds",
		        BF_CHECK_WAIT_MAX_LIMIT);
	if (o->throttle_retries < 0 ||
	    o->throttle_retries > BF_CHECK_THROTTLE_RETRY_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "throttle_retries (--throttle-retries) must be 0..%d",
		        BF_CHECK_THROTTLE_RETRY_MAX);
	if (!isfinite(o->throttle_sleep_s) || o->throttle_sleep_s < 0 ||
	    o->throttle_sleep_s > BF_CHECK_WAIT_MAX_LIMIT)
		return bf_err_set(
		        err, BF_EINVAL,
		        "throttle_sleep (--throttle-sleep) must be 0..%.0f seconds",
		        BF_CHECK_WAIT_MAX_LIMIT);
	return 0;
}

static int json_bool(bool *out, const json_t *req, const char *key,
                     struct bf_err *err)
{
	const json_t *v = json_object_get(req, key);

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bf_err_set(err, BF_EINVAL,
		                  "check: \"%s\" must be true or false", key);
	*out = json_is_true(v);
	return 0;
}

static int json_num(double *out, const json_t *req, const char *key,
                    struct bf_err *err)
{
	const json_t *v = json_object_get(req, key);

	if (!v)
		return 0;
	if (!json_is_number(v))
		return bf_err_set(err, BF_EINVAL,
		                  "check: \"%s\" must be a number", key);
	*out = json_number_value(v);
	return 0;
}

static int json_suppress(unsigned *bits, const json_t *req, struct bf_err *err)
{
	const json_t *v = json_object_get(req, "suppress"), *item;
	size_t i;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return bf_err_set(
		        err, BF_EINVAL,
		        "check: \"suppress\" must be a list of check ids");
	json_array_foreach(v, i, item)
	{
		if (!json_is_string(item))
			return bf_err_set(
			        err, BF_EINVAL,
			        "check: \"suppress\" must be a list of check ids");
		if (bf_check_id_find(json_string_value(item)) < 0)
			return bf_err_set(
			        err, BF_EINVAL,
			        "check: unknown check id '%.32s' in \"suppress\"",
			        json_string_value(item));
		*bits |= 1u << bf_check_id_find(json_string_value(item));
	}
	return 0;
}

int bf_check_opts_from_json(struct bf_check_opts *o, const json_t *req,
                            struct bf_err *err)
{
	double battery = o->battery_min, retries = o->throttle_retries;

	if (json_num(&battery, req, "battery_min", err) ||
	    json_bool(&o->require_charging, req, "require_charging", err) ||
	    json_bool(&o->require_all_cores, req, "require_all_cores", err) ||
	    json_bool(&o->require_locked_clocks, req, "require_locked_clocks",
	              err) ||
	    json_num(&o->thermal_max, req, "thermal_max", err) ||
	    json_num(&o->throttle_tolerance, req, "throttle_tolerance", err) ||
	    json_num(&o->load_max, req, "load_max", err) ||
	    json_num(&o->wait_max_s, req, "wait_max", err) ||
	    json_num(&o->load_wait_s, req, "load_wait", err) ||
	    json_num(&retries, req, "throttle_retries", err) ||
	    json_num(&o->throttle_sleep_s, req, "throttle_sleep", err) ||
	    json_suppress(&o->suppress, req, err))
		return BF_EINVAL;
	if (retries != floor(retries) || retries < 0 ||
	    retries > BF_CHECK_THROTTLE_RETRY_MAX)
		return bf_err_set(err, BF_EINVAL,
		                  "check: \"throttle_retries\" must be an "
		                  "integer 0..%d",
		                  BF_CHECK_THROTTLE_RETRY_MAX);
	o->throttle_retries = (int)retries;
	if (battery != floor(battery) || battery < 0 || battery > 100)
		return bf_err_set(
		        err, BF_EINVAL,
		        "check: \"battery_min\" must be an integer 0..100");
	o->battery_min = (int)battery;
	return bf_check_opts_validate(o, err);
}

void bf_check_result_init(struct bf_check_result *res)
{
	memset(res, 0, sizeof(*res));
	for (int i = 0; i < BF_CHECK_NIDS; i++) {
		res->items[i].id = (enum bf_check_id)i;
		res->items[i].status = BF_CHECK_SKIP;
		res->items[i].value = res->items[i].threshold = NAN;
	}
	bf_argv_init(&res->errors);
}

void bf_check_result_release(struct bf_check_result *res)
{
	if (!res)
		return;
	free(res->device);
	bf_argv_release(&res->errors);
	bf_check_result_init(res);
}

void bf_check_finish(struct bf_check_result *res,
                     const struct bf_check_opts *opts)
{
	res->fit = true;
	for (int i = 0; i < BF_CHECK_NIDS; i++) {
		struct bf_check_item *it = &res->items[i];
		size_t len = strlen(it->message);

		if (it->status == BF_CHECK_FAIL &&
		    (opts->suppress & (1u << i))) {
			it->status = BF_CHECK_WARN;
			it->suppressed = true;
			res->suppressed |= 1u << i;
			snprintf(it->message + len, sizeof(it->message) - len,
			         " (suppressed)");
		}
		if (it->status == BF_CHECK_FAIL)
			res->fit = false;
	}
}

/* Waiting helps when every failing check is one that can recover. */
static bool worth_waiting(const struct bf_check_result *res)
{
	bool any = false;

	for (int i = 0; i < BF_CHECK_NIDS; i++) {
		if (res->items[i].status != BF_CHECK_FAIL)
			continue;
		if (!(WAITABLE & (1u << i)))
			return false;
		any = true;
	}
	return any;
}

static void default_sleep(double seconds, void *hook)
{
	struct timespec ts, rem;

	(void)hook;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &rem) < 0 && errno == EINTR)
		ts = rem;
}

static double default_now(void *hook)
{
	(void)hook;
	return bf_now_monotonic();
}

void bf_check__sleep(const struct bf_check_env *env, double seconds)
{
	(env->sleep ? env->sleep : default_sleep)(seconds, env->hook);
}

double bf_check__now(const struct bf_check_env *env)
{
	return (env->now ? env->now : default_now)(env->hook);
}

/* One probe and every check on it. */
static void check_once(struct bf_check_result *res,
                       const struct bf_check_opts *opts,
                       const struct bf_check_env *env)
{
	struct bf_probe p;
	double waited = res->waited_s, load_waited = res->load_waited_s;
	int probes = res->probes;
	struct bf_check_item *load = &res->items[BF_CHECK_LOAD];
	size_t len;

	bf_check_result_release(res);
	res->waited_s = waited;
	res->load_waited_s = load_waited;
	res->probes = probes + 1;
	bf_probe_all(&p, env->fs, env->probe_flags, NULL);
	bf_check_eval(res, &p, opts);
	len = strlen(load->message);
	if (load_waited > 0 && load->status == BF_CHECK_FAIL)
		snprintf(load->message + len, sizeof(load->message) - len,
		         "; still so after waiting %.0f s (load_wait %.0f s)",
		         load_waited, opts->load_wait_s);
	else if (load_waited > 0)
		snprintf(load->message + len, sizeof(load->message) - len,
		         "; settled after waiting %.0f s", load_waited);
	res->waited_s += bf_throttle_check(&res->items[BF_CHECK_THROTTLE], &p,
	                                   opts, env);
	bf_check_finish(res, opts);
	res->device = p.device ? bf_xstrdup(p.device) : NULL;
	bf_argv_copy(&res->errors, &p.errors);
	bf_probe_release(&p);
}

/*
 * A busy device may be busy only for now (its own build just ended):
 * re-read the load alone until it is within its limit or load_wait is
 * spent. Only a load that can be read and is too high waits; a
 * suppressed load check never does, nor one disabled.
 */
static void settle_load(struct bf_check_result *res,
                        const struct bf_check_opts *opts,
                        const struct bf_check_env *env,
                        bf_check_sleep_fn *sleep_fn, bf_check_now_fn *now)
{
	double step =
	        env->load_poll_s > 0 ? env->load_poll_s : BF_CHECK_LOAD_POLL;
	struct bf_check_item it;
	struct bf_probe p;

	if (opts->load_wait_s <= 0 || opts->load_max <= 0 ||
	    (opts->suppress & (1u << BF_CHECK_LOAD)))
		return;
	bf_probe_init(&p);
	for (;;) {
		double left = opts->load_wait_s - res->load_waited_s, t0;

		bf_probe_load(&p, env->fs);
		bf_check_load(&it, &p, opts);
		if (it.status != BF_CHECK_FAIL || !isfinite(it.value) ||
		    left <= 0)
			break;
		t0 = now(env->hook);
		sleep_fn(step < left ? step : left, env->hook);
		res->load_waited_s += now(env->hook) - t0;
	}
	res->waited_s += res->load_waited_s;
	bf_probe_release(&p);
}

/*
 * The load passed while settling but fails in the checks' own probe,
 * with some of load_wait left: wait for it again.
 */
static bool load_again(const struct bf_check_result *res,
                       const struct bf_check_opts *opts)
{
	const struct bf_check_item *it = &res->items[BF_CHECK_LOAD];

	return it->status == BF_CHECK_FAIL && !it->suppressed &&
	       isfinite(it->value) && opts->load_max > 0 &&
	       res->load_waited_s < opts->load_wait_s;
}

/*
 * Wait for the load again: one poll first (so the loop always moves
 * on, even when the load passes and fails in turn), then as before.
 */
static void resettle(struct bf_check_result *res,
                     const struct bf_check_opts *opts,
                     const struct bf_check_env *env,
                     bf_check_sleep_fn *sleep_fn, bf_check_now_fn *now)
{
	double step =
	        env->load_poll_s > 0 ? env->load_poll_s : BF_CHECK_LOAD_POLL;
	double left = opts->load_wait_s - res->load_waited_s, t0;

	res->waited_s -= res->load_waited_s; /* settle_load adds it all */
	t0 = now(env->hook);
	sleep_fn(step < left ? step : left, env->hook);
	res->load_waited_s += now(env->hook) - t0;
	settle_load(res, opts, env, sleep_fn, now);
}

int bf_check_run(struct bf_check_result *res, const struct bf_check_opts *opts,
                 const struct bf_check_env *env, struct bf_err *err)
{
	bf_check_sleep_fn *sleep_fn = env->sleep ? env->sleep : default_sleep;
	bf_check_now_fn *now = env->now ? env->now : default_now;
	double step = env->wait_interval_s > 0 ? env->wait_interval_s
	                                       : BF_CHECK_WAIT_INTERVAL;

	bf_check_result_init(res);
	if (bf_check_opts_validate(opts, err))
		return BF_EINVAL;
	if (!env->fs)
		return bf_err_set(err, BF_EINVAL, "no device to check");
	settle_load(res, opts, env, sleep_fn, now);
	for (;;) {
		double left, t0;

		check_once(res, opts, env);
		/* it settled for a moment only: load_wait is not spent yet */
		if (load_again(res, opts)) {
			resettle(res, opts, env, sleep_fn, now);
			continue;
		}
		left = opts->wait_max_s - (res->waited_s - res->load_waited_s);
		if (res->fit || left <= 0 || !worth_waiting(res))
			break;
		t0 = now(env->hook);
		sleep_fn(step < left ? step : left, env->hook);
		res->waited_s += now(env->hook) - t0;
	}
	return 0;
}

static json_t *num_or_null(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 1e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

json_t *bf_check_result_json(const struct bf_check_result *res)
{
	json_t *checks = json_array(), *suppressed = json_array();
	json_t *errors = json_array();

	for (int i = 0; i < BF_CHECK_NIDS; i++) {
		const struct bf_check_item *it = &res->items[i];
		json_t *c = json_pack("{s:s, s:s, s:o, s:o, s:o}", "id",
		                      id_names[i], "status",
		                      bf_check_status_name(it->status), "value",
		                      num_or_null(it->value), "threshold",
		                      num_or_null(it->threshold), "message",
		                      bf_probe_json_text(it->message));

		if (it->suppressed) {
			json_object_set_new(c, "suppressed", json_true());
			json_array_append_new(suppressed,
			                      json_string(id_names[i]));
		}
		json_array_append_new(checks, c);
	}
	for (size_t i = 0; i < res->errors.argc; i++)
		json_array_append_new(errors,
		                      bf_probe_json_text(res->errors.argv[i]));
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:i, s:o}", "fit", res->fit,
	                 "device", bf_probe_json_text(res->device), "checks",
	                 checks, "suppressed", suppressed, "waited_s",
	                 num_or_null(res->waited_s), "probes", res->probes,
	                 "errors", errors);
}
