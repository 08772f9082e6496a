#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report.h"
#include "report_util.h"

/*
 * github: three outputs for a pull request.
 *
 * github-check.json    the body of "create a check run" (POST
 *                      /repos/OWNER/REPO/check-runs): name, head_sha,
 *                      status, conclusion, details_url and output
 *                      {title, summary, annotations}
 * github-summary.md    for $GITHUB_STEP_SUMMARY: the review comment
 * github-commands.txt  workflow commands (::error, ::warning, ::notice)
 *                      that annotate the run without an API token
 * github-comment.md    the pull-request comment: the markdown report
 *                      (report.md, with its marker and link) cut to
 *                      GitHub's limit for a comment, which refuses a
 *                      longer one; plugins/ci/github-action posts it
 *
 * The check's conclusion follows the config's fail_on: a regression is a
 * "failure" when the config fails on one, otherwise "neutral" (numbers
 * for the reviewer, not a gate); infrastructure failures without a
 * regression are "neutral" with a title that says the run is incomplete
 * and what was not measured, and so is a result that could not be
 * judged either way (verdict "unknown"): "success" only when all is
 * clear.
 *
 * GitHub's limits: output.summary 65535 characters, a comment 65536, an
 * annotation's title 255, 50 annotations a request, a step summary 1 MiB
 * (a bigger one is dropped whole). Longer markdown is cut at a line with a note
 * saying so; annotations and commands come regressions first, as GitHub shows
 * only the first ten of each level per step. Commands are escaped as
 * @actions/core escapes them, so no name can start a second command or
 * end a property; other control characters become spaces.
 */

#define GH_TITLE_MAX       255 /* annotation and output title */
#define GH_SUMMARY_MAX     65535 /* output.summary, in characters */
#define GH_COMMENT_MAX     65536 /* an issue or PR comment, in characters */
#define GH_MESSAGE_MAX     4096 /* ours, per annotation */
#define GH_ANNOTATIONS_MAX 50 /* per request */
/* bytes; a bigger step summary is not shown at all */
#define GH_STEP_SUMMARY_MAX (1024 * 1024)

/*
 * The config's fail_on: "regression" (the default when absent) makes a
 * regression fail the check; "never", or a word this version does not
 * know, leaves it a number for the reviewer.
 */
static bool fails_on_regression(const json_t *result)
{
	const json_t *set = json_object_get(result, "settings");

	return !strcmp(bf_json_str_or(set, "fail_on", "regression"),
	               "regression");
}

/* "failure", "neutral" or "success" (only when all is clear). */
static const char *conclusion(const json_t *result, const json_t *results)
{
	if (bf_rep_count(results, "regressed"))
		return fails_on_regression(result) ? "failure" : "neutral";
	return bf_rep_all_clear(result, results) ? "success" : "neutral";
}

static void add_plural(struct bf_buf *b, size_t n, const char *what)
{
	bf_buf_addf(b, "%zu %s%s", n, what, n == 1 ? "" : "s");
}

/*
 * What could not be measured, for the title: "1 result not measured, 4
 * runs failed", or "infrastructure failures" when the counts are absent.
 */
static void add_infra(struct bf_buf *b, const json_t *result,
                      const json_t *results)
{
	const json_t *sum = json_object_get(result, "summary");
	size_t lost = bf_rep_count(results, "error");
	json_int_t runs =
	        json_integer_value(json_object_get(sum, "failed_runs"));

	if (lost)
		bf_buf_addf(b, "%zu result%s not measured", lost,
		            lost == 1 ? "" : "s");
	if (lost && runs > 0)
		bf_buf_addstr(b, ", ");
	if (runs > 0)
		bf_buf_addf(b, "%lld run%s failed", (long long)runs,
		            runs == 1 ? "" : "s");
	if (!lost && runs <= 0)
		bf_buf_addstr(b, "infrastructure failures");
}

/*
 * The check's one-line title; never "No regressions" when incomplete or
 * when nothing was compared.
 */
static char *title(const json_t *result, const json_t *results)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t reg = bf_rep_count(results, "regressed");
	size_t imp = bf_rep_count(results, "improved");

	if (bf_rep_has_infra(result)) {
		bf_buf_addstr(&b, "Incomplete: ");
		add_infra(&b, result, results);
		bf_buf_addstr(&b, "; ");
		if (reg)
			add_plural(&b, reg, "regression");
		else if (bf_rep_compared_nothing(results))
			bf_buf_addstr(&b, "nothing was compared");
		else
			bf_buf_addstr(&b, "nothing regressed among what was "
			                  "measured");
	} else if (reg) {
		add_plural(&b, reg, "regression");
	} else if (bf_rep_compared_nothing(results)) {
		bf_buf_addstr(&b, "Nothing was compared");
	} else {
		bf_rep_add_no_regressions(&b, results, true);
	}
	if (imp) {
		bf_buf_addstr(&b, ", ");
		add_plural(&b, imp, "improvement");
	}
	return bf_buf_detach(&b, NULL);
}

