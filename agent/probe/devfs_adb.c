#include "probe/devfs.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"

/*
 * The adb backend of devfs: every operation is one `adb -s SERIAL shell
 * ...` run through bf_spawn_run (an argv array, never a host shell).
 * adb joins the words after "shell" with spaces and hands the result to
 * the device's /system/bin/sh, so each word is checked against a small
 * character set instead of being quoted: nothing a device shell would
 * interpret can get through. Errors are checked in three layers: the
 * adb client itself (device gone, offline, unauthorized: BF_EPROTO),
 * then the remote command's exit status and error text (old devices
 * without the shell protocol mix stderr into stdout and always exit 0).
 */

#define ADB_TIMEOUT_S 30.0
#define ADB_ERR_MAX   (64 * 1024)
#define ADB_PATH_MAX  4096

struct adb {
	char *exe; /* $BENCHFARM_ADB, else "adb" looked up in PATH */
	char *serial;
};

/* Device paths: absolute, [A-Za-z0-9_./-] only. */
static bool path_ok(const char *p)
{
	size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
	                     "wxyz0123456789_./-");

	return p[0] == '/' && !p[n] && n < ADB_PATH_MAX;
}

/* Values for sysfs writes: [A-Za-z0-9 _.-], not starting with '-'. */
static bool value_ok(const char *v)
{
	size_t n = strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
	                     "wxyz0123456789 _.-");

	return n && !v[n] && v[0] != '-' && v[0] != ' ';
}

/* Command words: no character the device shell treats specially. */
static bool word_ok(const char *w)
{
	size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
	                     "wxyz0123456789_./:=,+@%-");

	return n && !w[n];
}

/* Serials: "emulator-5554", "10.0.0.2:5555", "adb-X._adb-tls-connect._tcp" */
static bool serial_ok(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
	                     "wxyz0123456789_.:-");

	return n && !s[n] && s[0] != '-' && n < 256;
}

