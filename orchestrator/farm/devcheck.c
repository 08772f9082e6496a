#include "farm/devcheck.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "store/store.h"

json_t *bf_devcheck_request(const struct bf_cfg_checks *c)
{
	json_t *suppress = json_array();

	for (size_t i = 0; i < c->suppress.argc; i++)
		json_array_append_new(suppress,
		                      json_string(c->suppress.argv[i]));
	return json_pack(
	        "{s:s, s:i, s:b, s:b, s:b, s:f, s:f, s:f, s:o, s:i, "
	        "s:i, s:i, s:i}",
	        "type", "check", "battery_min", c->battery_min,
	        "require_charging", c->require_charging, "require_all_cores",
	        c->require_all_cores, "require_locked_clocks",
	        c->require_locked_clocks, "thermal_max", c->thermal_max,
	        "throttle_tolerance", c->throttle_tolerance, "load_max",
	        c->load_max, "suppress", suppress, "wait_max", c->wait_max_s,
	        "load_wait", c->load_wait_s, "throttle_retries",
	        c->throttle_retries, "throttle_sleep", c->throttle_sleep_s);
}

double bf_devcheck_timeout(const struct bf_cfg_checks *c)
{
	return 60.0 + (c->wait_max_s > 0 ? c->wait_max_s : 0) +
	       (c->load_wait_s > 0 ? c->load_wait_s : 0) +
	       (c->throttle_retries > 0 && c->throttle_sleep_s > 0
	                ? (double)c->throttle_retries * c->throttle_sleep_s
	                : 0);
}

/* Turn line breaks and other control characters into spaces. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

void bf_devcheck_describe_unfit(char *buf, size_t len, const char *device,
                                const json_t *checks)
{
	size_t i, off;
	int n;
	json_t *c;

	if (!len)
		return;
	n = snprintf(buf, len, "device '%s' is not fit to measure:", device);
	off = n < 0 ? 0 : (size_t)n;
	json_array_foreach(checks, i, c)
	{
		if (strcmp(bf_json_str_or(c, "status", ""), "fail") ||
		    off >= len)
			continue;
		n = snprintf(buf + off, len - off, " %s (%s);",
		             bf_json_str_or(c, "id", "?"),
		             bf_json_str_or(c, "message", ""));
		off += n < 0 ? 0 : (size_t)n;
	}
	/* the last check's ';' ends nothing */
	if (off > 0 && off < len && buf[off - 1] == ';')
		buf[--off] = '\0';
	one_line(buf);
}

static bool transient_id(const char *id)
{
	static const char *const ids[] = { "battery", "thermal", "throttle",
		                           "load", "boost" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(ids); i++)
		if (!strcmp(id, ids[i]))
			return true;
	return false;
}

bool bf_devcheck_is_transient(const json_t *checks)
{
	bool any = false;
	size_t i;
	json_t *c;

	json_array_foreach(checks, i, c)
	{
		if (strcmp(bf_json_str_or(c, "status", ""), "fail"))
			continue;
		if (!transient_id(bf_json_str_or(c, "id", "")) ||
		    !json_is_number(json_object_get(c, "value")))
			return false;
		any = true;
	}
	return any;
}

static void count_statuses(struct bf_devcheck *dc, const json_t *checks)
{
	size_t i;
	json_t *c;

	json_array_foreach(checks, i, c)
	{
		const char *st = bf_json_str_or(c, "status", "");

		if (!strcmp(st, "fail"))
			dc->fails++;
		else if (!strcmp(st, "warn"))
			dc->warns++;
	}
}

/* Send one request; the answer's error text names the device. */
static int ask(json_t **out, struct bf_agentconn *agent, json_t *req,
               double timeout_s, const char *device, const char *what,
               struct bf_err *err)
{
	json_t *res = NULL;
	int ret;

