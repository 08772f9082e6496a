/*
 * The github and gitlab reporters: the fields GitHub's check-run API and
 * workflow commands and GitLab's metrics report document, from the
 * fixtures (tests/fixtures/report; the runner starts tests at the
 * repository's top) and from hand-made documents.
 */
#include <math.h>
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

extern const struct bf_plugin bf_plugin_github;
extern const struct bf_plugin bf_plugin_gitlab;

/* Every output of p on d, as NUL-terminated strings, in order. */
struct outputs {
	size_t n;
	char *name[6];
	char *text[6];
};

static int render(struct outputs *o, const struct bf_plugin *p, json_t *d,
                  const struct bf_report_opts *opts, struct bf_err *err)
{
	struct bf_report *r = NULL;
	struct host_mock m;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = bf_report_render(&r, p, d, opts, host_mock_init(&m), err);
	if (!ret) {
		for (o->n = 0; o->n < 6 && bf_report_output(r, o->n); o->n++) {
			const struct bf_buf *b = bf_report_output(r, o->n);

			o->name[o->n] = strdup(bf_report_output_name(r, o->n));
			o->text[o->n] = strndup(b->buf ? b->buf : "", b->len);
		}
	}
	bf_report_free(r);
	assert_int_equal(m.ssh_calls + m.spawn_calls, 0); /* no outside */
	host_mock_release(&m);
	return ret;
}

static void outputs_free(struct outputs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->name[i]);
		free(o->text[i]);
	}
}

static void render_ok(struct outputs *o, const struct bf_plugin *p, json_t *d,
                      const struct bf_report_opts *opts)
{
	struct bf_err err = BF_ERR_INIT;

	if (render(o, p, d, opts, &err))
		fail_msg("%s: %s", p->name, err.msg);
}

static json_t *check_of(const struct outputs *o)
{
	json_t *c;

	assert_string_equal(o->name[0], "github-check.json");
	c = json_loads(o->text[0], 0, NULL);
	assert_non_null(c);
	return c;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	assert_non_null(s); /* the field is there and a string */
	return s;
}

static json_int_t num(const json_t *o, const char *key)
{
	assert_true(json_is_integer(json_object_get(o, key)));
	return json_integer_value(json_object_get(o, key));
}

static const json_t *output_of(const json_t *c)
{
	return json_object_get(c, "output");
}

static const json_t *annotation(const json_t *c, size_t i)
{
	return json_array_get(json_object_get(output_of(c), "annotations"), i);
}

