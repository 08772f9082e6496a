/*
 * The github reporter's check run and outputs: the fields GitHub's
 * check-run API documents, the conclusion and title for each kind of
 * result, the cuts to GitHub's limits, and what the review reporters
 * (github and gitlab) refuse; detect and bisect results. From the
 * fixtures (tests/fixtures/report; the runner starts tests at the
 * repository's top) and from hand-made documents. Annotations and
 * workflow commands are test_report_github_annotations', GitLab's
 * metrics test_report_gitlab's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/plugin.h"
#include "benchfarm/report.h"
#include "mocks/host_mock.h"
#include "mocks/report_fixture.h"
#include "report_markdown.h"
#include "report_util.h"
#include "unit/report_review/review_fixture.h"

static void test_github__outputs_and_check_fields(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-regressed"), *c;
	const json_t *a;
	struct outputs o;

	(void)state;
	opts.check_name = "perf/pixel";
	opts.link = "https://ci.example.com/7";
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_int_equal(o.n, 5);
	assert_string_equal(o.name[1], "github-summary.md");
	assert_string_equal(o.name[2], "github-commands.txt");
	assert_string_equal(o.name[3], "github-comment.md");
	assert_string_equal(o.name[4], "github-check-updates.json");
	assert_string_equal(o.text[4], "[]\n"); /* two annotations: none */
	/* the comment is report.md: marker, link and all, when it fits */
	{
		char *md = bf_report_markdown_named(d, "perf/pixel",
		                                    "https://ci.example.com/7");

		assert_string_equal(o.text[3], md);
		assert_non_null(strstr(md, "[Full results](<https://ci."
		                           "example.com/7>)\n"));
		free(md);
	}
	c = check_of(&o);
	assert_int_equal(json_object_size(c), 6);
	assert_string_equal(str(c, "name"), "perf/pixel");
	assert_string_equal(str(c, "head_sha"),
	                    "2222222222222222222222222222222222222222");
	assert_string_equal(str(c, "status"), "completed");
	assert_string_equal(str(c, "conclusion"), "failure");
	assert_string_equal(str(c, "details_url"), "https://ci.example.com/7");
	assert_int_equal(json_object_size(output_of(c)), 3);
	assert_string_equal(str(output_of(c), "title"),
	                    "1 regression, 1 improvement");
	/* the summary is the review comment, marker first */
	assert_string_equal(str(output_of(c), "summary"), o.text[1]);
	assert_int_equal(strncmp(o.text[1],
	                         "<!-- benchfarm:report name=perf/pixel -->\n",
	                         42),
	                 0);
	/* annotations: the regression first, at its source line */
	assert_int_equal(nannotations(c), 2);
	a = annotation(c, 0);
	assert_int_equal(json_object_size(a), 6);
	assert_string_equal(str(a, "path"), "bench/sort_bench.cc");
	assert_int_equal(num(a, "start_line"), 42);
	assert_int_equal(num(a, "end_line"), 42);
	assert_string_equal(str(a, "annotation_level"), "failure");
	assert_string_equal(str(a, "title"), "micro/BM_sort/1024 real_time");
	assert_string_equal(str(a, "message"),
	                    "regressed: +12.3% [+8.0%, +17.0%], p 0.002 "
	                    "(base median 48200, patch median 54130 ns)");
	a = annotation(c, 1);
	assert_string_equal(str(a, "path"), "benchfarm.yaml");
	assert_int_equal(num(a, "start_line"), 8);
	assert_string_equal(str(a, "annotation_level"), "notice");
	assert_string_equal(str(a, "title"), "micro/BM_hash items_per_second");
	/* commands: one per line, the regression an error at its line */
	assert_string_equal(
	        o.text[2],
	        "::error file=bench/sort_bench.cc,line=42,title=benchfarm%3A "
	        "micro/BM_sort/1024 real_time::regressed: +12.3%25 [+8.0%25, "
	        "+17.0%25], p 0.002 (base median 48200, patch median 54130 "
	        "ns)\n"
	        "::notice file=benchfarm.yaml,line=8,title=benchfarm%3A "
	        "micro/BM_hash items_per_second::improved: +8.5%25 [+5.0%25, "
	        "+11.0%25], p 0.004 (base median 1.2e+09, patch median "
	        "1.302e+09 items/s)\n");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

