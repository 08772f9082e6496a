#include "cmd_device_int.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "store/store.h"

/* `benchfarm device list` and `benchfarm device show`. */

#define LIST_COLS 8

/* Parse [NAME] [--json] for list (no name) and show (one name). */
static int parse_opts(const char **name, bool *json, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int want = name ? 1 : 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((ret = cmd_device__std_opt(c, argv[0])) >= 0)
			return ret;
		if (c == 'j')
			*json = true;
	}
	if (argc - optind != want) {
		cmd_device__usage(stderr, argv[0]);
		return BF_EXIT_USAGE;
	}
	if (name)
		*name = argv[optind];
	return -1;
}

static void list_text(const struct bf_store_device *devs, size_t n, int64_t now)
{
	static const char *const head[LIST_COLS] = {
		"NAME",  "TYPE",   "HOST:PORT",  "LABELS",
		"STATE", "HEALTH", "LAST-CHECK", "REASON",
	};
	const char **cells = bf_xcalloc(n ? n * LIST_COLS : 1, sizeof(*cells));
	char **owned = bf_xcalloc(n ? 3 * n : 1, sizeof(*owned));

	for (size_t i = 0; i < n; i++) {
		const struct bf_store_device *d = &devs[i];
		const char **row = cells + i * LIST_COLS;
		char age[32];

		cmd_device__age(age, sizeof(age), d->last_check_at, now);
		owned[3 * i] = bf_xasprintf("%s:%d", d->host ? d->host : "-",
		                            d->port ? d->port : 22);
		owned[3 * i + 1] = bf_xstrdup(age);
		owned[3 * i + 2] =
		        d->lease_holder && !cmd_device__is_leased(d, now)
		                ? bf_xasprintf("%s(expired)", d->state)
		                : bf_xstrdup(d->state);
		row[0] = d->name;
		row[1] = d->type;
		row[2] = owned[3 * i];
		row[3] = d->labels && *d->labels ? d->labels : NULL;
		row[4] = owned[3 * i + 2];
		row[5] = d->health;
		row[6] = owned[3 * i + 1];
		row[7] = d->health_reason;
	}
	cmd_device__table(stdout, head, LIST_COLS, cells, n);
	for (size_t i = 0; i < 3 * n; i++)
		free(owned[i]);
	free(owned);
	free(cells);
}

int cmd_device__list(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_store_device *devs = NULL;
	struct bf_err err = BF_ERR_INIT;
	int64_t now = (int64_t)time(NULL);
	bool json = false;
	size_t n = 0;
	int ret = parse_opts(NULL, &json, argc, argv);

	if (ret >= 0)
		return ret;
	if (bf_store_device_list(&devs, &n, ctx->store, &err))
		return bf_cmd_fail(BF_EXIT_INFRA, "device list", "%s", err.msg);
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(a,
			                      cmd_device__json(&devs[i], now));
		cmd_device__print_json(a);
		json_decref(a);
	} else {
		list_text(devs, n, now);
	}
	bf_store_devices_free(devs, n);
	return BF_EXIT_OK;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Keep the latest result of each check id, in first-seen order. */
static int latest_check(const struct bf_store_check *c, void *payload)
{
	json_t *by_id = payload;

	json_object_set_new(
	        by_id, c->check_id,
	        json_pack("{s:s, s:s, s:o, s:o, s:s?, s:I, s:o}", "id",
	                  c->check_id, "status", c->status, "value",
	                  real_or_null(c->value), "threshold",
	                  real_or_null(c->threshold), "message", c->message,
	                  "at", (json_int_t)c->at, "run_id",
	                  c->run_id ? json_integer((json_int_t)c->run_id)
	                            : json_null()));
	return 0;
}

/* A value as inert text: a device's or agent's words drive nothing. */
static void field(const char *label, const char *value)
{
	char *text = bf_text_inert(value && *value ? value : "-", 0);

	printf("%-12s %s\n", label, text);
	free(text);
}

/* A time as "YYYY-MM-DDTHH:MM:SSZ (3m ago)", or "never". */
static void when(char *buf, size_t len, int64_t t, int64_t now)
{
	time_t tt = (time_t)t;
	char age[32], stamp[32];
	struct tm tm;

	cmd_device__age(age, sizeof(age), t, now);
	if (!t || !gmtime_r(&tt, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%s", age);
	else
		snprintf(buf, len, "%s (%s)", stamp, age);
}

static void show_text(const struct bf_store_device *d, const json_t *checks,
                      int64_t now)
{
	char buf[128];
	const char *id;
	json_t *c;

	field("name:", d->name);
	field("type:", d->type);
	snprintf(buf, sizeof(buf), "%s:%d", d->host ? d->host : "-",
	         d->port ? d->port : 22);
	field("host:", buf);
	field("user:", d->user ? d->user : "(the current user)");
	field("key:", d->key_path ? d->key_path : "(ssh default)");
	field("labels:", d->labels);
	field("agent:", d->agent_path ? d->agent_path : "benchfarm-agent");
	if (d->adb_serial)
		field("adb serial:", d->adb_serial);
	field("workdir:", d->workdir ? d->workdir : BF_DEVICE_WORKDIR_DEFAULT);
	field("host key:", d->host_key_fp);
	field("state:", d->state);
	field("health:", d->health);
	field("reason:", d->health_reason);
	when(buf, sizeof(buf), d->last_check_at, now);
	field("last check:", buf);
	when(buf, sizeof(buf), d->created_at, now);
	field("created:", buf);
	if (d->lease_holder) {
		snprintf(buf, sizeof(buf), "%s, %s %lld s", d->lease_holder,
		         cmd_device__is_leased(d, now) ? "expires in"
		                                       : "expired",
		         (long long)(d->lease_expires_at > now
		                             ? d->lease_expires_at - now
		                             : now - d->lease_expires_at));
		field("lease:", buf);
	}
	printf("\nlatest checks:%s\n", json_object_size(checks) ? "" : " none");
	json_object_foreach((json_t *)checks, id, c)
	{
		char *status =
		        bf_text_inert(bf_json_str_or(c, "status", ""), 0);
		char *tid = bf_text_inert(id, 0);
		char *msg = bf_text_inert(bf_json_str_or(c, "message", ""), 0);

		printf("  %-5s %-9s %s\n", status, tid, msg);
		free(status);
		free(tid);
		free(msg);
	}
}

int cmd_device__show(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	int64_t now = (int64_t)time(NULL);
	const char *name = NULL;
	json_t *checks = NULL, *o;
	bool json = false;
	int ret = parse_opts(&name, &json, argc, argv);

	if (ret >= 0)
		return ret;
	if (bf_store_device_get(&d, ctx->store, name, &err))
		return bf_cmd_fail(err.code == BF_ENOTFOUND ? BF_EXIT_USAGE
		                                            : BF_EXIT_INFRA,
		                   "device show", "%s", err.msg);
	checks = json_object();
	if (bf_store_checks_foreach(ctx->store, 0, name, latest_check, checks,
	                            &err)) {
		ret = bf_cmd_fail(BF_EXIT_INFRA, "device show", "%s", err.msg);
		goto out;
	}
	if (json) {
		json_t *a = json_array();
		json_t *c;
		const char *id;

		json_object_foreach(checks, id, c) json_array_append(a, c);
		o = cmd_device__json(&d, now);
		json_object_set_new(o, "checks", a);
		cmd_device__print_json(o);
		json_decref(o);
	} else {
		show_text(&d, checks, now);
	}
	ret = BF_EXIT_OK;
out:
	json_decref(checks);
	bf_store_device_release(&d);
	return ret;
}
