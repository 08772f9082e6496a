#include "cmd_device_int.h"

#include <pwd.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "store/store.h"

/*
 * `benchfarm device`: the device registry. Health (unknown,
 * good, bad, maintenance, retired; set by checks and admins) is kept
 * apart from state (idle, leased, running; set by the scheduler), as
 * LAVA does.
 */

struct subcmd {
	const char *name;
	bf_cmd_fn *fn;
	const char *usage; /* after "benchfarm device " */
	const char *help; /* option lines */
};

static int device_rm(int argc, char **argv, struct bf_ctx *ctx);
static int device_drain(int argc, char **argv, struct bf_ctx *ctx);
static int device_undrain(int argc, char **argv, struct bf_ctx *ctx);

static const struct subcmd subcmds[] = {
	{ "add", cmd_device__add,
	  "add NAME --host H [--port P] [--user U]\n"
	  "                            [--key PATH] [--labels L,..] "
	  "[--type linux|android]\n"
	  "                            [--adb-serial S] [--agent PATH] "
	  "[--workdir DIR]\n"
	  "                            [--accept-host-key]",
	  "Register a device reached over SSH. NAME and each label: 1 to 64 of\n"
	  "A-Z a-z 0-9 . _ -.\n"
	  "\n"
	  "        --host H           SSH host name or address (required)\n"
	  "        --port P           SSH port (default 22)\n"
	  "        --user U           SSH user (default: the current user)\n"
	  "        --key PATH         private key (default ~/.ssh/id_ed25519);\n"
	  "                           must not be accessible by group or "
	  "others;\n"
	  "                           only its path is stored\n"
	  "        --labels L,..      pools the device belongs to\n"
	  "        --type T           linux (default) or android (an adb "
	  "device\n"
	  "                           attached to the SSH host)\n"
	  "        --adb-serial S     the android device's adb serial "
	  "(required\n"
	  "                           with --type android)\n"
	  "        --agent PATH       benchfarm-agent on the device (default: "
	  "on\n"
	  "                           its PATH)\n"
	  "        --workdir DIR      remote directory for artifacts and "
	  "builds\n"
	  "                           (default .cache/benchfarm; a relative "
	  "one is\n"
	  "                           under the remote home)\n"
	  "        --accept-host-key  fetch the host key now, pin its "
	  "fingerprint\n"
	  "                           in the registry (every host sharing "
	  "the\n"
	  "                           store checks it) and record it in this\n"
	  "                           host's known_hosts; without it the key\n"
	  "                           must be in this host's known_hosts\n" },
	{ "list", cmd_device__list, "list [--json]",
	  "One line per device: NAME TYPE HOST:PORT LABELS STATE HEALTH\n"
	  "LAST-CHECK REASON.\n"
	  "\n"
	  "        --json   an array of device objects\n" },
	{ "show", cmd_device__show, "show NAME [--json]",
	  "Every field of one device and its latest check results.\n"
	  "\n"
	  "        --json   one device object with a \"checks\" array\n" },
	{ "check", cmd_device__check,
	  "check [NAME ...|--all] [-c CONFIG] [--json]",
	  "Connect to each device (in parallel), run the agent's info and "
	  "check,\n"
	  "store the results and set the health: good when fit, bad when "
	  "unfit\n"
	  "or unreachable. With --all, devices that are drained, retired or\n"
	  "leased are skipped; named ones are checked (a drained device "
	  "stays\n"
	  "drained). Exit 0 when every checked device is good, 3 otherwise.\n"
	  "\n"
	  "        --all              every registered device\n"
	  "    -c, --config FILE      thresholds from the config's checks: "
	  "section\n"
	  "                           (default: the built-in defaults)\n"
	  "        --json             the details as JSON\n" },
	{ "rekey", cmd_device__rekey, "rekey NAME",
	  "The device was reinstalled and its SSH host key changed: fetch the\n"
	  "new key, print the pinned and the new SHA256 fingerprints, pin the\n"
	  "new one in the registry (for every host that shares the store) and\n"
	  "record it in this host's known_hosts. Compare the new fingerprint\n"
	  "with the device's own before trusting it. Health becomes unknown\n"
	  "until the next check.\n" },
	{ "rm", device_rm, "rm NAME [--force]",
	  "Remove a device from the registry (its run history stays).\n"
	  "\n"
	  "        --force   remove it even while a job holds its lease\n" },
	{ "drain", device_drain, "drain NAME [--reason TEXT]",
	  "Put a device in maintenance: no new leases; a running job "
	  "finishes.\n"
	  "\n"
	  "        --reason TEXT   why, recorded after \"drained by USER\"\n" },
	{ "undrain", device_undrain, "undrain NAME",
	  "End maintenance: health becomes unknown until the next check.\n" },
};

static const struct subcmd *find_subcmd(const char *name)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(subcmds); i++)
		if (!strcmp(subcmds[i].name, name))
			return &subcmds[i];
	return NULL;
}

