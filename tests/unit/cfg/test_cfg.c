#include "config/cfg.h"

#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "config/cfg_int.h"

/* Tests run from the repository root. */
#define CONFIGS_DIR "configs"
#define CASES_DIR   "tests/data/config"

/* A valid head: sections appended to it start at line 7. */
#define HEAD                \
	"version: 1\n"      \
	"project:\n"        \
	"  repo: .\n"       \
	"benchmarks:\n"     \
	"  - name: micro\n" \
	"    command: [./micro]\n"

static int load(struct bf_cfg *cfg, const char *text, struct bf_err *err)
{
	return bf_cfg_load_string(cfg, "t.yaml", text, strlen(text), err);
}

static void load_ok(struct bf_cfg *cfg, const char *text)
{
	struct bf_err err = BF_ERR_INIT;

	if (load(cfg, text, &err)) {
		print_error("unexpected error: %s\nfor:\n%s\n", err.msg, text);
		fail();
	}
}

/*
 * text must fail with BF_EINVAL, a message starting "t.yaml:LINE:COL: "
 * (where) and containing what; cfg must come back released.
 */
static void expect_error(const char *text, const char *where, const char *what)
{
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;
	int ret = load(&cfg, text, &err);

	if (ret != BF_EINVAL || err.code != BF_EINVAL ||
	    strncmp(err.msg, where, strlen(where)) || !strstr(err.msg, what)) {
		print_error("for:\n%s\ngot %d '%s'\nwant '%s' ... '%s'\n", text,
		            ret, err.msg, where, what);
		fail();
	}
	assert_null(cfg.path);
	assert_null(cfg.benchmarks);
	assert_null(cfg.report.argv);
	assert_int_equal(cfg.nbenchmarks, 0);
}

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
	assert_true(cfg.presubmit.alpha == 0.05);
	assert_true(cfg.presubmit.min_effect == 0.02);
	assert_int_equal(cfg.presubmit.fail_on, BF_FAIL_ON_REGRESSION);
	assert_string_equal(cfg.postsubmit.detector.name, "jetpack");
	assert_int_equal(cfg.postsubmit.detector.width, 5);
	assert_true(cfg.postsubmit.detector.threshold == 25.0);
	assert_int_equal(cfg.report.argc, 1);
	assert_string_equal(cfg.report.argv[0], "markdown");
	bf_cfg_release(&cfg);
}

static const char full_yaml[] =
        "version: 1\n"
        "project:\n"
        "  repo: ../app\n"
        "  target_branch: develop\n"
        "  build: [make, -C, bench, \"-j 4\"]\n"
        "  artifacts: [bench/out/micro, bench/out/data.bin]\n"
        "  build_timeout: 1200\n"
        "benchmarks:\n"
        "  - name: micro\n"
        "    command: [bench/out/micro, --benchmark_format=json]\n"
        "    workdir: bench\n"
        "    env: {DATA: testdata, MODE: fast}\n"
        "    source: bench/parse_bench.cc:42\n"
        "    format: jetpack\n"
        "    timeout: 120\n"
        "    metrics:\n"
        "      real_time: {better: lower}\n"
        "      items_per_second: {better: higher, detector: {name: skia, "
        "width: 4}}\n"
        "  - name: startup\n"
        "    command: [hyperfine, --export-json, '-', ./app]\n"
        "    format: hyperfine\n"
        "    detector: edivisive\n"
        "devices:\n"
        "  pool: pixel-7\n"
        "runs:\n"
        "  repeats: 30\n"
        "  warmup: 3\n"
        "  interleave: false\n"
        "  seed: 12345\n"
        "  retries: 5\n"
        "checks:\n"
        "  battery_min: 50\n"
        "  require_charging: true\n"
        "  require_all_cores: false\n"
        "  require_locked_clocks: true\n"
        "  thermal_max: 45.5\n"
        "  throttle_tolerance: 0.2\n"
        "  load_max: 0.5\n"
        "  suppress: [boost, load]\n"
        "  wait_max: 600\n"
        "  load_wait: 5\n"
        "presubmit:\n"
        "  alpha: 0.01\n"
        "  min_effect: 0.05\n"
        "  fail_on: never\n"
        "postsubmit:\n"
        "  detector: {name: perfherder, width: 20, threshold: 5, min_change: 0.03}\n"
        "report: [json, junit, exec:slack]\n"
        "review:\n"
        "  check_name: perf\n"
        "  gerrit: {host: review.example.org, user: bot, "
        "label: Performance-Verified, vote_fail: -2}\n";