/* The first non-blank line of s, without "\r", into buf of size len. */
static void first_line(char *buf, size_t len, const char *s)
{
	size_t n;

	s += strspn(s, " \t\r\n");
	n = strcspn(s, "\r\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/*
 * An error of the adb client (not of the remote command): a stderr line
 * "error: ..." or "adb: ..." with a failing exit status. Copies it.
 */
static bool client_error(const struct bf_spawn_result *res, char *line,
                         size_t len)
{
	const char *s = res->err.buf;

	if (res->exit_code == 0)
		return false;
	while (*s) {
		first_line(line, len, s);
		if (!strncmp(line, "error: ", 7) || !strncmp(line, "adb: ", 5))
			return true;
		s += strcspn(s, "\n");
		s += *s == '\n';
	}
	return false;
}

static bool is_disconnect(const char *line)
{
	static const char *const pats[] = {
		"not found",        "no devices",
		"offline",          "closed",
		"protocol fault",   "no emulators",
		"connection reset", "failed to get feature set",
	};

	for (size_t i = 0; i < BF_ARRAY_SIZE(pats); i++)
		if (strstr(line, pats[i]))
			return true;
	return false;
}

/*
 * Runs `adb -s SERIAL args...`. Returns 0 when adb reached the device
 * (res then holds what the remote command did); BF_EPROTO when the
 * device is gone or unusable, BF_ETIMEOUT, BF_ETOOBIG (output over
 * out_max), BF_ESYS when adb cannot be run. what names the operation.
 */
static int adb_exec(struct adb *a, const char *what, const char *const *args,
                    double timeout_s, size_t out_max,
                    struct bf_spawn_result *res, struct bf_err *err)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_argv argv = BF_ARGV_INIT;
	struct bf_err e = BF_ERR_INIT;
	char line[160];
	int ret;

	bf_argv_push(&argv, a->exe);
	bf_argv_push(&argv, "-s");
	bf_argv_push(&argv, a->serial);
	bf_argv_pushv(&argv, args);
	opts.argv = (const char *const *)argv.argv;
	opts.timeout_s = timeout_s;
	opts.out_max = out_max;
	opts.err_max = ADB_ERR_MAX;
	opts.kill_on_overflow = true;
	ret = bf_spawn_run(res, &opts, &e);
	if (ret)
		ret = bf_err_set(
		        err, BF_ESYS,
		        "adb device '%s': cannot run adb (install it or "
		        "set BENCHFARM_ADB): %s",
		        a->serial, e.msg);
	else if (res->timed_out)
		ret = bf_err_set(err, BF_ETIMEOUT,
		                 "adb device '%s': %s timed out after %g s",
		                 a->serial, what, timeout_s);
	else if (res->out_truncated)
		ret = bf_err_set(
		        err, BF_ETOOBIG,
		        "adb device '%s': %s printed more than %zu bytes",
		        a->serial, what, out_max);
	else if (client_error(res, line, sizeof(line)))
		ret = bf_err_set(err, BF_EPROTO, "adb device '%s' %s: %s (%s)",
		                 a->serial,
		                 is_disconnect(line) ? "disconnected"
		                                     : "unavailable",
		                 line, what);
	else if (res->term_signal)
		ret = bf_err_set(
		        err, BF_EPROTO,
		        "adb device '%s': adb killed by signal %d (%s)",
		        a->serial, res->term_signal, what);
	bf_argv_release(&argv);
	return ret;
}

/*
 * The remote command's failure, if any: a non-zero exit status, text on
 * stderr, or (devices without the shell protocol) "TOOL: PATH: ..." on
 * stdout. Missing files are BF_ENOTFOUND, other failures BF_ESYS.
 */
static int file_error(struct adb *a, const struct bf_spawn_result *res,
                      const char *tool, const char *verb, const char *path,
                      bool any_output, struct bf_err *err)
{
	const char *text = res->err.len ? res->err.buf : res->out.buf;
	char prefix[ADB_PATH_MAX + 16], line[200];
	int code;

	snprintf(prefix, sizeof(prefix), "%s: %s: ", tool, path);
	if (!res->exit_code && !res->err.len &&
	    strncmp(res->out.buf, prefix, strlen(prefix)) &&
	    !(any_output && res->out.len))
		return 0;
	first_line(line, sizeof(line), text);
	if (!*line)
		snprintf(line, sizeof(line), "exited with status %d",
		         res->exit_code);
	code = strstr(line, "No such file") || strstr(line, "Not a directory")
	               ? BF_ENOTFOUND
	               : BF_ESYS;
	return bf_err_set(err, code, "cannot %s '%s' on adb device '%s': %s",
	                  verb, path, a->serial, line);
}

static int adb_read(void *state, const char *path, struct bf_buf *out,
                    struct bf_err *err)
{
	struct adb *a = state;
	const char *args[] = { "shell", "cat", path, NULL };
	struct bf_spawn_result res;
	char what[ADB_PATH_MAX + 16];
	int ret;

	if (!path_ok(path))
		return bf_err_set(err, BF_EINVAL,
		                  "adb device '%s': refusing path '%.200s' "
		                  "(only absolute paths of [A-Za-z0-9_./-])",
		                  a->serial, path);
	snprintf(what, sizeof(what), "cat '%s'", path);
	ret = adb_exec(a, what, args, ADB_TIMEOUT_S, BF_DEVFS_FILE_MAX, &res,
	               err);
	if (!ret)
		ret = file_error(a, &res, "cat", "read", path, false, err);
	if (!ret && bf_buf_add(out, res.out.buf, res.out.len))
		ret = bf_err_set(err, BF_ETOOBIG, "'%s' is too large", path);
	bf_spawn_result_release(&res);
	return ret;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int adb_list(void *state, const char *dir, struct bf_argv *names,
                    struct bf_err *err)
{
	struct adb *a = state;
	const char *args[] = { "shell", "ls", "-1", dir, NULL };
	struct bf_spawn_result res;
	char what[ADB_PATH_MAX + 16];
	size_t first = names->argc;
	const char *s;
	int ret;

	if (!path_ok(dir))
		return bf_err_set(err, BF_EINVAL,
		                  "adb device '%s': refusing path '%.200s' "
		                  "(only absolute paths of [A-Za-z0-9_./-])",
		                  a->serial, dir);
	snprintf(what, sizeof(what), "ls '%s'", dir);
	ret = adb_exec(a, what, args, ADB_TIMEOUT_S, BF_DEVFS_FILE_MAX, &res,
	               err);
	if (!ret)
		ret = file_error(a, &res, "ls", "list", dir, false, err);
	for (s = res.out.buf; !ret && *s;) {
		size_t n = strcspn(s, "\r\n");

		if (n) {
			char *name = bf_xstrndup(s, n);

			bf_argv_push(names, name);
			free(name);
		}
		s += n;
		s += strspn(s, "\r\n");
	}
	if (names->argc > first)
		qsort(names->argv + first, names->argc - first, sizeof(char *),
		      cmp_str);
	bf_spawn_result_release(&res);
	return ret;
}

static int adb_write(void *state, const char *path, const char *data,
                     struct bf_err *err)
{
	struct adb *a = state;
	struct bf_spawn_result res;
	const char *args[] = { "shell", NULL, NULL };
	char *value = bf_xstrdup(data), *script = NULL;
	size_t len = strlen(value);
	int ret;

	if (len && value[len - 1] == '\n')
		value[--len] = '\0';
	if (!path_ok(path) || !value_ok(value)) {
		ret = bf_err_set(
		        err, BF_EINVAL,
		        "adb device '%s': refusing to write '%.60s' to "
		        "'%.200s' (values of [A-Za-z0-9 _.-] only, "
		        "absolute paths of [A-Za-z0-9_./-] only)",
		        a->serial, value, path);
		goto out;
	}
	script = bf_xasprintf("echo %s > %s", value, path);
	args[1] = script;
	ret = adb_exec(a, script, args, ADB_TIMEOUT_S, ADB_ERR_MAX, &res, err);
	if (!ret)
		ret = file_error(a, &res, "sh", "write", path, true, err);
	bf_spawn_result_release(&res);
out:
	free(script);
	free(value);
	return ret;
}

/* The first words of a command, for messages: "am instrument -w ...". */
static char *command_display(const struct bf_argv *words)
{
	struct bf_argv head = BF_ARGV_INIT;
	char *s;

	for (size_t i = 0; i < words->argc && i < 3; i++)
		bf_argv_push(&head, words->argv[i]);
	if (words->argc > 3)
		bf_argv_push(&head, "...");
	s = bf_argv_to_display(&head);
	bf_argv_release(&head);
	return s;
}

/* Checks the words and renders them for messages ("dumpsys battery"). */
static int command_words(struct adb *a, const char *const *argv,
                         struct bf_argv *words, char **what, struct bf_err *err)
{
	if (!argv || !argv[0])
		return bf_err_set(err, BF_EINVAL,
		                  "adb device '%s': empty command", a->serial);
	for (size_t i = 0; argv[i]; i++)
		if (!word_ok(argv[i]))
			return bf_err_set(
			        err, BF_EINVAL,
			        "adb device '%s': refusing command word "
			        "'%.80s' (only [A-Za-z0-9_./:=,+@%%-])",
			        a->serial, argv[i]);
	bf_argv_pushv(words, argv);
	*what = command_display(words);
	return 0;
}

/* The code for a failed command's error line. */
static int command_error_code(const char *line)
{
	if (strstr(line, "No such file") || strstr(line, "not found") ||
	    strstr(line, "Can't find service"))
		return BF_ENOTFOUND;
	if (strstr(line, "Permission denied"))
		return BF_ESYS;
	return BF_ERROR;
}

int bf_devfs_adb_command(struct bf_devfs *fs, const char *const *argv,
                         double timeout_s, struct bf_buf *out,
                         struct bf_err *err)
{
	struct adb *a = fs->state;
	struct bf_argv words = BF_ARGV_INIT, args = BF_ARGV_INIT;
	struct bf_spawn_result res;
	size_t cap = out->max ? out->max - out->len : BF_DEVFS_FILE_MAX;
	char *what = NULL, line[200];
	int ret;

	if (strcmp(fs->ops->name, "adb"))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: '%s' needs an adb device (--adb SERIAL)",
		                  fs->desc, argv && argv[0] ? argv[0] : "");
	ret = command_words(a, argv, &words, &what, err);
	if (ret)
		goto out;
	bf_argv_push(&args, "shell");
	bf_argv_pushv(&args, (const char *const *)words.argv);
	ret = adb_exec(a, what, (const char *const *)args.argv, timeout_s,
	               cap ? cap : 1, &res, err);
	if (ret)
		goto out_res;
	first_line(line, sizeof(line), res.err.buf);
	if (res.exit_code && !*line)
		first_line(line, sizeof(line), res.out.buf);
	if (res.exit_code || (!res.out.len && *line)) {
		ret = bf_err_set(err, command_error_code(line),
		                 "adb device '%s': '%s' failed (status %d): %s",
		                 a->serial, what, res.exit_code, line);
	} else if (bf_buf_add(out, res.out.buf, res.out.len)) {
		ret = bf_err_set(err, BF_ETOOBIG,
		                 "adb device '%s': '%s' output is too large",
		                 a->serial, what);
	}
out_res:
	bf_spawn_result_release(&res);
out:
	free(what);
	bf_argv_release(&words);
	bf_argv_release(&args);
	return ret;
}

static int adb_command_op(void *state, const char *const *argv,
                          struct bf_buf *out, struct bf_err *err);

static void adb_free(void *state)
{
	struct adb *a = state;

	if (!a)
		return;
	free(a->exe);
	free(a->serial);
	free(a);
}

static const struct bf_devfs_ops adb_ops = {
	"adb", adb_read, adb_list, adb_write, adb_command_op, adb_free,
};

static int adb_command_op(void *state, const char *const *argv,
                          struct bf_buf *out, struct bf_err *err)
{
	struct bf_devfs fs = { &adb_ops, state, NULL };

	return bf_devfs_adb_command(&fs, argv, ADB_TIMEOUT_S, out, err);
}

/* `adb get-state` must say "device" (not offline, recovery, ...). */
static int adb_check_state(struct adb *a, struct bf_err *err)
{
	const char *args[] = { "get-state", NULL };
	struct bf_spawn_result res;
	char line[80];
	int ret =
	        adb_exec(a, "get-state", args, ADB_TIMEOUT_S, 4096, &res, err);

	if (!ret) {
		first_line(line, sizeof(line),
		           res.out.len ? res.out.buf : res.err.buf);
		if (res.exit_code || strcmp(line, "device"))
			ret = bf_err_set(err, BF_EPROTO,
			                 "adb device '%s' is not ready: '%s'",
			                 a->serial, line);
	}
	bf_spawn_result_release(&res);
	return ret;
}

int bf_devfs_open_adb(struct bf_devfs **out, const char *serial,
                      struct bf_err *err)
{
	const char *exe = getenv("BENCHFARM_ADB");
	struct bf_devfs *fs;
	struct adb *a;
	int ret;

	if (!serial || !serial_ok(serial))
		return bf_err_set(err, BF_EINVAL,
		                  "invalid adb serial '%.80s' (expected "
		                  "[A-Za-z0-9_.:-], as `adb devices` prints)",
		                  serial ? serial : "");
	a = bf_xcalloc(1, sizeof(*a));
	a->exe = bf_xstrdup(exe && *exe ? exe : "adb");
	a->serial = bf_xstrdup(serial);
	ret = adb_check_state(a, err);
	if (ret) {
		adb_free(a);
		return ret;
	}
	fs = bf_xcalloc(1, sizeof(*fs));
	fs->ops = &adb_ops;
	fs->state = a;
	fs->desc = bf_xasprintf("adb device '%s'", serial);
	*out = fs;
	return 0;
}