static void usage_all(FILE *f)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(subcmds); i++)
		fprintf(f, "%s benchfarm device %s\n",
		        i ? "   or:" : "usage:", subcmds[i].usage);
	fputs("\nThe device registry. Health (unknown, good, bad, maintenance,\n"
	      "retired) is set by checks and admins; state (idle, leased,\n"
	      "running) by the scheduler. 'benchfarm device SUB -h' shows a\n"
	      "subcommand's options.\n",
	      f);
}

void cmd_device__usage(FILE *f, const char *sub)
{
	const struct subcmd *s = find_subcmd(sub);

	if (!s)
		BF_BUG("no device subcommand '%s'", sub);
	fprintf(f, "usage: benchfarm device %s\n\n%s", s->usage, s->help);
}

int cmd_device__std_opt(int c, const char *sub)
{
	if (c == 'h') {
		cmd_device__usage(stdout, sub);
		return BF_EXIT_OK;
	}
	if (c == '?') {
		cmd_device__usage(stderr, sub);
		return BF_EXIT_USAGE;
	}
	return -1;
}

bool cmd_device__is_name(const char *s, size_t len)
{
	if (len < 1 || len > 64)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

void cmd_device__age(char *buf, size_t len, int64_t then, int64_t now)
{
	int64_t d = now - then;

	if (!then)
		snprintf(buf, len, "never");
	else if (d < 60)
		snprintf(buf, len, "%llds ago", (long long)(d < 0 ? 0 : d));
	else if (d < 3600)
		snprintf(buf, len, "%lldm ago", (long long)(d / 60));
	else if (d < 86400)
		snprintf(buf, len, "%lldh ago", (long long)(d / 3600));
	else
		snprintf(buf, len, "%lldd ago", (long long)(d / 86400));
}

bool cmd_device__is_leased(const struct bf_store_device *d, int64_t now)
{
	return d->lease_holder && d->lease_expires_at > now;
}

static json_t *labels_json(const char *labels)
{
	json_t *a = json_array();
	const char *p = labels;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n)
			json_array_append_new(a, json_stringn(p, n));
		p = comma ? comma + 1 : NULL;
	}
	return a;
}

json_t *cmd_device__json(const struct bf_store_device *d, int64_t now)
{
	json_t *o = json_object();
	json_t *lease = json_null();

	if (d->lease_holder)
		lease = json_pack("{s:s, s:I, s:b}", "holder", d->lease_holder,
		                  "expires_at", (json_int_t)d->lease_expires_at,
		                  "expired", d->lease_expires_at <= now);
	json_object_set_new(o, "name", bf_json_str_or_null(d->name));
	json_object_set_new(o, "type", bf_json_str_or_null(d->type));
	json_object_set_new(o, "host", bf_json_str_or_null(d->host));
	json_object_set_new(o, "port", json_integer(d->port ? d->port : 22));
	json_object_set_new(o, "user", bf_json_str_or_null(d->user));
	json_object_set_new(o, "key_path", bf_json_str_or_null(d->key_path));
	json_object_set_new(o, "labels", labels_json(d->labels));
	json_object_set_new(o, "agent_path",
	                    bf_json_str_or_null(d->agent_path));
	json_object_set_new(o, "adb_serial",
	                    bf_json_str_or_null(d->adb_serial));
	json_object_set_new(o, "workdir", bf_json_str_or_null(d->workdir));
	json_object_set_new(o, "host_key_fp",
	                    bf_json_str_or_null(d->host_key_fp));
	json_object_set_new(o, "state", bf_json_str_or_null(d->state));
	json_object_set_new(o, "health", bf_json_str_or_null(d->health));
	json_object_set_new(o, "health_reason",
	                    bf_json_str_or_null(d->health_reason));
	json_object_set_new(o, "last_check_at",
	                    d->last_check_at
	                            ? json_integer((json_int_t)d->last_check_at)
	                            : json_null());
	json_object_set_new(o, "created_at",
	                    json_integer((json_int_t)d->created_at));
	json_object_set_new(o, "lease", lease);
	return o;
}

void cmd_device__print_json(const json_t *json)
{
	char *text = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (text)
		printf("%s\n", text);
	free(text);
}

void cmd_device__table(FILE *f, const char *const *head, size_t ncols,
                       const char *const *cells, size_t nrows)
{
	size_t *w = bf_xcalloc(ncols, sizeof(*w));
	char **text = bf_xcalloc(nrows ? nrows * ncols : 1, sizeof(*text));

	/* cells hold what devices and agents said: printed inert */
	for (size_t i = 0; i < nrows * ncols; i++)
		text[i] = bf_text_inert(cells[i] ? cells[i] : "-", 0);
	for (size_t c = 0; c < ncols; c++) {
		w[c] = strlen(head[c]);
		for (size_t r = 0; r < nrows; r++) {
			size_t n = strlen(text[r * ncols + c]);

			w[c] = n > w[c] ? n : w[c];
		}
	}
	for (size_t r = 0; r <= nrows; r++) {
		for (size_t c = 0; c < ncols; c++) {
			const char *s = r ? text[(r - 1) * ncols + c] : head[c];

			if (c + 1 < ncols)
				fprintf(f, "%-*s  ", (int)w[c], s);
			else
				fprintf(f, "%s\n", s);
		}
	}
	for (size_t i = 0; i < nrows * ncols; i++)
		free(text[i]);
	free(text);
	free(w);
}