static const char full_json[] =
        "{\"version\": 1,"
        " \"project\": {\"repo\": \"../app\", \"target_branch\": \"develop\","
        "  \"build\": [\"make\", \"-C\", \"bench\", \"-j 4\"],"
        "  \"artifacts\": [\"bench/out/micro\", \"bench/out/data.bin\"],"
        "  \"build_timeout\": 1200},"
        " \"benchmarks\": ["
        "  {\"name\": \"micro\","
        "   \"command\": [\"bench/out/micro\", \"--benchmark_format=json\"],"
        "   \"workdir\": \"bench\", \"env\": [\"DATA=testdata\", \"MODE=fast\"],"
        "   \"source\": \"bench/parse_bench.cc:42\","
        " \"format\": \"jetpack\", \"output\": \"stdout\", \"timeout\": 120,"
        "   \"metrics\": {\"real_time\": {\"better\": \"lower\","
        "                               \"detector\": null},"
        "                 \"items_per_second\": {\"better\": \"higher\","
        "                   \"detector\": {\"name\": \"skia\", \"width\": 4,"
        "                    \"threshold\": 50.0, \"min_change\": 0.0,"
        "                    \"max_pvalue\": 0.0, \"variant\": \"original\","
        "                    \"stddev_threshold\": 0.001}}},"
        "   \"detector\": null},"
        "  {\"name\": \"startup\","
        "   \"command\": [\"hyperfine\", \"--export-json\", \"-\", \"./app\"],"
        "   \"workdir\": null, \"env\": [], \"source\": null,"
        " \"format\": \"hyperfine\", \"output\": \"stdout\", \"timeout\": 300,"
        "   \"metrics\": {},"
        "   \"detector\": {\"name\": \"edivisive\", \"width\": 50,"
        "    \"threshold\": 0.0, \"min_change\": 0.0, \"max_pvalue\": 0.001}}],"
        " \"devices\": {\"pool\": \"pixel-7\"},"
        " \"runs\": {\"repeats\": 30, \"warmup\": 3, \"interleave\": false,"
        "  \"seed\": 12345, \"retries\": 5, \"samples_max\": 100000},"
        " \"checks\": {\"battery_min\": 50, \"require_charging\": true,"
        "  \"require_all_cores\": false, \"require_locked_clocks\": true,"
        "  \"thermal_max\": 45.5, \"throttle_tolerance\": 0.2,"
        "  \"load_max\": 0.5, \"suppress\": [\"boost\", \"load\"],"
        "  \"wait_max\": 600, \"load_wait\": 5},"
        " \"presubmit\": {\"alpha\": 0.01, \"min_effect\": 0.05,"
        "  \"fail_on\": \"never\"},"
        " \"postsubmit\": {\"detector\": {\"name\": \"perfherder\","
        "  \"width\": 20, \"threshold\": 5.0, \"min_change\": 0.03,"
        "  \"max_pvalue\": 0.0}},"
        " \"report\": [\"json\", \"junit\", \"exec:slack\"],"
        " \"review\": {\"check_name\": \"perf\", \"link\": null,"
        "  \"gerrit\": {\"host\": \"review.example.org\", \"port\": 29418,"
        "   \"user\": \"bot\", \"key\": null,"
        "   \"label\": \"Performance-Verified\", \"vote_fail\": -2,"
        "   \"vote_pass\": 1, \"change\": null}}}";

