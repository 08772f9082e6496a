/* Running a benchmark under cachegrind and reading its totals. */
#include "cachegrind.h"

#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

void bf_cg_argv(struct bf_argv *out, const char *out_file,
                const struct bf_argv *cmd)
{
	bf_argv_push(out, "valgrind");
	bf_argv_push(out, "--tool=cachegrind");
	bf_argv_push(out, "--cache-sim=yes");
	bf_argv_pushf(out, "--cachegrind-out-file=%s", out_file);
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
