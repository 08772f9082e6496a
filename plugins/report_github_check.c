#include "report_github_int.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "report_util.h"

/*
 * The github reporter's check runs: the body of "create a check run"
 * (its conclusion, title, summary and annotations) and of the updates
 * that carry the annotations past the first request's, for compare,
 * detect and bisect results (report_github.c's top says what each has).
 */

const char *const bf_gh_order[4] = { "regressed", "missing", "error",
	                             "improved" };

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
 * "failure", "neutral" or "success". Failure: a regression, or a
 * series one side did not report (bf_rep_missing_fails), whatever else
 * failed. Success: no regression, no
 * infrastructure failure, and at least one metric judged (same or
 * improved); metrics too noisy to judge ("unknown") are named in the
 * title as not conclusive but do not hide what was judged. Neutral when
 * nothing could be judged.
 */
static const char *conclusion(const json_t *result, const json_t *results)
{
	if (bf_rep_count_failing(result, results))
		return fails_on_regression(result) ? "failure" : "neutral";
	if (bf_rep_count(results, "regressed") ||
	    (bf_rep_count(results, "missing") && bf_rep_missing_counts(result)))
		return "neutral";
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
/* "1 regression, 2 series missing on one side" into b. */
static void add_failing(struct bf_buf *b, size_t reg, size_t miss)
{
	if (reg)
		add_plural(b, reg, "regression");
	if (reg && miss)
		bf_buf_addstr(b, ", ");
	if (miss)
		bf_buf_addf(b, "%zu series missing on one side", miss);
}

static char *title(const json_t *result, const json_t *results)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t reg = bf_rep_count(results, "regressed");
	size_t imp = bf_rep_count(results, "improved");
	size_t miss = bf_rep_count(results, "missing");

	if (bf_rep_has_infra(result)) {
		bf_buf_addstr(&b, "Incomplete: ");
		add_infra(&b, result, results);
		bf_buf_addstr(&b, "; ");
		if (reg || miss)
			add_failing(&b, reg, miss);
		else if (bf_rep_compared_nothing(results))
			bf_buf_addstr(&b, "nothing was compared");
		else
			bf_buf_addstr(&b, "nothing regressed among what was "
			                  "measured");
	} else if (reg || (miss && bf_rep_missing_counts(result))) {
		add_failing(&b, reg, miss);
	} else if (bf_rep_compared_nothing(results)) {
		bf_buf_addstr(&b, "Nothing was compared");
	} else {
		bf_rep_add_no_regressions(&b, results, true);
		if (miss)
			bf_buf_addf(&b, ", %zu series missing on one side",
			            miss);
	}
	if (imp) {
		bf_buf_addstr(&b, ", ");
		add_plural(&b, imp, "improvement");
	}
	return bf_buf_detach(&b, NULL);
}

/* The annotation's level for a verdict; NULL: no annotation. */
const char *bf_gh_level(const json_t *result, const char *verdict)
{
	if (!strcmp(verdict, "regressed"))
		return fails_on_regression(result) ? "failure" : "warning";
	if (!strcmp(verdict, "improved"))
		return "notice";
	if (!strcmp(verdict, "missing"))
		return bf_rep_missing_fails(result) ? "failure" : "warning";
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
void bf_gh_describe(struct bf_buf *b, const json_t *r, const char *verdict)
{
	const char *unit = bf_json_str_or(r, "unit", "");

	if (!strcmp(verdict, "error")) {
		bf_buf_addstr(b, "not measured (infrastructure): ");
		bf_buf_addstr(b, bf_json_str_or(r, "error", "no samples"));
		return;
	}
	if (!strcmp(verdict, "missing")) {
		bf_rep_add_missing(b, r);
		bf_buf_addstr(b, ": ");
		bf_buf_addstr(b, bf_json_str_or(r, "error", ""));
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
bool bf_gh_is_ctl(unsigned char c)
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
		if (bf_gh_is_ctl((unsigned char)b.buf[i]) ||
		    (one_line && b.buf[i] == '\n'))
			b.buf[i] = ' ';
	}
	return bf_buf_detach(&b, NULL);
}

static json_t *annotation(const json_t *result, const json_t *r, const char *v,
                          const char *path, long line)
{
	struct bf_buf t = BF_BUF_INIT, m = BF_BUF_INIT;
	char *ts, *ms;
	json_t *a;

	bf_rep_title(&t, r);
	bf_gh_describe(&m, r, v);
	ts = clean_cut(t.buf, GH_TITLE_MAX - 3, true); /* 3: the "…" */
	ms = clean_cut(m.buf, GH_MESSAGE_MAX, false);
	a = json_pack("{s:s, s:I, s:I, s:s, s:s, s:s}", "path", path,
	              "start_line", (json_int_t)(line ? line : 1), "end_line",
	              (json_int_t)(line ? line : 1), "annotation_level",
	              bf_gh_level(result, v), "title", ts, "message", ms);
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
	for (size_t k = 0; k < BF_ARRAY_SIZE(bf_gh_order); k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			const char *v = bf_rep_verdict(r);
			const char *path;
			long line;

			if (strcmp(v, bf_gh_order[k]))
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

static bool is_http(const char *s)
{
	return s && (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7));
}

/*
 * The check run's body, into *check, and the bodies of its updates with
 * the annotations past the first 50, into *updates; false when a text in
 * them is not UTF-8.
 */
bool bf_gh_compare_check(json_t **check, json_t **updates, const json_t *result,
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
bool bf_gh_fresh(const json_t *a)
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
		n += bf_gh_fresh(a) &&
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

/*
 * A check-run body without annotations: md cut to GitHub's limit with
 * note, the link as details_url when it is an http(s) URL.
 */
static json_t *plain_check(const struct bf_report_opts *o, const char *sha,
                           const char *conclusion, const char *title,
                           const char *md, const char *note)
{
	char *sum = bf_rep_cut_markdown(md, GH_SUMMARY_MAX, true, note);
	json_t *check;

	check = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:[]}}", "name",
	                  o->check_name ? o->check_name : "benchfarm",
	                  "head_sha", sha, "status", "completed", "conclusion",
	                  conclusion, "output", "title", title, "summary", sum,
	                  "annotations");
	if (check && is_http(o->link) &&
	    json_object_set_new(check, "details_url", json_string(o->link))) {
		json_decref(check);
		check = NULL;
	}
	free(sum);
	return check;
}

json_t *bf_gh_detect_check(const json_t *result, const char *sha,
                           const struct bf_report_opts *o, const char *md)
{
	const json_t *alerts = json_object_get(result, "alerts");
	char *t = detect_title(result, alerts);
	json_t *check;

	check = plain_check(
	        o, sha,
	        count_fresh(alerts, "regressed") ? "failure" : "success", t, md,
	        "\n…(cut to GitHub's limit for a check run; the "
	        "whole report is in the job's step summary)\n");
	free(t);
	return check;
}

json_t *bf_gh_bisect_check(const json_t *result, const char *sha,
                           const struct bf_report_opts *o, const char *md)
{
	char *raw = bf_rep_bisect_title(result);
	char *t = clean_cut(raw, GH_TITLE_MAX - 3, true);
	json_t *check;

	check = plain_check(o, sha, bf_rep_bisect_conclusion(result), t, md,
	                    "\n…(cut to GitHub's limit for a check run; the "
	                    "whole result is the job's JSON)\n");
	free(t);
	free(raw);
	return check;
}