static size_t nannotations(const json_t *c)
{
	const json_t *a = json_object_get(output_of(c), "annotations");

	assert_true(json_is_array(a));
	return json_array_size(a);
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

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

/* A document of n results named with 150 two-byte characters each. */
static json_t *many(int n)
{
	json_t *d = json_pack("{s:s, s:[]}", "kind", "compare", "results");
	json_t *res = json_object_get(d, "results");
	char name[320];

	for (int i = 0; i < n; i++) {
		size_t k = 0;

		while (k < 300) {
			name[k++] = (char)0xc3; /* é */
			name[k++] = (char)0xa9;
		}
		snprintf(name + k, sizeof(name) - k, "%d", i);
		json_array_append_new(res, json_pack("{s:s, s:s, s:s}", "name",
		                                     name, "verdict", "same",
		                                     "metric", "m"));
	}
	return d;
}

static void assert_cut_well(const char *md, const char *note)
{
	const char *at = strstr(md, note);

	assert_non_null(at);
	/* after the last whole line, every <details> closed, then the note */
	assert_string_equal(at, note);
	assert_int_equal(report_count(md, "<details>"),
	                 report_count(md, "</details>"));
	assert_int_equal(strncmp(at - 12, "\n</details>\n", 12), 0);
	assert_int_equal(strncmp(md, "<!-- benchfarm:report name=", 27), 0);
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

/* GitLab refuses a note over 1,000,000 characters: cut it the same way. */
static void test_gitlab__note_capped(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = many(20000);
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	assert_string_equal(o.name[0], "gitlab-note.md");
	assert_true(utf8_chars(o.text[0]) <= 1000000);
	assert_true(utf8_chars(o.text[0]) > 1000000 - 400); /* one row less */
	assert_cut_well(o.text[0], "\n…(cut to GitLab's limit for a note; "
	                           "the whole result is the job's JSON)\n");
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

static void test_gitlab__note_and_metrics(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-regressed");
	struct outputs o;
	const char *labels[] = {
		"{suite=\"micro\",benchmark=\"BM_parse/64\",metric=\"real_time\","
		"unit=\"ns\"}",
		"{suite=\"micro\",benchmark=\"BM_sort/1024\",metric=\"real_time\","
		"unit=\"ns\"}",
		"{suite=\"micro\",benchmark=\"BM_hash\",metric=\"items_per_"
		"second\",unit=\"items/s\"}",
		"{suite=\"micro\",benchmark=\"BM_alloc\",metric=\"real_time\","
		"unit=\"ns\"}",
	};
	const char *fam[][6] = {
		{ "patch_median", "median of the patch's runs, in unit", "1522",
		  "54100", "1302000000", "824" },
		{ "base_median", "median of the base's runs, in unit", "1520",
		  "48200", "1200000000", "800" },
		{ "change_ratio",
		  "change of the median against the base (0.1: 10% larger)",
		  "0.001", "0.123", "0.085", "0.03" },
		{ "regressed", "1 when the benchmark regressed, else 0", "0",
		  "1", "0", "0" },
	};
	struct bf_buf want = BF_BUF_INIT;

	(void)state;
	opts.check_name = "mr-perf";
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	assert_int_equal(o.n, 2);
	assert_string_equal(o.name[0], "gitlab-note.md");
	assert_string_equal(o.name[1], "metrics.txt");
	assert_int_equal(strncmp(o.text[0],
	                         "<!-- benchfarm:report name=mr-perf -->\n",
	                         39),
	                 0);
	/* the whole OpenMetrics text: a gauge family each, # EOF last */
	for (size_t f = 0; f < 4; f++) {
		bf_buf_addf(
		        &want,
		        "# TYPE benchfarm_%s gauge\n# HELP benchfarm_%s %s\n",
		        fam[f][0], fam[f][0], fam[f][1]);
		for (size_t i = 0; i < 4; i++)
			bf_buf_addf(&want, "benchfarm_%s%s %s\n", fam[f][0],
			            labels[i], fam[f][2 + i]);
	}
	bf_buf_addstr(&want, "# EOF\n");
	assert_string_equal(o.text[1], want.buf);
	bf_buf_release(&want);
	outputs_free(&o);
	json_decref(d);
}

static void test_gitlab__labels_escaped_and_nan_left_out(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d =
	        json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:s, s:{s:f}},"
	                  " {s:s, s:s, s:s}]}",
	                  "kind", "compare", "results", "benchmark", "s\"q\\",
	                  "name", "a\nb\tc#d\r", "metric", "m", "unit", "ns",
	                  "verdict", "same", "patch", "median", 2.5, "name",
	                  "gone", "metric", "m", "verdict", "error");
	struct outputs o;
	const char *p;

	(void)state;
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	/* \\ \" \n escaped; other controls blank; '#' fullwidth for GitLab */
	assert_string_equal(
	        o.text[1],
	        "# TYPE benchfarm_patch_median gauge\n"
	        "# HELP benchfarm_patch_median median of the patch's runs, in "
	        "unit\n"
	        "benchfarm_patch_median{suite=\"s\\\"q\\\\\",benchmark=\"a\\nb "
	        "c\xef\xbc\x83"
	        "d \",metric=\"m\",unit=\"ns\"} 2.5\n"
	        "# TYPE benchfarm_base_median gauge\n"
	        "# HELP benchfarm_base_median median of the base's runs, in "
	        "unit\n"
	        "# TYPE benchfarm_change_ratio gauge\n"
	        "# HELP benchfarm_change_ratio change of the median against "
	        "the base (0.1: 10% larger)\n"
	        "# TYPE benchfarm_regressed gauge\n"
	        "# HELP benchfarm_regressed 1 when the benchmark regressed, "
	        "else 0\n"
	        "benchfarm_regressed{suite=\"s\\\"q\\\\\",benchmark=\"a\\nb "
	        "c\xef\xbc\x83"
	        "d \",metric=\"m\",unit=\"ns\"} 0\n"
	        "# EOF\n");
	/* GitLab cuts a line at '#': only comment lines may hold one */
	for (p = o.text[1]; *p; p = strchr(p, '\n') + 1)
		assert_true(*p == '#' || !memchr(p, '#', strcspn(p, "\n")));
	outputs_free(&o);
	json_decref(d);
}

/* A value that is not a finite number (another version's "inf"): none. */
static void test_gitlab__non_numbers_left_out(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d =
	        json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{s:f}, s:{s:f}}]}",
	                  "kind", "compare", "results", "name", "z", "metric",
	                  "m", "verdict", "same", "effect", "inf", "base",
	                  "median", 0.0, "patch", "median", 1e308);
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	assert_non_null(strstr(o.text[1], "\nbenchfarm_base_median{suite=\"\","
	                                  "benchmark=\"z\",metric=\"m\","
	                                  "unit=\"\"} 0\n"));
	assert_non_null(strstr(o.text[1], "\nbenchfarm_patch_median{suite=\"\","
	                                  "benchmark=\"z\",metric=\"m\","
	                                  "unit=\"\"} 1e+308\n"));
	assert_null(strstr(o.text[1], "benchfarm_change_ratio{"));
	assert_null(strstr(o.text[1], "inf"));
	outputs_free(&o);
	json_decref(d);
}

