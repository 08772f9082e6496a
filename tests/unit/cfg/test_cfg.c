#include "config/cfg.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "unit/cfg/expect.h"

/*
 * The config loader: its defaults, the file and its YAML document,
 * the example configs and the bad cases of tests/data/config.
 */

/* Tests run from the repository root. */
#define CONFIGS_DIR "configs"
#define CASES_DIR   "tests/data/config"

static void test_cfg__defaults(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, HEAD);
	assert_int_equal(cfg.version, 1);
	assert_string_equal(cfg.path, "t.yaml");
	assert_string_equal(cfg.project.repo, ".");
	assert_string_equal(cfg.project.target_branch, "main");
	assert_int_equal(cfg.project.build.argc, 0);
	assert_int_equal(cfg.project.artifacts.argc, 0);
	assert_int_equal(cfg.project.build_timeout_s, 600);
	assert_int_equal(cfg.nbenchmarks, 1);
	assert_string_equal(cfg.benchmarks[0].name, "micro");
	assert_int_equal(cfg.benchmarks[0].command.argc, 1);
	assert_string_equal(cfg.benchmarks[0].command.argv[0], "./micro");
	assert_null(cfg.benchmarks[0].command.argv[1]);
	assert_null(cfg.benchmarks[0].workdir);
	assert_int_equal(cfg.benchmarks[0].format, BF_FORMAT_GBENCH);
	assert_int_equal(cfg.benchmarks[0].timeout_s, 300);
	assert_int_equal(cfg.benchmarks[0].nmetrics, 0);
	assert_int_equal(cfg.benchmarks[0].line, 5);
	assert_string_equal(cfg.devices.pool, "local");
	assert_int_equal(cfg.runs.repeats, 10);
	assert_int_equal(cfg.runs.warmup, 1);
	assert_true(cfg.runs.interleave);
	assert_int_equal(cfg.runs.seed, 0);
	assert_int_equal(cfg.runs.retries, 2);
	assert_int_equal(cfg.checks.battery_min, 25);
	assert_false(cfg.checks.require_charging);
	assert_true(cfg.checks.require_all_cores);
	assert_false(cfg.checks.require_locked_clocks);
	assert_true(cfg.checks.thermal_max == 70.0);
	assert_true(cfg.checks.throttle_tolerance == 0.10);
	assert_true(cfg.checks.load_max == 1.0);
	assert_int_equal(cfg.checks.suppress.argc, 0);
	assert_int_equal(cfg.checks.wait_max_s, 0);
	assert_int_equal(cfg.checks.load_wait_s, 30);
	assert_true(cfg.presubmit.alpha == 0.01);
	assert_true(cfg.presubmit.min_effect == 0.01);
	assert_int_equal(cfg.presubmit.fail_on, BF_FAIL_ON_REGRESSION);
	assert_string_equal(cfg.postsubmit.detector.name, "pooled");
	assert_int_equal(cfg.postsubmit.detector.width, 8);
	assert_true(cfg.postsubmit.detector.threshold == 4.0);
	assert_true(cfg.postsubmit.detector.min_change == 0.02);
	assert_int_equal(cfg.report.argc, 1);
	assert_string_equal(cfg.report.argv[0], "markdown");
	bf_cfg_release(&cfg);
}

static void test_cfg__tab_indentation_is_an_error(void **state)
{
	(void)state;
	expect_error("version: 1\nproject:\n\trepo: .\n",
	             "t.yaml:3:1: ", "tab character used for indentation");
	expect_error(HEAD "runs:\n  \trepeats: 5\n",
	             "t.yaml:8:3: ", "tab character used for indentation");
}

/*
 * Deep nesting is refused where it goes too deep, before libyaml builds
 * the document (262,000 levels took 103 s of CPU); 64 levels (the
 * config's own mapping and 63 inside it) load.
 */
