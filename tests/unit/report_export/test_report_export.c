/*
 * The exporters skia-perf (Perf's format version 1) and bmf (Bencher
 * Metric Format), from the fixtures and from hand-made documents, and
 * what every exporter (junit's included) refuses. JUnit's XML is
 * test_report_junit's.
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
#include "report_util.h"

extern const struct bf_plugin bf_plugin_junit;
extern const struct bf_plugin bf_plugin_skia_perf;
extern const struct bf_plugin bf_plugin_bmf;

/*
 * The primary output of p on d; fails the test on an error. The review
 * options name Gerrit change 4711, patch set 3 (skia-perf's trybot
 * fields of a comparison).
 */
static char *render(const struct bf_plugin *p, json_t *d, const char *name)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;

	opts.gerrit_change = "4711,3";
	return report_render_primary(p, d, &opts, name);
}

static void test_skia_perf__format_version_1(void **state)
{
	json_t *d = report_fixture("compare-regressed"), *p, *res, *key, *stat;
	char *text = render(&bf_plugin_skia_perf, d, "skia-perf.json");

	(void)state;
	p = json_loads(text, 0, NULL);
	assert_non_null(p);
	assert_int_equal(json_integer_value(json_object_get(p, "version")), 1);
	/* a trybot result: the base Perf knows, the change beside it */
	assert_string_equal(json_string_value(json_object_get(p, "git_hash")),
	                    "1111111111111111111111111111111111111111");
	assert_string_equal(json_string_value(json_object_get(p, "issue")),
	                    "4711");
	assert_string_equal(json_string_value(json_object_get(p, "patchset")),
	                    "3");
	assert_string_equal(json_string_value(json_object_get(
	                            json_object_get(p, "key"), "device")),
	                    "pixel-7");
	res = json_object_get(p, "results");
	assert_int_equal(json_array_size(res), 4);
	/* BM_sort/1024: '/' is not allowed in Perf keys */
	key = json_object_get(json_array_get(res, 1), "key");
	assert_string_equal(json_string_value(json_object_get(key, "test")),
	                    "BM_sort_1024");
	assert_string_equal(json_string_value(json_object_get(key, "units")),
	                    "ns");
	stat = json_object_get(
	        json_object_get(json_array_get(res, 1), "measurements"),
	        "stat");
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(stat, 0), "value")),
	                    "median");
	assert_true(json_number_value(json_object_get(json_array_get(stat, 0),
	                                              "measurement")) == 54130);
	json_decref(p);
	free(text);
	json_decref(d);
}

static void test_skia_perf__keys_forced_valid(void **state)
{
	json_t *d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{s:f}}, "
	                      "{s:s, s:s, s:s}]}",
	                      "kind", "compare", "results", "benchmark",
	                      "a,b=c", "name", "", "metric", "x y", "unit",
	                      "µs", "patch", "median", 1.5, "name", "gone",
	                      "metric", "m", "verdict", "error");
	json_t *p, *key;
	char *text = render(&bf_plugin_skia_perf, d, "skia-perf.json");

	(void)state;
	p = json_loads(text, 0, NULL);
	assert_non_null(p);
	/* the unmeasured result is left out */
	assert_int_equal(json_array_size(json_object_get(p, "results")), 1);
	key = json_object_get(json_array_get(json_object_get(p, "results"), 0),
	                      "key");
	assert_string_equal(json_string_value(json_object_get(key, "suite")),
	                    "a_b_c");
	assert_string_equal(json_string_value(json_object_get(key, "test")),
	                    "_");
	assert_string_equal(json_string_value(json_object_get(key, "metric")),
	                    "x_y");
	assert_string_equal(json_string_value(json_object_get(key, "units")),
	                    "__s");
	json_decref(p);
	free(text);
	json_decref(d);
}