	ret = bf_agentconn_request(&res, agent, req, timeout_s, NULL, NULL,
	                           err);
	json_decref(req);
	if (ret == BF_ERROR) {
		bf_err_prefix(err, "device '%s': agent %s", device, what);
		json_decref(res);
		return ret;
	}
	if (ret) {
		char quoted[80];

		json_decref(res);
		snprintf(quoted, sizeof(quoted), "'%s'", device);
		if (!strstr(err ? err->msg : "", quoted))
			bf_err_prefix(err, "device '%s': %s", device, what);
		return ret;
	}
	*out = res;
	return 0;
}

static int run_info(struct bf_devcheck *dc, struct bf_agentconn *agent,
                    const char *device, struct bf_err *err)
{
	json_t *res = NULL;
	json_t *info;
	int ret;

	ret = ask(&res, agent, json_pack("{s:s}", "type", "info"),
	          BF_DEVCHECK_INFO_TIMEOUT_S, device, "info", err);
	if (ret)
		return ret;
	info = json_object_get(res, "info");
	if (!json_is_object(info)) {
		json_decref(res);
		return bf_err_set(err, BF_EPROTO,
		                  "device '%s': the agent's info answer has no "
		                  "'info' object",
		                  device);
	}
	dc->info = json_incref(info);
	json_decref(res);
	return 0;
}

int bf_devcheck_run(struct bf_devcheck *out, struct bf_agentconn *agent,
                    const struct bf_cfg_checks *c, const char *device,
                    bool with_info, struct bf_err *err)
{
	struct bf_devcheck dc = BF_DEVCHECK_INIT;
	const json_t *checks;
	int ret = 0;

	if (with_info)
		ret = run_info(&dc, agent, device, err);
	if (!ret)
		ret = ask(&dc.result, agent, bf_devcheck_request(c),
		          bf_devcheck_timeout(c), device, "check", err);
	if (ret)
		goto out;
	checks = json_object_get(dc.result, "checks");
	if (!json_is_array(checks) ||
	    !json_is_boolean(json_object_get(dc.result, "fit"))) {
		ret = bf_err_set(err, BF_EPROTO,
		                 "device '%s': the agent's check answer has no "
		                 "'fit' and 'checks'",
		                 device);
		goto out;
	}
	count_statuses(&dc, checks);
	dc.fit = json_is_true(json_object_get(dc.result, "fit"));
	if (!dc.fit) {
		bf_devcheck_describe_unfit(dc.reason, sizeof(dc.reason), device,
		                           checks);
		dc.transient = bf_devcheck_is_transient(checks);
	}
out:
	*out = dc;
	return ret;
}

static double num_or_nan(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int bf_devcheck_store(struct bf_store *store, const struct bf_devcheck *dc,
                      int64_t run_id, const char *device, int64_t at,
                      struct bf_err *err)
{
	const json_t *checks = json_object_get(dc->result, "checks");
	int64_t when = at ? at : (int64_t)time(NULL);
	size_t i;
	json_t *c;
	int ret = 0;

	json_array_foreach(checks, i, c)
	{
		struct bf_store_check row;
		struct bf_err e = BF_ERR_INIT;

		memset(&row, 0, sizeof(row));
		row.run_id = run_id;
		row.device = (char *)device;
		row.check_id = (char *)bf_json_str_or(c, "id", "?");
		row.status = (char *)bf_json_str_or(c, "status", "fail");
		row.value = num_or_nan(c, "value");
		row.threshold = num_or_nan(c, "threshold");
		row.message = (char *)bf_json_str_or(c, "message", NULL);
		row.at = when;
		if (bf_store_check_add(store, &row, &e) && !ret) {
			ret = e.code;
			if (err)
				*err = e;
		}
	}
	return ret;
}

void bf_devcheck_release(struct bf_devcheck *dc)
{
	if (!dc)
		return;
	json_decref(dc->info);
	json_decref(dc->result);
	memset(dc, 0, sizeof(*dc));
}