static void test_cfg__deep_nesting_is_an_error(void **state)
{
	size_t n = 262000, len = strlen(HEAD "x: ");
	char *text = bf_xmalloc(len + n + 2);
	char *ok = bf_xasprintf(HEAD "x: %.*s%.*s\n", 63,
	                        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	                        "[[[[[[[[[[[[[[[[[[[",
	                        63,
	                        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
	                        "]]]]]]]]]]]]]]]]]]]");
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	memcpy(text, HEAD "x: ", len);
	memset(text + len, '[', n);
	text[len + n] = '\n';
	text[len + n + 1] = '\0';
	expect_error(text, "t.yaml:7:67: ", "nested more than 64 levels deep");
	/* 64 levels pass the depth check: 'x' is what is wrong */
	assert_int_equal(load(&cfg, ok, &err), BF_EINVAL);
	assert_null(strstr(err.msg, "nested"));
	assert_non_null(strstr(err.msg, "'x'"));
	expect_error(
	        HEAD
	        "runs:\n"
	        "  a:\n"
	        "    - - - - - - - - - - - - - - - - - - - - - - - - - - - - "
	        "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - "
	        "- - - - - - 1\n",
	        "t.yaml:9:", "nested more than 64 levels deep");
	free(ok);
	free(text);
}

static void test_cfg__duplicate_key_is_an_error(void **state)
{
	(void)state;
	expect_error(HEAD "runs:\n  repeats: 5\n  repeats: 6\n", "t.yaml:9:3: ",
	             "duplicate key 'repeats' in 'runs' (first at line 8)");
	expect_error(
	        HEAD "version: 1\n", "t.yaml:7:1: ",
	        "duplicate key 'version' in 'the config' (first at line 1)");
}

static void test_cfg__empty_benchmark_list(void **state)
{
	(void)state;
	expect_error("version: 1\nproject: {repo: .}\nbenchmarks: []\n",
	             "t.yaml:3:13: ",
	             "'benchmarks' must list at least one benchmark");
	expect_error("version: 1\nproject: {repo: .}\nbenchmarks:\n",
	             "t.yaml:3:12: ", "'benchmarks' must be a list");
	expect_error("version: 1\nproject: {repo: .}\n",
	             "t.yaml:1:1: ", "missing required key 'benchmarks'");
}

static void test_cfg__version_must_be_1(void **state)
{
	(void)state;
	expect_error(
	        "version: 2\nproject: {repo: .}\n", "t.yaml:1:10: ",
	        "unsupported config version '2' (this benchfarm reads version 1)");
	expect_error("version: \"1\"\n",
	             "t.yaml:1:10: ", "unsupported config version");
	expect_error("project: {repo: .}\n",
	             "t.yaml:1:1: ", "missing required key 'version'");
	/* The version is judged before any key a newer version may add. */
	expect_error("newkey: 1\nversion: 2\n",
	             "t.yaml:2:10: ", "unsupported config version '2'");
}

static void test_cfg__relative_paths_stay_as_written(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg,
	        "version: 1\nproject:\n  repo: ../../repo\n"
	        "  artifacts: [out/bin]\nbenchmarks:\n"
	        "  - name: a\n    command: [./a]\n    workdir: sub/dir\n");
	assert_string_equal(cfg.project.repo, "../../repo");
	assert_string_equal(cfg.project.artifacts.argv[0], "out/bin");
	assert_string_equal(cfg.benchmarks[0].workdir, "sub/dir");
	bf_cfg_release(&cfg);
}

static void test_cfg__yaml_syntax_errors_have_positions(void **state)
{
	(void)state;
	expect_error(
	        HEAD "report: [markdown\nruns: {}\n", "t.yaml:8:5: ",
	        "did not find expected ',' or ']' (while parsing a flow sequence that started at 7:9)");
	expect_error("version: 1\n  project: x\n",
	             "t.yaml:2:10: ", "mapping values are not allowed");
	expect_error(HEAD "runs: {repeats: \xff}\n", "t.yaml:7:17: ",
	             "invalid leading UTF-8 octet (byte 0xff)");
	expect_error(HEAD "runs: *nothing\n",
	             "t.yaml:7:7: ", "found undefined alias");
}

