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

#include "../../mocks/host_mock.h"
#include "benchfarm/plugin.h"
#include "plugins.h"

extern const struct bf_plugin bf_plugin_github;
extern const struct bf_plugin bf_plugin_gitlab;

#define FX "tests/fixtures/report/"

static json_t *load(const char *name)
{
	char path[256];
	json_t *d;

	snprintf(path, sizeof(path), FX "%s.json", name);
	d = json_load_file(path, 0, NULL);
	assert_non_null(d);
	return d;
}

/* Every output of p on d, as NUL-terminated strings, in order. */
struct outputs {
	size_t n;
	char *name[4];
	char *text[4];
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
		for (o->n = 0; o->n < 4 && bf_report_output(r, o->n); o->n++) {
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

static void test_github__outputs_and_check_fields(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = load("compare-regressed"), *c, *out, *ann, *a;
	struct outputs o;

	(void)state;
	opts.check_name = "perf/pixel";
	opts.link = "https://ci.example.com/7";
	render_ok(&o, &bf_plugin_github, d, &opts);
	assert_int_equal(o.n, 3);
	assert_string_equal(o.name[1], "github-summary.md");
	assert_string_equal(o.name[2], "github-commands.txt");
	c = check_of(&o);
	assert_string_equal(json_string_value(json_object_get(c, "name")),
	                    "perf/pixel");
	assert_string_equal(json_string_value(json_object_get(c, "head_sha")),
	                    "2222222222222222222222222222222222222222");
	assert_string_equal(json_string_value(json_object_get(c, "status")),
	                    "completed");
	assert_string_equal(json_string_value(json_object_get(c, "conclusion")),
	                    "failure");
	assert_string_equal(
	        json_string_value(json_object_get(c, "details_url")),
	        "https://ci.example.com/7");
	out = json_object_get(c, "output");
	assert_string_equal(json_string_value(json_object_get(out, "title")),
	                    "1 regression, 1 improvement");
	/* the summary is the review comment, marker first */
	assert_string_equal(json_string_value(json_object_get(out, "summary")),
	                    o.text[1]);
	assert_int_equal(strncmp(o.text[1],
	                         "<!-- benchfarm:report name=perf/pixel -->\n",
	                         42),
	                 0);
	/* annotations: the regression first, at its source line */
	ann = json_object_get(out, "annotations");
	assert_int_equal(json_array_size(ann), 2);
	a = json_array_get(ann, 0);
	assert_string_equal(json_string_value(json_object_get(a, "path")),
	                    "bench/sort_bench.cc");
	assert_int_equal(json_integer_value(json_object_get(a, "start_line")),
	                 42);
	assert_int_equal(json_integer_value(json_object_get(a, "end_line")),
	                 42);
	assert_string_equal(
	        json_string_value(json_object_get(a, "annotation_level")),
	        "failure");
	assert_string_equal(json_string_value(json_object_get(a, "title")),
	                    "micro/BM_sort/1024 real_time");
	assert_non_null(strstr(json_string_value(json_object_get(a, "message")),
	                       "regressed: +12.3% [+8.0%, +17.0%], p 0.002"));
	a = json_array_get(ann, 1);
	assert_string_equal(
	        json_string_value(json_object_get(a, "annotation_level")),
	        "notice");
	/* commands: one per line, the regression an error at its line */
	assert_non_null(strstr(o.text[2],
	                       "::error file=bench/sort_bench.cc,line=42,"
	                       "title=benchfarm%3A micro/BM_sort/1024 "
	                       "real_time::regressed: +12.3%25 [+8.0%25, "
	                       "+17.0%25], p 0.002"));
	assert_non_null(strstr(o.text[2], "\n::notice file=benchfarm.yaml,"
	                                  "line=8,title="));
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

static const char *conclusion(const char *fixture, const char *fail_on)
{
	static char buf[160];
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = load(fixture), *c;
	struct outputs o;

	if (fail_on)
		json_object_set_new(json_object_get(d, "settings"), "fail_on",
		                    json_string(fail_on));
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	snprintf(buf, sizeof(buf), "%s %s",
	         json_string_value(json_object_get(c, "conclusion")),
	         json_string_value(json_object_get(json_object_get(c, "output"),
	                                           "title")));
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
	return buf;
}

static void test_github__conclusion_follows_fail_on(void **state)
{
	(void)state;
	assert_string_equal(conclusion("compare-regressed", NULL),
	                    "failure 1 regression, 1 improvement");
	assert_string_equal(conclusion("compare-regressed", "never"),
	                    "neutral 1 regression, 1 improvement");
	assert_string_equal(conclusion("compare-clean", NULL),
	                    "success No regressions");
	/* never "no regressions" when something was not measured */
	assert_string_equal(conclusion("compare-infra", NULL),
	                    "neutral Incomplete: infrastructure failures; "
	                    "nothing regressed among what was measured");
}

/* One command per line whatever the names hold; properties escaped. */
static void test_github__commands_cannot_be_injected(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack(
	        "{s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:f, s:{s:s, s:i}}]}",
	        "kind", "compare", "config", "b.yaml", "results", "benchmark",
	        "s,u:i%te", "name", "x\n::error::pwned\r\n%0A", "metric", "m",
	        "verdict", "regressed", "effect", 0.5, "source", "file",
	        "a,b:c.cc", "line", 7);
	struct outputs o;
	const char *p;
	int lines = 0;

	(void)state;
	render_ok(&o, &bf_plugin_github, d, &opts);
	for (p = o.text[2]; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1);
	assert_string_equal(
	        o.text[2],
	        "::error file=a%2Cb%3Ac.cc,line=7,title=benchfarm%3A "
	        "s%2Cu%3Ai%25te/x%0A%3A%3Aerror%3A%3Apwned%0D%0A%250A "
	        "m::regressed: +50.0%25 (base median nan, patch median nan "
	        ")\n");
	outputs_free(&o);
	json_decref(d);
}

static void test_github__annotations_capped_at_50(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack("{s:s, s:s, s:[]}", "kind", "compare", "config",
	                      "b.yaml", "results");
	json_t *res = json_object_get(d, "results"), *c, *ann;
	struct outputs o;
	char name[32];

	(void)state;
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "i%02d", i);
		json_array_append_new(
		        res, json_pack("{s:s, s:s, s:s}", "name", name,
		                       "verdict", "improved", "metric", "m"));
	}
	/* the one regression comes last in the document, first in output */
	json_array_append_new(res,
	                      json_pack("{s:s, s:s, s:s}", "name", "reg",
	                                "verdict", "regressed", "metric", "m"));
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	ann = json_object_get(json_object_get(c, "output"), "annotations");
	assert_int_equal(json_array_size(ann), 50);
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(ann, 0), "title")),
	                    "?/reg m");
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

