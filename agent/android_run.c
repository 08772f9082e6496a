#include "android_run.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "parse/parse.h"
#include "probe/devfs.h"

#define RUN_TIMEOUT_DEFAULT_S 3600.0
#define PULL_TIMEOUT_S        120.0
#define JSON_SUFFIX           "benchmarkData.json"
#define FILE_KEY              "additionalTestOutputFile_"
#define DETAIL_MAX            160

/*
 * What `am instrument -w -r` printed, reduced to what decides the
 * outcome. Raw mode (-r) prints every status and result bundle as
 * "INSTRUMENTATION_STATUS: key=value" / "INSTRUMENTATION_RESULT:
 * key=value" lines (values may continue on the following lines), each
 * status ends with "INSTRUMENTATION_STATUS_CODE: N" and the run with
 * "INSTRUMENTATION_CODE: N" (-1 is RESULT_OK).
 */
struct instr {
	bool has_code; /* the final INSTRUMENTATION_CODE line arrived */
	int code;
	bool failed; /* INSTRUMENTATION_FAILED or _ABORTED */
	bool crashed; /* shortMsg=Process crashed. */
	bool failures; /* FAILURES!!! in the result stream, or a test ended
	                  with status code -1 (error) or -2 (failure) */
	char test[DETAIL_MAX]; /* "class#test" of the status being read */
	char stack[DETAIL_MAX]; /* its stack's first line */
	char last[DETAIL_MAX]; /* the last test that reported a status */
	char first_fail[DETAIL_MAX]; /* first test with code -1 or -2 */
	char detail[DETAIL_MAX]; /* why: stack line, shortMsg, FAILED line */
	struct bf_argv files; /* announced *benchmarkData.json paths */
};

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* True when needle occurs in s[0..len). */
static bool contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(s + i, needle, n))
			return true;
	return false;
}

static void copy_n(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* A "key=value" of a status or result bundle. */
static void bundle_kv(struct instr *in, const char *kv, size_t len)
{
	const char *eq = memchr(kv, '=', len);
	size_t klen = eq ? (size_t)(eq - kv) : len, vlen = len - klen - !!eq;
	size_t n;

	if (!eq)
		return;
	if (klen == 5 && starts(kv, klen, "class")) {
		copy_n(in->test, sizeof(in->test), eq + 1, vlen);
	} else if (klen == 4 && starts(kv, klen, "test")) {
		n = strlen(in->test);
		if (n + 1 < sizeof(in->test))
			in->test[n++] = '#';
		copy_n(in->test + n, sizeof(in->test) - n, eq + 1, vlen);
	} else if (klen == 5 && starts(kv, klen, "stack")) {
		copy_n(in->stack, sizeof(in->stack), eq + 1, vlen);
	} else if (klen == 8 && starts(kv, klen, "shortMsg")) {
		copy_n(in->detail, sizeof(in->detail), eq + 1, vlen);
		in->crashed |= starts(eq + 1, vlen, "Process crashed");
	} else if (starts(kv, klen, FILE_KEY) && vlen > strlen(JSON_SUFFIX) &&
	           !memcmp(eq + 1 + vlen - strlen(JSON_SUFFIX), JSON_SUFFIX,
	                   strlen(JSON_SUFFIX))) {
		char *path = bf_xstrndup(eq + 1, vlen);

		bf_argv_push(&in->files, path);
		free(path);
	}
}

/* A status ended with its code: remember the first failing test. */
static void status_end(struct instr *in, const char *num)
{
	int64_t code = 0;

	if (bf_parse_i64(&code, num, NULL) || (code != -1 && code != -2))
		code = 0;
	if (code && !in->failures) {
		bf_strlcpy(in->first_fail, in->test[0] ? in->test : "?",
		           sizeof(in->first_fail));
		bf_strlcpy(in->detail, in->stack, sizeof(in->detail));
	}
	in->failures |= code != 0;
	if (in->test[0])
		bf_strlcpy(in->last, in->test, sizeof(in->last));
	in->test[0] = in->stack[0] = '\0';
}

static void instr_line(struct instr *in, const char *s, size_t len)
{
	static const char st[] = "INSTRUMENTATION_STATUS: ";
	static const char res[] = "INSTRUMENTATION_RESULT: ";
	static const char stc[] = "INSTRUMENTATION_STATUS_CODE: ";
	static const char code[] = "INSTRUMENTATION_CODE: ";
	char num[24];
	int64_t v;

	if (starts(s, len, st) || starts(s, len, res)) {
		bundle_kv(in, s + sizeof(st) - 1, len - (sizeof(st) - 1));
	} else if (starts(s, len, stc)) {
		copy_n(num, sizeof(num), s + sizeof(stc) - 1,
		       len - (sizeof(stc) - 1));
		status_end(in, num);
	} else if (starts(s, len, code)) {
		copy_n(num, sizeof(num), s + sizeof(code) - 1,
		       len - (sizeof(code) - 1));
		in->has_code = !bf_parse_i64(&v, num, NULL);
		in->code = in->has_code ? (int)v : 0;
	} else if (contains(s, len, "INSTRUMENTATION_FAILED") ||
	           contains(s, len, "INSTRUMENTATION_ABORTED")) {
		in->failed = true;
		copy_n(in->detail, sizeof(in->detail), s, len);
	} else if (starts(s, len, "FAILURES!!!")) {
		in->failures = true;
	}
}

static void instr_parse(struct instr *in, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		instr_line(in, text, n && text[n - 1] == '\r' ? n - 1 : n);
		text += n;
		text += *text == '\n';
	}
}