/* Parse "SUB NAME" plus the options of rm/drain; -1 to go on. */
static int parse_name_opts(const char **name, bool *force, const char **reason,
                           int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((ret = cmd_device__std_opt(c, argv[0])) >= 0)
			return ret;
		if ((c == 'f' && !force) || (c == 'r' && !reason)) {
			cmd_device__usage(stderr, argv[0]);
			return BF_EXIT_USAGE;
		}
		if (c == 'f')
			*force = true;
		else if (c == 'r')
			*reason = optarg;
	}
	if (optind + 1 != argc) {
		cmd_device__usage(stderr, argv[0]);
		return BF_EXIT_USAGE;
	}
	*name = argv[optind];
	return -1;
}

/* The exit code for a store error: 2 for a missing device, else 3. */
static int store_fail(const char *sub, const struct bf_err *err)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "device %s", sub);
	return bf_cmd_fail(err->code == BF_ENOTFOUND ? BF_EXIT_USAGE
	                                             : BF_EXIT_INFRA,
	                   cmd, "%s", err->msg);
}

static int device_rm(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	const char *name = NULL;
	bool force = false;
	int64_t now = (int64_t)time(NULL);
	int ret = parse_name_opts(&name, &force, NULL, argc, argv);

	if (ret >= 0)
		return ret;
	if (bf_store_device_get(&d, ctx->store, name, &err))
		return store_fail("rm", &err);
	if (cmd_device__is_leased(&d, now) && !force) {
		ret = bf_cmd_fail(BF_EXIT_USAGE, "device rm",
		                  "device '%s' is leased by '%s' for another "
		                  "%lld s; pass --force to remove it anyway",
		                  name, d.lease_holder,
		                  (long long)(d.lease_expires_at - now));
	} else if (bf_store_device_remove(ctx->store, name, &err)) {
		ret = store_fail("rm", &err);
	} else {
		printf("%s: removed\n", name);
		ret = BF_EXIT_OK;
	}
	bf_store_device_release(&d);
	return ret;
}

/* Who is draining: $USER, else $LOGNAME, else the account, else uid. */
static void who(char *buf, size_t len)
{
	const char *u = getenv("USER");
	struct passwd pw, *res = NULL;
	char pwbuf[1024];

	if (!u || !*u)
		u = getenv("LOGNAME");
	if ((!u || !*u) &&
	    !getpwuid_r(getuid(), &pw, pwbuf, sizeof(pwbuf), &res) && res)
		u = res->pw_name;
	if (u && *u)
		snprintf(buf, len, "%s", u);
	else
		snprintf(buf, len, "uid %ld", (long)getuid());
}

static int device_drain(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_err err = BF_ERR_INIT;
	const char *name = NULL, *why = NULL;
	char user[64], reason[BF_ERR_SIZE];
	int ret = parse_name_opts(&name, NULL, &why, argc, argv);

	if (ret >= 0)
		return ret;
	who(user, sizeof(user));
	snprintf(reason, sizeof(reason), "drained by %s%s%s", user,
	         why ? ": " : "", why ? why : "");
	for (char *p = reason; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	if (bf_store_device_set_health(ctx->store, name, "maintenance", reason,
	                               0, &err))
		return store_fail("drain", &err);
	printf("%s: %s; it takes no new leases\n", name, reason);
	return BF_EXIT_OK;
}

static int device_undrain(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	const char *name = NULL;
	int ret = parse_name_opts(&name, NULL, NULL, argc, argv);

	if (ret >= 0)
		return ret;
	if (bf_store_device_get(&d, ctx->store, name, &err))
		return store_fail("undrain", &err);
	if (strcmp(d.health, "maintenance"))
		fprintf(stderr,
		        "benchfarm: device undrain: '%s' was not drained "
		        "(health %s)\n",
		        name, d.health);
	bf_store_device_release(&d);
	if (bf_store_device_set_health(ctx->store, name, "unknown", NULL, 0,
	                               &err))
		return store_fail("undrain", &err);
	printf("%s: undrained; health unknown until the next check\n", name);
	return BF_EXIT_OK;
}

int cmd_device(int argc, char **argv, struct bf_ctx *ctx)
{
	const struct subcmd *s = argc >= 2 ? find_subcmd(argv[1]) : NULL;

	if (s)
		return s->fn(argc - 1, argv + 1, ctx);
	if (argc >= 2 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help")) {
		fprintf(stderr, "benchfarm: device: '%s' is not a subcommand\n",
		        argv[1]);
		usage_all(stderr);
		return BF_EXIT_USAGE;
	}
	if (argc >= 2) {
		usage_all(stdout);
		return BF_EXIT_OK;
	}
	usage_all(stderr);
	return BF_EXIT_USAGE;
}
