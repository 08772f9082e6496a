/*
 * The markdown reporter (plugins/report_markdown.c): the marker a
 * pipeline finds its comment by, regressions before everything else,
 * infrastructure failures apart and never read as "no regressions",
 * escaping of hostile strings, the detect kind. Fixtures are read from
 * tests/fixtures/report (the runner starts tests at the repository's
 * top).
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "benchfarm/plugin.h"
#include "benchfarm/report.h"
#include "mocks/host_mock.h"
#include "mocks/report_fixture.h"
#include "report_markdown.h"

extern const struct bf_plugin bf_plugin_markdown;

/* The report as rendered through the plugin, with opts. */
static char *render(const json_t *d, const struct bf_report_opts *o)
{
	return report_render_primary(&bf_plugin_markdown, d, o, "report.md");
}

static char *render_fx(const char *name)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture(name);
	char *text = render(d, &o);

	json_decref(d);
	return text;
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

static void test_markdown__marker_is_the_first_line(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-clean");
	char *text;

	(void)state;
	o.check_name = "perf/pixel-7";
	text = render(d, &o);
	assert_int_equal(
	        strncmp(text, "<!-- benchfarm:report name=perf/pixel-7 -->\n",
	                44),
	        0);
	free(text);
	/* a name cannot close the comment or open a tag */
	o.check_name = "x --> <b>y";
	text = render(d, &o);
	assert_int_equal(strncmp(text,
	                         "<!-- benchfarm:report name=x__-___b_y -->\n",
	                         41),
	                 0);
	assert_int_equal(strstr(text, "-->") - text, 38);
	free(text);
	/* the default name */
	text = bf_report_markdown_named(d, NULL, NULL);
	assert_int_equal(
	        strncmp(text, "<!-- benchfarm:report name=benchfarm -->\n", 41),
	        0);
	free(text);
	json_decref(d);
}

static void test_markdown__regressions_and_improvements_are_open(void **state)
{
	char *text = render_fx("compare-regressed");
	const char *reg, *det, *row, *imp;

	(void)state;
	assert_non_null(
	        strstr(text, "## benchfarm: 1 regression, 1 improvement\n"));
	reg = strstr(text, "### Regressions\n");
	det = strstr(text, "<details>");
	row = strstr(text, "| BM\\_sort/1024 |");
	imp = strstr(text, "| BM\\_hash |");
	assert_non_null(reg);
	assert_non_null(det);
	assert_non_null(row);
	assert_non_null(imp);
	assert_true(reg < row && row < det); /* the regression is not folded */
	/* nor is the improvement: its own section, after the regressions */
	assert_non_null(strstr(text, "### Improvements\n"));
	assert_true(row < strstr(text, "### Improvements\n"));
	assert_true(strstr(text, "### Improvements\n") < imp && imp < det);
	assert_non_null(strstr(row, "+12.3% [+8.0%, +17.0%] | 0.002 | "
	                            "**regressed** |\n"));
	assert_null(strstr(text, "### Infrastructure"));
	assert_non_null(strstr(text, "2 other results (1 same, 1 unknown)"));
	free(text);
}

/*
 * A regressed series of a metric that does not gate ("gated": false) is
 * no regression: the heading leaves it out, and it is shown with the
 * other results as "regressed (not gated)". A benchmark with too few
 * runs for a verdict is said, with the runs that would do.
 */
static void test_markdown__ungated_and_underpowered(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-regressed");
	json_t *res = json_object_get(d, "results"), *r;
	const char *row, *det;
	char *text;
	size_t i;

	(void)state;
	json_array_foreach(res, i, r)
	{
		if (!strcmp(json_string_value(json_object_get(r, "name")),
		            "BM_sort/1024"))
			json_object_set_new(r, "gated", json_false());
	}
	json_object_set_new(d, "underpowered",
	                    json_pack("[{s:s, s:i, s:i, s:f, s:f, s:i}]",
	                              "benchmark", "micro_*", "runs", 5,
	                              "family", 2, "least_p", 4.0 / 252,
	                              "alpha", 0.01, "min_runs", 6));
	text = render(d, &o);
	assert_non_null(strstr(text, "## benchfarm: no regressions"));
	assert_null(strstr(text, "### Regressions\n"));
	det = strstr(text, "<details>");
	row = strstr(text, "| BM\\_sort/1024 |");
	assert_non_null(det);
	assert_non_null(row);
	assert_true(det < row);
	assert_non_null(strstr(row, "| regressed (not gated) |\n"));
	assert_non_null(strstr(text, "3 other results (1 same, 1 unknown, 1 "
	                             "changed in a metric that does not "
	                             "gate)"));
	assert_non_null(strstr(
	        text, "**Too few runs for a verdict on micro\\_\\***: with 5 "
	              "runs a side, no change in one of its gating series "
	              "can reach p < 0.01 after correction (the least it "
	              "can have is 0.0159): use at least 6 runs a side "
	              "(`runs.repeats`), or gate fewer of its 2 series.\n"));
	free(text);
	json_decref(d);
}