/*
 * GitLab's metrics widget compares values as strings: a value printed to
 * 15 digits is "changed" on every run. Rounded to what the interval
 * supports, noise inside it prints the same; without an interval, 4
 * significant digits.
 */
static void test_gitlab__metrics_rounded_to_the_interval(void **state)
{
	static const double noisy[] = { 54130, 54131.700000000004, 54110.3,
		                        54149.99 };
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	struct outputs o;
	json_t *d;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(noisy); i++) {
		d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:f, s:f, s:f, "
		              "s:{s:f}, s:{s:f}}]}",
		              "kind", "compare", "results", "name", "s",
		              "metric", "t", "verdict", "regressed", "effect",
		              noisy[i] / 48200.000000000007 - 1, "ci_low", 0.08,
		              "ci_high", 0.17, "base", "median",
		              48200.000000000007, "patch", "median", noisy[i]);
		render_ok(&o, &bf_plugin_gitlab, d, &opts);
		assert_non_null(strstr(o.text[1],
		                       "\nbenchfarm_patch_median{suite="
		                       "\"\",benchmark=\"s\",metric="
		                       "\"t\",unit=\"\"} 54100\n"));
		assert_non_null(strstr(o.text[1],
		                       "\nbenchfarm_base_median{suite="
		                       "\"\",benchmark=\"s\",metric="
		                       "\"t\",unit=\"\"} 48200\n"));
		assert_non_null(strstr(o.text[1],
		                       "\nbenchfarm_change_ratio{suite="
		                       "\"\",benchmark=\"s\",metric="
		                       "\"t\",unit=\"\"} 0.123\n"));
		outputs_free(&o);
		json_decref(d);
	}
	/* no interval (a result of an older version): 4 digits */
	d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:f, s:{s:f}, s:{s:f}}]}",
	              "kind", "compare", "results", "name", "s", "metric", "t",
	              "verdict", "same", "effect", -0.0123456789, "base",
	              "median", 0.000123456789, "patch", "median", 1234.56789);
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	assert_non_null(strstr(o.text[1], "} 1235\n"));
	assert_non_null(strstr(o.text[1], "} 0.0001235\n"));
	assert_non_null(strstr(o.text[1], "} -0.01235\n"));
	outputs_free(&o);
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

