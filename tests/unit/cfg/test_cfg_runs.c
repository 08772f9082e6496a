#include "config/cfg.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "unit/cfg/expect.h"

/*
 * Each benchmark's repeats and warmup: its own repeats: and warmup:,
 * else runs.repeats and runs.warmup when the file sets them, else 3
 * and 0 under measure: instructions and the runs' defaults (10 and 1)
 * for the rest; the errors of the keys; what config check shows.
 */

/* HEAD's timed benchmark micro, then "count" under cachegrind (line 7). */
#define MIXED                           \
	HEAD "  - name: count\n"        \
	     "    command: [./count]\n" \
	     "    measure: instructions\n"

static void expect_counts(const struct bf_cfg *cfg, size_t i, int repeats,
                          int warmup)
{
	assert_true(i < cfg->nbenchmarks);
	if (cfg->benchmarks[i].repeats != repeats ||
	    cfg->benchmarks[i].warmup != warmup) {
		print_error("benchmark %zu: repeats %d warmup %d, want %d %d\n",
		            i, cfg->benchmarks[i].repeats,
		            cfg->benchmarks[i].warmup, repeats, warmup);
		fail();
	}
}

static void test_cfg_runs__defaults(void **state)
{
	struct bf_cfg cfg;

	(void)state;
	/* timed alone: the runs' defaults */
	load_ok(&cfg, HEAD);
	expect_counts(&cfg, 0, 10, 1);
	bf_cfg_release(&cfg);
	/* instructions alone: 3 and 0, runs' too (as before) */
	load_ok(&cfg, HEAD "    measure: instructions\n");
	expect_counts(&cfg, 0, 3, 0);
	assert_int_equal(cfg.runs.repeats, 3);
	assert_int_equal(cfg.runs.warmup, 0);
	bf_cfg_release(&cfg);
	/* mixed: each its measure's, the runs keep timing's */
	load_ok(&cfg, MIXED);
	expect_counts(&cfg, 0, 10, 1);
	expect_counts(&cfg, 1, 3, 0);
	assert_int_equal(cfg.runs.repeats, 10);
	assert_int_equal(cfg.runs.warmup, 1);
	bf_cfg_release(&cfg);
	/* runs.repeats in the file: every benchmark's; warmup still by
	 * measure */
	load_ok(&cfg, MIXED "runs: {repeats: 7}\n");
	expect_counts(&cfg, 0, 7, 1);
	expect_counts(&cfg, 1, 7, 0);
	bf_cfg_release(&cfg);
	load_ok(&cfg, MIXED "runs: {warmup: 2}\n");
	expect_counts(&cfg, 0, 10, 2);
	expect_counts(&cfg, 1, 3, 2);
	bf_cfg_release(&cfg);
	/* a benchmark's own keys win over all of them */
	load_ok(&cfg, MIXED "    repeats: 5\n    warmup: 1\n"
	                    "runs: {repeats: 20, warmup: 3}\n");
	expect_counts(&cfg, 0, 20, 3);
	expect_counts(&cfg, 1, 5, 1);
	bf_cfg_release(&cfg);
	load_ok(&cfg, HEAD "    repeats: 4\n    warmup: 0\n");
	expect_counts(&cfg, 0, 4, 0);
	assert_int_equal(cfg.runs.repeats, 10);
	bf_cfg_release(&cfg);
	/* duet: a benchmark's rounds */
	load_ok(&cfg,
	        MIXED "    repeats: 6\nruns: {mode: duet, repeats: 12}\n");
	expect_counts(&cfg, 0, 12, 1);
	expect_counts(&cfg, 1, 6, 0);
	bf_cfg_release(&cfg);
	/* repeats: auto: every benchmark adaptive; warmup stays its own */
	load_ok(&cfg, MIXED "    warmup: 2\nruns: {repeats: auto}\n");
	assert_true(cfg.runs.adaptive);
	assert_int_equal(cfg.benchmarks[0].warmup, 1);
	assert_int_equal(cfg.benchmarks[1].warmup, 2);
	bf_cfg_release(&cfg);
}

