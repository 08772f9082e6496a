#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report_markdown.h"
#include "report_util.h"

/*
 * github: three outputs for a pull request.
 *
 * github-check.json    the body of "create a check run" (POST
 *                      /repos/OWNER/REPO/check-runs): name, head_sha,
 *                      status, conclusion, details_url and output
 *                      {title, summary, annotations}, with the first 50
 *                      annotations
 * github-check-updates.json
 *                      a JSON array of bodies of "update a check run"
 *                      (PATCH .../check-runs/ID), {output: {title,
 *                      summary, annotations}}, one per further 50
 *                      annotations, which GitHub appends to the run's;
 *                      [] when the first request holds them all.
 *                      plugins/ci/github-action sends them in order
 * github-summary.md    for $GITHUB_STEP_SUMMARY: the review comment
 * github-commands.txt  workflow commands (::error, ::warning, ::notice)
 *                      that annotate the run without an API token
 * github-comment.md    the pull-request comment: the markdown report
 *                      (report.md, with its marker and link) cut to
 *                      GitHub's limit for a comment, which refuses a
 *                      longer one; plugins/ci/github-action posts it
 *
 * A detect result (postsubmit: the alerts of the branch's history, kind
 * "detect") has the same outputs: the check run on the commit the job
 * ran for ($GITHUB_SHA; else the newest commit of its first alert), a
 * "failure" when a new regression alert was raised (one not ignored),
 * else "success"; its summary and the comment are the markdown report of
 * the alerts; a workflow command per new alert (::error for a
 * regression, ::notice for an improvement) naming its commit range and
 * the culprit when a bisect found one. Alerts point at no file, so
 * the check has no annotations.
 *
 * A bisect result (`benchfarm bisect --json`, kind "bisect") likewise:
 * the check run on the job's commit ($GITHUB_SHA; else the culprit, else
 * the bad commit), a "failure" when it found the commit of a regression
 * ("success" for an improvement's, "neutral" when it found none), titled
 * by its verdict, its summary the bisect's report (the range, the culprit
 * or candidates and every probe, as the markdown report renders it); one
 * workflow command with the culprit.
 *
 * The check's conclusion follows the config's fail_on: a regression is a
 * "failure" when the config fails on one, otherwise "neutral" (numbers
 * for the reviewer, not a gate); infrastructure failures without a
 * regression are "neutral" with a title that says the run is incomplete
 * and what was not measured, and so is a result of which no metric
 * could be judged either way (every verdict "unknown"): "success" when
 * nothing regressed and at least one metric was judged.
 *
 * GitHub's limits: output.summary 65535 characters, a comment 65536, an
 * annotation's title 255, 50 annotations a request, a step summary 1 MiB
 * (a bigger one is dropped whole). At most GH_ANNOTATIONS_TOTAL
 * annotations are made (20 requests); when there are more, the check's
 * summary ends saying how many were left out and that the step summary
 * has every result. Longer markdown is cut at a line with a note
 * saying so; annotations and commands come regressions first, as GitHub shows
 * only the first ten of each level per step. Commands are escaped as
 * @actions/core escapes them, so no name can start a second command or
 * end a property; other control characters become spaces.
 */

#define GH_TITLE_MAX         255 /* annotation and output title */
#define GH_SUMMARY_MAX       65535 /* output.summary, in characters */
#define GH_COMMENT_MAX       65536 /* an issue or PR comment, in characters */
#define GH_MESSAGE_MAX       4096 /* ours, per annotation */
#define GH_ANNOTATIONS_MAX   50 /* per request */
#define GH_ANNOTATIONS_TOTAL 1000 /* in all: 20 requests */
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

/*
 * "failure", "neutral" or "success". Success: no regression, no
 * infrastructure failure, and at least one metric judged (same or
 * improved); metrics too noisy to judge ("unknown") are named in the
 * title as not conclusive but do not hide what was judged. Neutral when
 * nothing could be judged.
 */
