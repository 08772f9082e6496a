/*
 * The github reporter's annotations and workflow commands: in the order a
 * reviewer reads them, escaped so that no name starts a command, titles
 * cut, only on paths inside the repository, 50 a request and at most
 * 1000 in all, those left out counted.
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

/*
 * The order a reviewer reads (GitHub shows 10 per level and step):
 * regressions, what was not measured, infrastructure, improvements.
 */
static void test_github__commands_in_review_order(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack(
	        "{s:s, s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}],"
	        " s:[{s:s}]}",
	        "kind", "compare", "config", "b.yaml", "infra_error", "gone",
	        "results", "name", "imp", "verdict", "improved", "name", "err",
	        "verdict", "error", "name", "reg", "verdict", "regressed",
	        "errors", "benchmark", "s");
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_string_equal(
	        o.text[2],
	        "::error file=b.yaml,title=benchfarm%3A ?/reg ?::regressed: ? "
	        "(base median ?, patch median ?)\n"
	        "::warning file=b.yaml,title=benchfarm%3A ?/err ?::not "
	        "measured (infrastructure): no samples\n"
	        "::warning title=benchfarm%3A infrastructure failure::s (?, "
	        "run ?, error): \n"
	        "::warning title=benchfarm%3A stopped early::gone\n"
	        "::notice file=b.yaml,title=benchfarm%3A ?/imp ?::improved: ? "
	        "(base median ?, patch median ?)\n");
	outputs_free(&o);
	json_decref(d);
}

/* One command per line whatever the names hold; properties escaped. */
static void test_github__commands_cannot_be_injected(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack(
	        "{s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:f, s:{s:s, s:i}}]}",
	        "kind", "compare", "config", "b.yaml", "results", "benchmark",
	        "s,u:i%te", "name", "x\n::error::x\r\n%0A\x1b[31m\x01",
	        "metric", ",:%", "verdict", "regressed", "effect", 0.5,
	        "source", "file", "a,b:c.cc", "line", 7);
	json_t *c;
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_int_equal(report_count(o.text[2], "\n"), 1);
	assert_null(strchr(o.text[2], '\r'));
	assert_string_equal(
	        o.text[2],
	        "::error file=a%2Cb%3Ac.cc,line=7,title=benchfarm%3A "
	        "s%2Cu%3Ai%25te/x%0A%3A%3Aerror%3A%3Ax%0D%0A%250A [31m  "
	        "%2C%3A%25::regressed: +50.0%25 (base median ?, patch median "
	        "?)\n");
	/* the annotation's title is one line, no control characters */
	c = check_of(&o);
	assert_string_equal(str(annotation(c, 0), "title"),
	                    "s,u:i%te/x ::error::x  %0A [31m  ,:%");
	assert_string_equal(str(annotation(c, 0), "path"), "a,b:c.cc");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/* A long name is cut at a character to GitHub's 255 for a title. */
static void test_github__long_title_cut(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d, *c;
	struct outputs o;
	char name[1000];
	const char *t;
	size_t n = 0;

	(void)state;
	while (n < 600) {
		name[n++] = (char)0xe2; /* ☃, three bytes */
		name[n++] = (char)0x98;
		name[n++] = (char)0x83;
	}
	name[n] = '\0';
	d = json_pack("{s:s, s:s, s:[{s:s, s:s, s:s}]}", "kind", "compare",
	              "config", "b.yaml", "results", "name", name, "metric",
	              "m", "verdict", "regressed");
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	t = str(annotation(c, 0), "title");
	assert_true(utf8_chars(t) <= 255);
	assert_true(strlen(t) <= 255);
	assert_int_equal(strncmp(t, "?/\xe2\x98\x83", 5), 0);
	assert_string_equal(t + strlen(t) - 3, "…");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/* Nothing to point at: no annotation, a command without file=. */
static void test_github__no_path_no_annotation(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d =
	        json_pack("{s:s, s:s, s:[{s:s, s:s, s:s}]}", "kind", "compare",
	                  "config", "/etc/benchfarm.yaml", "results", "name",
	                  "n", "metric", "m", "verdict", "improved");
	json_t *c;
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_int_equal(nannotations(c), 0);
	assert_string_equal(o.text[2], "::notice title=benchfarm%3A ?/n m::"
	                               "improved: ? (base median ?, patch "
	                               "median ?)\n");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/* The shared rule (report_util): only paths inside the repository. */
static void test_report_util__repo_paths(void **state)
{
	static const char *const outside[] = {
		"",         "./",        "/etc/passwd", "../up.cc",
		"..",       "a/../../b", "a/..",        "./../x",
		".//etc/x", "a/b\n.cc",  "a\x7f",       NULL,
	};
	json_t *r;
	long line = 7;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(outside); i++)
		if (bf_rep_repo_path(outside[i]))
			fail_msg("'%s' is not in the repository", outside[i]);
	assert_string_equal(bf_rep_repo_path("./bench/x.cc"), "bench/x.cc");
	assert_string_equal(bf_rep_repo_path("a/..b/c..d/...e"),
	                    "a/..b/c..d/...e");
	r = json_pack("{s:{s:s, s:i}}", "source", "file", "../x.cc", "line", 9);
	assert_null(bf_rep_source_file(r, &line));
	assert_int_equal(line, 0);
	json_object_set_new(json_object_get(r, "source"), "file",
	                    json_string("x.cc"));
	assert_string_equal(bf_rep_source_file(r, &line), "x.cc");
	assert_int_equal(line, 9);
	json_decref(r);
}

/*
 * A source.file outside the repository never reaches an annotation or a
 * workflow command: the config (a path inside) is used, else nothing.
 */
static void test_github__annotation_paths_stay_in_the_repository(void **state)
{
	static const char *const outside[] = { "../../etc/passwd",
		                               "/etc/passwd", "bench/../../x",
		                               "./../x" };
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d, *c;
	struct outputs o;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(outside); i++) {
		d = json_pack("{s:s, s:s, s:[{s:s, s:s, s:s, s:{s:s, s:i}}]}",
		              "kind", "compare", "config", "./ci/b.yaml",
		              "results", "name", "n", "metric", "m", "verdict",
		              "regressed", "source", "file", outside[i], "line",
		              3);
		render_ok(&o, &bf_plugin_github, d, &opts);
		c = check_of(&o);
		assert_int_equal(nannotations(c), 1);
		assert_string_equal(str(annotation(c, 0), "path"), "ci/b.yaml");
		assert_int_equal(num(annotation(c, 0), "start_line"), 1);
		assert_int_equal(
		        strncmp(o.text[2], "::error file=ci/b.yaml,title=", 29),
		        0);
		json_decref(c);
		outputs_free(&o);
		/* with the config outside too: no file at all */
		json_object_set_new(d, "config", json_string("../b.yaml"));
		render_ok(&o, &bf_plugin_github, d, &opts);
		c = check_of(&o);
		assert_int_equal(nannotations(c), 0);
		assert_int_equal(strncmp(o.text[2], "::error title=", 14), 0);
		json_decref(c);
		outputs_free(&o);
		json_decref(d);
	}
}

/* Document of n improvements, then one regression, all at b.yaml. */
static json_t *improvements(int n)
{
	json_t *d = json_pack("{s:s, s:s, s:[]}", "kind", "compare", "config",
	                      "b.yaml", "results");
	json_t *res = json_object_get(d, "results");
	char name[32];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "i%02d", i);
		json_array_append_new(
		        res, json_pack("{s:s, s:s, s:s}", "name", name,
		                       "verdict", "improved", "metric", "m"));
	}
	json_array_append_new(res,
	                      json_pack("{s:s, s:s, s:s}", "name", "reg",
	                                "verdict", "regressed", "metric", "m"));
	return d;
}

