#include "config/cfg.h"

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
#include "unit/cfg/expect.h"

/*
 * The rules of the config's keys: types, ranges, words, required
 * keys, suggestions for misspelt ones, and the detectors' keys.
 */

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

/*
 * runs.repeats: auto, with min_repeats and max_repeats (defaults 6 and
 * 30); a number keeps a fixed count; the rules between the keys are
 * said at the key that breaks them. The command line takes a number the
 * same way (auto is the command's own word).
 */
static void test_cfg__repeats_auto(void **state)
{
	struct bf_cfg cfg;
	struct bf_err err = BF_ERR_INIT;
	int n = 0;

	(void)state;
	load_ok(&cfg, HEAD "runs:\n  repeats: auto\n");
	assert_true(cfg.runs.adaptive);
	assert_int_equal(cfg.runs.min_repeats, 6);
	assert_int_equal(cfg.runs.max_repeats, 30);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "runs: {repeats: auto, min_repeats: 4, "
	                   "max_repeats: 250}\n");
	assert_true(cfg.runs.adaptive);
	assert_int_equal(cfg.runs.min_repeats, 4);
	assert_int_equal(cfg.runs.max_repeats, 250);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "runs: {repeats: 12}\n");
	assert_false(cfg.runs.adaptive);
	assert_int_equal(cfg.runs.repeats, 12);
	bf_cfg_release(&cfg);

	expect_error(HEAD "runs: {repeats: automatic}\n", "t.yaml:7:17: ",
	             "'runs.repeats' must be an integer, not 'automatic'");
	expect_error(HEAD "runs: {repeats: auto, min_repeats: 3}\n",
	             "t.yaml:7:36: ",
	             "'runs.min_repeats' must be between 4 and 250, not 3");
	expect_error(HEAD "runs: {repeats: auto, max_repeats: 251}\n",
	             "t.yaml:7:36: ", "must be between 4 and 250, not 251");
	expect_error(HEAD "runs:\n  repeats: auto\n  min_repeats: 10\n"
	                  "  max_repeats: 8\n",
	             "t.yaml:10:16: ",
	             "'runs.max_repeats' (8) must be at least "
	             "'runs.min_repeats' (10)");
	expect_error(HEAD "runs:\n  interleave: false\n  repeats: auto\n",
	             "t.yaml:9:12: ",
	             "'runs.repeats: auto' decides after each interleaved "
	             "block: it needs 'runs.interleave: true'");

	assert_int_equal(bf_cfg_parse_setting(&n, "runs.repeats", "7", &err),
	                 0);
	assert_int_equal(n, 7);
	assert_int_equal(bf_cfg_parse_setting(&n, "runs.repeats", "1", &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "must be between 2 and 10000"));
}

/*
 * runs.mode: interleaved (the default) or duet; duet takes a fixed
 * number of rounds, so repeats: auto with it is refused at the mode.
 */
static void test_cfg__mode(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, HEAD);
	assert_false(cfg.runs.duet);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "runs: {mode: duet}\n");
	assert_true(cfg.runs.duet);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "runs: {mode: interleaved}\n");
	assert_false(cfg.runs.duet);
	bf_cfg_release(&cfg);
	expect_error(HEAD "runs: {mode: duo}\n", "t.yaml:7:14: ",
	             "'runs.mode' must be 'interleaved' or 'duet', not 'duo'");
	expect_error(HEAD "runs:\n  mode: duet\n  repeats: auto\n",
	             "t.yaml:8:9: ",
	             "'runs.mode: duet' takes a fixed number of rounds");
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

/*
 * measure: time (the default) or instructions; when every benchmark
 * counts instructions, repeats and warmup not given default to 3 and 0.
 */
static void test_cfg__measure(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	load_ok(&cfg, HEAD);
	assert_int_equal(cfg.benchmarks[0].measure, BF_MEASURE_TIME);
	assert_false(cfg.benchmarks[0].counters);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "    counters: true\n");
	assert_true(cfg.benchmarks[0].counters);
	assert_int_equal(cfg.runs.repeats, BF_CFG_DEFAULT_REPEATS);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "    measure: instructions\n");
	assert_int_equal(cfg.benchmarks[0].measure, BF_MEASURE_INSTRUCTIONS);
	assert_string_equal(bf_measure_name(cfg.benchmarks[0].measure),
	                    "instructions");
	assert_int_equal(cfg.runs.repeats, 3);
	assert_int_equal(cfg.runs.warmup, 0);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "    measure: instructions\n"
	                   "runs:\n  repeats: 5\n");
	assert_int_equal(cfg.runs.repeats, 5);
	assert_int_equal(cfg.runs.warmup, 0);
	bf_cfg_release(&cfg);
	/* one benchmark timed: the defaults of timing */
	load_ok(&cfg, HEAD "    measure: instructions\n"
	                   "  - name: other\n    command: [./other]\n");
	assert_int_equal(cfg.runs.repeats, BF_CFG_DEFAULT_REPEATS);
	assert_int_equal(cfg.runs.warmup, BF_CFG_DEFAULT_WARMUP);
	bf_cfg_release(&cfg);
	expect_error(
	        HEAD "    measure: cycles\n", "t.yaml:7:14: ",
	        "unknown measure 'cycles' for 'benchmarks[0].measure' (expected time or instructions)");
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

static void test_cfg__missing_series_values(void **state)
{
	(void)state;
	expect_error(
	        HEAD "presubmit:\n  missing_series: warn\n", "t.yaml:8:19: ",
	        "unknown value 'warn' for 'presubmit.missing_series' (expected fail or ignore)");
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
		{ "pooled", 8, 4, 0.02, 0 },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg__unknown_key_suggests_the_closest),
		cmocka_unit_test(
		        test_cfg__unknown_key_far_from_all_gets_no_guess),
		cmocka_unit_test(test_cfg__suggest_uses_edit_distance),
		cmocka_unit_test(test_cfg__string_where_number_belongs),
		cmocka_unit_test(test_cfg__repeat_count_out_of_range),
		cmocka_unit_test(test_cfg__repeats_auto),
		cmocka_unit_test(test_cfg__mode),
		cmocka_unit_test(test_cfg__unknown_format),
		cmocka_unit_test(test_cfg__measure),
		cmocka_unit_test(test_cfg__duplicate_benchmark_names),
		cmocka_unit_test(test_cfg__alpha_must_be_inside_0_1),
		cmocka_unit_test(test_cfg__fail_on_values),
		cmocka_unit_test(test_cfg__missing_series_values),
		cmocka_unit_test(test_cfg__metric_better_values),
		cmocka_unit_test(test_cfg__booleans_are_true_or_false),
		cmocka_unit_test(test_cfg__missing_required_keys),
		cmocka_unit_test(test_cfg__commands_are_argv_lists),
		cmocka_unit_test(test_cfg__detector_name_sets_its_defaults),
		cmocka_unit_test(test_cfg__detector_mapping_overrides_defaults),
		cmocka_unit_test(test_cfg__detector_errors),
		cmocka_unit_test(test_cfg__skia_variant_and_stddev),
		cmocka_unit_test(test_cfg__skia_variant_errors),
		cmocka_unit_test(test_cfg__report_and_suppress_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