static void test_github__summary_capped(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack("{s:s, s:[]}", "kind", "compare", "results");
	json_t *res = json_object_get(d, "results"), *c;
	const char *sum;
	struct outputs o;
	char name[300];
	size_t chars = 0;

	(void)state;
	for (int i = 0; i < 800; i++) {
		/* 150 two-byte characters and a number per name */
		size_t n = 0;

		for (int k = 0; k < 75; k++) {
			name[n++] = (char)0xc3;
			name[n++] = (char)0xa9;
		}
		snprintf(name + n, sizeof(name) - n, "%d", i);
		json_array_append_new(res, json_pack("{s:s, s:s, s:s}", "name",
		                                     name, "verdict", "same",
		                                     "metric", "m"));
	}
	render_ok(&o, &bf_plugin_github, d, &opts);
	c = check_of(&o);
	sum = json_string_value(
	        json_object_get(json_object_get(c, "output"), "summary"));
	for (const char *p = sum; *p; p++)
		chars += ((unsigned char)*p & 0xC0) != 0x80;
	assert_true(chars <= 65535);
	assert_true(chars > 60000);
	assert_non_null(strstr(sum, "cut to GitHub's limit"));
	/* the step summary keeps everything */
	assert_true(strlen(o.text[1]) > strlen(sum));
	json_decref(c);
	outputs_free(&o);
	json_decref(d);
}

static void test_review__missing_results_is_an_error(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *d = json_pack("{s:s}", "kind", "compare");
	struct outputs o;

	(void)state;
	assert_int_equal(render(&o, &bf_plugin_github, d, &opts, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "no \"results\" array"));
	bf_err_clear(&err);
	assert_int_equal(render(&o, &bf_plugin_gitlab, d, &opts, &err),
	                 BF_EINVAL);
	bf_err_clear(&err);
	json_decref(d);
}

static void test_gitlab__note_and_metrics(void **state)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = load("compare-regressed");
	struct outputs o;

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
	assert_non_null(
	        strstr(o.text[1], "# TYPE benchfarm_patch_median gauge\n"));
	assert_non_null(strstr(
	        o.text[1], "benchfarm_patch_median{suite=\"micro\","
	                   "benchmark=\"BM_sort/1024\",metric=\"real_time\","
	                   "unit=\"ns\"} 54130\n"));
	assert_non_null(strstr(
	        o.text[1], "benchfarm_change_ratio{suite=\"micro\","
	                   "benchmark=\"BM_sort/1024\",metric=\"real_time\","
	                   "unit=\"ns\"} 0.123\n"));
	assert_non_null(strstr(
	        o.text[1], "benchfarm_regressed{suite=\"micro\","
	                   "benchmark=\"BM_sort/1024\",metric=\"real_time\","
	                   "unit=\"ns\"} 1\n"));
	/* OpenMetrics ends with # EOF */
	assert_int_equal(strcmp(o.text[1] + strlen(o.text[1]) - 6, "# EOF\n"),
	                 0);
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
	                  "name", "a\nb\tc", "metric", "m", "unit", "ns",
	                  "verdict", "same", "patch", "median", 2.5, "name",
	                  "gone", "metric", "m", "verdict", "error");
	struct outputs o;

	(void)state;
	render_ok(&o, &bf_plugin_gitlab, d, &opts);
	assert_non_null(strstr(
	        o.text[1], "benchfarm_patch_median{suite=\"s\\\"q\\\\\","
	                   "benchmark=\"a\\nb c\",metric=\"m\",unit=\"ns\"} "
	                   "2.5\n"));
	assert_null(strstr(o.text[1], "nan"));
	/* the unmeasured one has no value anywhere, not even "regressed 0" */
	assert_null(strstr(o.text[1], "gone"));
	outputs_free(&o);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github__outputs_and_check_fields),
		cmocka_unit_test(test_github__conclusion_follows_fail_on),
		cmocka_unit_test(test_github__commands_cannot_be_injected),
		cmocka_unit_test(test_github__annotations_capped_at_50),
		cmocka_unit_test(test_github__summary_capped),
		cmocka_unit_test(test_review__missing_results_is_an_error),
		cmocka_unit_test(test_gitlab__note_and_metrics),
		cmocka_unit_test(test_gitlab__labels_escaped_and_nan_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