static const char defaults_json[] =
        "{\"version\": 1,"
        " \"project\": {\"repo\": \".\", \"target_branch\": \"main\","
        "  \"build\": [], \"artifacts\": [], \"build_timeout\": 600},"
        " \"benchmarks\": [{\"name\": \"micro\", \"command\": [\"./micro\"],"
        "   \"workdir\": null, \"env\": [], \"source\": null,"
        " \"format\": \"gbench\", \"output\": \"stdout\", \"timeout\": 300,"
        "   \"metrics\": {}, \"detector\": null}],"
        " \"devices\": {\"pool\": \"local\"},"
        " \"runs\": {\"repeats\": 10, \"warmup\": 1, \"interleave\": true,"
        "  \"seed\": 0, \"retries\": 2, \"samples_max\": 100000},"
        " \"checks\": {\"battery_min\": 25, \"require_charging\": false,"
        "  \"require_all_cores\": true, \"require_locked_clocks\": false,"
        "  \"thermal_max\": 70.0, \"throttle_tolerance\": 0.1,"
        "  \"load_max\": 1.0, \"suppress\": [], \"wait_max\": 0,"
        "  \"load_wait\": 30},"
        " \"presubmit\": {\"alpha\": 0.05, \"min_effect\": 0.02,"
        "  \"fail_on\": \"regression\"},"
        " \"postsubmit\": {\"detector\": {\"name\": \"jetpack\", \"width\": 5,"
        "  \"threshold\": 25.0, \"min_change\": 0.0, \"max_pvalue\": 0.0}},"
        " \"report\": [\"markdown\"],"
        " \"review\": {\"check_name\": \"benchfarm\", \"link\": null,"
        "  \"gerrit\": null}}";

/* cfg's JSON must equal want exactly (every key, types included). */
static void assert_json(const struct bf_cfg *cfg, const char *want)
{
	char *text = bf_cfg_to_json(cfg);
	json_error_t jerr;
	json_t *got = json_loads(text, 0, &jerr);
	json_t *exp = json_loads(want, 0, &jerr);

	assert_non_null(exp);
	assert_non_null(got);
	if (!json_equal(got, exp)) {
		print_error("got JSON:\n%s\n", text);
		fail();
	}
	json_decref(got);
	json_decref(exp);
	free(text);
}

static void test_cfg__full_config_loads_every_key(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, full_yaml);
	assert_string_equal(cfg.project.repo, "../app");
	assert_string_equal(cfg.project.build.argv[3], "-j 4");
	assert_int_equal(cfg.nbenchmarks, 2);
	assert_int_equal(cfg.benchmarks[0].nmetrics, 2);
	assert_string_equal(cfg.benchmarks[0].metrics[1].name,
	                    "items_per_second");
	assert_int_equal(cfg.benchmarks[0].metrics[1].better, BF_BETTER_HIGHER);
	assert_int_equal(cfg.benchmarks[1].format, BF_FORMAT_HYPERFINE);
	assert_int_equal(cfg.benchmarks[1].line, 19);
	assert_string_equal(cfg.benchmarks[0].source,
	                    "bench/parse_bench.cc:42");
	assert_int_equal(cfg.runs.seed, 12345);
	assert_true(cfg.checks.thermal_max == 45.5);
	assert_int_equal(cfg.presubmit.fail_on, BF_FAIL_ON_NEVER);
	assert_true(cfg.postsubmit.detector.min_change == 0.03);
	assert_string_equal(cfg.report.argv[2], "exec:slack");
	bf_cfg_release(&cfg);
}

static void test_cfg__full_config_round_trips_to_json(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, full_yaml);
	assert_json(&cfg, full_json);
	bf_cfg_release(&cfg);
}

static void test_cfg__json_lists_every_default(void **state)
{
	struct bf_cfg cfg;
	char *text;

	(void)state;
	load_ok(&cfg, HEAD);
	assert_json(&cfg, defaults_json);
	/* Pretty, in file order, and 0.05 is not 0.050000000000000003. */
	text = bf_cfg_to_json(&cfg);
	assert_non_null(
	        strstr(text, "{\n  \"version\": 1,\n  \"project\": {\n"));
	assert_non_null(strstr(text, "\"alpha\": 0.05,"));
	free(text);
	bf_cfg_release(&cfg);
}