static const char *conclusion(const json_t *result, const json_t *results)
{
	if (bf_rep_count(results, "regressed"))
		return fails_on_regression(result) ? "failure" : "neutral";
	if (bf_rep_has_infra(result) || bf_rep_compared_nothing(results))
		return "neutral";
	return bf_rep_count(results, "unknown") < json_array_size(results)
	               ? "success"
	               : "neutral";
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
 * Annotations, regressions first, at most GH_ANNOTATIONS_TOTAL; a result
 * with no file to point at (no source, config path absolute) has none.
 * *left_out counts those past the total. NULL when one cannot be made
 * (a text that is not UTF-8).
 */
static json_t *annotations(const json_t *result, const json_t *results,
                           size_t *left_out)
{
	json_t *arr = json_array();

	*left_out = 0;
	for (size_t k = 0; k < BF_ARRAY_SIZE(order); k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			const char *v = bf_json_str_or(r, "verdict", "error");
			const char *path;
			long line;

			if (strcmp(v, order[k]))
				continue;
			path = bf_rep_source(result, r, &line);
			if (!path)
				continue;
			if (json_array_size(arr) >= GH_ANNOTATIONS_TOTAL) {
				(*left_out)++;
				continue;
			}
			if (json_array_append_new(
			            arr,
			            annotation(result, r, v, path, line))) {
				json_decref(arr);
				return NULL;
			}
		}
	}
	return arr;
}

/* Annotations from..from+GH_ANNOTATIONS_MAX of all, a new array. */
static json_t *batch(const json_t *all, size_t from)
{
	json_t *arr = json_array();

	for (size_t i = from;
	     i < json_array_size(all) && i < from + GH_ANNOTATIONS_MAX; i++)
		json_array_append(arr, json_array_get(all, i));
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

/*
 * The check run's body, into *check, and the bodies of its updates with
 * the annotations past the first 50, into *updates; false when a text in
 * them is not UTF-8.
 */
static bool check_json(json_t **check, json_t **updates, const json_t *result,
                       const json_t *results, const struct bf_report_opts *o,
                       const char *md)
{
	char *t = title(result, results), *sum;
	size_t left_out;
	json_t *all = annotations(result, results, &left_out), *output;
	struct bf_buf left = BF_BUF_INIT, b = BF_BUF_INIT;
	bool ok = all != NULL;

	if (left_out)
		bf_buf_addf(&left,
		            "\n%zu annotation%s left out: GitHub takes 50 a "
		            "request and benchfarm sends at most %d; the job's "
		            "step summary has every result.\n",
		            left_out, left_out == 1 ? "" : "s",
		            GH_ANNOTATIONS_TOTAL);
	sum = bf_rep_cut_markdown(md, GH_SUMMARY_MAX - left.len, true,
	                          "\n…(cut to GitHub's limit for a check run; "
	                          "the whole report is in the job's step "
	                          "summary)\n");
	bf_buf_addstr(&b, sum);
	bf_buf_add(&b, left.buf, left.len);
	free(sum);
	sum = bf_buf_detach(&b, NULL);
	bf_buf_release(&left);
	*check = json_pack(
	        "{s:s, s:s, s:s, s:s}", "name",
	        o->check_name ? o->check_name : "benchfarm", "head_sha",
	        bf_json_str_or(json_object_get(result, "patch"), "commit", ""),
	        "status", "completed", "conclusion",
	        conclusion(result, results));
	*updates = json_array();
	if (*check && is_http(o->link))
		ok &= !json_object_set_new(*check, "details_url",
		                           json_string(o->link));
	output = json_pack("{s:s, s:s, s:o}", "title", t, "summary", sum,
	                   "annotations", all ? batch(all, 0) : NULL);
	/* takes output, even when check is NULL */
	ok &= !json_object_set_new(*check, "output", output);
	for (size_t i = GH_ANNOTATIONS_MAX; ok && i < json_array_size(all);
	     i += GH_ANNOTATIONS_MAX)
		ok &= !json_array_append_new(
		        *updates, json_pack("{s:{s:s, s:s, s:o}}", "output",
		                            "title", t, "summary", sum,
		                            "annotations", batch(all, i)));
	json_decref(all);
	free(t);
	free(sum);
	return ok;
}

/* An alert raised by this detect and not ignored. */
static bool fresh(const json_t *a)
{
	return json_is_true(json_object_get(a, "new")) &&
	       !json_is_true(json_object_get(a, "ignored"));
}

static size_t count_fresh(const json_t *alerts, const char *direction)
{
	size_t i, n = 0;
	json_t *a;

	json_array_foreach(alerts, i, a)
	{
		n += fresh(a) &&
		     !strcmp(bf_json_str_or(a, "direction", ""), direction);
	}
	return n;
}

/* "2 new regression alerts, 1 new improvement alert over 40 commits" */
static char *detect_title(const json_t *result, const json_t *alerts)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t reg = count_fresh(alerts, "regressed");
	size_t imp = count_fresh(alerts, "improved");

	if (reg)
		add_plural(&b, reg, "new regression alert");
	if (reg && imp)
		bf_buf_addstr(&b, ", ");
	if (imp)
		add_plural(&b, imp, "new improvement alert");
	if (!reg && !imp)
		bf_buf_addstr(&b, "No new alerts");
	bf_rep_detect_over(&b, result);
	return bf_buf_detach(&b, NULL);
}

