#include "cmd_device_int.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "farm/devcheck.h"
#include "farm/machine.h"
#include "farm/ssh.h"
#include "store/store.h"

/*
 * `benchfarm device check`: one thread per device, each with its own SSH
 * session and agent; the threads only fill their own struct target, and
 * everything is written to the store by the main thread after joining,
 * so the store is never shared between threads.
 */

#define CHECK_COLS 4

struct target {
	struct bf_store_device dev; /* the registry record; owned */
	const struct bf_cfg_checks *checks; /* borrowed */
	const char *known_hosts; /* borrowed */
	const char *skip; /* why not checked; NULL: checked */
	bool keep_health; /* drained or retired: stays so */
	struct bf_devcheck dc; /* what the agent said */
	struct bf_err err; /* why the check could not be done */
	int ret; /* 0, or the code of err */
	int64_t at; /* when it finished */
	bool good; /* the outcome */
	char reason[BF_ERR_SIZE]; /* why bad; "" when good */
	pthread_t thread;
	bool threaded;
};

struct check_opts {
	bool all, json;
	const char *config;
	int first; /* argv index of the first device name */
};

static int parse_opts(struct check_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hc:", opts, NULL)) != -1) {
		if ((ret = cmd_device__std_opt(c, "check")) >= 0)
			return ret;
		if (c == 'a')
			o->all = true;
		else if (c == 'j')
			o->json = true;
		else if (c == 'c')
			o->config = optarg;
	}
	if (o->all == (optind < argc))
		return bf_cmd_fail(BF_EXIT_USAGE, "device check",
		                   "name the devices to check, or pass --all "
		                   "(not both)");
	o->first = optind;
	return -1;
}

/* Whether msg names the device as 'NAME'. */
static bool mentions(const char *msg, const char *name)
{
	char quoted[80];

	snprintf(quoted, sizeof(quoted), "'%s'", name);
	return strstr(msg, quoted) != NULL;
}

/*
 * Connect, start the agent, ask info and check. Runs in a thread; every
 * error names the device, whichever layer found it.
 */
static void *check_one(void *arg)
{
	struct target *t = arg;
	struct bf_ssh_target st = BF_SSH_TARGET_INIT;
	const char *adb[] = { "--adb", t->dev.adb_serial, NULL };
	struct bf_agentconn *agent = NULL;
	struct bf_ssh *ssh = NULL;

	st.name = t->dev.name;
	st.host = t->dev.host;
	st.port = t->dev.port;
	st.user = t->dev.user;
	st.key_path = t->dev.key_path;
	st.known_hosts = t->known_hosts;
	st.host_key_fp = t->dev.host_key_fp; /* the shared pin */
	t->ret = bf_ssh_connect(&ssh, &st, &t->err);
	if (!t->ret)
		t->ret = bf_ssh_open_agent(&agent, ssh, t->dev.agent_path,
		                           t->dev.adb_serial ? adb : NULL,
		                           &t->err);
	if (!t->ret)
		t->ret = bf_devcheck_run(&t->dc, agent, t->checks, t->dev.name,
		                         true, &t->err);
	bf_agentconn_close(agent);
	bf_ssh_close(ssh);
	t->at = (int64_t)time(NULL);
	if (t->ret && !mentions(t->err.msg, t->dev.name))
		bf_err_prefix(&t->err, "device '%s'", t->dev.name);
	return NULL;
}

/* Copy the record of a device; the strings move into t. */
static void take_device(struct target *t, struct bf_store_device *d)
{
	t->dev = *d;
	memset(d, 0, sizeof(*d));
}

/*
 * The devices to check, in registry order: *out is a new array of *n_out
 * targets. Named devices are checked whatever their health; --all skips
 * drained, retired and leased ones.
 */
static int select_targets(struct target **out, size_t *n_out,
                          const struct check_opts *o, int argc, char **argv,
                          struct bf_store *store)
{
	struct bf_store_device *devs = NULL;
	struct bf_err err = BF_ERR_INIT;
	int64_t now = (int64_t)time(NULL);
	struct target *ts;
	size_t n = 0, k = 0;
	int ret = -1;