/* On GitLab: the note of the alerts, and a metric per alert. */
static void test_gitlab__detect_result(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("detect");
	struct outputs o;
	char *md;

	(void)state;
	opts.link = "https://ci.example.com/9";
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	md = bf_report_markdown_named(d, NULL, "https://ci.example.com/9");
	assert_string_equal(o.text[0], md);
	free(md);
	assert_string_equal(
	        o.text[1],
	        "# TYPE benchfarm_alert_change_ratio gauge\n"
	        "# HELP benchfarm_alert_change_ratio change of the series at "
	        "the alert (0.1: 10% larger)\n"
	        "benchfarm_alert_change_ratio{suite=\"micro\",benchmark="
	        "\"alpha\",metric=\"value\",unit=\"ns\",direction="
	        "\"regressed\",commit=\"24d4f7149a14b5054e477622e6cefb5f7eeed"
	        "423\"} 0.144\n"
	        "benchfarm_alert_change_ratio{suite=\"micro\",benchmark="
	        "\"beta\",metric=\"value\",unit=\"ns\",direction="
	        "\"improved\",commit=\"c696b4261618a6d0fd8b1bf88c42b9fe06b7dd6"
	        "c\"} -0.09616\n"
	        "# TYPE benchfarm_alert_new gauge\n"
	        "# HELP benchfarm_alert_new 1 when this run raised the alert "
	        "and it is not ignored, else 0\n"
	        "benchfarm_alert_new{suite=\"micro\",benchmark=\"alpha\","
	        "metric=\"value\",unit=\"ns\",direction=\"regressed\","
	        "commit=\"24d4f7149a14b5054e477622e6cefb5f7eeed423\"} 1\n"
	        "benchfarm_alert_new{suite=\"micro\",benchmark=\"beta\","
	        "metric=\"value\",unit=\"ns\",direction=\"improved\","
	        "commit=\"c696b4261618a6d0fd8b1bf88c42b9fe06b7dd6c\"} 0\n"
	        "# EOF\n");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github__outputs_and_check_fields),
		cmocka_unit_test(test_github__clean_is_a_success),
		cmocka_unit_test(test_github__conclusion_follows_fail_on),
		cmocka_unit_test(test_github__unknown_alone_is_not_a_success),
		cmocka_unit_test(test_github__fail_on_never_warns),
		cmocka_unit_test(test_github__infra_failures_are_warnings),
		cmocka_unit_test(test_github__commands_in_review_order),
		cmocka_unit_test(test_github__commands_cannot_be_injected),
		cmocka_unit_test(test_github__long_title_cut),
		cmocka_unit_test(test_github__no_path_no_annotation),
		cmocka_unit_test(test_github__annotations_in_batches_of_50),
		cmocka_unit_test(test_github__annotations_left_out_are_counted),
		cmocka_unit_test(test_report_util__repo_paths),
		cmocka_unit_test(
		        test_github__annotation_paths_stay_in_the_repository),
		cmocka_unit_test(test_github__summary_capped),
		cmocka_unit_test(test_github__step_summary_capped),
		cmocka_unit_test(test_github__comment_capped),
		cmocka_unit_test(test_review__bad_documents_are_errors),
		cmocka_unit_test(test_github__text_not_utf8_is_an_error),
		cmocka_unit_test(test_gitlab__note_and_metrics),
		cmocka_unit_test(test_gitlab__note_capped),
		cmocka_unit_test(test_github__detect_result),
		cmocka_unit_test(test_review__bisect_result),
		cmocka_unit_test(test_gitlab__detect_result),
		cmocka_unit_test(test_gitlab__metrics_rounded_to_the_interval),
		cmocka_unit_test(test_gitlab__labels_escaped_and_nan_left_out),
		cmocka_unit_test(test_gitlab__non_numbers_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