static void test_github__clean_is_a_success(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-clean"), *c;
	struct outputs o;

	(void)state;
	opts.link = "not a url"; /* only http(s) becomes details_url */
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_string_equal(str(c, "name"), "benchfarm");
	assert_null(json_object_get(c, "details_url"));
	assert_string_equal(str(c, "conclusion"), "success");
	assert_string_equal(str(output_of(c), "title"), "No regressions");
	assert_int_equal(nannotations(c), 0);
	assert_string_equal(o.text[2], "");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

static const char *conclusion(json_t *d, const char *fail_on)
{
	static char buf[200];
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	struct outputs o;
	json_t *c;

	if (fail_on)
		json_object_set_new(json_object_get(d, "settings"), "fail_on",
		                    json_string(fail_on));
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	snprintf(buf, sizeof(buf), "%s %s", str(c, "conclusion"),
	         str(output_of(c), "title"));
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
	return buf;
}

static void test_github__conclusion_follows_fail_on(void **state)
{
	(void)state;
	assert_string_equal(
	        conclusion(report_fixture("compare-regressed"), NULL),
	        "failure 1 regression, 1 improvement");
	assert_string_equal(
	        conclusion(report_fixture("compare-regressed"), "never"),
	        "neutral 1 regression, 1 improvement");
	/* a word from another version is not a gate */
	assert_string_equal(
	        conclusion(report_fixture("compare-regressed"), "always"),
	        "neutral 1 regression, 1 improvement");
	assert_string_equal(conclusion(report_fixture("compare-clean"), NULL),
	                    "success No regressions");
	/* never "no regressions" when something was not measured */
	assert_string_equal(conclusion(report_fixture("compare-infra"), NULL),
	                    "neutral Incomplete: 1 result not measured, 4 "
	                    "runs failed; nothing regressed among what was "
	                    "measured");
	assert_string_equal(conclusion(report_fixture("compare-hostile"), NULL),
	                    "failure Incomplete: 1 run failed; 2 "
	                    "regressions, 1 improvement");
	assert_string_equal(
	        conclusion(json_pack("{s:s, s:s, s:[]}", "kind", "compare",
	                             "status", "infra_failure", "results"),
	                   NULL),
	        "neutral Incomplete: infrastructure failures; nothing was "
	        "compared");
	/* nothing compared is no success and no "No regressions" */
	assert_string_equal(conclusion(report_fixture("compare-empty"), NULL),
	                    "neutral Nothing was compared");
}

/*
 * A result too noisy to judge ("unknown") is no evidence of "no
 * regression": every result unknown is no success. Beside judged
 * results it is named in the title, but what was judged decides: an
 * improvement with an unknown metric next to it is a success.
 */
static void test_github__unknown_alone_is_not_a_success(void **state)
{
	json_t *d = report_fixture("compare-clean");
	json_t *r = json_array_get(json_object_get(d, "results"), 0);

	(void)state;
	json_object_set_new(r, "verdict", json_string("unknown"));
	assert_string_equal(conclusion(d, NULL),
	                    "neutral Not conclusive: too few or too noisy "
	                    "samples to tell");
	d = report_fixture("compare-clean");
	r = json_deep_copy(json_array_get(json_object_get(d, "results"), 0));
	json_object_set_new(r, "verdict", json_string("unknown"));
	json_array_append_new(json_object_get(d, "results"), r);
	assert_string_equal(conclusion(d, NULL),
	                    "success No regressions, 1 not conclusive");
	d = report_fixture("compare-clean");
	r = json_deep_copy(json_array_get(json_object_get(d, "results"), 0));
	json_object_set_new(r, "verdict", json_string("unknown"));
	json_array_append_new(json_object_get(d, "results"), r);
	json_object_set_new(json_array_get(json_object_get(d, "results"), 0),
	                    "verdict", json_string("improved"));
	assert_string_equal(conclusion(d, NULL),
	                    "success No regressions, 1 not conclusive, 1 "
	                    "improvement");
}

/* fail_on never: a regression is a warning, not a failure or an error. */
static void test_github__fail_on_never_warns(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-regressed"), *c;
	struct outputs o;

	(void)state;
	json_object_set_new(json_object_get(d, "settings"), "fail_on",
	                    json_string("never"));
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_string_equal(str(annotation(c, 0), "annotation_level"),
	                    "warning");
	assert_string_equal(str(annotation(c, 1), "annotation_level"),
	                    "notice");
	assert_int_equal(strncmp(o.text[2],
	                         "::warning file=bench/sort_bench.cc,line=42,"
	                         "title=",
	                         49),
	                 0);
	assert_null(strstr(o.text[2], "::error"));
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/* What was not measured: a warning each, kept apart from results. */
static void test_github__infra_failures_are_warnings(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-infra"), *c;
	const json_t *a;
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_int_equal(nannotations(c), 1);
	a = annotation(c, 0);
	assert_string_equal(str(a, "path"), "benchfarm.yaml");
	assert_int_equal(num(a, "start_line"), 1);
	assert_int_equal(num(a, "end_line"), 1);
	assert_string_equal(str(a, "annotation_level"), "warning");
	assert_string_equal(str(a, "title"), "micro/BM_io real_time");
	assert_string_equal(
	        str(a, "message"),
	        "not measured (infrastructure): no samples: every run failed");
	assert_string_equal(
	        o.text[2],
	        "::warning file=benchfarm.yaml,title=benchfarm%3A micro/BM_io "
	        "real_time::not measured (infrastructure): no samples: every "
	        "run failed\n"
	        "::warning title=benchfarm%3A infrastructure failure::micro "
	        "(patch, run 4, infra): connection to 'pixel-7' lost\n"
	        "::warning title=benchfarm%3A stopped early::device 'pixel-7': "
	        "connection lost after 2 retries\n");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

static void test_github__summary_capped(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = many(800), *c;
	const char *sum;
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	sum = str(output_of(c), "summary");
	assert_true(utf8_chars(sum) <= 65535);
	assert_true(utf8_chars(sum) > 65535 - 400); /* about one row less */
	assert_cut_well(sum, "\n…(cut to GitHub's limit for a check run; the "
	                     "whole report is in the job's step summary)\n");
	/* the step summary keeps everything */
	assert_true(strlen(o.text[1]) > strlen(sum));
	assert_null(strstr(o.text[1], "cut to GitHub"));
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/*
 * GitHub refuses a comment over 65,536 characters: the comment body is
 * cut below it, keeps its marker (so the next run finds and updates it)
 * and says it was cut.
 */
static void test_github__comment_capped(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = many(1500);
	struct outputs o;

	(void)state;
	opts.check_name = "perf/pixel";
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_string_equal(o.name[3], "github-comment.md");
	assert_true(utf8_chars(o.text[3]) <= 65536);
	assert_true(utf8_chars(o.text[3]) > 65536 - 400); /* one row less */
	assert_cut_well(o.text[3], "\n…(cut to GitHub's limit for a comment; "
	                           "the whole report is in the job's step "
	                           "summary)\n");
	assert_int_equal(strncmp(o.text[3],
	                         "<!-- benchfarm:report name=perf/pixel -->\n",
	                         42),
	                 0);
	/* the step summary keeps everything */
	assert_true(utf8_chars(o.text[1]) > 2 * 65536);
	assert_null(strstr(o.text[1], "cut to GitHub"));
	outputs_free(&o);
	json_decref(d);
}

/* GitHub drops a step summary over 1 MiB entirely: cut it first. */
static void test_github__step_summary_capped(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = many(6000);
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_true(strlen(o.text[1]) <= 1024 * 1024);
	assert_true(strlen(o.text[1]) > 1024 * 1024 - 1000);
	assert_cut_well(o.text[1], "\n…(cut to GitHub's 1 MiB limit for a "
	                           "step summary; the whole result is the "
	                           "job's JSON)\n");
	outputs_free(&o);
	json_decref(d);
}

static void test_review__bad_documents_are_errors(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *d = json_pack("{s:s}", "kind", "compare");
	json_t *s = json_pack("{s:s, s:s}", "kind", "compare", "results", "x");
	json_t *det = report_fixture("detect");
	const struct bf_plugin *p[] = { &bf_plugin_github, &bf_plugin_gitlab };
	struct outputs o;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(render(&o, p[i], d, &opts, &err), BF_EINVAL);
		assert_non_null(strstr(err.msg, "no \"results\" array"));
		bf_err_clear(&err);
		assert_int_equal(render(&o, p[i], s, &opts, &err), BF_EINVAL);
		assert_non_null(strstr(err.msg, "no \"results\" array"));
		bf_err_clear(&err);
		/* a detect result without its alerts is not one */
		json_object_del(det, "alerts");
		assert_int_equal(render(&o, p[i], det, &opts, &err), BF_EINVAL);
		assert_non_null(strstr(err.msg, "no \"alerts\" array"));
		bf_err_clear(&err);
	}
	json_decref(det);
	json_decref(s);
	json_decref(d);
}

/*
 * A document built in-process without jansson's UTF-8 check
 * (json_string_nocheck): github-check.json cannot be made, which is an
 * error naming it, never a crash (the head_sha) or a check without its
 * output (a name in the summary and the annotations).
 */
static void test_github__text_not_utf8_is_an_error(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-regressed"), *res;
	struct bf_err err = BF_ERR_INIT;
	struct outputs o;
	size_t i;

	(void)state;
	json_object_set_new(json_object_get(d, "patch"), "commit",
	                    json_string_nocheck("\xff"));
	assert_int_equal(render(&o, &bf_plugin_github, d, &opts, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "github-check.json"));
	bf_err_clear(&err);
	json_decref(d);
	d = report_fixture("compare-regressed");
	json_array_foreach(json_object_get(d, "results"), i, res)
	{
		json_object_set_new(
		        res, "source",
		        json_pack("{s:s, s:i}", "file", "b.cc", "line", 3));
		json_object_set_new(res, "metric",
		                    json_string_nocheck("t\xff"));
	}
	assert_int_equal(render(&o, &bf_plugin_github, d, &opts, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "github-check.json"));
	json_decref(d);
}

/*
 * A detect result (postsubmit alerts) is rendered for GitHub as for a
 * comparison: a check run (failure on a new regression alert), the
 * markdown of the alerts, a command per new alert; none for an ignored.
 */
static void test_github__detect_result(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("detect"), *c, *a;
	struct outputs o;
	char *md;

	(void)state;
	opts.link = "https://ci.example.com/9";
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_int_equal(o.n, 5);
	c = check_of(&o);
	assert_string_equal(str(c, "conclusion"), "failure");
	assert_string_equal(str(c, "head_sha"),
	                    "24d4f7149a14b5054e477622e6cefb5f7eeed423");
	assert_string_equal(str(c, "details_url"), "https://ci.example.com/9");
	assert_string_equal(str(output_of(c), "title"),
	                    "1 new regression alert over 38 measured commits");
	assert_int_equal(nannotations(c), 0);
	md = bf_report_markdown_named(d, NULL, NULL);
	assert_string_equal(str(output_of(c), "summary"), md);
	assert_string_equal(o.text[1], md);
	free(md);
	/* beta's improvement is ignored: no command for it */
	assert_string_equal(o.text[2],
	                    "::error title=benchfarm%3A micro/alpha value::"
	                    "regressed +14.4%25 between b2854137dc88 and "
	                    "24d4f7149a14 (detector jetpack)\n");
	assert_string_equal(o.name[4], "github-check-updates.json");
	assert_string_equal(o.text[4], "[]\n");
	json_decref(c);
	outputs_free(&o);
	/* bisected: the culprit is named; nothing new: a success */
	a = json_array_get(json_object_get(d, "alerts"), 0);
	json_object_set_new(
	        a, "bisect",
	        json_pack("{s:s}", "culprit",
	                  "abcdef0123456789abcdef0123456789abcdef01"));
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_non_null(strstr(o.text[2], "; culprit abcdef012345 (detector"));
	outputs_free(&o);
	json_object_set_new(a, "new", json_false());
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_string_equal(str(c, "conclusion"), "success");
	assert_string_equal(str(output_of(c), "title"),
	                    "No new alerts over 38 measured commits");
	assert_string_equal(o.text[2], "");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/*
 * A bisect result: the check on the culprit, a failure for a regression's,
 * its summary and the GitLab note the markdown report's bisect (names from
 * the repository escaped there, never markdown or HTML); candidates and no
 * culprit are said so.
 */
static void test_review__bisect_result(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("bisect"), *c;
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_string_equal(str(c, "head_sha"),
	                    "1717171717171717171717171717171717171717");
	assert_string_equal(str(c, "conclusion"), "failure");
	assert_string_equal(
	        str(output_of(c), "title"),
	        "culprit 171717171717: micro alpha value regressed");
	assert_string_equal(str(output_of(c), "summary"), o.text[1]);
	assert_non_null(strstr(o.text[1], "\n| `181818181818` | skipped | – | "
	                                  "skip: does not build |\n"));
	assert_string_equal(o.text[2], "::error title=benchfarm%3A bisect::"
	                               "culprit 171717171717: micro alpha "
	                               "value regressed\n");
	json_decref(c);
	outputs_free(&o);
	/* a hostile series: no raw HTML, link or control character */
	json_object_set_new(d, "series",
	                    json_string("a```<img src=x>[l](http://e)\x1b"));
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	assert_non_null(strstr(o.text[0], "## benchfarm: bisect of micro / a"));
	assert_null(strstr(o.text[0], "<img"));
	assert_null(strstr(o.text[0], "](http://e)"));
	assert_null(strstr(o.text[0], "\x1b"));
	assert_string_equal(o.text[1] + strlen(o.text[1]) - 6, "# EOF\n");
	assert_non_null(strstr(o.text[1], "direction=\"regressed\"} 1\n"));
	outputs_free(&o);
	/* candidates: a failure among them; none: neutral, no command */
	json_object_set_new(d, "culprit", json_null());
	json_object_set_new(d, "candidates", json_pack("[s, s]", "dd", "cc"));
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_string_equal(str(c, "head_sha"),
	                    "2626262626262626262626262626262626262626");
	assert_int_equal(strncmp(str(output_of(c), "title"),
	                         "culprit among 2 commits: ", 25),
	                 0);
	assert_non_null(strstr(o.text[1], ": 2 candidates, no single culprit"));
	json_decref(c);
	outputs_free(&o);
	json_object_del(d, "candidates");
	json_object_del(d, "direction");
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_string_equal(str(c, "conclusion"), "neutral");
	assert_string_equal(str(output_of(c), "title"),
	                    "no culprit: no change between 101010101010 and "
	                    "262626262626 to bisect");
	assert_string_equal(o.text[2], "");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/*
 * A patch that renames its slowed benchmark: the series the base
 * reports and the patch does not (and the renamed one) fail the check,
 * each annotated as missing on its side; with missing_series: ignore
 * they are said and pass.
 */
static void test_github__missing_series_fail_the_check(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-missing");
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_non_null(strstr(o.text[2], "::error "));
	assert_non_null(strstr(o.text[2], "missing on the patch side: the "
	                                  "base reports this series"));
	assert_non_null(strstr(o.text[2], "missing on the base side"));
	outputs_free(&o);
	assert_string_equal(conclusion(json_incref(d), NULL),
	                    "failure 2 series missing on one side");
	assert_string_equal(conclusion(json_incref(d), "never"),
	                    "neutral 2 series missing on one side");
	json_object_set_new(json_object_get(d, "settings"), "missing_series",
	                    json_string("ignore"));
	assert_string_equal(conclusion(d, NULL),
	                    "success No regressions, 2 series missing on one "
	                    "side");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github__outputs_and_check_fields),
		cmocka_unit_test(test_github__clean_is_a_success),
		cmocka_unit_test(test_github__conclusion_follows_fail_on),
		cmocka_unit_test(test_github__missing_series_fail_the_check),
		cmocka_unit_test(test_github__unknown_alone_is_not_a_success),
		cmocka_unit_test(test_github__fail_on_never_warns),
		cmocka_unit_test(test_github__infra_failures_are_warnings),
		cmocka_unit_test(test_github__summary_capped),
		cmocka_unit_test(test_github__step_summary_capped),
		cmocka_unit_test(test_github__comment_capped),
		cmocka_unit_test(test_review__bad_documents_are_errors),
		cmocka_unit_test(test_github__text_not_utf8_is_an_error),
		cmocka_unit_test(test_github__detect_result),
		cmocka_unit_test(test_review__bisect_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