/* The annotation's level for a verdict; NULL: no annotation. */
static const char *level(const json_t *result, const char *verdict)
{
	if (!strcmp(verdict, "regressed"))
		return fails_on_regression(result) ? "failure" : "warning";
	if (!strcmp(verdict, "improved"))
		return "notice";
	if (!strcmp(verdict, "error"))
		return "warning";
	return NULL;
}

/* A median, or "?" when the document has none. */
static void add_median(struct bf_buf *b, const json_t *r, const char *side)
{
	double v = bf_rep_num(json_object_get(r, side), "median");

	if (isfinite(v))
		bf_buf_addf(b, "%.6g", v);
	else
		bf_buf_addch(b, '?');
}

/* "regressed: +12.3% [+8.0%, +17.0%], p 0.002 (base median 48200, ...)" */
static void describe(struct bf_buf *b, const json_t *r, const char *verdict)
{
	const char *unit = bf_json_str_or(r, "unit", "");

	if (!strcmp(verdict, "error")) {
		bf_buf_addstr(b, "not measured (infrastructure): ");
		bf_buf_addstr(b, bf_json_str_or(r, "error", "no samples"));
		return;
	}
	bf_buf_addf(b, "%s: ", verdict);
	bf_rep_change(b, r);
	bf_buf_addstr(b, " (base median ");
	add_median(b, r, "base");
	bf_buf_addstr(b, ", patch median ");
	add_median(b, r, "patch");
	if (*unit)
		bf_buf_addf(b, " %s", unit);
	bf_buf_addch(b, ')');
}

/* A control character other than tab and line feed (those kept). */
static bool is_ctl(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

/*
 * s cut to at most max bytes, each control character a space; line feeds
 * too when one_line (a title). Caller frees.
 */
static char *clean_cut(const char *s, size_t max, bool one_line)
{
	struct bf_buf b = BF_BUF_INIT;

	bf_rep_add_cut(&b, s, max);
	for (size_t i = 0; i < b.len; i++) {
		if (is_ctl((unsigned char)b.buf[i]) ||
		    (one_line && b.buf[i] == '\n'))
			b.buf[i] = ' ';
	}
	return bf_buf_detach(&b, NULL);
}

/* Verdicts in the order they are reported: the reviewer's first. */
static const char *const order[] = { "regressed", "error", "improved" };

static json_t *annotation(const json_t *result, const json_t *r, const char *v,
                          const char *path, long line)
{
	struct bf_buf t = BF_BUF_INIT, m = BF_BUF_INIT;
	char *ts, *ms;
	json_t *a;

	bf_rep_title(&t, r);
	describe(&m, r, v);
	ts = clean_cut(t.buf, GH_TITLE_MAX - 3, true); /* 3: the "…" */
	ms = clean_cut(m.buf, GH_MESSAGE_MAX, false);
	a = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "path", path,
	              "start_line", (json_int_t)(line ? line : 1), "end_line",
	              (json_int_t)(line ? line : 1), "annotation_level",
	              level(result, v), "title", ts, "message", ms);
	free(ts);
	free(ms);
	bf_buf_release(&t);
	bf_buf_release(&m);
	return a;
}

/*
 * Annotations, regressions first, at most GH_ANNOTATIONS_MAX; a result
 * with no file to point at (no source, config path absolute) has none.
 * NULL when one cannot be made (a text that is not UTF-8).
 */
static json_t *annotations(const json_t *result, const json_t *results)
{
	json_t *arr = json_array();

	for (size_t k = 0; k < BF_ARRAY_SIZE(order); k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			const char *v = bf_json_str_or(r, "verdict", "error");
			const char *path;
			long line;

			if (strcmp(v, order[k]) ||
			    json_array_size(arr) >= GH_ANNOTATIONS_MAX)
				continue;
			path = bf_rep_source(result, r, &line);
			if (path && json_array_append_new(
			                    arr, annotation(result, r, v, path,
			                                    line))) {
				json_decref(arr);
				return NULL;
			}
		}
	}
	return arr;
}