static void test_bmf__patch_medians_and_bounds(void **state)
{
	json_t *d = report_fixture("compare-regressed"), *b, *m;
	char *text = render(&bf_plugin_bmf, d, "bmf.json");

	(void)state;
	b = json_loads(text, 0, NULL);
	assert_non_null(b);
	assert_int_equal(json_object_size(b), 4);
	m = json_object_get(json_object_get(b, "micro/BM_sort/1024"),
	                    "real_time");
	assert_true(json_number_value(json_object_get(m, "value")) == 54130);
	assert_true(json_number_value(json_object_get(m, "lower_value")) ==
	            53588.7);
	assert_true(json_number_value(json_object_get(m, "upper_value")) ==
	            54671.3);
	m = json_object_get(json_object_get(b, "micro/BM_hash"),
	                    "items_per_second");
	assert_non_null(m);
	json_decref(b);
	free(text);
	json_decref(d);
}

static void test_bmf__unmeasured_left_out(void **state)
{
	json_t *d = report_fixture("compare-infra"), *b;
	char *text = render(&bf_plugin_bmf, d, "bmf.json");

	(void)state;
	b = json_loads(text, 0, NULL);
	assert_non_null(b);
	assert_null(json_object_get(b, "micro/BM_io"));
	assert_non_null(json_object_get(b, "micro/BM_parse/64"));
	json_decref(b);
	free(text);
	json_decref(d);
}

/*
 * Names that Perf's character rule would make one key ("BM_x/8" and
 * "BM_x|8" are both "BM_x_8") get tests of their own; others keep theirs.
 */
static void test_skia__colliding_names_stay_apart(void **state)
{
	json_t *d = report_fixture("compare-regressed"), *p, *res, *r0, *r1;
	const char *t0, *t1;
	char *text;

	(void)state;
	res = json_object_get(d, "results");
	r0 = json_array_get(res, 0);
	r1 = json_array_get(res, 1);
	json_object_set_new(r0, "name", json_string("BM_x/8"));
	json_object_set_new(r1, "name", json_string("BM_x|8"));
	json_object_set(r1, "benchmark", json_object_get(r0, "benchmark"));
	json_object_set(r1, "metric", json_object_get(r0, "metric"));
	text = render(&bf_plugin_skia_perf, d, "skia-perf.json");
	p = json_loads(text, 0, NULL);
	assert_non_null(p);
	res = json_object_get(p, "results");
	t0 = json_string_value(json_object_get(
	        json_object_get(json_array_get(res, 0), "key"), "test"));
	t1 = json_string_value(json_object_get(
	        json_object_get(json_array_get(res, 1), "key"), "test"));
	assert_non_null(t0);
	assert_non_null(t1);
	assert_string_not_equal(t0, t1);
	assert_int_equal(strncmp(t0, "BM_x_8_", 7), 0);
	assert_int_equal(strlen(t0), 15);
	assert_int_equal(strncmp(t1, "BM_x_8_", 7), 0);
	/* a name that collides with nothing is as before */
	assert_string_equal(
	        json_string_value(json_object_get(
	                json_object_get(json_array_get(res, 2), "key"),
	                "test")),
	        "BM_hash");
	json_decref(p);
	free(text);
	json_decref(d);
}

/*
 * Bencher refuses names over 1,024 bytes: two long names that differ
 * only at the end become two keys of at most 1,024 bytes, cut at a
 * character, each ending in "~" and 16 hex digits.
 */
static void test_bmf__long_names_fit_and_stay_apart(void **state)
{
	json_t *d = report_fixture("compare-regressed"), *b, *res, *v;
	char name[1400];
	const char *key;
	size_t k = 0, n = 0;
	char *text;

	(void)state;
	while (k < 1300) {
		name[k++] = (char)0xc3; /* é */
		name[k++] = (char)0xa9;
	}
	res = json_object_get(d, "results");
	for (size_t i = 0; i < 2; i++) {
		snprintf(name + k, sizeof(name) - k, "%zu", i);
		json_object_set_new(json_array_get(res, i), "name",
		                    json_string(name));
	}
	text = render(&bf_plugin_bmf, d, "bmf.json");
	b = json_loads(text, 0, NULL);
	assert_non_null(b); /* valid UTF-8 keys */
	json_object_foreach(b, key, v)
	{
		size_t len = strlen(key);

		if (len < 1000)
			continue;
		n++;
		assert_true(len <= 1024);
		assert_int_equal(key[len - 17], '~');
		for (size_t i = len - 16; i < len; i++)
			assert_non_null(strchr("0123456789abcdef", key[i]));
	}
	assert_int_equal(n, 2);
	json_decref(b);
	free(text);
	json_decref(d);
}