static void test_markdown__clean_says_no_regressions(void **state)
{
	char *text = render_fx("compare-clean");

	(void)state;
	assert_non_null(strstr(text, "## benchfarm: no regressions"));
	assert_null(strstr(text, "### Regressions"));
	assert_null(strstr(text, "### Infrastructure"));
	free(text);
}

/*
 * The header's runs per side stay true when benchmarks have counts of
 * their own (settings.benchmarks): the count most have (the runs' on a
 * tie), then the others by benchmark, names escaped; in duet mode as
 * rounds. One count for all is said alone, even if not the runs'.
 */
/*
 * Duet: the sides that were not isolated are said to be, with the
 * agent's reason escaped; fully isolated ones are not mentioned; rounds
 * left out as stopped are counted.
 */
static void test_markdown__duet_isolation(void **state)
{
	json_t *d = report_fixture("compare-clean");
	json_t *set = json_object_get(d, "settings");
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	char *text;

	(void)state;
	json_object_set_new(set, "run_mode", json_string("duet"));
	json_object_set_new(set, "duet_isolation",
	                    json_pack("{s:s, s:i, s:i, s:i, s:b, s:s, s:i}",
	                              "mode", "best_effort", "rounds", 6,
	                              "processes_isolated", 0, "cores_isolated",
	                              0, "isolated", 0, "not_isolated",
	                              "processes: <b>no</b>\n::error::x",
	                              "stopped_rounds", 2));
	text = render(d, &o);
	assert_non_null(strstr(text, "**Duet: the sides were not isolated**: "
	                             "the patch's benchmark could see and "
	                             "stop the base's process ("));
	assert_null(strstr(text, "<b>"));
	assert_null(strstr(text, "\n::error::"));
	assert_non_null(strstr(text, "**Duet: 2 rounds left out: a side was "
	                             "stopped while it ran**"));
	free(text);
	json_object_set_new(set, "duet_isolation",
	                    json_pack("{s:s, s:i, s:i, s:i, s:b, s:s, s:i}",
	                              "mode", "best_effort", "rounds", 6,
	                              "processes_isolated", 6, "cores_isolated",
	                              0, "isolated", 0, "not_isolated",
	                              "cores: no cpuset", "stopped_rounds", 0));
	text = render(d, &o);
	assert_non_null(strstr(text, "**Duet: the sides were not fully "
	                             "isolated**: each had its own PID "
	                             "namespace, but "));
	assert_null(strstr(text, "left out"));
	free(text);
	json_object_set_new(set, "duet_isolation",
	                    json_pack("{s:s, s:i, s:i, s:i, s:b, s:n, s:i}",
	                              "mode", "best_effort", "rounds", 6,
	                              "processes_isolated", 6, "cores_isolated",
	                              6, "isolated", 1, "not_isolated",
	                              "stopped_rounds", 0));
	text = render(d, &o);
	assert_null(strstr(text, "Duet: the sides"));
	free(text);
	json_decref(d);
}