/* The commit a detect's check goes on (see the top); "" when none. */
static const char *detect_sha(const json_t *alerts, const struct bf_host *h)
{
	const char *sha = h->getenv ? h->getenv("GITHUB_SHA") : NULL;

	if (sha && *sha)
		return sha;
	return bf_json_str_or(json_array_get(alerts, 0), "commit_hi", "");
}

/* One workflow command per new alert, regressions first. */
static void add_detect_commands(struct bf_buf *b, const json_t *result,
                                const json_t *alerts)
{
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

			if (!fresh(a) ||
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

/* github-summary.md: md cut to GitHub's limit for a step summary. */
static void add_summary(struct bf_report *r, const char *md)
{
	char *cut = bf_rep_cut_markdown(
	        md, GH_STEP_SUMMARY_MAX, false,
	        "\n…(cut to GitHub's 1 MiB limit for a step "
	        "summary; the whole result is the job's JSON)\n");

	bf_buf_addstr(bf_report_add_output(r, "github-summary.md"), cut);
	free(cut);
}

/*
 * github-comment.md: the markdown report with the link, cut to GitHub's
 * limit for a comment.
 */
static void add_comment(struct bf_report *r, const json_t *result,
                        const struct bf_report_opts *o)
{
	char *md = bf_report_markdown_named(result, o->check_name, o->link);
	char *cut = bf_rep_cut_markdown(
	        md, GH_COMMENT_MAX, true,
	        "\n…(cut to GitHub's limit for a comment; the "
	        "whole report is in the job's step summary)\n");

	bf_buf_addstr(bf_report_add_output(r, "github-comment.md"), cut);
	free(cut);
	free(md);
}

/* The outputs for a bisect result (see the top). */
static int github_bisect(struct bf_report *r, const json_t *result,
                         const struct bf_report_opts *o, struct bf_err *err)
{
	const struct bf_host *h = bf_report_host(r);
	const char *sha = h->getenv ? h->getenv("GITHUB_SHA") : NULL;
	const char *concl = bf_rep_bisect_conclusion(result);
	char *md = bf_report_markdown_named(result, o->check_name, NULL);
	char *raw = bf_rep_bisect_title(result), *t, *sum;
	struct bf_buf c = BF_BUF_INIT;
	json_t *check;
	int ret;

	if (!sha || !*sha)
		sha = bf_json_str_or(result, "culprit",
		                     bf_json_str_or(result, "bad", ""));
	t = clean_cut(raw, GH_TITLE_MAX - 3, true);
	sum = bf_rep_cut_markdown(md, GH_SUMMARY_MAX, true,
	                          "\n…(cut to GitHub's limit for a check run; "
	                          "the whole result is the job's JSON)\n");
	check = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:[]}}", "name",
	                  o->check_name ? o->check_name : "benchfarm",
	                  "head_sha", sha, "status", "completed", "conclusion",
	                  concl, "output", "title", t, "summary", sum,
	                  "annotations");
	if (check && is_http(o->link) &&
	    json_object_set_new(check, "details_url", json_string(o->link))) {
		json_decref(check);
		check = NULL;
	}
	free(t);
	free(sum);
	ret = bf_rep_add_json(bf_report_add_output(r, "github-check.json"),
	                      check, "github-check.json", err);
	if (!ret) {
		add_summary(r, md);
		if (strcmp(concl, "neutral")) {
			bf_buf_addf(&c, "::%s title=",
			            !strcmp(concl, "failure") ? "error"
			                                      : "notice");
			add_property(&c, "benchfarm: bisect");
			bf_buf_addstr(&c, "::");
			add_data(&c, raw);
			bf_buf_addch(&c, '\n');
		}
		bf_buf_add(bf_report_add_output(r, "github-commands.txt"),
		           c.buf ? c.buf : "", c.len);
		add_comment(r, result, o);
		ret = bf_rep_add_json(
		        bf_report_add_output(r, "github-check-updates.json"),
		        json_array(), "github-check-updates.json", err);
	}
	bf_buf_release(&c);
	free(raw);
	free(md);
	return ret;
}