static void test_cfg__huge_seed_is_a_json_string(void **state)
{
	struct bf_cfg cfg;
	char *text;

	(void)state;
	load_ok(&cfg, HEAD "runs:\n  seed: 18446744073709551615\n");
	assert_true(cfg.runs.seed == UINT64_MAX);
	text = bf_cfg_to_json(&cfg);
	assert_non_null(strstr(text, "\"seed\": \"18446744073709551615\""));
	free(text);
	bf_cfg_release(&cfg);
	expect_error(HEAD "runs:\n  seed: -1\n", "t.yaml:8:9: ",
	             "'runs.seed' must be a non-negative integer, not '-1'");
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

static void test_cfg__unknown_key_suggests_the_closest(void **state)
{
	(void)state;
	expect_error(
	        HEAD "runs:\n  repets: 5\n", "t.yaml:8:3: ",
	        "unknown key 'repets' in 'runs' (did you mean 'repeats'?)");
	expect_error(HEAD "runs:\n  wramup: 5\n", "t.yaml:8:3: ",
	             "unknown key 'wramup' in 'runs' (did you mean 'warmup'?)");
	expect_error(HEAD "chekcs: {}\n", "t.yaml:7:1: ",
	             "unknown key 'chekcs' (did you mean 'checks'?)");
	expect_error(
	        HEAD "postsubmit:\n  detector: {name: skia, widht: 3}\n",
	        "t.yaml:8:26: ",
	        "unknown key 'widht' in 'postsubmit.detector' (did you mean 'width'?)");
}

static void test_cfg__unknown_key_far_from_all_gets_no_guess(void **state)
{
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	expect_error(HEAD "runs:\n  colour: 5\n",
	             "t.yaml:8:3: ", "unknown key 'colour' in 'runs'");
	assert_int_equal(load(&cfg, HEAD "runs:\n  colour: 5\n", &err),
	                 BF_EINVAL);
	assert_null(strstr(err.msg, "did you mean"));
}

static void test_cfg__suggest_uses_edit_distance(void **state)
{
	static const char *const words[] = { "repeats", "warmup", "seed",
		                             NULL };

	(void)state;
	assert_string_equal(bf_cfg__suggest("repets", words), "repeats");
	assert_string_equal(bf_cfg__suggest("repaets", words), "repeats");
	assert_string_equal(bf_cfg__suggest("warmpu", words), "warmup");
	assert_string_equal(bf_cfg__suggest("sed", words), "seed");
	assert_null(bf_cfg__suggest("repeats", words));
	assert_null(bf_cfg__suggest("x", words));
	assert_null(bf_cfg__suggest("rpts", words));
}

static void test_cfg__string_where_number_belongs(void **state)
{
	(void)state;
	expect_error(HEAD "runs:\n  repeats: ten\n", "t.yaml:8:12: ",
	             "'runs.repeats' must be an integer, not 'ten'");
	expect_error(HEAD "runs:\n  repeats: 10x\n", "t.yaml:8:12: ",
	             "'runs.repeats' must be an integer, not '10x'");
	expect_error(HEAD "runs:\n  repeats: 10.5\n",
	             "t.yaml:8:12: ", "must be an integer");
	expect_error(HEAD "runs:\n  repeats: \"10\"\n", "t.yaml:8:12: ",
	             "not the quoted string '10' (remove the quotes)");
	expect_error(HEAD "runs:\n  repeats: [10]\n", "t.yaml:8:12: ",
	             "'runs.repeats' must be an integer, not a list");
	expect_error(HEAD "runs:\n  repeats:\n", "t.yaml:8:11: ",
	             "'runs.repeats' must be an integer, not an empty value");
	expect_error(HEAD "checks:\n  thermal_max: hot\n", "t.yaml:8:16: ",
	             "'checks.thermal_max' must be a number, not 'hot'");
	expect_error(HEAD "checks:\n  thermal_max: .nan\n",
	             "t.yaml:8:16: ", "must be a number");
}

static void test_cfg__repeat_count_out_of_range(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	expect_error(HEAD "runs:\n  repeats: -3\n", "t.yaml:8:12: ",
	             "'runs.repeats' must be between 2 and 10000, not -3");
	expect_error(HEAD "runs:\n  repeats: 1\n",
	             "t.yaml:8:12: ", "must be between 2 and 10000, not 1");
	expect_error(HEAD "runs:\n  repeats: 10001\n",
	             "t.yaml:8:12: ", "must be between 2 and 10000");
	expect_error(HEAD "runs:\n  warmup: -1\n", "t.yaml:8:11: ",
	             "'runs.warmup' must be between 0 and 1000, not -1");
	load_ok(&cfg, HEAD "runs:\n  repeats: 2\n  warmup: 0\n");
	assert_int_equal(cfg.runs.repeats, 2);
	assert_int_equal(cfg.runs.warmup, 0);
	bf_cfg_release(&cfg);
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

static void test_cfg__unknown_format(void **state)
{
	(void)state;
	expect_error(
	        HEAD "    format: xml\n", "t.yaml:7:13: ",
	        "unknown format 'xml' for 'benchmarks[0].format' (expected gbench, jetpack, hyperfine, native or lines)");
	expect_error(
	        HEAD "    format: gbenh\n", "t.yaml:7:13: ",
	        "unknown format 'gbenh' for 'benchmarks[0].format' (did you mean 'gbench'?)");
}

static void test_cfg__duplicate_benchmark_names(void **state)
{
	(void)state;
	expect_error(HEAD "  - name: micro\n    command: [./other]\n",
	             "t.yaml:7:11: ",
	             "duplicate benchmark name 'micro' (first at line 5)");
}

static void test_cfg__alpha_must_be_inside_0_1(void **state)
{
	static const char *const bad[] = { "0", "1", "1.5", "-0.1", "0.0" };
	char text[256];
	struct bf_cfg cfg;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), HEAD "presubmit:\n  alpha: %s\n",
		         bad[i]);
		expect_error(
		        text, "t.yaml:8:10: ",
		        "'presubmit.alpha' must be greater than 0 and less than 1");
	}
	load_ok(&cfg, HEAD "presubmit:\n  alpha: 0.999\n  min_effect: 0\n");
	assert_true(cfg.presubmit.alpha == 0.999);
	assert_true(cfg.presubmit.min_effect == 0.0);
	bf_cfg_release(&cfg);
	expect_error(HEAD "presubmit:\n  min_effect: -0.01\n", "t.yaml:8:15: ",
	             "'presubmit.min_effect' must be at least 0, not -0.01");
}