static void test_markdown__runs_per_side_by_benchmark(void **state)
{
	json_t *d = report_fixture("compare-clean");
	json_t *set = json_object_get(d, "settings");
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	char *text;

	(void)state;
	json_object_set_new(set, "benchmarks",
	                    json_pack("[{s:s, s:i}, {s:s, s:i}, {s:s, s:i}]",
	                              "benchmark", "a", "repeats", 6,
	                              "benchmark", "lo*op", "repeats", 3,
	                              "benchmark", "c", "repeats", 5));
	text = render(d, &o);
	assert_non_null(strstr(text, ", 6 runs per side (3 for lo\\*op, 5 "
	                             "for c) interleaved on "));
	free(text);
	json_object_set_new(set, "run_mode", json_string("duet"));
	text = render(d, &o);
	assert_non_null(strstr(text, ", duet mode: 6 rounds (3 for lo\\*op, "
	                             "5 for c) of base and patch at the same "
	                             "time on two cores"));
	free(text);
	json_object_del(set, "run_mode");
	/* a tie: the runs' count; one count: alone */
	json_object_set_new(set, "benchmarks",
	                    json_pack("[{s:s, s:i}, {s:s, s:i}]", "benchmark",
	                              "a", "repeats", 3, "benchmark", "b",
	                              "repeats", 6));
	text = render(d, &o);
	assert_non_null(
	        strstr(text, ", 6 runs per side (3 for a) interleaved"));
	free(text);
	json_object_set_new(set, "benchmarks",
	                    json_pack("[{s:s, s:i}, {s:s, s:i}]", "benchmark",
	                              "a", "repeats", 3, "benchmark", "b",
	                              "repeats", 3));
	text = render(d, &o);
	assert_non_null(strstr(text, ", 3 runs per side interleaved on "));
	free(text);
	json_decref(d);
}

static void test_markdown__infra_never_reads_as_no_regressions(void **state)
{
	char *text = render_fx("compare-infra");
	const char *infra, *det;

	(void)state;
	assert_false(contains_ci(text, "no regression"));
	assert_non_null(strstr(text, "## benchfarm: incomplete, "
	                             "infrastructure failures;"));
	infra = strstr(text, "### Infrastructure failures\n");
	det = strstr(text, "<details>");
	assert_non_null(infra);
	assert_true(infra < det);
	/* the failure and the unmeasured benchmark are in that section */
	assert_non_null(strstr(infra, "connection to 'pixel-7' lost"));
	assert_true(strstr(infra, "**not measured**") < det);
	free(text);
}

/* The same rule from a hand-made document: one error, nothing else. */
static void test_markdown__error_only_document(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack("{s:s, s:s, s:[], s:[{s:s, s:s, s:i, s:s, s:s}]}",
	                      "kind", "compare", "status", "ok", "results",
	                      "errors", "benchmark", "m", "side", "base",
	                      "repeat", 0, "code", "build", "message",
	                      "make: *** [all] Error 2");
	char *text = render(d, &o);

	(void)state;
	assert_false(contains_ci(text, "no regression"));
	assert_non_null(strstr(text,
	                       "- m (base, run 1, build): make: \\*\\*\\* "
	                       "\\[all\\] Error 2\n"));
	free(text);
	json_decref(d);
}

/* Unescaped '|' in a line: a table row must keep its 8 cell borders. */
static int pipes(const char *line, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
			n++;
	return n;
}

static void test_markdown__hostile_names_stay_in_their_cells(void **state)
{
	char *text = render_fx("compare-hostile");
	const char *p = text;

	(void)state;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (*p == '|') /* several suites: a suite column */
			assert_int_equal(pipes(p, len), 9);
		p += len + (nl != NULL);
	}
	assert_null(strstr(text, "<script"));
	assert_null(strstr(text, "</details><script"));
	/* the link syntax is escaped and the URL broken, so it is text */
	assert_non_null(strstr(text, "\\[x\\](http:\xe2\x80\x8b//evil)"));
	assert_null(strstr(text, "http://evil"));
	assert_null(strstr(text, "\n::error::"));
	/* HTML comments from a name cannot hide the rest of the comment */
	assert_null(strstr(text + 4, "<!--"));
	free(text);
}

/*
 * Two suites with a benchmark of the same name: each row names its
 * suite, so the two rows differ; one suite: no suite column.
 */
static void test_markdown__same_name_in_two_suites(void **state)
{
	json_t *d = report_fixture("compare-regressed"), *results, *twin;
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	char *text, *one;

	(void)state;
	one = render(d, &o);
	assert_non_null(strstr(one, "| benchmark | metric | base |"));
	assert_null(strstr(one, "| suite |"));
	results = json_object_get(d, "results");
	twin = json_deep_copy(json_array_get(results, 1)); /* BM_sort/1024 */
	json_object_set_new(twin, "benchmark", json_string("macro"));
	json_array_append_new(results, twin);
	text = render(d, &o);
	assert_non_null(strstr(text, "| suite | benchmark | metric | base |"
	                             " patch | change [95% CI] | p (adj.) |"
	                             " verdict |\n|---|---|---|---:|"));
	assert_non_null(
	        strstr(text, "| micro | BM\\_sort/1024 | real\\_time |"));
	assert_non_null(
	        strstr(text, "| macro | BM\\_sort/1024 | real\\_time |"));
	free(one);
	free(text);
	json_decref(d);
}