	if (bf_store_device_list(&devs, &n, store, &err))
		return bf_cmd_fail(BF_EXIT_INFRA, "device check", "%s",
		                   err.msg);
	for (int i = o->first; i < argc && ret < 0; i++) {
		size_t j = 0;

		while (j < n && strcmp(devs[j].name, argv[i]))
			j++;
		if (j == n)
			ret = bf_cmd_fail(BF_EXIT_USAGE, "device check",
			                  "no device '%s'; see 'benchfarm "
			                  "device list'",
			                  argv[i]);
	}
	ts = bf_xcalloc(n ? n : 1, sizeof(*ts));
	for (size_t j = 0; j < n && ret < 0; j++) {
		struct target *t = &ts[k];
		bool named = false, parked;

		for (int i = o->first; i < argc; i++)
			named = named || !strcmp(devs[j].name, argv[i]);
		if (!o->all && !named)
			continue;
		take_device(t, &devs[j]);
		k++;
		parked = !strcmp(t->dev.health, "maintenance") ||
		         !strcmp(t->dev.health, "retired");
		if (named)
			t->keep_health = parked;
		else if (parked)
			t->skip = t->dev.health;
		else if (cmd_device__is_leased(&t->dev, now))
			t->skip = "leased";
	}
	bf_store_devices_free(devs, n);
	if (ret >= 0) {
		free(ts);
		return ret;
	}
	*out = ts;
	*n_out = k;
	return -1;
}