static void test_cfg__fail_on_values(void **state)
{
	(void)state;
	expect_error(
	        HEAD "presubmit:\n  fail_on: always\n", "t.yaml:8:12: ",
	        "unknown value 'always' for 'presubmit.fail_on' (expected regression or never)");
	expect_error(HEAD "presubmit:\n  fail_on: nevr\n",
	             "t.yaml:8:12: ", "(did you mean 'never'?)");
}

static void test_cfg__metric_better_values(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	expect_error(
	        HEAD "    metrics:\n      real_time: {better: smaller}\n",
	        "t.yaml:8:27: ",
	        "unknown direction 'smaller' for 'benchmarks[0].metrics.real_time.better' (expected lower or higher)");
	expect_error(
	        HEAD "    metrics:\n      a: {}\n      a: {}\n",
	        "t.yaml:9:7: ", "duplicate key 'a' in 'benchmarks[0].metrics'");
	expect_error(HEAD "    metrics: [real_time]\n",
	             "t.yaml:7:14: ", "must be a mapping of metric names");
	expect_error(HEAD "    metrics:\n      t: {beter: lower}\n",
	             "t.yaml:8:11: ", "(did you mean 'better'?)");
	load_ok(&cfg, HEAD "    metrics:\n      t:\n      u: {}\n");
	assert_int_equal(cfg.benchmarks[0].nmetrics, 2);
	assert_int_equal(cfg.benchmarks[0].metrics[0].better, BF_BETTER_LOWER);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "    metrics: {}\n");
	assert_int_equal(cfg.benchmarks[0].nmetrics, 0);
	bf_cfg_release(&cfg);
}

static void test_cfg__booleans_are_true_or_false(void **state)
{
	(void)state;
	expect_error(HEAD "runs:\n  interleave: yes\n", "t.yaml:8:15: ",
	             "'runs.interleave' must be true or false, not 'yes'");
	expect_error(HEAD "checks:\n  require_charging: 1\n",
	             "t.yaml:8:21: ", "must be true or false");
	expect_error(HEAD "checks:\n  require_charging: 'true'\n",
	             "t.yaml:8:21: ", "remove the quotes");
}

static void test_cfg__missing_required_keys(void **state)
{
	(void)state;
	expect_error("version: 1\nproject:\n  build: [make]\n", "t.yaml:3:3: ",
	             "missing required key 'repo' in 'project'");
	expect_error("version: 1\nbenchmarks: [{name: a, command: [a]}]\n",
	             "t.yaml:1:1: ", "missing required key 'project'");
	expect_error("version: 1\nproject: {repo: .}\nbenchmarks:\n"
	             "  - name: a\n",
	             "t.yaml:4:5: ",
	             "missing required key 'command' in 'benchmarks[0]'");
	expect_error("version: 1\nproject: {repo: .}\nbenchmarks:\n"
	             "  - command: [a]\n",
	             "t.yaml:4:5: ",
	             "missing required key 'name' in 'benchmarks[0]'");
	expect_error(
	        "version: 1\nproject: {repo: .}\nbenchmarks:\n"
	        "  - name: a\n    command: []\n",
	        "t.yaml:5:14: ", "'benchmarks[0].command' must not be empty");
	expect_error("version: 1\nproject: {repo: ''}\n", "t.yaml:2:17: ",
	             "'project.repo' must be a non-empty string");
}