/*
 * '@' is followed by a zero-width space (U+200B), so a name mentions
 * nobody; so is the ':' of "://" and the "www" of "www.", so no URL in
 * a name is autolinked.
 * Everything else about the name is kept.
 */
static void test_markdown__no_mentions_no_autolinks(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s}]}", "kind",
	                      "compare", "results", "name",
	                      "cc @octocat and @org/team: see "
	                      "https://evil.example/x, HTTP://a ftp://b "
	                      "www.evil.com WWW.x.org",
	                      "metric", "t", "unit", "ns", "verdict", "same");
	char *text = render(d, &o);

	(void)state;
	assert_non_null(strstr(text, "| cc @\xe2\x80\x8boctocat and "
	                             "@\xe2\x80\x8borg/team: see "
	                             "https:\xe2\x80\x8b//evil.example/x, "
	                             "HTTP:\xe2\x80\x8b//a ftp:\xe2\x80\x8b//b "
	                             "www\xe2\x80\x8b.evil.com "
	                             "WWW\xe2\x80\x8b.x.org | t |"));
	assert_null(strstr(text, "@o"));
	assert_null(strstr(text, "www."));
	assert_null(strstr(text, "://"));
	assert_null(strstr(text, "&#64;"));
	free(text);
	json_decref(d);
}

static void test_markdown__long_names_are_cut_at_a_character(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	char name[400];
	json_t *d;
	char *text, *cell;

	(void)state;
	memset(name, 'x', 159);
	snprintf(name + 159, sizeof(name) - 159, "%s",
	         "\xc3\xa9yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
	d = json_pack("{s:s, s:[{s:s, s:s, s:s, s:s}]}", "kind", "compare",
	              "results", "name", name, "metric", "t", "unit", "ns",
	              "verdict", "same");
	text = render(d, &o);
	cell = strstr(text, "| xxx");
	assert_non_null(cell);
	/* 159 x, then the cut: never half of the two-byte é */
	assert_int_equal(strspn(cell + 2, "x"), 159);
	assert_int_equal(strncmp(cell + 2 + 159, "… |", 5), 0);
	assert_null(strstr(text, "yyyy"));
	free(text);
	json_decref(d);
}

static void test_markdown__link_only_when_http(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = report_fixture("compare-clean");
	char *text;

	(void)state;
	o.link = "https://ci.example.com/r/7?a=1 b";
	text = render(d, &o);
	assert_non_null(strstr(
	        text,
	        "[Full results](<https://ci.example.com/r/7?a=1%20b>)\n"));
	free(text);
	o.link = "javascript:alert(1)";
	text = render(d, &o);
	assert_null(strstr(text, "Full results"));
	assert_null(strstr(text, "javascript"));
	free(text);
	json_decref(d);
}

static void test_markdown__detect_alerts_and_suppressions(void **state)
{
	json_t *d = report_fixture("detect");
	json_t *supp = json_pack("[{s:s, s:s}]", "commit",
	                         "abcdef0123456789abcdef0123456789abcdef01",
	                         "reason", "suite-wide spike");
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	char *text;

	(void)state;
	json_object_set_new(d, "suppressed", supp);
	text = render(d, &o);
	/* two alerts, one ignored: one new */
	assert_non_null(strstr(text,
	                       "## benchfarm: 1 new alert over 38 measured "
	                       "commits\n"));
	assert_non_null(strstr(text,
	                       "| micro / alpha | value | `b2854137dc88`.."
	                       "`24d4f7149a14` | +14.4% | regressed | "
	                       "-77.3 | new |\n"));
	assert_non_null(strstr(text, "| micro / beta | value | "));
	assert_non_null(strstr(text, " | ignored |\n"));
	assert_non_null(strstr(text, "Suppressed, not regressions:\n\n- "
	                             "`abcdef012345`: suite-wide spike\n"));
	free(text);
	json_decref(d);
}

/* Missing fields render as unknown; nothing crashes. */
static void test_markdown__empty_document(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = json_pack("{s:s, s:[]}", "kind", "compare", "results");
	char *text = render(d, &o);

	(void)state;
	assert_non_null(strstr(text, "base ? → patch ?"));
	assert_non_null(strstr(text, "on no device"));
	free(text);
	json_decref(d);
}

/*
 * A compare result without a results array is refused, as every other
 * reporter refuses it; an empty one reads as nothing compared, never as
 * "no regressions".
 */
static void test_markdown__results_missing_or_empty(void **state)
{
	json_t *bad[] = {
		json_pack("{s:s}", "kind", "compare"),
		json_pack("{s:s, s:s}", "kind", "compare", "results", "x"),
		json_pack("{s:s, s:{}}", "kind", "compare", "results"),
	};
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d;
	char *text;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		struct bf_err err = BF_ERR_INIT;
		struct bf_report *r = NULL;
		struct host_mock m;

		assert_int_equal(bf_report_render(&r, &bf_plugin_markdown,
		                                  bad[i], &o,
		                                  host_mock_init(&m), &err),
		                 BF_EINVAL);
		assert_non_null(strstr(err.msg, "no \"results\" array"));
		assert_null(r);
		host_mock_release(&m);
		json_decref(bad[i]);
	}
	d = report_fixture("compare-empty");
	text = render(d, &o);
	assert_false(contains_ci(text, "no regression"));
	assert_non_null(strstr(text, "## benchfarm: nothing was compared\n"));
	free(text);
	/* and with infrastructure failures */
	json_object_set_new(d, "status", json_string("infra_failure"));
	text = render(d, &o);
	assert_false(contains_ci(text, "no regression"));
	assert_non_null(strstr(text, "## benchfarm: incomplete, "
	                             "infrastructure failures; nothing was "
	                             "compared\n"));
	free(text);
	json_decref(d);
}

