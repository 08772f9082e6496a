#include "cmd_device_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/parse.h"
#include "farm/ssh.h"
#include "store/store.h"

/*
 * `benchfarm device add`: validate everything before anything is
 * written; with --accept-host-key fetch the host key, pin its
 * fingerprint in the registry (what every host sharing the store checks
 * when it connects) and record it in this host's known_hosts (which
 * guards the address against another key added here under another
 * name). Only the private key's path is stored, never its contents
 * (which are never even read here).
 */

#define SCAN_TIMEOUT_S 10.0

enum {
	OPT_HOST = 256,
	OPT_PORT,
	OPT_USER,
	OPT_KEY,
	OPT_LABELS,
	OPT_TYPE,
	OPT_ADB,
	OPT_AGENT,
	OPT_WORKDIR,
	OPT_ACCEPT,
};

struct add_opts {
	struct bf_store_device dev; /* strings borrowed from argv */
	const char *key; /* --key as given */
	bool accept;
};

static int fail(int code, const char *fmt, ...) BF_PRINTF(2, 3);

static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("benchfarm: device add: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* A word without spaces or control characters, not an option. */
static bool is_word(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Text without control characters (a remote path may have spaces). */
static bool is_text(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static bool labels_ok(const char *labels)
{
	const char *p = labels;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!cmd_device__is_name(p, n))
			return false;
		if (!comma)
			return true;
		p = comma + 1;
	}
}

static int set_opt(struct add_opts *o, int c, const char *arg)
{
	struct bf_err err = BF_ERR_INIT;

	if (c == OPT_HOST)
		o->dev.host = (char *)arg;
	else if (c == OPT_PORT &&
	         bf_parse_int_range(&o->dev.port, arg, 1, 65535, &err))
		return fail(BF_EXIT_USAGE, "bad --port: %s", err.msg);
	else if (c == OPT_USER)
		o->dev.user = (char *)arg;
	else if (c == OPT_KEY)
		o->key = arg;
	else if (c == OPT_LABELS)
		o->dev.labels = (char *)arg;
	else if (c == OPT_TYPE)
		o->dev.type = (char *)arg;
	else if (c == OPT_ADB)
		o->dev.adb_serial = (char *)arg;
	else if (c == OPT_AGENT)
		o->dev.agent_path = (char *)arg;
	else if (c == OPT_WORKDIR)
		o->dev.workdir = (char *)arg;
	else if (c == OPT_ACCEPT)
		o->accept = true;
	return -1;
}

static int parse_opts(struct add_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, OPT_HOST },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "user", required_argument, NULL, OPT_USER },
		{ "key", required_argument, NULL, OPT_KEY },
		{ "labels", required_argument, NULL, OPT_LABELS },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "adb-serial", required_argument, NULL, OPT_ADB },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "workdir", required_argument, NULL, OPT_WORKDIR },
		{ "accept-host-key", no_argument, NULL, OPT_ACCEPT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if ((ret = cmd_device__std_opt(c, "add")) >= 0)
			return ret;
		if ((ret = set_opt(o, c, optarg)) >= 0)
			return ret;
	}
	if (optind + 1 != argc) {
		cmd_device__usage(stderr, "add");
		return BF_EXIT_USAGE;
	}
	o->dev.name = argv[optind];
	return -1;
}

/* The checks of the option values that need no file system. */
static int validate(const struct add_opts *o)
{
	const struct bf_store_device *d = &o->dev;

	if (!cmd_device__is_name(d->name, strlen(d->name)))
		return fail(BF_EXIT_USAGE,
		            "bad device name '%s': use 1 to 64 of A-Z a-z 0-9 "
		            ". _ -",
		            d->name);
	if (!d->host)
		return fail(BF_EXIT_USAGE, "%s: --host is required", d->name);
	if (!is_word(d->host))
		return fail(BF_EXIT_USAGE, "bad --host '%s'", d->host);
	if (d->user && !is_word(d->user))
		return fail(BF_EXIT_USAGE, "bad --user '%s'", d->user);
	if (d->labels && !labels_ok(d->labels))
		return fail(BF_EXIT_USAGE,
		            "bad --labels '%s': comma-separated labels of 1 to "
		            "64 of A-Z a-z 0-9 . _ -",
		            d->labels);
	if (strcmp(d->type, "linux") && strcmp(d->type, "android"))
		return fail(BF_EXIT_USAGE, "bad --type '%s': linux or android",
		            d->type);
	if (!strcmp(d->type, "android") && !d->adb_serial)
		return fail(BF_EXIT_USAGE,
		            "%s: --type android needs --adb-serial", d->name);
	if (d->adb_serial && strcmp(d->type, "android"))
		return fail(BF_EXIT_USAGE,
		            "%s: --adb-serial needs --type android", d->name);
	if (d->adb_serial && !is_word(d->adb_serial))
		return fail(BF_EXIT_USAGE, "bad --adb-serial '%s'",
		            d->adb_serial);
	if (d->agent_path && !is_text(d->agent_path))
		return fail(BF_EXIT_USAGE, "bad --agent '%s'", d->agent_path);
	if (d->workdir && !is_text(d->workdir))
		return fail(BF_EXIT_USAGE, "bad --workdir '%s'", d->workdir);
	return -1;
}