static void test_cfg__commands_are_argv_lists(void **state)
{
	(void)state;
	expect_error(
	        "version: 1\nproject: {repo: .}\nbenchmarks:\n"
	        "  - name: a\n    command: ./a --fast\n",
	        "t.yaml:5:14: ",
	        "'benchmarks[0].command' must be a list of strings, e.g. [make, -C, bench], not './a --fast'");
	expect_error(
	        HEAD "  - name: b\n    command: [./b, [x]]\n", "t.yaml:8:20: ",
	        "'benchmarks[1].command' must be a list of strings, not a list");
	expect_error(
	        HEAD "  - oops\n", "t.yaml:7:5: ",
	        "'benchmarks[1]' must be a mapping with a name and a command");
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

static void test_cfg__detector_name_sets_its_defaults(void **state)
{
	static const struct {
		const char *name;
		int width;
		double threshold, min_change, max_pvalue;
	} want[] = {
		{ "jetpack", 5, 25, 0, 0 },
		{ "skia", 7, 50, 0, 0 },
		{ "perfherder", 12, 7, 0.02, 0 },
		{ "edivisive", 50, 0, 0, 0.001 },
	};
	char text[256];
	struct bf_cfg cfg;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(want); i++) {
		snprintf(text, sizeof(text),
		         HEAD "postsubmit:\n  detector: %s\n", want[i].name);
		load_ok(&cfg, text);
		assert_string_equal(cfg.postsubmit.detector.name, want[i].name);
		assert_int_equal(cfg.postsubmit.detector.width, want[i].width);
		assert_true(cfg.postsubmit.detector.threshold ==
		            want[i].threshold);
		assert_true(cfg.postsubmit.detector.min_change ==
		            want[i].min_change);
		assert_true(cfg.postsubmit.detector.max_pvalue ==
		            want[i].max_pvalue);
		bf_cfg_release(&cfg);
	}
}

static void test_cfg__detector_mapping_overrides_defaults(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, HEAD "postsubmit:\n  detector:\n    width: 4\n"
	                   "    name: skia\n");
	assert_string_equal(cfg.postsubmit.detector.name, "skia");
	assert_int_equal(cfg.postsubmit.detector.width, 4);
	assert_true(cfg.postsubmit.detector.threshold == 50.0);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "postsubmit:\n  detector: {name: edivisive,"
	                   " max_pvalue: 0.01}\n");
	assert_int_equal(cfg.postsubmit.detector.width, 50);
	assert_true(cfg.postsubmit.detector.max_pvalue == 0.01);
	bf_cfg_release(&cfg);
}

static void test_cfg__detector_errors(void **state)
{
	(void)state;
	expect_error(
	        HEAD "postsubmit:\n  detector: jetpak\n", "t.yaml:8:13: ",
	        "unknown detector 'jetpak' for 'postsubmit.detector' (did you mean 'jetpack'?)");
	expect_error(HEAD "postsubmit:\n  detector: {width: 3}\n",
	             "t.yaml:8:13: ",
	             "missing required key 'name' in 'postsubmit.detector'");
	expect_error(HEAD "postsubmit:\n"
	                  "  detector: {name: jetpack, max_pvalue: 0.1}\n",
	             "t.yaml:8:29: ",
	             "'max_pvalue' does not apply to detector 'jetpack'");
	expect_error(HEAD "postsubmit:\n"
	                  "  detector: {name: edivisive, max_pvalue: 1}\n",
	             "t.yaml:8:43: ",
	             "must be greater than 0 and less than 1, not 1");
	expect_error(
	        HEAD "postsubmit:\n"
	             "  detector: {name: skia, width: 0}\n",
	        "t.yaml:8:33: ",
	        "'postsubmit.detector.width' must be between 1 and 100000, not 0");
}

/*
 * Skia's variant and minimum standard deviation: set per metric, the
 * variant brings its own default threshold unless one is given.
 */