/*
 * GitHub takes 50 annotations a request: the check has the first 50,
 * regressions first, and github-check-updates.json the rest in PATCH
 * bodies of 50 each, in order; none is dropped.
 */
static void test_github__annotations_in_batches_of_50(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = improvements(176), *c, *u, *out = NULL;
	struct outputs o;
	size_t i;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	assert_int_equal(nannotations(c), 50);
	assert_string_equal(str(annotation(c, 0), "title"), "?/reg m");
	assert_string_equal(str(annotation(c, 0), "annotation_level"),
	                    "failure");
	assert_string_equal(str(annotation(c, 1), "title"), "?/i00 m");
	assert_string_equal(str(annotation(c, 49), "title"), "?/i48 m");
	/* 177 annotations: 50 in the check, 50 + 50 + 27 in three updates */
	assert_string_equal(o.name[4], "github-check-updates.json");
	u = json_loads(o.text[4], 0, NULL);
	assert_int_equal(json_array_size(u), 3);
	json_array_foreach(u, i, out)
	{
		const json_t *a;

		assert_int_equal(json_object_size(out), 1); /* output only */
		out = json_object_get(out, "output");
		assert_string_equal(str(out, "title"),
		                    str(output_of(c), "title"));
		assert_string_equal(str(out, "summary"),
		                    str(output_of(c), "summary"));
		a = json_object_get(out, "annotations");
		assert_int_equal(json_array_size(a), i < 2 ? 50 : 27);
		assert_string_equal(str(json_array_get(a, 0), "title"),
		                    i == 0   ? "?/i49 m"
		                    : i == 1 ? "?/i99 m"
		                             : "?/i149 m");
	}
	assert_string_equal(
	        str(json_array_get(json_object_get(out, "annotations"), 26),
	            "title"),
	        "?/i175 m");
	/* nothing left out, nothing said about it */
	assert_null(strstr(str(output_of(c), "summary"), "left out"));
	/* the commands are not capped: all 177 */
	assert_int_equal(report_count(o.text[2], "\n"), 177);
	json_decref(u);
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

/* Past 1000 annotations (20 requests) the summary says how many. */
static void test_github__annotations_left_out_are_counted(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = improvements(1099), *c, *u;
	const char *sum;
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	u = json_loads(o.text[4], 0, NULL);
	assert_int_equal(nannotations(c), 50);
	assert_int_equal(json_array_size(u), 19);
	assert_string_equal(
	        str(json_array_get(
	                    json_object_get(output_of(json_array_get(u, 18)),
	                                    "annotations"),
	                    49),
	            "title"),
	        "?/i998 m");
	sum = str(output_of(c), "summary");
	assert_non_null(strstr(sum, "\n100 annotations left out: GitHub takes "
	                            "50 a request and benchfarm sends at most "
	                            "1000; the job's step summary has every "
	                            "result.\n"));
	assert_true(utf8_chars(sum) <= 65535);
	json_decref(u);
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github__commands_in_review_order),
		cmocka_unit_test(test_github__commands_cannot_be_injected),
		cmocka_unit_test(test_github__long_title_cut),
		cmocka_unit_test(test_github__no_path_no_annotation),
		cmocka_unit_test(test_github__annotations_in_batches_of_50),
		cmocka_unit_test(test_github__annotations_left_out_are_counted),
		cmocka_unit_test(test_report_util__repo_paths),
		cmocka_unit_test(
		        test_github__annotation_paths_stay_in_the_repository),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
