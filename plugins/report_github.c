#include "benchfarm/plugin.h"

#include <stdlib.h>

#include "benchfarm/json.h"
#include "report_github_int.h"
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
 * The check's conclusion follows the config's fail_on: a regression, or
 * a series one side did not report (verdict "missing", unless
 * presubmit.missing_series is ignore), is a
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
 *
 * This file writes the outputs; report_github_check.c makes the check
 * runs' bodies, report_github_commands.c the workflow commands.
 */

/* Output name: md cut to max (code points when chars, else bytes), note. */
static void add_cut(struct bf_report *r, const char *name, const char *md,
                    size_t max, bool chars, const char *note)
{
	char *cut = bf_rep_cut_markdown(md, max, chars, note);

	bf_buf_addstr(bf_report_add_output(r, name), cut);
	free(cut);
}

/*
 * The commit a detect's or a bisect's check goes on (see the top): the
 * job's ($GITHUB_SHA), else one the result names; "" when none.
 */
static const char *head_sha(const json_t *result, const struct bf_host *h)
{
	const char *sha = h->getenv ? h->getenv("GITHUB_SHA") : NULL;

	if (sha && *sha)
		return sha;
	if (!strcmp(bf_json_str_or(result, "kind", ""), "bisect"))
		return bf_json_str_or(result, "culprit",
		                      bf_json_str_or(result, "bad", ""));
	return bf_json_str_or(
	        json_array_get(json_object_get(result, "alerts"), 0),
	        "commit_hi", "");
}

/*
 * The outputs in their order (see the top): the check run's body, the
 * step summary (md), the workflow commands, the comment and the check
 * run's updates. Takes check and updates; an error when either is NULL
 * (a text that is not UTF-8), naming its file.
 */
static int add_outputs(struct bf_report *r, json_t *check, const char *md,
                       const struct bf_buf *commands, json_t *updates,
                       struct bf_err *err)
{
	const struct bf_report_opts *o = bf_report_opts(r);
	char *comment;
	int ret;

	ret = bf_rep_add_json(bf_report_add_output(r, "github-check.json"),
	                      check, "github-check.json", err);
	if (ret) {
		json_decref(updates);
		return ret;
	}
	add_cut(r, "github-summary.md", md, GH_STEP_SUMMARY_MAX, false,
	        "\n…(cut to GitHub's 1 MiB limit for a step summary; the "
	        "whole result is the job's JSON)\n");
	bf_buf_add(bf_report_add_output(r, "github-commands.txt"),
	           commands->buf, commands->len);
	/* the comment is the markdown report with the link */
	comment = bf_report_markdown_named(bf_report_result(r), o->check_name,
	                                   o->link);
	add_cut(r, "github-comment.md", comment, GH_COMMENT_MAX, true,
	        "\n…(cut to GitHub's limit for a comment; the whole report is "
	        "in the job's step summary)\n");
	free(comment);
	return bf_rep_add_json(
	        bf_report_add_output(r, "github-check-updates.json"), updates,
	        "github-check-updates.json", err);
}

static int github_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	const char *kind = bf_json_str_or(result, "kind", "");
	const struct bf_host *h = bf_report_host(r);
	struct bf_buf commands = BF_BUF_INIT;
	json_t *check = NULL, *updates = NULL;
	const json_t *results = NULL;
	char *md;
	int ret;

	(void)payload;
	if (strcmp(kind, "detect") && strcmp(kind, "bisect") &&
	    (ret = bf_rep_results(&results, result, err)))
		return ret;
	md = bf_report_markdown_named(result, o->check_name, NULL);
	if (!strcmp(kind, "detect")) {
		check = bf_gh_detect_check(result, head_sha(result, h), o, md);
		bf_gh_detect_commands(&commands, result);
		updates = json_array();
	} else if (!strcmp(kind, "bisect")) {
		check = bf_gh_bisect_check(result, head_sha(result, h), o, md);
		bf_gh_bisect_commands(&commands, result);
		updates = json_array();
	} else {
		if (!bf_gh_compare_check(&check, &updates, result, results, o,
		                         md)) {
			json_decref(check);
			json_decref(updates);
			check = updates = NULL; /* an error naming the file */
		}
		bf_gh_compare_commands(&commands, result, results);
	}
	ret = add_outputs(r, check, md, &commands, updates, err);
	bf_buf_release(&commands);
	free(md);
	return ret;
}

const struct bf_plugin bf_plugin_github = {
	.abi = BF_PLUGIN_ABI,
	.name = "github",
	.summary = "check-run payload, step summary and workflow commands",
	.kinds = "compare,detect,bisect",
	.run = github_run,
};
