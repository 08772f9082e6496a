#include "cmd_device_int.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "store/store.h"

/* `benchfarm device list` and `benchfarm device show`. */

#define LIST_COLS 8

/* Who holds the devices and who waits for them. */
struct leases_waiters {
	struct bf_store_lease *leases;
	size_t nleases;
	struct bf_store_waiter *waiters;
	size_t nwaiters;
};

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

/* Whether the waiter's pool (a label, a name, "device:NAME") takes d. */
static bool waits_for(const struct bf_store_waiter *w,
                      const struct bf_store_device *d)
{
	const char *p = d->labels;
	size_t n = strlen(w->pool);

	if (!strncmp(w->pool, "device:", 7))
		return !strcmp(w->pool + 7, d->name);
	if (!strcmp(w->pool, d->name))
		return true;
	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, w->pool, n))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

/* Who holds and who waits, in a listed device's JSON. */
static void add_queue_json(json_t *o, const struct bf_store_device *d,
                           const struct leases_waiters *q)
{
	json_t *lease = json_object_get(o, "lease");
	json_t *waiters = json_array();

	for (size_t i = 0; json_is_object(lease) && i < q->nleases; i++) {
		const struct bf_store_lease *l = &q->leases[i];

		if (strcmp(l->device, d->name))
			continue;
		json_object_set_new(lease, "host",
		                    l->host ? json_string(l->host)
		                            : json_null());
		json_object_set_new(lease, "pid",
		                    l->pid ? json_integer((json_int_t)l->pid)
		                           : json_null());
		json_object_set_new(lease, "since",
		                    json_integer((json_int_t)l->acquired_at));
		json_object_set_new(lease, "token",
		                    json_integer((json_int_t)l->token));
	}
	for (size_t i = 0; i < q->nwaiters; i++) {
		const struct bf_store_waiter *w = &q->waiters[i];

		if (!waits_for(w, d))
			continue;
		json_array_append_new(
		        waiters,
		        json_pack("{s:I, s:s, s:s, s:o, s:o, s:I, s:I}",
		                  "ticket", (json_int_t)w->ticket, "pool",
		                  w->pool, "holder", w->holder, "host",
		                  w->host ? json_string(w->host) : json_null(),
		                  "pid",
		                  w->pid ? json_integer((json_int_t)w->pid)
		                         : json_null(),
		                  "since", (json_int_t)w->since, "expires_at",
		                  (json_int_t)w->expires_at));
	}
	json_object_set_new(o, "waiters", waiters);
}

#define LEASE_COLS  6
#define WAITER_COLS 6

/* The tables of holders and of waiters under the device list. */
static void queue_text(const struct leases_waiters *q, int64_t now)
{
	static const char *const lhead[LEASE_COLS] = {
		"DEVICE", "HOLDER", "HOST", "PID", "SINCE", "EXPIRES",
	};
	static const char *const whead[WAITER_COLS] = {
		"TICKET", "POOL", "HOLDER", "HOST", "PID", "SINCE",
	};
	size_t n = q->nleases > q->nwaiters ? q->nleases : q->nwaiters;
	const char **cells = bf_xcalloc(n * LEASE_COLS + 1, sizeof(*cells));
	char **owned = bf_xcalloc(n * 4 + 1, sizeof(*owned));

	for (size_t i = 0; i < q->nleases; i++) {
		const struct bf_store_lease *l = &q->leases[i];
		const char **row = cells + i * LEASE_COLS;
		char age[32];

		cmd_device__age(age, sizeof(age), l->acquired_at, now);
		owned[4 * i] = bf_xasprintf("%lld", (long long)l->pid);
		owned[4 * i + 1] = bf_xstrdup(age);
		owned[4 * i + 2] =
		        l->expires_at > now
		                ? bf_xasprintf("in %lld s",
		                               (long long)(l->expires_at - now))
		                : bf_xasprintf(
		                          "expired %lld s ago",
		                          (long long)(now - l->expires_at));
		row[0] = l->device;
		row[1] = l->holder;
		row[2] = l->host;
		row[3] = l->pid ? owned[4 * i] : NULL;
		row[4] = owned[4 * i + 1];
		row[5] = owned[4 * i + 2];
	}
	if (q->nleases) {
		fputs("\nLEASES\n", stdout);
		cmd_device__table(stdout, lhead, LEASE_COLS, cells, q->nleases);
	}
	for (size_t i = 0; i < 4 * n; i++)
		free(owned[i]);
	memset(owned, 0, (4 * n + 1) * sizeof(*owned));
	for (size_t i = 0; i < q->nwaiters; i++) {
		const struct bf_store_waiter *w = &q->waiters[i];
		const char **row = cells + i * WAITER_COLS;
		char age[32];

		cmd_device__age(age, sizeof(age), w->since, now);
		owned[4 * i] = bf_xasprintf("%lld", (long long)w->ticket);
		owned[4 * i + 1] = bf_xasprintf("%lld", (long long)w->pid);
		owned[4 * i + 2] = bf_xstrdup(age);
		row[0] = owned[4 * i];
		row[1] = w->pool;
		row[2] = w->holder;
		row[3] = w->host;
		row[4] = w->pid ? owned[4 * i + 1] : NULL;
		row[5] = owned[4 * i + 2];
	}
	if (q->nwaiters) {
		fputs("\nWAITING\n", stdout);
		cmd_device__table(stdout, whead, WAITER_COLS, cells,
		                  q->nwaiters);
	}
	for (size_t i = 0; i < 4 * n; i++)
		free(owned[i]);
	free(owned);
	free(cells);
}