/* Run the checks of all targets that are not skipped, in parallel. */
static void run_all(struct target *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ts[i].skip)
			continue;
		ts[i].threaded =
		        !pthread_create(&ts[i].thread, NULL, check_one, &ts[i]);
		if (!ts[i].threaded)
			check_one(&ts[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (ts[i].threaded)
			pthread_join(ts[i].thread, NULL);
}

/* What the agent said of its machine (farm/machine.h), when it changed. */
static int record_machine(struct target *t, struct bf_store *store,
                          struct bf_err *err)
{
	char *rec = bf_machine_from_info(t->dc.info);
	int ret = 0;

	if (rec && (!t->dev.machine || strcmp(rec, t->dev.machine)))
		ret = bf_store_device_set_machine(store, t->dev.name, rec, err);
	free(rec);
	return ret;
}

/* Record one outcome in the store; 0 or the store's exit code. */
static int settle(struct target *t, struct bf_store *store)
{
	struct bf_err err = BF_ERR_INIT;
	const char *health, *reason;

	t->good = !t->ret && t->dc.fit;
	if (t->ret)
		bf_strlcpy(t->reason, t->err.msg, sizeof(t->reason));
	else if (!t->dc.fit)
		bf_strlcpy(t->reason, t->dc.reason, sizeof(t->reason));
	for (char *p = t->reason; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	health = t->good ? "good" : "bad";
	reason = t->good ? NULL : t->reason;
	if (t->keep_health) {
		health = t->dev.health;
		reason = t->dev.health_reason;
	}
	if ((!t->ret &&
	     bf_devcheck_store(store, &t->dc, 0, t->dev.name, t->at, &err)) ||
	    (!t->ret && record_machine(t, store, &err)) ||
	    bf_store_device_set_health(store, t->dev.name, health, reason,
	                               t->at, &err))
		return bf_cmd_fail(BF_EXIT_INFRA, "device check", "%s",
		                   err.msg);
	if (!t->keep_health) {
		free(t->dev.health);
		t->dev.health = bf_xstrdup(health);
	}
	return 0;
}

static const char *result_name(const struct target *t)
{
	return t->skip ? "skipped" : t->good ? "good" : "bad";
}

static json_t *target_json(const struct target *t)
{
	const json_t *checks = json_object_get(t->dc.result, "checks");
	bool done = !t->skip && !t->ret;

	return json_pack(
	        "{s:s, s:s, s:s, s:s?, s:o, s:o, s:i, s:i, s:O?, s:O?, s:s?}",
	        "name", t->dev.name, "result", result_name(t), "health",
	        t->dev.health, "reason",
	        t->skip ? t->dev.health_reason
	                : (t->reason[0] ? t->reason : NULL),
	        "checked_at", t->skip ? json_null() : json_integer(t->at),
	        "fit", done ? json_boolean(t->dc.fit) : json_null(), "fails",
	        t->dc.fails, "warns", t->dc.warns, "checks", checks, "info",
	        t->dc.info, "error", !t->skip && t->ret ? t->err.msg : NULL);
}

/* The REASON column of one target; a new string. */
static char *reason_cell(const struct target *t)
{
	if (t->skip)
		return bf_xstrdup(t->dev.health_reason ? t->dev.health_reason
		                                       : t->skip);
	if (t->keep_health)
		return bf_xasprintf(
		        "check %s; stays %s%s%s", t->good ? "passed" : "failed",
		        t->dev.health, t->reason[0] ? ": " : "", t->reason);
	return bf_xstrdup(t->reason);
}

static void print_table(const struct target *ts, size_t n)
{
	static const char *const head[CHECK_COLS] = { "NAME", "HEALTH",
		                                      "CHECKS", "REASON" };
	const char **cells = bf_xcalloc(n ? n * CHECK_COLS : 1, sizeof(*cells));
	char **owned = bf_xcalloc(n ? 2 * n : 1, sizeof(*owned));

	for (size_t i = 0; i < n; i++) {
		const struct target *t = &ts[i];
		const char **row = cells + i * CHECK_COLS;

		owned[2 * i] = t->skip || t->ret
		                       ? bf_xstrdup(t->skip ? "skipped" : "-")
		                       : bf_xasprintf("%d fail, %d warn",
		                                      t->dc.fails, t->dc.warns);
		owned[2 * i + 1] = reason_cell(t);
		row[0] = t->dev.name;
		row[1] = t->skip ? t->skip : t->dev.health;
		row[2] = owned[2 * i];
		row[3] = *owned[2 * i + 1] ? owned[2 * i + 1] : NULL;
	}
	cmd_device__table(stdout, head, CHECK_COLS, cells, n);
	for (size_t i = 0; i < 2 * n; i++)
		free(owned[i]);
	free(owned);
	free(cells);
}

/* Settle every outcome, print them; the exit code. */
static int report(struct target *ts, size_t n, bool json,
                  struct bf_store *store)
{
	size_t bad = 0, checked = 0;
	int ret = BF_EXIT_OK;

	for (size_t i = 0; i < n; i++) {
		if (ts[i].skip)
			continue;
		checked++;
		if (settle(&ts[i], store))
			ret = BF_EXIT_INFRA;
		bad += !ts[i].good;
	}
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, target_json(&ts[i]));
		cmd_device__print_json(a);
		json_decref(a);
	} else {
		print_table(ts, n);
	}
	if (bad)
		fprintf(stderr,
		        "benchfarm: device check: %zu of %zu checked "
		        "device%s bad\n",
		        bad, checked, checked == 1 ? " is" : "s are");
	return bad ? BF_EXIT_INFRA : ret;
}

int cmd_device__check(int argc, char **argv, struct bf_ctx *ctx)
{
	struct check_opts o = { false, false, NULL, 0 };
	struct bf_err err = BF_ERR_INIT;
	struct target *ts = NULL;
	struct bf_cfg cfg;
	char *kh = NULL;
	size_t n = 0;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	if ((ret = parse_opts(&o, argc, argv)) >= 0)
		goto out;
	if (!o.config)
		bf_cfg_init(&cfg);
	else if ((ret = bf_cmd_load_cfg(&cfg, "device check", o.config)))
		goto out;
	if ((ret = select_targets(&ts, &n, &o, argc, argv, ctx->store)) >= 0)
		goto out;
	if (bf_ssh_known_hosts_path(&kh, &err)) {
		ret = bf_cmd_fail(BF_EXIT_INFRA, "device check", "%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ts[i].checks = &cfg.checks;
		ts[i].known_hosts = kh;
	}
	run_all(ts, n);
	ret = report(ts, n, o.json, ctx->store);
out:
	for (size_t i = 0; i < n; i++) {
		bf_store_device_release(&ts[i].dev);
		bf_devcheck_release(&ts[i].dc);
	}
	free(ts);
	free(kh);
	bf_cfg_release(&cfg);
	return ret;
}