static void test_cfg_runs__errors(void **state)
{
	(void)state;
	expect_error(MIXED "    repeats: 1\n", "t.yaml:10:14: ",
	             "'benchmarks[1].repeats' must be between 2 and 10000, "
	             "not 1");
	expect_error(MIXED "    repeats: 10001\n", "t.yaml:10:14: ",
	             "'benchmarks[1].repeats' must be between 2 and 10000, "
	             "not 10001");
	expect_error(MIXED "    repeats: ten\n", "t.yaml:10:14: ",
	             "'benchmarks[1].repeats' must be an integer, not 'ten'");
	expect_error(MIXED "    repeats: auto\n", "t.yaml:10:14: ",
	             "'benchmarks[1].repeats' must be a number of runs per "
	             "side, 2 to 10000: 'auto' is a value of 'runs.repeats' "
	             "only");
	expect_error(MIXED "    warmup: -1\n", "t.yaml:10:13: ",
	             "'benchmarks[1].warmup' must be between 0 and 1000, "
	             "not -1");
	expect_error(MIXED "    warmup: 1001\n", "t.yaml:10:13: ",
	             "'benchmarks[1].warmup' must be between 0 and 1000, "
	             "not 1001");
	expect_error(MIXED "    repetas: 3\n", "t.yaml:10:5: ",
	             "unknown key 'repetas' in 'benchmarks[1]' (did you mean "
	             "'repeats'?)");
	/* its own count beside adaptive repeats: said at its key, why */
	expect_error(MIXED "    repeats: 3\nruns: {repeats: auto}\n",
	             "t.yaml:10:14: ",
	             "'benchmarks[1].repeats' cannot be given with "
	             "'runs.repeats: auto': adaptive repeats decide every "
	             "benchmark's count (between 'runs.min_repeats' and "
	             "'runs.max_repeats'); remove it, or set 'runs.repeats' "
	             "to a number");
}

/* One load names every benchmark's error, in file order. */
static void test_cfg_runs__every_error_named(void **state)
{
	static const char text[] = HEAD "    repeats: 3\n"
	                                "  - name: count\n"
	                                "    command: [./count]\n"
	                                "    repeats: 4\n"
	                                "runs: {repeats: auto}\n";
	char path[] = "/tmp/bf-test-cfg-runs.XXXXXX";
	struct bf_argv all = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_cfg cfg;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(bf_cfg_load_all(&cfg, path, &all, &err), BF_EINVAL);
	unlink(path);
	assert_int_equal(all.argc, 2);
	assert_non_null(strstr(all.argv[0], ":7:14: 'benchmarks[0].repeats' "
	                                    "cannot be given"));
	assert_non_null(strstr(all.argv[1], ":10:14: 'benchmarks[1].repeats' "
	                                    "cannot be given"));
	assert_string_equal(err.msg, all.argv[0]);
	bf_argv_release(&all);
}

/*
 * config check: a benchmark's repeats and warmup only where they differ
 * from the runs'; never a count beside repeats: auto.
 */
static void test_cfg_runs__json_shows_what_differs(void **state)
{
	struct bf_cfg cfg;
	char *text;

	(void)state;
	load_ok(&cfg, MIXED);
	text = bf_cfg_to_json(&cfg);
	/* micro's timeout then its metrics; count's repeats and warmup */
	assert_non_null(strstr(text, "\"timeout\": 300,\n      \"metrics\""));
	assert_non_null(strstr(text, "\"timeout\": 300,\n      \"repeats\": 3,"
	                             "\n      \"warmup\": 0,\n"));
	free(text);
	bf_cfg_release(&cfg);
	load_ok(&cfg, MIXED "    warmup: 1\nruns: {repeats: 3}\n");
	text = bf_cfg_to_json(&cfg);
	assert_null(strstr(text, "\"timeout\": 300,\n      \"repeats\""));
	assert_null(strstr(text, "\"timeout\": 300,\n      \"warmup\""));
	free(text);
	bf_cfg_release(&cfg);
	load_ok(&cfg, MIXED "runs: {repeats: auto}\n");
	text = bf_cfg_to_json(&cfg);
	assert_null(strstr(text, "\"timeout\": 300,\n      \"repeats\""));
	assert_non_null(strstr(text, "\"timeout\": 300,\n      \"warmup\": 0"));
	free(text);
	bf_cfg_release(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_runs__defaults),
		cmocka_unit_test(test_cfg_runs__errors),
		cmocka_unit_test(test_cfg_runs__every_error_named),
		cmocka_unit_test(test_cfg_runs__json_shows_what_differs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