static void test_cfg__document_shape_errors(void **state)
{
	(void)state;
	expect_error("", "t.yaml:1:1: ", "config is empty");
	expect_error("# only a comment\n", "t.yaml:1:1: ", "config is empty");
	expect_error("- version: 1\n",
	             "t.yaml:1:1: ", "the config must be a mapping");
	expect_error(HEAD "---\nversion: 1\n",
	             "t.yaml:7:1: ", "found a second one");
	expect_error(HEAD "runs: 3\n", "t.yaml:7:7: ",
	             "'runs' must be a mapping of keys, not '3'");
	expect_error(HEAD "? [a]\n: 1\n", "t.yaml:7:3: ",
	             "keys in 'the config' must be non-empty strings");
}

static void test_cfg__anchors_and_aliases_are_followed(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, "version: 1\nproject:\n  repo: .\n  build: &cmd [make]\n"
	              "benchmarks:\n  - {name: a, command: *cmd}\n");
	assert_string_equal(cfg.benchmarks[0].command.argv[0], "make");
	bf_cfg_release(&cfg);
}

static void test_cfg__long_values_are_cut_in_messages(void **state)
{
	char text[1024];
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;
	size_t n = (size_t)snprintf(text, sizeof(text), HEAD "runs:\n  seed: ");

	(void)state;
	/* 200 copies of 'é' (2 bytes each), cut between characters. */
	for (size_t i = 0; i < 200; i++) {
		text[n++] = '\xc3';
		text[n++] = '\xa9';
	}
	text[n] = '\0';
	assert_int_equal(load(&cfg, text, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "\xc3\xa9...'"));
	assert_true(strlen(err.msg) < BF_ERR_SIZE - 1);
}

static void test_cfg__load_reads_files_and_reports_missing(void **state)
{
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_cfg_load(&cfg, CASES_DIR "/no-such.yaml", &err),
	                 BF_ENOTFOUND);
	assert_null(cfg.path);
	assert_int_equal(bf_cfg_load(&cfg, CONFIGS_DIR "/minimal.yaml", &err),
	                 0);
	assert_string_equal(cfg.path, CONFIGS_DIR "/minimal.yaml");
	bf_cfg_release(&cfg);
	bf_cfg_release(&cfg);
	bf_cfg_release(NULL);
}

static void test_cfg__enum_names(void **state)
{
	enum bf_format f;

	(void)state;
	assert_int_equal(bf_format_parse(&f, "lines"), 0);
	assert_int_equal(f, BF_FORMAT_LINES);
	assert_string_equal(bf_format_name(BF_FORMAT_NATIVE), "native");
	assert_int_equal(bf_format_parse(&f, "csv"), BF_EINVAL);
	assert_null(bf_format_name((enum bf_format)99));
	assert_string_equal(bf_better_name(BF_BETTER_HIGHER), "higher");
	assert_string_equal(bf_fail_on_name(BF_FAIL_ON_NEVER), "never");
	assert_null(bf_fail_on_name((enum bf_fail_on)2));
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls > lx && !strcmp(s + ls - lx, suffix);
}

/* Calls check(DIR/NAME) for each NAME.yaml in dir; returns how many. */
static int each_yaml(const char *dir, void (*check)(const char *path))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!has_suffix(de->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		check(path);
		n++;
	}
	closedir(d);
	return n;
}

static void check_example(const char *path)
{
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;

	if (bf_cfg_load(&cfg, path, &err)) {
		print_error("%s\n", err.msg);
		fail();
	}
	bf_cfg_release(&cfg);
}

static void test_cfg__every_example_config_loads(void **state)
{
	(void)state;
	assert_true(each_yaml(CONFIGS_DIR, check_example) >= 3);
}

