#include "report_github_int.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report_util.h"

/*
 * The github reporter's workflow commands (::error, ::warning, ::notice),
 * which annotate the run without an API token, escaped as @actions/core
 * escapes them: no name can start a second command or end a property;
 * other control characters become spaces.
 */

/* Workflow command data: what @actions/core's escapeData does. */
static void add_data_ch(struct bf_buf *b, char c)
{
	if (c == '%')
		bf_buf_addstr(b, "%25");
	else if (c == '\r')
		bf_buf_addstr(b, "%0D");
	else if (c == '\n')
		bf_buf_addstr(b, "%0A");
	else if (bf_gh_is_ctl((unsigned char)c))
		bf_buf_addch(b, ' '); /* no terminal escapes in the log */
	else
		bf_buf_addch(b, c);
}

/*
 * A C1 control or direction override at *s shown as \u{NNNN}, as
 * everywhere (bf_text_hidden_len); *s left on its last byte. False when
 * *s starts none.
 */
static bool add_hidden(struct bf_buf *b, const char **s)
{
	unsigned cp;
	size_t n = bf_text_hidden_len(*s, &cp);

	if (!n)
		return false;
	bf_buf_addf(b, "\\u{%04X}", cp);
	*s += n - 1;
	return true;
}

static void add_data(struct bf_buf *b, const char *s)
{
	for (; *s; s++)
		if (!add_hidden(b, &s))
			add_data_ch(b, *s);
}

/* A property value: escapeProperty, which also escapes ':' and ','. */
static void add_property(struct bf_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ':')
			bf_buf_addstr(b, "%3A");
		else if (*s == ',')
			bf_buf_addstr(b, "%2C");
		else if (!add_hidden(b, &s))
			add_data_ch(b, *s);
	}
}

/* One command for a result with an annotation level. */
static void add_result_command(struct bf_buf *b, const json_t *result,
                               const json_t *r, const char *v)
{
	const char *lv = bf_gh_level(result, v);
	struct bf_buf t = BF_BUF_INIT, c = BF_BUF_INIT, m = BF_BUF_INIT;
	const char *path;
	long line;

	bf_buf_addf(b, "::%s ", !strcmp(lv, "failure") ? "error" : lv);
	path = bf_rep_source(result, r, &line);
	if (path) {
		bf_buf_addstr(b, "file=");
		add_property(b, path);
		if (line)
			bf_buf_addf(b, ",line=%ld", line);
		bf_buf_addch(b, ',');
	}
	bf_buf_addstr(&t, "benchfarm: ");
	bf_rep_title(&t, r);
	bf_rep_add_cut(&c, t.buf, GH_TITLE_MAX - 3);
	bf_buf_addstr(b, "title=");
	add_property(b, c.buf); /* escapes or blanks control characters */
	bf_buf_addstr(b, "::");
	bf_gh_describe(&m, r, v);
	add_data(b, m.buf);
	bf_buf_addch(b, '\n');
	bf_buf_release(&t);
	bf_buf_release(&c);
	bf_buf_release(&m);
}

static void add_warning(struct bf_buf *b, const char *t, const char *msg)
{
	bf_buf_addstr(b, "::warning title=");
	add_property(b, t);
	bf_buf_addstr(b, "::");
	add_data(b, msg);
	bf_buf_addch(b, '\n');
}

/* One ::warning per entry of errors[]. */
static void add_error_commands(struct bf_buf *b, const json_t *errors)
{
	size_t i;
	json_t *e;

	json_array_foreach(errors, i, e)
	{
		struct bf_buf m = BF_BUF_INIT;

		bf_buf_addf(&m, "%s (%s, ", bf_json_str_or(e, "benchmark", "?"),
		            bf_json_str_or(e, "side", "?"));
		bf_rep_add_run(&m, e);
		bf_buf_addf(&m, ", %s): %s", bf_json_str_or(e, "code", "error"),
		            bf_json_str_or(e, "message", ""));
		add_warning(b, "benchfarm: infrastructure failure", m.buf);
		bf_buf_release(&m);
	}
}