/* True when the device no longer answers (adb reports it gone). */
static bool device_gone(struct bf_devfs *fs, struct bf_err *probe)
{
	static const char *const argv[] = { "echo", "ok", NULL };
	struct bf_buf b;
	int ret;

	bf_buf_init(&b, 4096);
	ret = bf_devfs_command(fs, argv, &b, probe);
	bf_buf_release(&b);
	return ret == BF_EPROTO;
}

static int instr_verdict(const struct instr *in, struct bf_devfs *fs,
                         struct bf_err *err)
{
	struct bf_err probe = BF_ERR_INIT;

	if (in->failed)
		return bf_err_set(err, BF_ERROR,
		                  "%s: instrumentation failed: %s", fs->desc,
		                  in->detail);
	if (!in->has_code && device_gone(fs, &probe))
		return bf_err_set(err, BF_EPROTO,
		                  "%s disconnected during 'am instrument' (in "
		                  "test '%s'); partial results discarded: %s",
		                  fs->desc, in->last, probe.msg);
	if (!in->has_code)
		return bf_err_set(err, BF_EPROTO,
		                  "%s: 'am instrument' output ended before "
		                  "INSTRUMENTATION_CODE (in test '%s'); "
		                  "partial results discarded",
		                  fs->desc, in->last);
	if (in->crashed)
		return bf_err_set(err, BF_ERROR,
		                  "%s: the test process crashed in '%s': %s",
		                  fs->desc, in->last, in->detail);
	if (in->failures)
		return bf_err_set(err, BF_ERROR,
		                  "%s: benchmark '%s' failed: %s", fs->desc,
		                  in->first_fail, in->detail);
	if (in->code != -1)
		return bf_err_set(err, BF_ERROR,
		                  "%s: instrumentation ended with code %d, not "
		                  "-1 (OK)%s%s",
		                  fs->desc, in->code, in->detail[0] ? ": " : "",
		                  in->detail);
	return 0;
}

/* The characters the adb backend passes in a command word. */
static bool value_ok(const char *v)
{
	size_t n = strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
	                     "wxyz0123456789_./:=,+@%-");

	return n && !v[n];
}

static bool name_ok(const char *s, size_t len, bool dots_first)
{
	size_t n = 0;

	while (n < len &&
	       strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	              "0123456789_.",
	              s[n]) &&
	       s[n])
		n++;
	return len && n == len && (dots_first || s[0] != '.');
}

/*
 * The am instrument argv from the runner and -e pairs; *pkg_out is the
 * runner's package and *dir_out the directory the JSON is written to.
 */
static int build_argv(struct bf_argv *argv, char **pkg_out, char **dir_out,
                      const char *runner, const char *const *extra,
                      struct bf_err *err)
{
	const char *slash = runner ? strchr(runner, '/') : NULL;
	const char *dir = NULL;
	size_t i;

	if (!slash || !name_ok(runner, (size_t)(slash - runner), false) ||
	    !name_ok(slash + 1, strlen(slash + 1), true))
		return bf_err_set(err, BF_EINVAL,
		                  "test runner '%.100s' is not PACKAGE/RUNNER",
		                  runner ? runner : "");
	bf_argv_pushv(argv, (const char *const[]){
	                            "am", "instrument", "-w", "-r", "-e",
	                            "androidx.benchmark.output.enable", "true",
	                            NULL });
	for (i = 0; extra && extra[i]; i += 2) {
		if (!extra[i + 1] ||
		    !name_ok(extra[i], strlen(extra[i]), false))
			return bf_err_set(
			        err, BF_EINVAL,
			        "instrumentation argument '%.80s' needs "
			        "a key of [A-Za-z0-9_.] and a value",
			        extra[i]);
		if (!value_ok(extra[i + 1]))
			return bf_err_set(
			        err, BF_EINVAL,
			        "instrumentation argument '%s': value "
			        "'%.80s' is not of [A-Za-z0-9_./:=,+@%%-]",
			        extra[i], extra[i + 1]);
		if (!strcmp(extra[i], "androidx.benchmark.output.enable"))
			return bf_err_set(err, BF_EINVAL,
			                  "'%s' is always true here", extra[i]);
		if (!strcmp(extra[i], "additionalTestOutputDir"))
			dir = extra[i + 1];
		bf_argv_pushv(argv,
		              (const char *const[]){ "-e", extra[i],
		                                     extra[i + 1], NULL });
	}
	bf_argv_push(argv, runner);
	*pkg_out = bf_xstrndup(runner, (size_t)(slash - runner));
	*dir_out = dir ? bf_xstrdup(dir)
	               : bf_xasprintf("/sdcard/Android/media/%s", *pkg_out);
	return 0;
}