/* The outputs for a detect result (see the top). */
static int github_detect(struct bf_report *r, const json_t *result,
                         const struct bf_report_opts *o, struct bf_err *err)
{
	const json_t *alerts = json_object_get(result, "alerts");
	char *md = bf_report_markdown_named(result, o->check_name, NULL);
	char *t = detect_title(result, alerts), *sum;
	json_t *check;
	int ret;

	sum = bf_rep_cut_markdown(md, GH_SUMMARY_MAX, true,
	                          "\n…(cut to GitHub's limit for a check run; "
	                          "the whole report is in the job's step "
	                          "summary)\n");
	check = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:[]}}", "name",
	                  o->check_name ? o->check_name : "benchfarm",
	                  "head_sha", detect_sha(alerts, bf_report_host(r)),
	                  "status", "completed", "conclusion",
	                  count_fresh(alerts, "regressed") ? "failure"
	                                                   : "success",
	                  "output", "title", t, "summary", sum, "annotations");
	if (check && is_http(o->link) &&
	    json_object_set_new(check, "details_url", json_string(o->link))) {
		json_decref(check);
		check = NULL;
	}
	free(t);
	free(sum);
	ret = bf_rep_add_json(bf_report_add_output(r, "github-check.json"),
	                      check, "github-check.json", err);
	if (ret) {
		free(md);
		return ret;
	}
	add_summary(r, md);
	free(md);
	add_detect_commands(bf_report_add_output(r, "github-commands.txt"),
	                    result, alerts);
	add_comment(r, result, o);
	return bf_rep_add_json(
	        bf_report_add_output(r, "github-check-updates.json"),
	        json_array(), "github-check-updates.json", err);
}

static int github_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	const json_t *results;
	json_t *check, *updates;
	char *md;
	int ret;

	(void)payload;
	if (!strcmp(bf_json_str_or(result, "kind", ""), "detect"))
		return github_detect(r, result, o, err);
	if (!strcmp(bf_json_str_or(result, "kind", ""), "bisect"))
		return github_bisect(r, result, o, err);
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	md = bf_report_markdown_named(result, o->check_name, NULL);
	if (!check_json(&check, &updates, result, results, o, md)) {
		json_decref(check);
		json_decref(updates);
		check = updates = NULL; /* an error naming the file below */
	}
	ret = bf_rep_add_json(bf_report_add_output(r, "github-check.json"),
	                      check, "github-check.json", err);
	if (ret) {
		json_decref(updates);
		free(md);
		return ret;
	}
	add_summary(r, md);
	free(md);
	add_commands(bf_report_add_output(r, "github-commands.txt"), result,
	             results);
	add_comment(r, result, o);
	return bf_rep_add_json(
	        bf_report_add_output(r, "github-check-updates.json"), updates,
	        "github-check-updates.json", err);
}

const struct bf_plugin bf_plugin_github = {
	.abi = BF_PLUGIN_ABI,
	.name = "github",
	.summary = "check-run payload, step summary and workflow commands",
	.kinds = "compare,detect,bisect",
	.run = github_run,
};