/* Workflow command data: what @actions/core's escapeData does. */
static void add_data_ch(struct bf_buf *b, char c)
{
	if (c == '%')
		bf_buf_addstr(b, "%25");
	else if (c == '\r')
		bf_buf_addstr(b, "%0D");
	else if (c == '\n')
		bf_buf_addstr(b, "%0A");
	else if (is_ctl((unsigned char)c))
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
	const char *lv = level(result, v);
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
	describe(&m, r, v);
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
		const json_t *rep = json_object_get(e, "repeat");
		struct bf_buf m = BF_BUF_INIT;

		bf_buf_addf(&m, "%s (%s, run ",
		            bf_json_str_or(e, "benchmark", "?"),
		            bf_json_str_or(e, "side", "?"));
		if (json_is_integer(rep))
			bf_buf_addf(&m, "%lld",
			            (long long)json_integer_value(rep) + 1);
		else
			bf_buf_addch(&m, '?');
		bf_buf_addf(&m, ", %s): %s", bf_json_str_or(e, "code", "error"),
		            bf_json_str_or(e, "message", ""));
		add_warning(b, "benchfarm: infrastructure failure", m.buf);
		bf_buf_release(&m);
	}
}

/*
 * The workflow commands, one a line, in the order a reviewer reads them
 * (GitHub shows only the first 10 of each level per step): regressions,
 * results not measured, infrastructure failures, then improvements.
 */
static void add_commands(struct bf_buf *b, const json_t *result,
                         const json_t *results)
{
	const char *stop = bf_json_str_or(result, "infra_error", NULL);

	for (size_t k = 0; k < BF_ARRAY_SIZE(order); k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			const char *v = bf_json_str_or(r, "verdict", "error");

			if (!strcmp(v, order[k]))
				add_result_command(b, result, r, v);
		}
		if (strcmp(order[k], "error"))
			continue;
		add_error_commands(b, json_object_get(result, "errors"));
		if (stop)
			add_warning(b, "benchfarm: stopped early", stop);
	}
}

static bool is_http(const char *s)
{
	return s && (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7));
}

/* The check run's body; NULL when a text in it is not UTF-8. */
static json_t *check_json(const json_t *result, const json_t *results,
                          const struct bf_report_opts *o, const char *md)
{
	char *t = title(result, results);
	char *sum = bf_rep_cut_markdown(
	        md, GH_SUMMARY_MAX, true,
	        "\n…(cut to GitHub's limit for a check run; "
	        "the whole report is in the job's step "
	        "summary)\n");
	json_t *check, *output;
	bool ok = true;

	check = json_pack(
	        "{s:s, s:s, s:s, s:s}", "name",
	        o->check_name ? o->check_name : "benchfarm", "head_sha",
	        bf_json_str_or(json_object_get(result, "patch"), "commit", ""),
	        "status", "completed", "conclusion",
	        conclusion(result, results));
	if (check && is_http(o->link))
		ok = !json_object_set_new(check, "details_url",
		                          json_string(o->link));
	output = json_pack("{s:s, s:s, s:o}", "title", t, "summary", sum,
	                   "annotations", annotations(result, results));
	/* takes output, even when check is NULL */
	ok &= !json_object_set_new(check, "output", output);
	if (!ok) {
		json_decref(check);
		check = NULL;
	}
	free(t);
	free(sum);
	return check;
}

static int github_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	const json_t *results;
	char *md, *cut;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	md = bf_report_markdown_named(result, o->check_name, NULL);
	ret = bf_rep_add_json(bf_report_add_output(r, "github-check.json"),
	                      check_json(result, results, o, md),
	                      "github-check.json", err);
	if (ret) {
		free(md);
		return ret;
	}
	cut = bf_rep_cut_markdown(
	        md, GH_STEP_SUMMARY_MAX, false,
	        "\n…(cut to GitHub's 1 MiB limit for a step "
	        "summary; the whole result is the job's JSON)\n");
	bf_buf_addstr(bf_report_add_output(r, "github-summary.md"), cut);
	free(cut);
	free(md);
	add_commands(bf_report_add_output(r, "github-commands.txt"), result,
	             results);
	md = bf_report_markdown_named(result, o->check_name, o->link);
	cut = bf_rep_cut_markdown(
	        md, GH_COMMENT_MAX, true,
	        "\n…(cut to GitHub's limit for a comment; the "
	        "whole report is in the job's step summary)\n");
	bf_buf_addstr(bf_report_add_output(r, "github-comment.md"), cut);
	free(cut);
	free(md);
	return 0;
}

const struct bf_plugin bf_plugin_github = {
	.abi = BF_PLUGIN_ABI,
	.name = "github",
	.summary = "check-run payload, step summary and workflow commands",
	.kinds = "compare",
	.run = github_run,
};
