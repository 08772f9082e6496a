/* Running a benchmark under cachegrind and reading its totals. */
#include "cachegrind.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"

void bf_cg_argv(struct bf_argv *out, const char *dir, const struct bf_argv *cmd)
{
	bf_argv_push(out, "valgrind");
	bf_argv_push(out, "--tool=cachegrind");
	bf_argv_push(out, "--cache-sim=yes");
	bf_argv_push(out, "--trace-children=yes");
	bf_argv_pushf(out, "--cachegrind-out-file=%s/" BF_CG_FILE_PREFIX "%%p",
	              dir);
	for (size_t i = 0; i < cmd->argc; i++)
		bf_argv_push(out, cmd->argv[i]);
}

/* The line starting with key (at a line start), without it; or NULL. */
static char *line_of(const char *text, size_t len, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		if ((size_t)(e - p) >= klen && !memcmp(p, key, klen))
			return bf_xstrndup(p + klen, (size_t)(e - p - klen));
		p = e + 1;
	}
	return NULL;
}

/* Split s on blanks into at most max words (pointers into s). */
static size_t words(char *s, char **w, size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *t = strtok_r(s, " \t\r", &save); t && n < max;
	     t = strtok_r(NULL, " \t\r", &save))
		w[n++] = t;
	return n;
}

#define CG_EVENTS_MAX 32

/* The value of event name, or -1 when the file does not have it. */
static double event(char **names, char **vals, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name)) {
			char *end;
			double v = strtod(vals[i], &end);

			return *end || v < 0 ? -2 : v;
		}
	return -1;
}

int bf_cg_parse(struct bf_cg_totals *out, const char *text, size_t len,
                const char *what, struct bf_err *err)
{
	static const char *const need[] = { "Ir",   "I1mr", "ILmr", "D1mr",
		                            "DLmr", "D1mw", "DLmw" };
	char *ev = line_of(text, len, "events:");
	char *sum = line_of(text, len, "summary:");
	char *names[CG_EVENTS_MAX], *vals[CG_EVENTS_MAX];
	double v[7];
	size_t nn, nv;
	int ret = 0;

	if (!ev || !sum) {
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s: no '%s' line: not a cachegrind output "
		                 "file",
		                 what, ev ? "summary:" : "events:");
		goto out;
	}
	nn = words(ev, names, CG_EVENTS_MAX);
	nv = words(sum, vals, CG_EVENTS_MAX);
	if (nn != nv) {
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s: 'events:' names %zu events but "
		                 "'summary:' has %zu values",
		                 what, nn, nv);
		goto out;
	}
	for (size_t i = 0; i < 7; i++) {
		v[i] = event(names, vals, nn, need[i]);
		if (v[i] == -2) {
			ret = bf_err_set(err, BF_EINVAL,
			                 "%s: 'summary:' value of %s is not a "
			                 "count",
			                 what, need[i]);
			goto out;
		}
		if (v[i] < 0) {
			ret = bf_err_set(
			        err, BF_EINVAL,
			        "%s: no %s event in 'events:'%s", what, need[i],
			        i ? " (cachegrind needs --cache-sim=yes)" : "");
			goto out;
		}
	}
	out->instructions = v[0];
	out->i1_misses = v[1];
	out->d1_misses = v[3] + v[5];
	out->ll_misses = v[2] + v[4] + v[6];
out:
	free(ev);
	free(sum);
	return ret;
}

void bf_cg_totals_add(struct bf_cg_totals *sum, const struct bf_cg_totals *t)
{
	sum->instructions += t->instructions;
	sum->i1_misses += t->i1_misses;
	sum->d1_misses += t->d1_misses;
	sum->ll_misses += t->ll_misses;
}

/* True for NAME of a process's file: the prefix, then a pid. */
static bool is_cg_file(const char *name)
{
	size_t n = strlen(BF_CG_FILE_PREFIX);

	if (strncmp(name, BF_CG_FILE_PREFIX, n) || !name[n])
		return false;
	return strspn(name + n, "0123456789") == strlen(name + n);
}