static void test_cfg__skia_variant_and_stddev(void **state)
{
	static const struct {
		const char *variant;
		double threshold;
	} want[] = {
		{ "original", 50 },
		{ "percent", 0.1 },
		{ "cohen", 2 },
		{ "mannwhitneyu", 0.05 },
	};
	char text[512];
	struct bf_cfg cfg;
	const struct bf_cfg_detector *d;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(want); i++) {
		snprintf(text, sizeof(text),
		         HEAD "    metrics:\n"
		              "      real_time:\n"
		              "        detector: {name: skia, variant: %s,"
		              " stddev_threshold: 0.25}\n",
		         want[i].variant);
		load_ok(&cfg, text);
		d = &cfg.benchmarks[0].metrics[0].detector;
		assert_string_equal(d->name, "skia");
		assert_string_equal(d->variant, want[i].variant);
		assert_true(d->threshold == want[i].threshold);
		assert_true(d->stddev_threshold == 0.25);
		assert_int_equal(d->width, 7);
		bf_cfg_release(&cfg);
	}
	/* a threshold given wins; the benchmark's own detector likewise */
	load_ok(&cfg, HEAD "    detector: {name: skia, variant: absolute,"
	                   " threshold: 3.5, width: 4}\n");
	d = &cfg.benchmarks[0].detector;
	assert_string_equal(d->variant, "absolute");
	assert_true(d->threshold == 3.5);
	assert_int_equal(d->width, 4);
	assert_true(d->stddev_threshold == 0.001);
	bf_cfg_release(&cfg);
	/* without a variant: original, default stddev threshold */
	load_ok(&cfg, HEAD "postsubmit:\n  detector: skia\n");
	assert_null(cfg.postsubmit.detector.variant);
	assert_true(cfg.postsubmit.detector.stddev_threshold == 0.001);
	bf_cfg_release(&cfg);
}

static void test_cfg__skia_variant_errors(void **state)
{
	(void)state;
	expect_error(
	        HEAD "postsubmit:\n"
	             "  detector: {name: skia, variant: cohn}\n",
	        "t.yaml:8:35: ",
	        "unknown skia variant 'cohn' for 'postsubmit.detector.variant' (did you mean 'cohen'?)");
	expect_error(HEAD "    detector:\n"
	                  "      name: skia\n"
	                  "      stddev_threshold: 0\n",
	             "t.yaml:9:25: ",
	             "'benchmarks[0].detector.stddev_threshold' must be "
	             "greater than 0");
	expect_error(HEAD "postsubmit:\n"
	                  "  detector: {name: jetpack, variant: cohen}\n",
	             "t.yaml:8:29: ",
	             "'variant' does not apply to detector 'jetpack'");
	expect_error(HEAD
	             "postsubmit:\n"
	             "  detector: {name: edivisive, stddev_threshold: 1}\n",
	             "t.yaml:8:31: ",
	             "'stddev_threshold' does not apply to detector "
	             "'edivisive'");
	expect_error(
	        HEAD "postsubmit:\n"
	             "  detector: {name: skia, variant: absolute}\n",
	        "t.yaml:8:35: ", "skia variant 'absolute' needs a 'threshold'");
	expect_error(HEAD "postsubmit:\n"
	                  "  detector: {name: skia, variant: mannwhitneyu,"
	                  " threshold: 50}\n",
	             "t.yaml:8:60: ",
	             "is a p-value: it must be less than 1, not 50");
}

static void test_cfg__report_and_suppress_lists(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, HEAD "report: [markdown, exec:slack, skia-perf, bmf]\n"
	                   "checks: {suppress: [thermal, boost]}\n");
	assert_int_equal(cfg.report.argc, 4);
	assert_string_equal(cfg.report.argv[1], "exec:slack");
	assert_int_equal(cfg.checks.suppress.argc, 2);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "report: []\n");
	assert_int_equal(cfg.report.argc, 0);
	bf_cfg_release(&cfg);
	expect_error(
	        HEAD "report: [markdown, markdwn]\n", "t.yaml:7:20: ",
	        "unknown report format 'markdwn' for 'report' (did you mean 'markdown'?)");
	expect_error(HEAD "report: ['exec:']\n",
	             "t.yaml:7:10: ", "unknown report format 'exec:'");
	expect_error(HEAD "report: [json, json]\n", "t.yaml:7:16: ",
	             "report format 'json' is listed twice in 'report'");
	expect_error(HEAD "report: markdown\n",
	             "t.yaml:7:9: ", "'report' must be a list of strings");
	expect_error(
	        HEAD "checks:\n  suppress: [battery, cpu]\n", "t.yaml:8:23: ",
	        "unknown check 'cpu' for 'checks.suppress' (expected battery, cores, clocks, thermal, throttle, load or boost)");
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