/* Each CASES_DIR/X.yaml fails with an error containing X.expect's line. */
static void check_case(const char *yaml_path)
{
	char expect_path[512];
	struct bf_buf expect = BF_BUF_INIT;
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;

	snprintf(expect_path, sizeof(expect_path), "%.*s.expect",
	         (int)(strlen(yaml_path) - 5), yaml_path);
	if (bf_buf_read_file(&expect, expect_path, &err)) {
		print_error("%s\n", err.msg);
		fail();
	}
	bf_buf_rtrim(&expect);
	assert_true(expect.len > 0);
	if (bf_cfg_load(&cfg, yaml_path, &err) != BF_EINVAL ||
	    !strstr(err.msg, expect.buf)) {
		print_error("%s: got '%s'\nwant '%s'\n", yaml_path, err.msg,
		            expect.buf);
		fail();
	}
	bf_buf_release(&expect);
}

/* The loader goes on past an error: one run names every one, in order. */
static void test_cfg__every_error_is_reported(void **state)
{
	static const char *const want[] = {
		":5:3: unknown key 'target_brnch' in 'project'",
		":9:13: unknown format 'gbenchh' for 'benchmarks[0].format'",
		":10:14: 'benchmarks[0].timeout' must be between 1 and 604800",
		":12:14: 'benchmarks[1].command' must be a list of strings",
		":14:12: 'runs.repeats' must be between 2 and 10000, not 1",
		":15:11: 'runs.warmup' must be between 0 and 1000, not -1",
		":17:10: 'presubmit.alpha' must be greater than 0 and less than 1",
	};
	struct bf_argv all = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_cfg cfg;

	(void)state;
	assert_int_equal(bf_cfg_load_all(&cfg, CASES_DIR "/many-errors.yaml",
	                                 &all, &err),
	                 BF_EINVAL);
	assert_int_equal(all.argc, BF_ARRAY_SIZE(want));
	for (size_t i = 0; i < BF_ARRAY_SIZE(want); i++) {
		if (!strstr(all.argv[i], want[i]) ||
		    strncmp(all.argv[i], CASES_DIR "/many-errors.yaml:",
		            strlen(CASES_DIR "/many-errors.yaml:"))) {
			print_error("error %zu: got '%s'\nwant '%s'\n", i,
			            all.argv[i], want[i]);
			fail();
		}
	}
	/* err keeps the first, as bf_cfg_load gives it */
	assert_string_equal(err.msg, all.argv[0]);
	bf_argv_release(&all);
	/* a YAML syntax error stops the parse: it is the only one */
	assert_int_equal(
	        bf_cfg_load_all(&cfg, CASES_DIR "/tab-indent.yaml", &all, &err),
	        BF_EINVAL);
	assert_int_equal(all.argc, 1);
	assert_string_equal(all.argv[0], err.msg);
	bf_argv_release(&all);
	/* a missing file too */
	assert_int_equal(
	        bf_cfg_load_all(&cfg, CASES_DIR "/no-such.yaml", &all, &err),
	        BF_ENOTFOUND);
	assert_int_equal(all.argc, 1);
	bf_argv_release(&all);
}

static void test_cfg__every_bad_case_fails_as_expected(void **state)
{
	(void)state;
	assert_true(each_yaml(CASES_DIR, check_case) >= 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg__defaults),
		cmocka_unit_test(test_cfg__tab_indentation_is_an_error),
		cmocka_unit_test(test_cfg__deep_nesting_is_an_error),
		cmocka_unit_test(test_cfg__duplicate_key_is_an_error),
		cmocka_unit_test(test_cfg__empty_benchmark_list),
		cmocka_unit_test(test_cfg__version_must_be_1),
		cmocka_unit_test(test_cfg__every_error_is_reported),
		cmocka_unit_test(test_cfg__relative_paths_stay_as_written),
		cmocka_unit_test(test_cfg__yaml_syntax_errors_have_positions),
		cmocka_unit_test(test_cfg__document_shape_errors),
		cmocka_unit_test(test_cfg__anchors_and_aliases_are_followed),
		cmocka_unit_test(test_cfg__long_values_are_cut_in_messages),
		cmocka_unit_test(
		        test_cfg__load_reads_files_and_reports_missing),
		cmocka_unit_test(test_cfg__enum_names),
		cmocka_unit_test(test_cfg__every_example_config_loads),
		cmocka_unit_test(test_cfg__every_bad_case_fails_as_expected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
