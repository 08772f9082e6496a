/*
 * The gitlab reporter: the merge-request note cut to GitLab's limit and
 * the metrics report (OpenMetrics, as GitLab's parser reads it): labels
 * escaped, values rounded to what their interval supports, what is not
 * a number left out; for compare and detect results.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gitlab__note_and_metrics),
		cmocka_unit_test(test_gitlab__note_capped),
		cmocka_unit_test(test_gitlab__detect_result),
		cmocka_unit_test(test_gitlab__metrics_rounded_to_the_interval),
		cmocka_unit_test(test_gitlab__labels_escaped_and_nan_left_out),
		cmocka_unit_test(test_gitlab__non_numbers_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