static void test_cfg__find_benchmark(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, full_yaml);
	assert_ptr_equal(bf_cfg_find_benchmark(&cfg, "startup"),
	                 &cfg.benchmarks[1]);
	assert_null(bf_cfg_find_benchmark(&cfg, "nope"));
	bf_cfg_release(&cfg);
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

static void test_cfg__every_example_config_loads(void **state)
{
	DIR *dir = opendir(CONFIGS_DIR);
	struct dirent *de;
	char path[512];
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;
	int n = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		if (!has_suffix(de->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), CONFIGS_DIR "/%s", de->d_name);
		if (bf_cfg_load(&cfg, path, &err)) {
			print_error("%s\n", err.msg);
			fail();
		}
		bf_cfg_release(&cfg);
		n++;
	}
	closedir(dir);
	assert_true(n >= 3);
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
	DIR *dir = opendir(CASES_DIR);
	struct dirent *de;
	char path[512];
	int n = 0;

	(void)state;
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		if (!has_suffix(de->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), CASES_DIR "/%s", de->d_name);
		check_case(path);
		n++;
	}
	closedir(dir);
	assert_true(n >= 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg__defaults),
		cmocka_unit_test(test_cfg__full_config_loads_every_key),
		cmocka_unit_test(test_cfg__full_config_round_trips_to_json),
		cmocka_unit_test(test_cfg__json_lists_every_default),
		cmocka_unit_test(test_cfg__huge_seed_is_a_json_string),
		cmocka_unit_test(test_cfg__tab_indentation_is_an_error),
		cmocka_unit_test(test_cfg__deep_nesting_is_an_error),
		cmocka_unit_test(test_cfg__duplicate_key_is_an_error),
		cmocka_unit_test(test_cfg__unknown_key_suggests_the_closest),
		cmocka_unit_test(
		        test_cfg__unknown_key_far_from_all_gets_no_guess),
		cmocka_unit_test(test_cfg__suggest_uses_edit_distance),
		cmocka_unit_test(test_cfg__string_where_number_belongs),
		cmocka_unit_test(test_cfg__repeat_count_out_of_range),
		cmocka_unit_test(test_cfg__empty_benchmark_list),
		cmocka_unit_test(test_cfg__version_must_be_1),
		cmocka_unit_test(test_cfg__unknown_format),
		cmocka_unit_test(test_cfg__duplicate_benchmark_names),
		cmocka_unit_test(test_cfg__alpha_must_be_inside_0_1),
		cmocka_unit_test(test_cfg__fail_on_values),
		cmocka_unit_test(test_cfg__metric_better_values),
		cmocka_unit_test(test_cfg__booleans_are_true_or_false),
		cmocka_unit_test(test_cfg__missing_required_keys),
		cmocka_unit_test(test_cfg__every_error_is_reported),
		cmocka_unit_test(test_cfg__commands_are_argv_lists),
		cmocka_unit_test(test_cfg__relative_paths_stay_as_written),
		cmocka_unit_test(test_cfg__detector_name_sets_its_defaults),
		cmocka_unit_test(test_cfg__detector_mapping_overrides_defaults),
		cmocka_unit_test(test_cfg__detector_errors),
		cmocka_unit_test(test_cfg__skia_variant_and_stddev),
		cmocka_unit_test(test_cfg__skia_variant_errors),
		cmocka_unit_test(test_cfg__report_and_suppress_lists),
		cmocka_unit_test(test_cfg__yaml_syntax_errors_have_positions),
		cmocka_unit_test(test_cfg__document_shape_errors),
		cmocka_unit_test(test_cfg__anchors_and_aliases_are_followed),
		cmocka_unit_test(test_cfg__long_values_are_cut_in_messages),
		cmocka_unit_test(
		        test_cfg__load_reads_files_and_reports_missing),
		cmocka_unit_test(test_cfg__find_benchmark),
		cmocka_unit_test(test_cfg__enum_names),
		cmocka_unit_test(test_cfg__every_example_config_loads),
		cmocka_unit_test(test_cfg__every_bad_case_fails_as_expected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