static bool is_json_name(const char *name)
{
	size_t len = strlen(name), n = strlen(JSON_SUFFIX);

	return len >= n && !strcmp(name + len - n, JSON_SUFFIX);
}

/*
 * The *benchmarkData.json files in dir (a missing dir has none). With
 * remove, each is deleted instead of listed.
 */
static int scan_outputs(struct bf_argv *found, struct bf_devfs *fs,
                        const char *dir, bool remove, struct bf_err *err)
{
	struct bf_argv names = BF_ARGV_INIT;
	struct bf_err e = BF_ERR_INIT;
	struct bf_buf b;
	int ret = bf_devfs_list(fs, dir, &names, &e);

	bf_buf_init(&b, 4096);
	for (size_t i = 0; !ret && i < names.argc; i++) {
		char *path;

		if (!is_json_name(names.argv[i]))
			continue;
		path = bf_xasprintf("%s/%s", dir, names.argv[i]);
		if (remove)
			ret = bf_devfs_command(
			        fs,
			        (const char *const[]){ "rm", "-f", path, NULL },
			        &b, &e);
		else
			bf_argv_push(found, path);
		free(path);
	}
	if (ret == BF_ENOTFOUND && !names.argc)
		ret = 0;
	else if (ret && err)
		*err = e;
	bf_buf_release(&b);
	bf_argv_release(&names);
	return ret;
}

static int run_instr(struct bf_buf *text, struct bf_devfs *fs,
                     const struct bf_argv *argv, const char *pkg,
                     double timeout_s, struct bf_err *err)
{
	struct bf_err probe = BF_ERR_INIT;
	struct bf_buf ignored;
	int ret = bf_devfs_adb_command(fs, (const char *const *)argv->argv,
	                               timeout_s, text, err);

	bf_buf_init(&ignored, 4096);
	if (ret == BF_ETIMEOUT) /* the run goes on without adb: stop it */
		bf_devfs_command(
		        fs,
		        (const char *const[]){ "am", "force-stop", pkg, NULL },
		        &ignored, &probe);
	else if (ret && ret != BF_EPROTO && ret != BF_EINVAL &&
	         device_gone(fs, &probe))
		ret = bf_err_set(err, BF_EPROTO,
		                 "%s disconnected during 'am instrument': %s",
		                 fs->desc, probe.msg);
	bf_buf_release(&ignored);
	return ret;
}

/* Reads one JSON through `cat` and parses it into got. */
static int pull_parse(struct bf_samples *got, struct bf_devfs *fs,
                      const char *path, struct bf_err *err)
{
	struct bf_buf json;
	char *what = bf_xasprintf("%s:%s", fs->desc, path);
	int ret;

	bf_buf_init(&json, BF_PARSE_INPUT_MAX);
	ret = bf_devfs_adb_command(fs,
	                           (const char *const[]){ "cat", path, NULL },
	                           PULL_TIMEOUT_S, &json, err);
	if (!ret)
		ret = bf_parse_output(got, "jetpack", json.buf, json.len, what,
		                      err);
	bf_buf_release(&json);
	free(what);
	return ret;
}

int bf_android_run_jetpack(struct bf_samples *out, struct bf_devfs *fs,
                           const char *test_runner,
                           const char *const *extra_args, double timeout_s,
                           struct bf_err *err)
{
	struct bf_samples got = BF_SAMPLES_INIT;
	struct bf_argv argv = BF_ARGV_INIT;
	char *pkg = NULL, *dir = NULL;
	struct bf_buf text;
	struct instr in;
	int ret;

	memset(&in, 0, sizeof(in));
	bf_buf_init(&text, BF_ANDROID_INSTRUMENT_OUT_MAX);
	ret = build_argv(&argv, &pkg, &dir, test_runner, extra_args, err);
	if (!ret)
		ret = scan_outputs(NULL, fs, dir, true, err);
	if (!ret)
		ret = run_instr(
		        &text, fs, &argv, pkg,
		        timeout_s > 0 ? timeout_s : RUN_TIMEOUT_DEFAULT_S, err);
	if (!ret) {
		instr_parse(&in, text.buf);
		ret = instr_verdict(&in, fs, err);
	}
	if (!ret && !in.files.argc)
		ret = scan_outputs(&in.files, fs, dir, false, err);
	if (!ret && !in.files.argc)
		ret = bf_err_set(
		        err, BF_ENOTFOUND,
		        "%s: the run announced no %s and '%s' holds none "
		        "(dry run, or output disabled?)",
		        fs->desc, JSON_SUFFIX, dir);
	for (size_t i = 0; !ret && i < in.files.argc; i++)
		ret = pull_parse(&got, fs, in.files.argv[i], err);
	for (size_t i = 0; !ret && i < got.n; i++)
		bf_samples_add(out, got.v[i].benchmark, got.v[i].metric,
		               got.v[i].unit, got.v[i].value,
		               got.v[i].iteration);
	bf_samples_release(&got);
	bf_argv_release(&in.files);
	bf_argv_release(&argv);
	bf_buf_release(&text);
	free(pkg);
	free(dir);
	return ret;
}