/* A series one side does not report is said, first, as failing. */
static void test_markdown__missing_series_are_said(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	char *md = render_fx("compare-missing");
	json_t *d;

	(void)state;
	assert_non_null(strstr(md, "## benchfarm: 2 series missing on one "
	                           "side\n"));
	assert_non_null(strstr(md, "### Missing on one side (fails like a "
	                           "regression)"));
	assert_non_null(strstr(md, "**missing on the patch side**: the base "
	                           "reports this series"));
	assert_non_null(strstr(md, "**missing on the base side**"));
	assert_null(strstr(md, "o regressions"));
	free(md);
	/* ignored: said after the verdict, and not as failing */
	d = report_fixture("compare-missing");
	json_object_set_new(json_object_get(d, "settings"), "missing_series",
	                    json_string("ignore"));
	md = render(d, &o);
	assert_non_null(strstr(md, "## benchfarm: no regressions, 2 series "
	                           "missing on one side\n"));
	assert_non_null(strstr(md, "### Missing on one side "
	                           "(presubmit.missing_series: ignore)"));
	free(md);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markdown__marker_is_the_first_line),
		cmocka_unit_test(
		        test_markdown__regressions_and_improvements_are_open),
		cmocka_unit_test(test_markdown__ungated_and_underpowered),
		cmocka_unit_test(test_markdown__clean_says_no_regressions),
		cmocka_unit_test(test_markdown__missing_series_are_said),
		cmocka_unit_test(test_markdown__runs_per_side_by_benchmark),
		cmocka_unit_test(test_markdown__duet_isolation),
		cmocka_unit_test(
		        test_markdown__infra_never_reads_as_no_regressions),
		cmocka_unit_test(test_markdown__error_only_document),
		cmocka_unit_test(
		        test_markdown__hostile_names_stay_in_their_cells),
		cmocka_unit_test(test_markdown__no_mentions_no_autolinks),
		cmocka_unit_test(test_markdown__same_name_in_two_suites),
		cmocka_unit_test(
		        test_markdown__long_names_are_cut_at_a_character),
		cmocka_unit_test(test_markdown__link_only_when_http),
		cmocka_unit_test(test_markdown__detect_alerts_and_suppressions),
		cmocka_unit_test(test_markdown__empty_document),
		cmocka_unit_test(test_markdown__results_missing_or_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