static void test_export__missing_results_is_an_error(void **state)
{
	const struct bf_plugin *ps[] = { &bf_plugin_junit, &bf_plugin_skia_perf,
		                         &bf_plugin_bmf };
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack("{s:s, s:s}", "kind", "compare", "results",
	                      "not an array");

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(ps); i++) {
		struct bf_err err = BF_ERR_INIT;
		struct bf_report *r = NULL;
		struct host_mock m;

		assert_int_equal(bf_report_render(&r, ps[i], d, &opts,
		                                  host_mock_init(&m), &err),
		                 BF_EINVAL);
		assert_non_null(strstr(err.msg, "no \"results\" array"));
		assert_null(r);
		host_mock_release(&m);
	}
	json_decref(d);
}

/* A failed json_pack (NULL) or an unencodable text: an error, out kept. */
static void test_export__add_json_refuses_what_cannot_be_encoded(void **state)
{
	struct bf_buf b = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	bf_buf_addstr(&b, "x");
	assert_int_equal(bf_rep_add_json(&b, NULL, "a.json", &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "cannot encode a.json"));
	bf_err_clear(&err);
	assert_int_equal(bf_rep_add_json(&b,
	                                 json_pack("{s:o}", "k",
	                                           json_string_nocheck("\xff")),
	                                 "b.json", &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "cannot encode b.json"));
	assert_string_equal(b.buf, "x");
	assert_int_equal(
	        bf_rep_add_json(&b, json_pack("{s:i}", "a", 1), "c.json", &err),
	        0);
	assert_string_equal(b.buf, "x{\n  \"a\": 1\n}\n");
	bf_buf_release(&b);
}

/*
 * A document built in-process without jansson's UTF-8 check
 * (json_string_nocheck): skia-perf and bmf fail with an error naming
 * their output, never a crash or a document with a member missing.
 */
static void test_export__text_not_utf8_is_an_error(void **state)
{
	const struct bf_plugin *ps[] = { &bf_plugin_skia_perf, &bf_plugin_bmf };
	const char *names[] = { "skia-perf.json", "bmf.json" };
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-regressed");
	json_t *res = json_array_get(json_object_get(d, "results"), 0);

	(void)state;
	opts.gerrit_change = "4711,3";
	/* skia-perf forces keys valid: the git hash is its raw text */
	json_object_set_new(json_object_get(d, "base"), "commit",
	                    json_string_nocheck("\xff"));
	/* bmf's keys are the names */
	json_object_set_new(res, "benchmark", json_string_nocheck("m\xff"));
	for (size_t i = 0; i < BF_ARRAY_SIZE(ps); i++) {
		struct bf_err err = BF_ERR_INIT;
		struct bf_report *r = NULL;
		struct host_mock m;

		assert_int_equal(bf_report_render(&r, ps[i], d, &opts,
		                                  host_mock_init(&m), &err),
		                 BF_EINVAL);
		if (!strstr(err.msg, names[i]))
			fail_msg("%s: '%s'", ps[i]->name, err.msg);
		assert_null(r);
		host_mock_release(&m);
	}
	json_decref(d);
}

/* Renders d with skia-perf, env set from pairs; the error or NULL. */
static json_t *skia_with(json_t *d, const char *const *env, size_t nenv,
                         const char *change, struct bf_err *err)
{
	struct bf_report_opts opts = BF_REPORT_OPTS_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	const struct bf_host *h = host_mock_init(&m);
	json_t *p = NULL;

	opts.gerrit_change = change;
	for (size_t i = 0; i + 1 < nenv; i += 2)
		host_mock_setenv(&m, env[i], env[i + 1]);
	if (!bf_report_render(&r, &bf_plugin_skia_perf, d, &opts, h, err))
		p = json_loadb(bf_report_output(r, 0)->buf,
		               bf_report_output(r, 0)->len, 0, NULL);
	bf_report_free(r);
	host_mock_release(&m);
	return p;
}

