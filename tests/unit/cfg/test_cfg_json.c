#include "config/cfg.h"

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
#include "unit/cfg/expect.h"

/*
 * A config that sets every key, and what reads it: bf_cfg_to_json
 * (every key with its type, defaults included), bf_cfg_find_benchmark.
 */

static const char full_yaml[] =
        "version: 1\n"
        "project:\n"
        "  repo: ../app\n"
        "  target_branch: develop\n"
        "  build: [make, -C, bench, \"-j 4\"]\n"
        "  artifacts: [bench/out/micro, bench/out/data.bin]\n"
        "  build_timeout: 1200\n"
        "  build_identity: bytes\n"
        "  build_sandbox: require\n"
        "  build_network: true\n"
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
        "    gate: [real_time, items_per_second]\n"
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
        "  mode: duet\n"
        "  duet_isolation: processes\n"
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
        "  missing_series: ignore\n"
        "postsubmit:\n"
        "  detector: {name: perfherder, width: 20, threshold: 5, min_change: 0.03}\n"
        "report: [json, junit, exec:slack]\n"
        "review:\n"
        "  check_name: perf\n"
        "  gerrit: {host: review.example.org, user: bot, "
        "label: Performance-Verified, vote_fail: -2}\n"
        "store: 'postgresql://ci:pw-in-url@db.lab/bench'\n";