/*
 * The benchmark's own process is the program it was given to the end:
 * its file's "cmd:" line is cmd_line. One that exec'd another program
 * has lost its count before the exec (valgrind writes none at an exec),
 * so its run is refused rather than counted as the other program.
 */
static int check_top(const char *text, size_t len, const char *cmd_line,
                     const char *path, struct bf_err *err)
{
	char *cmd = line_of(text, len, "cmd:");
	const char *c = cmd ? cmd + strspn(cmd, " ") : "";
	int ret = 0;

	if (strcmp(c, cmd_line))
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s: the benchmark's process ran '%.200s' at "
		                 "its end, not '%.200s': it exec'd another "
		                 "program, which loses its count before the "
		                 "exec; measure: instructions cannot count it",
		                 path, c, cmd_line);
	free(cmd);
	return ret;
}

/*
 * Add the totals of the file dir/name to sum; cmd_line, when not NULL,
 * is the command the file's process must have run (check_top).
 */
static int add_file(struct bf_cg_totals *sum, const char *dir, const char *name,
                    const char *cmd_line, struct bf_err *err)
{
	char *path = bf_xasprintf("%s/%s", dir, name);
	struct bf_buf b;
	struct bf_cg_totals t;
	int ret;

	bf_buf_init(&b, BF_CG_FILE_MAX);
	ret = bf_buf_read_file(&b, path, err);
	if (!ret && cmd_line)
		ret = check_top(b.buf, b.len, cmd_line, path, err);
	if (!ret)
		ret = bf_cg_parse(&t, b.buf, b.len, path, err);
	if (!ret)
		bf_cg_totals_add(sum, &t);
	bf_buf_release(&b);
	free(path);
	return ret;
}

int bf_cg_read_dir(struct bf_cg_totals *out, const char *dir, long top,
                   const char *cmd_line, struct bf_err *err)
{
	struct bf_cg_totals sum = { 0 };
	size_t files = 0;
	bool top_seen = !top;
	char top_name[64];
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return bf_err_sys(err, "cannot open directory '%s'", dir);
	snprintf(top_name, sizeof(top_name), BF_CG_FILE_PREFIX "%ld", top);
	while (!ret && (de = readdir(d))) {
		bool is_top = top && !strcmp(de->d_name, top_name);

		if (!is_cg_file(de->d_name))
			continue;
		top_seen = top_seen || is_top;
		if (++files > BF_CG_FILES_MAX)
			ret = bf_err_set(err, BF_ETOOBIG,
			                 "'%s': more than %d processes wrote "
			                 "cachegrind output: not counted",
			                 dir, BF_CG_FILES_MAX);
		else
			ret = add_file(&sum, dir, de->d_name,
			               is_top ? cmd_line : NULL, err);
	}
	closedir(d);
	if (!ret && (!files || !top_seen))
		ret = bf_err_set(err, BF_ENOTFOUND,
		                 "%s left a cachegrind output file in '%s'",
		                 files ? "the benchmark's own process never "
		                         "exited normally (it exec'd another "
		                         "program or was killed), so it never"
		                       : "no process",
		                 dir);
	if (!ret)
		*out = sum;
	return ret;
}

json_t *bf_cg_json(const struct bf_cg_totals *t)
{
	return json_pack("[{s:s, s:s, s:f}, {s:s, s:s, s:f}, {s:s, s:s, s:f}, "
	                 "{s:s, s:s, s:f}]",
	                 "metric", "instructions", "unit", "", "value",
	                 t->instructions, "metric", "i1_misses", "unit", "",
	                 "value", t->i1_misses, "metric", "d1_misses", "unit",
	                 "", "value", t->d1_misses, "metric", "ll_misses",
	                 "unit", "", "value", t->ll_misses);
}