/*
 * The private key must exist and be ours alone, as ssh demands; its
 * absolute path into *abs (caller frees). The file is not read.
 */
static int check_key(char **abs, const char *name, const char *key)
{
	char cwd[PATH_MAX];
	struct stat st;
	char *real;

	if (stat(key, &st)) {
		int e = errno;

		return bf_cmd_fail(BF_EXIT_USAGE, "device add",
		                   "%s: key file '%s': %s", name, key,
		                   strerror(e));
	}
	if (!S_ISREG(st.st_mode))
		return bf_cmd_fail(BF_EXIT_USAGE, "device add",
		                   "%s: key file '%s' is not a regular file",
		                   name, key);
	if (st.st_mode & 077)
		return bf_cmd_fail(
		        BF_EXIT_USAGE, "device add",
		        "%s: key file '%s' is accessible by group or others "
		        "(mode %04o); ssh refuses such keys: run 'chmod 600 %s'",
		        name, key, (unsigned)(st.st_mode & 07777), key);
	if (access(key, R_OK))
		return bf_cmd_fail(BF_EXIT_USAGE, "device add",
		                   "%s: key file '%s' is not readable", name,
		                   key);
	if (key[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		int e = errno;

		return bf_cmd_fail(BF_EXIT_USAGE, "device add",
		                   "%s: cannot make '%s' absolute: %s", name,
		                   key, strerror(e));
	}
	while (key[0] == '.' && key[1] == '/')
		key += 2;
	real = key[0] == '/' ? bf_xstrdup(key) : bf_fs_join(cwd, key);
	*abs = real;
	return -1;
}

/*
 * The registry's pins hold by address for every host that shares it:
 * a device registered at the address d's host resolved to (addr, ""
 * when unknown: then its host name) and d's port, pinned to another key
 * than fp, makes BF_EEXISTS naming it. A host whose own known_hosts has
 * never seen that address cannot pin another key for it under a new
 * name.
 */
static int check_registry_pins(struct bf_store *store,
                               const struct bf_store_device *d, const char *fp,
                               const char *addr, struct bf_err *err)
{
	struct bf_store_device *devs = NULL;
	size_t n = 0;
	int ret = bf_store_device_list(&devs, &n, store, err);

	for (size_t i = 0; !ret && i < n; i++) {
		const struct bf_store_device *o = &devs[i];

		if (!o->host || !o->host_key_fp || !*o->host_key_fp ||
		    !strcmp(o->host_key_fp, fp) ||
		    (o->port ? o->port : 22) != (d->port ? d->port : 22))
			continue;
		if (strcmp(o->host, d->host) &&
		    !bf_ssh_host_is_at(o->host, o->port, addr))
			continue;
		ret = bf_err_set(err, BF_EEXISTS,
		                 "%s:%d is pinned in the registry to another "
		                 "host key, %s, by device '%s' (offered now: "
		                 "%s): if that machine was reinstalled, run "
		                 "'benchfarm device rekey %s'; otherwise this "
		                 "may be someone else answering",
		                 *addr ? addr : d->host, d->port,
		                 o->host_key_fp, o->name, fp, o->name);
	}
	bf_store_devices_free(devs, n);
	return ret;
}

/*
 * Fetch and record the host key; its fingerprint into *fp. Unless
 * replacing (rekey), a key the registry pins for the same address under
 * another device is kept (check_registry_pins).
 */
static int accept_host_key(char **fp, const struct bf_store_device *d,
                           struct bf_store *store, bool replace,
                           const char *cmd)
{
	struct bf_err err = BF_ERR_INIT;
	char *line = NULL, *kh = NULL, *addr = NULL;
	int ret = -1;

	if (bf_ssh_scan_host_key(fp, &line, &addr, d->host, d->port,
	                         SCAN_TIMEOUT_S, &err) ||
	    (!replace && check_registry_pins(store, d, *fp, addr, &err)) ||
	    bf_ssh_known_hosts_path(&kh, &err) ||
	    bf_ssh_known_hosts_add(kh, line, replace, &err)) {
		char quoted[80];

		snprintf(quoted, sizeof(quoted), "'%s'", d->name);
		if (!strstr(err.msg, quoted))
			bf_err_prefix(&err, "device '%s'", d->name);
		ret = bf_cmd_fail(err.code == BF_EINVAL ||
		                                  err.code == BF_EEXISTS
		                          ? BF_EXIT_USAGE
		                          : BF_EXIT_INFRA,
		                  cmd, "%s", err.msg);
		BF_FREE(*fp);
	} else {
		printf("%s: host key %s recorded in %s\n", d->name, *fp, kh);
	}
	free(line);
	free(kh);
	free(addr);
	return ret;
}

/*
 * Ask the new device's agent which machine it is, record it, and say
 * which devices of its pools are the same machine. Best effort: a
 * device not reachable yet is still added, and `device check` records
 * its machine later.
 */
static void add_machine(const struct bf_store_device *d, struct bf_store *store)
{
	struct cmd_device__machines m = { NULL, 0, BF_ARGV_INIT };
	struct bf_store_device *devs = NULL;
	struct bf_err err = BF_ERR_INIT;
	char *rec = NULL, *quoted;
	size_t n = 0;

	if (cmd_device__ask_machine(&rec, d, NULL, &err)) {
		fprintf(stderr,
		        "benchfarm: device add: %s: cannot ask its agent which "
		        "machine it is (%s); 'benchfarm device check %s' "
		        "records it\n",
		        d->name, err.msg, d->name);
		return;
	}
	if (!rec)
		return;
	if (bf_store_device_set_machine(store, d->name, rec, &err) ||
	    bf_store_device_list(&devs, &n, store, &err)) {
		fprintf(stderr, "benchfarm: device add: %s: %s\n", d->name,
		        err.msg);
		goto out;
	}
	cmd_device__machines_find(&m, devs, n);
	quoted = bf_xasprintf("'%s'", d->name);
	for (size_t i = 0; i < m.lines.argc; i++)
		if (strstr(m.lines.argv[i], quoted))
			printf("%s: %s; a job measures on one of them at a "
			       "time unless devices.same_machine: parallel\n",
			       d->name, m.lines.argv[i]);
	free(quoted);
out:
	cmd_device__machines_release(&m);
	bf_store_devices_free(devs, n);
	free(rec);
}

int cmd_device__add(int argc, char **argv, struct bf_ctx *ctx)
{
	struct add_opts o;
	struct bf_store_device old = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char *key = NULL, *fp = NULL;
	int ret;

	memset(&o, 0, sizeof(o));
	o.dev.type = (char *)"linux";
	if ((ret = parse_opts(&o, argc, argv)) >= 0 ||
	    (ret = validate(&o)) >= 0 ||
	    (o.key && (ret = check_key(&key, o.dev.name, o.key)) >= 0))
		goto out;
	if (!o.dev.port)
		o.dev.port = 22;
	o.dev.key_path = key;
	if (!bf_store_device_get(&old, ctx->store, o.dev.name, &err)) {
		ret = fail(BF_EXIT_USAGE, "device '%s' already exists",
		           o.dev.name);
		goto out;
	}
	if (o.accept && (ret = accept_host_key(&fp, &o.dev, ctx->store, false,
	                                       "device add")) >= 0)
		goto out;
	o.dev.host_key_fp = fp;
	if (bf_store_device_add(ctx->store, &o.dev, &err)) {
		ret = bf_cmd_fail(err.code == BF_EEXISTS ||
		                                  err.code == BF_EINVAL
		                          ? BF_EXIT_USAGE
		                          : BF_EXIT_INFRA,
		                  "device add", "%s", err.msg);
		goto out;
	}
	printf("%s: added (%s, %s%s%s:%d)\n", o.dev.name, o.dev.type,
	       o.dev.user ? o.dev.user : "", o.dev.user ? "@" : "", o.dev.host,
	       o.dev.port);
	add_machine(&o.dev, ctx->store);
	ret = BF_EXIT_OK;
out:
	bf_store_device_release(&old);
	free(key);
	free(fp);
	return ret;
}

/*
 * device rekey NAME: the device was reinstalled and has a new host key.
 * Fetch it, show the pinned and the offered fingerprints, and pin the
 * new one. Only an admin who knows why the key changed should run it.
 */
int cmd_device__rekey(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char *fp = NULL;
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((ret = cmd_device__std_opt(c, argv[0])) >= 0)
			return ret;
	if (optind + 1 != argc) {
		cmd_device__usage(stderr, argv[0]);
		return BF_EXIT_USAGE;
	}
	if (bf_store_device_get(&d, ctx->store, argv[optind], &err))
		return bf_cmd_fail(err.code == BF_ENOTFOUND ? BF_EXIT_USAGE
		                                            : BF_EXIT_INFRA,
		                   "device rekey", "%s", err.msg);
	if ((ret = accept_host_key(&fp, &d, ctx->store, true, "device rekey")) <
	    0) {
		printf("%s: pinned before: %s\n", d.name,
		       d.host_key_fp ? d.host_key_fp : "(not pinned)");
		if (bf_store_device_set_host_key(ctx->store, d.name, fp, &err))
			ret = bf_cmd_fail(BF_EXIT_INFRA, "device rekey", "%s",
			                  err.msg);
		else
			ret = BF_EXIT_OK;
	}
	free(fp);
	bf_store_device_release(&d);
	return ret;
}
