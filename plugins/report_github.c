#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
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
 *
 * The check's conclusion follows the config's fail_on: a regression is a
 * "failure" when the config fails on one, otherwise "neutral" (numbers
 * for the reviewer, not a gate); infrastructure failures without a
 * regression are "neutral" with a title that says the run is incomplete.
 */

#define GH_TITLE_MAX       255 /* annotation and output title */
#define GH_SUMMARY_MAX     65535 /* output.summary, in characters */
#define GH_MESSAGE_MAX     4096 /* ours, per annotation */
#define GH_ANNOTATIONS_MAX 50 /* per request */

/* "failure", "neutral" or "success". */
static const char *conclusion(const json_t *result, const json_t *results)
{
	if (bf_rep_count(results, "regressed"))
		return bf_rep_fail_on_regression(result) ? "failure"
		                                         : "neutral";
	return bf_rep_has_infra(result) ? "neutral" : "success";
}

static void add_plural(struct bf_buf *b, size_t n, const char *what)
{
	bf_buf_addf(b, "%zu %s%s", n, what, n == 1 ? "" : "s");
}

/* The check's one-line title. */
static char *title(const json_t *result, const json_t *results)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t reg = bf_rep_count(results, "regressed");
	size_t imp = bf_rep_count(results, "improved");

	if (bf_rep_has_infra(result)) {
		bf_buf_addstr(&b, "Incomplete: infrastructure failures; ");
		if (reg)
			add_plural(&b, reg, "regression");
		else
			bf_buf_addstr(&b, "nothing regressed among what was "
			                  "measured");
	} else if (reg) {
		add_plural(&b, reg, "regression");
	} else {
		bf_buf_addstr(&b, "No regressions");
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
		return bf_rep_fail_on_regression(result) ? "failure"
		                                         : "warning";
	if (!strcmp(verdict, "improved"))
		return "notice";
	if (!strcmp(verdict, "error"))
		return "warning";
	return NULL;
}

static void describe(struct bf_buf *b, const json_t *r, const char *verdict)
{
	if (!strcmp(verdict, "error")) {
		bf_buf_addstr(b, "not measured (infrastructure): ");
		bf_buf_addstr(b, bf_json_str_or(r, "error", "no samples"));
		return;
	}
	bf_buf_addf(b, "%s: ", verdict);
	bf_rep_change(b, r);
	bf_buf_addf(b, " (base median %.6g, patch median %.6g %s)",
	            bf_rep_num(json_object_get(r, "base"), "median"),
	            bf_rep_num(json_object_get(r, "patch"), "median"),
	            bf_json_str_or(r, "unit", ""));
}

static char *cut(const char *s, size_t max)
{
	struct bf_buf b = BF_BUF_INIT;

	bf_rep_add_cut(&b, s, max);
	return bf_buf_detach(&b, NULL);
}

/* Annotations, regressions first, at most GH_ANNOTATIONS_MAX. */
static json_t *annotations(const json_t *result, const json_t *results)
{
	static const char *const order[] = { "regressed", "error", "improved" };
	json_t *arr = json_array();

	for (size_t k = 0; k < BF_ARRAY_SIZE(order); k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			const char *v = bf_json_str_or(r, "verdict", "error");
			struct bf_buf t = BF_BUF_INIT, m = BF_BUF_INIT;
			const char *path;
			char *ts, *ms;
			long line;

			if (strcmp(v, order[k]) ||
			    json_array_size(arr) >= GH_ANNOTATIONS_MAX)
				continue;
			path = bf_rep_source(result, r, &line);
			if (!path)
				continue;
			bf_rep_title(&t, r);
			describe(&m, r, v);
			ts = cut(t.buf ? t.buf : "", GH_TITLE_MAX - 3);
			ms = cut(m.buf ? m.buf : "", GH_MESSAGE_MAX);
			json_array_append_new(
			        arr,
			        json_pack("{s:s, s:i, s:i, s:s, s:s, s:s}",
			                  "path", path, "start_line",
			                  (int)(line ? line : 1), "end_line",
			                  (int)(line ? line : 1),
			                  "annotation_level", level(result, v),
			                  "title", ts, "message", ms));
			free(ts);
			free(ms);
			bf_buf_release(&t);
			bf_buf_release(&m);
		}
	}
	return arr;
}