static const char full_json[] =
        "{\"version\": 1,"
        " \"project\": {\"repo\": \"../app\", \"target_branch\": \"develop\","
        "  \"build\": [\"make\", \"-C\", \"bench\", \"-j 4\"],"
        "  \"artifacts\": [\"bench/out/micro\", \"bench/out/data.bin\"],"
        "  \"build_timeout\": 1200, \"build_identity\": \"bytes\","
        "  \"build_sandbox\": \"require\", \"build_network\": true},"
        " \"store\": \"postgresql://ci:***@db.lab/bench\","
        " \"benchmarks\": ["
        "  {\"name\": \"micro\","
        "   \"command\": [\"bench/out/micro\", \"--benchmark_format=json\"],"
        "   \"workdir\": \"bench\", \"env\": [\"DATA=testdata\", \"MODE=fast\"],"
        "   \"source\": \"bench/parse_bench.cc:42\","
        " \"format\": \"jetpack\", \"output\": \"stdout\", \"measure\": \"time\", \"counters\": false, \"timeout\": 120,"
        "   \"metrics\": {\"real_time\": {\"better\": \"lower\","
        "                               \"detector\": null},"
        "                 \"items_per_second\": {\"better\": \"higher\","
        "                   \"detector\": {\"name\": \"skia\", \"width\": 4,"
        "                    \"threshold\": 50.0, \"min_change\": 0.0,"
        "                    \"max_pvalue\": 0.0, \"variant\": \"original\","
        "                    \"stddev_threshold\": 0.001}}},"
        "   \"detector\": null,"
        "   \"gate\": [\"real_time\", \"items_per_second\"]},"
        "  {\"name\": \"startup\","
        "   \"command\": [\"hyperfine\", \"--export-json\", \"-\", \"./app\"],"
        "   \"workdir\": null, \"env\": [], \"source\": null,"
        " \"format\": \"hyperfine\", \"output\": \"stdout\", \"measure\": \"time\", \"counters\": false, \"timeout\": 300,"
        "   \"metrics\": {},"
        "   \"detector\": {\"name\": \"edivisive\", \"width\": 50,"
        "    \"threshold\": 0.0, \"min_change\": 0.0, \"max_pvalue\": 0.001},"
        "   \"gate\": \"primary\"}],"
        " \"devices\": {\"pool\": \"pixel-7\", \"lease_time\": 600,"
        " \"wait\": 300, \"same_machine\": \"serial\"},"
        " \"runs\": {\"repeats\": 30, \"warmup\": 3, \"interleave\": false,"
        "  \"mode\": \"duet\", \"duet_isolation\": \"processes\","
        "  \"seed\": 12345, \"retries\": 5, \"samples_max\": 100000,"
        "  \"min_repeats\": 6, \"max_repeats\": 30},"
        " \"checks\": {\"battery_min\": 50, \"require_charging\": true,"
        "  \"require_all_cores\": false, \"require_locked_clocks\": true,"
        "  \"thermal_max\": 45.5, \"throttle_tolerance\": 0.2,"
        "  \"load_max\": 0.5, \"suppress\": [\"boost\", \"load\"],"
        "  \"wait_max\": 600, \"load_wait\": 5, \"throttle_retries\": 2,"
        "  \"throttle_sleep\": 90},"
        " \"presubmit\": {\"alpha\": 0.01, \"min_effect\": 0.05,"
        "  \"fail_on\": \"never\", \"missing_series\": \"ignore\"},"
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
        "  \"build\": [], \"artifacts\": [], \"build_timeout\": 600,"
        "  \"build_identity\": \"code\", \"build_sandbox\": \"auto\","
        "  \"build_network\": false},"
        " \"store\": null,"
        " \"benchmarks\": [{\"name\": \"micro\", \"command\": [\"./micro\"],"
        "   \"workdir\": null, \"env\": [], \"source\": null,"
        " \"format\": \"gbench\", \"output\": \"stdout\", \"measure\": \"time\", \"counters\": false, \"timeout\": 300,"
        "   \"metrics\": {}, \"detector\": null, \"gate\": \"primary\"}],"
        " \"devices\": {\"pool\": \"local\", \"lease_time\": 600,"
        " \"wait\": 300, \"same_machine\": \"serial\"},"
        " \"runs\": {\"repeats\": 10, \"warmup\": 1, \"interleave\": true,"
        "  \"mode\": \"interleaved\", \"duet_isolation\": \"best_effort\","
        "  \"seed\": 0, \"retries\": 2, \"samples_max\": 100000,"
        "  \"min_repeats\": 6, \"max_repeats\": 30},"
        " \"checks\": {\"battery_min\": 25, \"require_charging\": false,"
        "  \"require_all_cores\": true, \"require_locked_clocks\": false,"
        "  \"thermal_max\": 70.0, \"throttle_tolerance\": 0.1,"
        "  \"load_max\": 1.0, \"suppress\": [], \"wait_max\": 0,"
        "  \"load_wait\": 30, \"throttle_retries\": 2, \"throttle_sleep\": 90},"
        " \"presubmit\": {\"alpha\": 0.01, \"min_effect\": 0.01,"
        "  \"fail_on\": \"regression\", \"missing_series\": \"fail\"},"
        " \"postsubmit\": {\"detector\": {\"name\": \"pooled\", \"width\": 8,"
        "  \"threshold\": 4.0, \"min_change\": 0.02, \"max_pvalue\": 0.0}},"
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
	assert_int_equal(cfg.benchmarks[1].line, 23);
	assert_int_equal(cfg.benchmarks[0].gate, BF_GATE_LIST);
	assert_int_equal(cfg.benchmarks[0].gate_metrics.argc, 2);
	assert_int_equal(cfg.benchmarks[1].gate, BF_GATE_PRIMARY);
	assert_int_equal(cfg.project.build_sandbox, BF_BUILD_SANDBOX_REQUIRE);
	assert_true(cfg.project.build_network);
	assert_string_equal(cfg.benchmarks[0].source,
	                    "bench/parse_bench.cc:42");
	assert_int_equal(cfg.runs.seed, 12345);
	assert_true(cfg.checks.thermal_max == 45.5);
	assert_int_equal(cfg.presubmit.fail_on, BF_FAIL_ON_NEVER);
	assert_int_equal(cfg.presubmit.missing_series,
	                 BF_MISSING_SERIES_IGNORE);
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
	/* Pretty, in file order, and 0.01 is not 0.010000000000000000208. */
	text = bf_cfg_to_json(&cfg);
	assert_non_null(
	        strstr(text, "{\n  \"version\": 1,\n  \"project\": {\n"));
	assert_non_null(strstr(text, "\"alpha\": 0.01,"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg__full_config_loads_every_key),
		cmocka_unit_test(test_cfg__full_config_round_trips_to_json),
		cmocka_unit_test(test_cfg__json_lists_every_default),
		cmocka_unit_test(test_cfg__huge_seed_is_a_json_string),
		cmocka_unit_test(test_cfg__find_benchmark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
