/*
 * Unit tests for the disagreements of time and counters
 * (orchestrator/job/disagree.c): which pairs are looked at, which
 * verdicts disagree, and what each kind is said to mean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "benchfarm/err.h"
#include "config/cfg.h"
#include "job/disagree.h"

static const char cfg_text[] = "version: 1\n"
                               "project: {repo: .}\n"
                               "benchmarks:\n"
                               "  - {name: fixed, command: [./f], format: "
                               "lines}\n"
                               "  - {name: micro, command: [./m]}\n";

/* One result row. */
static json_t *row(const char *bench, const char *name, const char *metric,
                   const char *unit, const char *verdict, double effect)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "benchmark", bench,
	                 "name", name, "metric", metric, "unit", unit,
	                 "verdict", verdict, "effect", effect);
}

static json_t *judge(struct bf_cfg *cfg, json_t *results)
{
	json_t *d = bf_disagreements_json(results, cfg);

	json_decref(results);
	return d;
}

static void load(struct bf_cfg *cfg)
{
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_cfg_load_string(cfg, "t.yaml", cfg_text,
	                                    strlen(cfg_text), &err),
	                 0);
}

/* Time regressed, the CPU time the same: waiting. */
static void test_time_without_cpu(void **state)
{
	struct bf_cfg cfg;
	json_t *d;

	(void)state;
	load(&cfg);
	d = judge(
	        &cfg,
	        json_pack("[o, o, o]",
	                  row("fixed", "wall", "value", "ns", "regressed", 1),
	                  row("fixed", "fixed", "task_clock_ns", "ns", "same",
	                      0.01),
	                  row("fixed", "fixed", "page_faults", "", "same", 0)));
	assert_int_equal(json_array_size(d), 1);
	assert_string_equal(json_string_value(json_object_get(
	                            json_array_get(d, 0), "counter")),
	                    "task_clock_ns");
	assert_non_null(strstr(json_string_value(json_object_get(
	                               json_array_get(d, 0), "meaning")),
	                       "usually waiting"));
	json_decref(d);
	bf_cfg_release(&cfg);
}

/* Instructions are preferred; the reverse story is told too. */
static void test_instructions_without_time(void **state)
{
	struct bf_cfg cfg;
	json_t *d, *e;

	(void)state;
	load(&cfg);
	d = judge(&cfg,
	          json_pack("[o, o, o]",
	                    row("fixed", "wall", "value", "ns", "same", 0.001),
	                    row("fixed", "fixed", "task_clock_ns", "ns",
	                        "regressed", 0.05),
	                    row("fixed", "fixed", "instructions", "",
	                        "regressed", 0.05)));
	assert_int_equal(json_array_size(d), 1);
	e = json_array_get(d, 0);
	assert_string_equal(json_string_value(json_object_get(e, "counter")),
	                    "instructions");
	assert_string_equal(
	        json_string_value(json_object_get(e, "time_verdict")), "same");
	assert_non_null(strstr(json_string_value(json_object_get(e, "meaning")),
	                       "hidden by memory stalls or parallelism"));
	json_decref(d);
	bf_cfg_release(&cfg);
}

/*
 * Nothing to say: both regressed; the counter unknown; a gbench
 * benchmark (a fixed time per benchmark, whatever its speed); two time
 * names from one process; opposite verdicts do disagree.
 */
static void test_nothing_to_say(void **state)
{
	struct bf_cfg cfg;
	json_t *d;

	(void)state;
	load(&cfg);
	d = judge(&cfg, json_pack("[o, o]",
	                          row("fixed", "wall", "value", "ns",
	                              "regressed", 0.2),
	                          row("fixed", "fixed", "task_clock_ns", "ns",
	                              "regressed", 0.2)));
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = judge(&cfg, json_pack("[o, o]",
	                          row("fixed", "wall", "value", "ns",
	                              "regressed", 0.2),
	                          row("fixed", "fixed", "task_clock_ns", "ns",
	                              "unknown", 0.01)));
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = judge(&cfg, json_pack("[o, o]",
	                          row("micro", "BM_a", "cpu_time", "ns",
	                              "regressed", 0.2),
	                          row("micro", "micro", "task_clock_ns", "ns",
	                              "same", 0.0)));
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = judge(&cfg,
	          json_pack("[o, o, o]",
	                    row("fixed", "a", "value", "ns", "regressed", 0.2),
	                    row("fixed", "b", "value", "ns", "same", 0.0),
	                    row("fixed", "fixed", "task_clock_ns", "ns", "same",
	                        0.0)));
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = judge(&cfg, json_pack("[o, o]",
	                          row("fixed", "wall", "value", "ns",
	                              "regressed", 0.2),
	                          row("fixed", "fixed", "task_clock_ns", "ns",
	                              "improved", -0.1)));
	assert_int_equal(json_array_size(d), 1);
	json_decref(d);
	bf_cfg_release(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_without_cpu),
		cmocka_unit_test(test_instructions_without_time),
		cmocka_unit_test(test_nothing_to_say),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