/* At most max characters (code points) of s, with a note when cut. */
static char *summary(const char *md, size_t max)
{
	static const char note[] = "\n\n…(cut to GitHub's limit; the whole "
	                           "report is in the job's step summary)\n";
	struct bf_buf b = BF_BUF_INIT;
	size_t chars = 0, i;

	for (i = 0; md[i]; i++)
		chars += ((unsigned char)md[i] & 0xC0) != 0x80;
	if (chars <= max)
		return strdup(md);
	max -= sizeof(note); /* bytes >= characters */
	for (i = 0, chars = 0; md[i]; i++) {
		if (((unsigned char)md[i] & 0xC0) != 0x80 && ++chars > max)
			break;
	}
	bf_buf_add(&b, md, i);
	bf_buf_addstr(&b, note);
	return bf_buf_detach(&b, NULL);
}

/* Workflow command data: what @actions/core's escapeData does. */
static void add_data(struct bf_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '%')
			bf_buf_addstr(b, "%25");
		else if (*s == '\r')
			bf_buf_addstr(b, "%0D");
		else if (*s == '\n')
			bf_buf_addstr(b, "%0A");
		else
			bf_buf_addch(b, *s);
	}
}

/* A property value: escapeProperty, also ':' and ','. */
static void add_property(struct bf_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ':')
			bf_buf_addstr(b, "%3A");
		else if (*s == ',')
			bf_buf_addstr(b, "%2C");
		else {
			char one[2] = { *s, '\0' };

			add_data(b, one);
		}
	}
}

static void add_commands(struct bf_buf *b, const json_t *result,
                         const json_t *results)
{
	const json_t *errors = json_object_get(result, "errors");
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		const char *v = bf_json_str_or(r, "verdict", "error");
		const char *lv = level(result, v);
		struct bf_buf t = BF_BUF_INIT, m = BF_BUF_INIT;
		const char *path;
		char *ts;
		long line;

		if (!lv)
			continue;
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
		ts = cut(t.buf, GH_TITLE_MAX - 3);
		bf_buf_addstr(b, "title=");
		add_property(b, ts);
		bf_buf_addstr(b, "::");
		describe(&m, r, v);
		add_data(b, m.buf ? m.buf : "");
		bf_buf_addch(b, '\n');
		free(ts);
		bf_buf_release(&t);
		bf_buf_release(&m);
	}
	json_array_foreach(errors, i, r)
	{
		struct bf_buf m = BF_BUF_INIT;

		bf_buf_addstr(b, "::warning title=");
		add_property(b, "benchfarm: infrastructure failure");
		bf_buf_addstr(b, "::");
		bf_buf_addf(&m, "%s (%s, run %lld, %s): %s",
		            bf_json_str_or(r, "benchmark", "?"),
		            bf_json_str_or(r, "side", "?"),
		            (long long)json_integer_value(
		                    json_object_get(r, "repeat")) +
		                    1,
		            bf_json_str_or(r, "code", "error"),
		            bf_json_str_or(r, "message", ""));
		add_data(b, m.buf);
		bf_buf_addch(b, '\n');
		bf_buf_release(&m);
	}
	if (bf_json_str_or(result, "infra_error", NULL)) {
		bf_buf_addstr(b, "::warning title=");
		add_property(b, "benchfarm: stopped early");
		bf_buf_addstr(b, "::");
		add_data(b, bf_json_str_or(result, "infra_error", ""));
		bf_buf_addch(b, '\n');
	}
}

static bool is_http(const char *s)
{
	return s && (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7));
}

static int github_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	const json_t *results;
	json_t *check, *output;
	struct bf_buf *out;
	char *md, *text, *t, *sum;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	md = bf_report_markdown_named(result, o->check_name);
	t = title(result, results);
	sum = summary(md, GH_SUMMARY_MAX);
	output = json_pack("{s:s, s:s, s:o}", "title", t, "summary", sum,
	                   "annotations", annotations(result, results));
	check = json_pack(
	        "{s:s, s:s, s:s, s:s}", "name",
	        o->check_name ? o->check_name : "benchfarm", "head_sha",
	        bf_json_str_or(json_object_get(result, "patch"), "commit", ""),
	        "status", "completed", "conclusion",
	        conclusion(result, results));
	if (is_http(o->link))
		json_object_set_new(check, "details_url", json_string(o->link));
	json_object_set_new(check, "output", output);
	text = json_dumps(check, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	out = bf_report_add_output(r, "github-check.json");
	bf_buf_addstr(out, text);
	bf_buf_addch(out, '\n');
	free(text);
	json_decref(check);
	free(t);
	free(sum);
	bf_buf_addstr(bf_report_add_output(r, "github-summary.md"), md);
	free(md);
	add_commands(bf_report_add_output(r, "github-commands.txt"), result,
	             results);
	return 0;
}

const struct bf_plugin bf_plugin_github = {
	.abi = BF_PLUGIN_ABI,
	.name = "github",
	.summary = "check-run payload, step summary and workflow commands",
	.kinds = "compare",
	.run = github_run,
};