/*
 * A comparison's patch is unmerged: Perf cannot place its commit. The
 * file is a trybot result (base commit, issue, patchset) when the change
 * is known from the options or the CI, else refused saying why.
 */
static void test_skia_perf__presubmit_is_a_trybot_result(void **state)
{
#define PATCH "2222222222222222222222222222222222222222"
	static const struct {
		const char *env[4];
		const char *issue, *patchset;
	} ci[] = {
		{ { "BENCHFARM_PERF_ISSUE", "crrev-77",
		    "BENCHFARM_PERF_PATCHSET", "p2" },
		  "crrev-77",
		  "p2" },
		{ { "GERRIT_CHANGE_NUMBER", "123", "GERRIT_PATCHSET_NUMBER",
		    "4" },
		  "123",
		  "4" },
		{ { "GITHUB_REF", "refs/pull/58/merge", NULL, NULL },
		  "58",
		  PATCH },
		{ { "CI_MERGE_REQUEST_IID", "9", NULL, NULL }, "9", PATCH },
		{ { "CHANGE_ID", "31", NULL, NULL }, "31", PATCH },
	};
	json_t *d = report_fixture("compare-regressed"), *p;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(ci); i++) {
		p = skia_with(d, ci[i].env, ci[i].env[2] ? 4 : 2, NULL, &err);
		if (!p)
			fail_msg("case %zu: %s", i, err.msg);
		assert_string_equal(
		        json_string_value(json_object_get(p, "git_hash")),
		        "1111111111111111111111111111111111111111");
		assert_string_equal(
		        json_string_value(json_object_get(p, "issue")),
		        ci[i].issue);
		assert_string_equal(
		        json_string_value(json_object_get(p, "patchset")),
		        ci[i].patchset);
		json_decref(p);
	}
	/* the config's change (or --gerrit-change) */
	p = skia_with(d, NULL, 0, "4711,3", &err);
	assert_string_equal(json_string_value(json_object_get(p, "issue")),
	                    "4711");
	json_decref(p);
	/* nothing known (a push, not a pull request): refused, saying why */
	{
		const char *push[] = { "GITHUB_REF", "refs/heads/main" };

		assert_null(skia_with(d, push, 2, PATCH, &err));
	}
	assert_int_equal(err.code, BF_EINVAL);
	assert_non_null(strstr(err.msg, "unmerged patch"));
	assert_non_null(strstr(err.msg, "$BENCHFARM_PERF_ISSUE"));
	assert_non_null(strstr(err.msg, "'run' result"));
	bf_err_clear(&err);
	/* a half-given or unsafe change is an error naming the variables */
	{
		const char *half[] = { "BENCHFARM_PERF_ISSUE", "5" };
		const char *bad[] = { "BENCHFARM_PERF_ISSUE", "5/../x",
			              "BENCHFARM_PERF_PATCHSET", "1" };

		assert_null(skia_with(d, half, 2, NULL, &err));
		assert_non_null(strstr(err.msg, "must both be set"));
		bf_err_clear(&err);
		assert_null(skia_with(d, bad, 4, NULL, &err));
		assert_non_null(strstr(err.msg, "'5/../x'"));
		bf_err_clear(&err);
	}
	json_decref(d);
#undef PATCH
}

/*
 * A postsubmit run measured a commit of the branch: that commit is the
 * git_hash, no trybot fields, the statistics of its values.
 */