/* One warning per device of the pool that did not measure. */
static void add_devices_out(struct bf_buf *b, const json_t *result)
{
	size_t i;
	json_t *d;

	json_array_foreach(bf_rep_devices_out(result), i, d)
	{
		struct bf_buf m = BF_BUF_INIT;

		bf_rep_add_device_out(&m, d);
		add_warning(b, "benchfarm: device out of the pool", m.buf);
		bf_buf_release(&m);
	}
}

/*
 * The workflow commands, one a line, in the order a reviewer reads them
 * (GitHub shows only the first 10 of each level per step): regressions,
 * results not measured, infrastructure failures, then improvements.
 */
void bf_gh_compare_commands(struct bf_buf *b, const json_t *result,
                            const json_t *results)
{
	const char *stop = bf_json_str_or(result, "infra_error", NULL);

	for (size_t k = 0; k < BF_ARRAY_SIZE(bf_gh_order); k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			const char *v = bf_rep_verdict(r);

			if (!strcmp(v, bf_gh_order[k]))
				add_result_command(b, result, r, v);
		}
		if (strcmp(bf_gh_order[k], "error"))
			continue;
		add_error_commands(b, json_object_get(result, "errors"));
		add_devices_out(b, result);
		if (stop)
			add_warning(b, "benchfarm: stopped early", stop);
	}
}

/* One workflow command per new alert, regressions first. */
void bf_gh_detect_commands(struct bf_buf *b, const json_t *result)
{
	const json_t *alerts = json_object_get(result, "alerts");
	static const char *const dirs[] = { "regressed", "improved" };

	for (size_t k = 0; k < BF_ARRAY_SIZE(dirs); k++) {
		size_t i;
		json_t *a;

		json_array_foreach(alerts, i, a)
		{
			const json_t *bis = json_object_get(a, "bisect");
			struct bf_buf t = BF_BUF_INIT, m = BF_BUF_INIT;
			const char *culprit =
			        bf_json_str_or(bis, "culprit", NULL);
			double size = bf_rep_num(a, "size");

			if (!bf_gh_fresh(a) ||
			    strcmp(bf_json_str_or(a, "direction", ""), dirs[k]))
				continue;
			bf_buf_addf(&t, "benchfarm: %s/%s %s",
			            bf_json_str_or(a, "suite", "?"),
			            bf_json_str_or(a, "benchmark", "?"),
			            bf_json_str_or(a, "metric", "?"));
			bf_buf_addf(&m, "%s", dirs[k]);
			if (isfinite(size))
				bf_buf_addf(&m, " %+.1f%%", size * 100);
			bf_buf_addf(&m, " between %.12s and %.12s",
			            bf_json_str_or(a, "commit_lo", "?"),
			            bf_json_str_or(a, "commit_hi", "?"));
			if (culprit)
				bf_buf_addf(&m, "; culprit %.12s", culprit);
			bf_buf_addf(&m, " (detector %s)",
			            bf_json_str_or(result, "detector", "?"));
			bf_buf_addf(b, "::%s title=", k ? "notice" : "error");
			add_property(b, t.buf);
			bf_buf_addstr(b, "::");
			add_data(b, m.buf);
			bf_buf_addch(b, '\n');
			bf_buf_release(&t);
			bf_buf_release(&m);
		}
	}
}

void bf_gh_bisect_commands(struct bf_buf *b, const json_t *result)
{
	const char *concl = bf_rep_bisect_conclusion(result);
	char *raw;

	if (!strcmp(concl, "neutral"))
		return;
	raw = bf_rep_bisect_title(result);
	bf_buf_addf(b, "::%s title=",
	            !strcmp(concl, "failure") ? "error" : "notice");
	add_property(b, "benchfarm: bisect");
	bf_buf_addstr(b, "::");
	add_data(b, raw);
	bf_buf_addch(b, '\n');
	free(raw);
}