/* The devices that are one machine, each group once. */
static void machines_text(const struct cmd_device__machines *m)
{
	if (!m->lines.argc)
		return;
	printf("\none machine (a job measures on one of them at a time "
	       "unless devices.same_machine: parallel):\n");
	for (size_t i = 0; i < m->lines.argc; i++) {
		char *text = bf_text_inert(m->lines.argv[i], 0);

		printf("  %s\n", text);
		free(text);
	}
}

int cmd_device__list(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_store_device *devs = NULL;
	struct bf_err err = BF_ERR_INIT;
	int64_t now = (int64_t)time(NULL);
	struct leases_waiters q = { NULL, 0, NULL, 0 };
	struct cmd_device__machines m = { NULL, 0, BF_ARGV_INIT };
	bool json = false;
	size_t n = 0;
	int ret = parse_opts(NULL, &json, argc, argv);

	if (ret >= 0)
		return ret;
	if (bf_store_device_list(&devs, &n, ctx->store, &err) ||
	    bf_store_lease_list(&q.leases, &q.nleases, ctx->store, &err) ||
	    bf_store_waiter_list(&q.waiters, &q.nwaiters, ctx->store, &err)) {
		ret = bf_cmd_fail(BF_EXIT_INFRA, "device list", "%s", err.msg);
		goto out;
	}
	cmd_device__machines_find(&m, devs, n);
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < n; i++) {
			json_t *o = cmd_device__json(&devs[i], now);

			json_object_set_new(o, "machine",
			                    cmd_device__machine_json(
			                            &devs[i], &m.siblings[i]));
			add_queue_json(o, &devs[i], &q);
			json_array_append_new(a, o);
		}
		cmd_device__print_json(a);
		json_decref(a);
	} else {
		list_text(devs, n, now);
		machines_text(&m);
		queue_text(&q, now);
	}
	ret = BF_EXIT_OK;
out:
	cmd_device__machines_release(&m);
	bf_store_devices_free(devs, n);
	bf_store_leases_free(q.leases, q.nleases);
	bf_store_waiters_free(q.waiters, q.nwaiters);
	return ret;
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

/* "machine-id X, boot id Y, hostname H, cpu C, kernel K" of a record. */
static void machine_field(const char *record)
{
	static const char *const keys[][2] = {
		{ "machine_id", "machine-id" }, { "boot_id", "boot id" },
		{ "hostname", "hostname" },     { "cpu", "cpu" },
		{ "kernel", "kernel" },
	};
	json_t *o = record ? json_loads(record, 0, NULL) : NULL;
	struct bf_buf b = BF_BUF_INIT;

	for (size_t i = 0; i < BF_ARRAY_SIZE(keys); i++) {
		const char *v = bf_json_str_or(o, keys[i][0], NULL);

		if (v)
			bf_buf_addf(&b, "%s%s %s", b.len ? ", " : "",
			            keys[i][1], v);
	}
	field("machine:", b.len ? b.buf : "(not known: 'device check' asks)");
	bf_buf_release(&b);
	json_decref(o);
}

/* The names of siblings, "'d2', 'd3'", or "-" for none. */
static void same_machine_field(const struct bf_argv *siblings)
{
	struct bf_buf b = BF_BUF_INIT;

	for (size_t i = 0; siblings && i < siblings->argc; i++)
		bf_buf_addf(&b, "%s'%s'", i ? ", " : "", siblings->argv[i]);
	if (b.len)
		bf_buf_addstr(&b, " (a job measures on one of them at a time "
		                  "unless devices.same_machine: parallel)");
	field("same machine:", b.buf);
	bf_buf_release(&b);
}

static void show_text(const struct bf_store_device *d, const json_t *checks,
                      const struct bf_argv *siblings, int64_t now)
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
	machine_field(d->machine);
	same_machine_field(siblings);
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
	struct bf_store_device *devs = NULL;
	struct cmd_device__machines m = { NULL, 0, BF_ARGV_INIT };
	const struct bf_argv *siblings = NULL;
	struct bf_err err = BF_ERR_INIT;
	int64_t now = (int64_t)time(NULL);
	const char *name = NULL;
	json_t *checks = NULL, *o;
	bool json = false;
	size_t n = 0;
	int ret = parse_opts(&name, &json, argc, argv);

	if (ret >= 0)
		return ret;
	if (bf_store_device_get(&d, ctx->store, name, &err))
		return bf_cmd_fail(err.code == BF_ENOTFOUND ? BF_EXIT_USAGE
		                                            : BF_EXIT_INFRA,
		                   "device show", "%s", err.msg);
	if (bf_store_device_list(&devs, &n, ctx->store, &err)) {
		ret = bf_cmd_fail(BF_EXIT_INFRA, "device show", "%s", err.msg);
		goto out;
	}
	cmd_device__machines_find(&m, devs, n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(devs[i].name, d.name))
			siblings = &m.siblings[i];
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
		json_object_set_new(o, "machine",
		                    cmd_device__machine_json(&d, siblings));
		json_object_set_new(o, "checks", a);
		cmd_device__print_json(o);
		json_decref(o);
	} else {
		show_text(&d, checks, siblings, now);
	}
	ret = BF_EXIT_OK;
out:
	cmd_device__machines_release(&m);
	bf_store_devices_free(devs, n);
	json_decref(checks);
	bf_store_device_release(&d);
	return ret;
}