static void test_skia_perf__run_result(void **state)
{
	json_t *d = report_fixture("run"), *p, *st;
	struct bf_err err = BF_ERR_INIT;
	static const char *const stat[] = { "median", "min", "max", "mean" };
	static const double want[] = { 48250, 48100, 48700, 48350 };

	(void)state;
	p = skia_with(d, NULL, 0, NULL, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_string_equal(json_string_value(json_object_get(p, "git_hash")),
	                    "3333333333333333333333333333333333333333");
	assert_null(json_object_get(p, "issue"));
	assert_null(json_object_get(p, "patchset"));
	assert_int_equal(json_array_size(json_object_get(p, "results")), 4);
	st = json_object_get(
	        json_object_get(
	                json_array_get(json_object_get(p, "results"), 0),
	                "measurements"),
	        "stat");
	assert_int_equal(json_array_size(st), 5);
	for (size_t i = 0; i < BF_ARRAY_SIZE(want); i++) {
		const json_t *s = json_array_get(st, i);

		assert_string_equal(
		        json_string_value(json_object_get(s, "value")),
		        stat[i]);
		assert_true(json_number_value(json_object_get(
		                    s, "measurement")) == want[i]);
	}
	/* stddev of 48100, 48250, 48700 (n - 1) */
	assert_true(fabs(json_number_value(json_object_get(
	                         json_array_get(st, 4), "measurement")) -
	                 312.2499) < 1e-3);
	json_decref(p);
	json_decref(d);
}

/*
 * Bencher's built-in measures have fixed units: latency is ns (a time is
 * converted), throughput ops/s (MB/s gets a measure of its own).
 */
static void test_bmf__run_result_and_honest_units(void **state)
{
	json_t *d = report_fixture("run"), *b, *m;
	char *text = render(&bf_plugin_bmf, d, "bmf.json");

	(void)state;
	b = json_loads(text, 0, NULL);
	assert_non_null(b);
	m = json_object_get(json_object_get(b, "micro/BM_sort/1024"),
	                    "real_time");
	assert_true(json_number_value(json_object_get(m, "value")) == 48250);
	assert_true(json_number_value(json_object_get(m, "lower_value")) ==
	            48100);
	assert_true(json_number_value(json_object_get(m, "upper_value")) ==
	            48700);
	/* MB/s never lands on Bencher's ops/s throughput */
	m = json_object_get(b, "io/copy");
	assert_int_equal(json_object_size(m), 1);
	assert_null(json_object_get(m, "throughput"));
	m = json_object_get(m, "throughput-mb-s");
	assert_true(json_number_value(json_object_get(m, "value")) == 350);
	/* latency in us: converted to Bencher's ns */
	m = json_object_get(json_object_get(b, "io/open"), "latency");
	assert_true(json_number_value(json_object_get(m, "value")) == 12500);
	assert_true(json_number_value(json_object_get(m, "lower_value")) ==
	            12000);
	assert_true(json_number_value(json_object_get(m, "upper_value")) ==
	            14000);
	/* items/s is an ops rate: the built-in throughput, as it is */
	m = json_object_get(json_object_get(b, "micro/BM_hash"), "throughput");
	assert_true(json_number_value(json_object_get(m, "value")) == 1.2e9);
	json_decref(b);
	free(text);
	json_decref(d);
	/* a latency that is not a time, a throughput without a usable unit */
	d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:{s:f}}, "
	              "{s:s, s:s, s:s, s:s, s:{s:f}}]}",
	              "kind", "compare", "results", "benchmark", "a", "name",
	              "x", "metric", "Latency", "unit", "cycles", "patch",
	              "median", 7.0, "benchmark", "a", "name", "y", "metric",
	              "throughput", "unit", "%%", "patch", "median", 3.0);
	text = render(&bf_plugin_bmf, d, "bmf.json");
	b = json_loads(text, 0, NULL);
	assert_non_null(
	        json_object_get(json_object_get(b, "a/x"), "latency-cycles"));
	assert_non_null(json_object_get(json_object_get(b, "a/y"),
	                                "throughput-unknown-unit"));
	json_decref(b);
	free(text);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skia_perf__format_version_1),
		cmocka_unit_test(test_skia_perf__presubmit_is_a_trybot_result),
		cmocka_unit_test(test_skia_perf__run_result),
		cmocka_unit_test(test_bmf__run_result_and_honest_units),
		cmocka_unit_test(test_skia_perf__keys_forced_valid),
		cmocka_unit_test(test_bmf__patch_medians_and_bounds),
		cmocka_unit_test(test_bmf__unmeasured_left_out),
		cmocka_unit_test(test_bmf__long_names_fit_and_stay_apart),
		cmocka_unit_test(test_skia__colliding_names_stay_apart),
		cmocka_unit_test(test_export__missing_results_is_an_error),
		cmocka_unit_test(
		        test_export__add_json_refuses_what_cannot_be_encoded),
		cmocka_unit_test(test_export__text_not_utf8_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
