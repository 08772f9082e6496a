/*
 * Unit tests for judging a comparison (orchestrator/job/compare.c): the
 * verdicts and their tally, the results JSON, the FDR adjustment across
 * series, and the config's and the command line's alpha and min_effect.
 */
#include "unit/compare/fixture.h"

static void test_compare__verdicts_and_tally(void **state)
{
	struct fixture *f = *state;
	struct bf_tally t;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "faster", "real_time", "ns", 100, 80, 0.5, 10);
	add_series(f, 0, "flat", "real_time", "ns", 100, 100, 0.01, 10);
	/* A rate going up is an improvement. */
	add_series(f, 0, "rate_up", "items_per_second", "/s", 100, 120, 0.5,
	           10);
	/* The config says higher is better for score: down is worse. */
	add_series(f, 1, "scored", "score", "", 100, 80, 0.5, 10);
	add_series(f, 0, "few", "real_time", "ns", 100, 200, 1, 2);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 7);

	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_int_equal(find(f, 0, "faster", "real_time")->result.verdict,
	                 BF_VERDICT_IMPROVED);
	assert_int_equal(find(f, 0, "flat", "real_time")->result.verdict,
	                 BF_VERDICT_SAME);
	assert_int_equal(
	        find(f, 0, "rate_up", "items_per_second")->result.verdict,
	        BF_VERDICT_IMPROVED);
	assert_int_equal(find(f, 1, "scored", "score")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_int_equal(find(f, 0, "few", "real_time")->result.verdict,
	                 BF_VERDICT_UNKNOWN);

	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.regressed, 2);
	assert_int_equal(t.improved, 2);
	assert_int_equal(t.same, 1);
	assert_int_equal(t.unknown, 1);
	assert_int_equal(t.errors, 0);
	assert_int_equal(t.measured, 6);
}

static void test_compare__results_json_fields(void **state)
{
	struct fixture *f = *state;
	json_t *res, *o, *base, *vals;
	double effect;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "rate_up", "items_per_second", "/s", 100, 120, 0.5,
	           10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	assert_int_equal(json_array_size(res), 2);

	o = result_of(res, "slower", "real_time");
	assert_string_equal(str(o, "benchmark"), "micro");
	assert_string_equal(str(o, "unit"), "ns");
	assert_string_equal(str(o, "better"), "lower");
	assert_string_equal(str(o, "verdict"), "regressed");
	effect = num(o, "effect");
	/* medians 102.25 and 122.25 */
	assert_true(fabs(effect - (122.25 / 102.25 - 1)) < 1e-12);
	assert_true(num(o, "ci_low") <= effect);
	assert_true(num(o, "ci_high") >= effect);
	assert_true(num(o, "ci_low") > 0.02);
	assert_true(num(o, "p_value") > 0 && num(o, "p_value") < 0.05);
	assert_true(num(o, "p_adjusted") >= num(o, "p_value"));
	assert_true(num(o, "p_adjusted") <= 1);
	base = json_object_get(o, "base");
	assert_non_null(base);
	assert_int_equal(json_integer_value(json_object_get(base, "n")), 10);
	assert_true(num(base, "median") == 102.25);
	vals = json_object_get(base, "values");
	assert_int_equal(json_array_size(vals), 10);
	for (size_t i = 0; i < 10; i++)
		assert_true(json_number_value(json_array_get(vals, i)) ==
		            100 + 0.5 * (double)i);
	assert_true(num(json_object_get(o, "patch"), "median") == 122.25);
	assert_int_equal(json_array_size(json_object_get(
	                         json_object_get(o, "patch"), "values")),
	                 10);

	o = result_of(res, "rate_up", "items_per_second");
	assert_string_equal(str(o, "better"), "higher");
	assert_string_equal(str(o, "verdict"), "improved");
	json_decref(res);
}

/*
 * Each benchmark's gating series are one family: a change in one
 * benchmark is not diluted by the series of another.
 */
static void test_compare__fdr_per_benchmark(void **state)
{
	struct fixture *f = *state;
	const struct bf_series *s;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "flat", "real_time", "ns", 100, 100, 0.01, 10);
	add_series(f, 1, "other", "real_time", "ns", 100, 100, 0.01, 10);
	add_series(f, 1, "other2", "real_time", "ns", 100, 100, 0.01, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	s = find(f, 0, "slower", "real_time");
	/* two in micro's family, not four in the run */
	assert_true(fabs(s->result.p_adjusted - 2 * s->result.p_value) < 1e-12);
	assert_int_equal(s->family, 2);
	assert_true(s->gated);
}

/*
 * gate: primary (the default) on Google Benchmark output: cpu_time
 * gates, real_time is judged in a family of its own and reported as
 * ungated; a benchmark with threads gates its real_time instead.
 */
static void test_compare__primary_gate(void **state)
{
	static const char text[] = "version: 1\n"
	                           "project: {repo: .}\n"
	                           "benchmarks:\n"
	                           "  - {name: g, command: [./g]}\n";
	struct fixture *f;
	struct bf_tally t;
	json_t *res;

	assert_int_equal(setup_with(state, text), 0);
	f = *state;
	add_series(f, 0, "BM_a", "cpu_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "BM_a", "real_time", "ns", 100, 150, 0.5, 10);
	add_series(f, 0, "BM_b/threads:4", "real_time", "ns", 100, 120, 0.5,
	           10);
	add_series(f, 0, "BM_b/threads:4", "cpu_time", "ns", 100, 100, 0.01,
	           10);
	add_series(f, 0, "BM_c/threads:1", "cpu_time", "ns", 100, 100, 0.01,
	           10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 5);
	assert_true(find(f, 0, "BM_a", "cpu_time")->gated);
	assert_false(find(f, 0, "BM_a", "real_time")->gated);
	assert_true(find(f, 0, "BM_b/threads:4", "real_time")->gated);
	assert_false(find(f, 0, "BM_b/threads:4", "cpu_time")->gated);
	assert_true(find(f, 0, "BM_c/threads:1", "cpu_time")->gated);
	/* the ungated real_time is still judged regressed, in its family */
	assert_int_equal(find(f, 0, "BM_a", "real_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_int_equal(find(f, 0, "BM_a", "real_time")->family, 2);
	assert_int_equal(find(f, 0, "BM_a", "cpu_time")->family, 3);
	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.regressed, 2);
	assert_int_equal(t.ungated, 1);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	for (size_t i = 0; i < json_array_size(res); i++) {
		const json_t *o = json_array_get(res, i);

		assert_true(json_is_boolean(json_object_get(o, "gated")));
		if (!strcmp(str(o, "name"), "BM_a") &&
		    !strcmp(str(o, "metric"), "real_time"))
			assert_true(json_is_false(json_object_get(o, "gated")));
	}
	json_decref(res);
}

/*
 * Too few runs for the family: 5 a side give a least p of 2/252, which
 * Benjamini-Hochberg lifts to 0.016 over two series: under alpha 0.01
 * no lone change is called, and the comparison says so and how many
 * runs would do (6: 2/924 * 2 = 0.0043).
 */
static void test_compare__underpowered(void **state)
{
	static const char text[] = "version: 1\n"
	                           "project: {repo: .}\n"
	                           "benchmarks:\n"
	                           "  - {name: g, command: [./g], gate: all}\n"
	                           "  - {name: h, command: [./h], gate: all}\n"
	                           "  - {name: i, command: [./i], gate: all}\n";
	struct fixture *f;
	json_t *u, *e;

	assert_int_equal(setup_with(state, text), 0);
	f = *state;
	add_series(f, 0, "BM_a", "cpu_time", "ns", 100, 150, 0.5, 5);
	add_series(f, 0, "BM_b", "cpu_time", "ns", 100, 100, 0.01, 5);
	add_series(f, 1, "BM_c", "cpu_time", "ns", 100, 150, 0.5, 5);
	/* exact counts need no U test: 3 runs are not too few for them */
	add_series(f, 2, "BM_d", "cpu_time", "ns", 1000000, 1100000, 0, 3);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 5);
	assert_true(find(f, 2, "BM_d", "cpu_time")->result.exact);
	assert_int_equal(find(f, 2, "BM_d", "cpu_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	assert_true(find(f, 0, "BM_a", "cpu_time")->result.p_value < 0.01);
	assert_int_equal(find(f, 0, "BM_a", "cpu_time")->result.verdict,
	                 BF_VERDICT_UNKNOWN);
	/* alone in its family, h's change is called */
	assert_int_equal(find(f, 1, "BM_c", "cpu_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
	u = bf_comparison_underpowered_json(&f->c, &f->cfg);
	assert_int_equal(json_array_size(u), 1);
	e = json_array_get(u, 0);
	assert_string_equal(str(e, "benchmark"), "g");
	assert_int_equal(json_integer_value(json_object_get(e, "runs")), 5);
	assert_int_equal(json_integer_value(json_object_get(e, "family")), 2);
	assert_int_equal(json_integer_value(json_object_get(e, "min_runs")), 6);
	assert_true(fabs(json_real_value(json_object_get(e, "least_p")) -
	                 4.0 / 252) < 1e-12);
	json_decref(u);
}

/* p-values are adjusted across the series of one family. */
static void test_compare__fdr_across_series(void **state)
{
	struct fixture *f = *state;
	const struct bf_series *s;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	add_series(f, 0, "flat", "real_time", "ns", 100, 100, 0.01, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	s = find(f, 0, "slower", "real_time");
	/* BH with two tests, the other p = 1: the smaller doubles. */
	assert_true(s->result.p_value < 0.01);
	assert_true(fabs(s->result.p_adjusted - 2 * s->result.p_value) < 1e-12);
	assert_int_equal(s->result.verdict, BF_VERDICT_REGRESSED);
}

static void test_compare__zero_base_median_is_an_error(void **state)
{
	struct fixture *f = *state;
	const struct bf_series *s;
	struct bf_tally t;

	add_series(f, 0, "zero", "real_time", "ns", 0, 1, 0, 5);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);
	s = find(f, 0, "zero", "real_time");
	assert_false(s->judged);
	assert_non_null(s->error);
	assert_non_null(strstr(s->error, "median is 0"));
	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.errors, 1);
	assert_int_equal(t.measured, 0);
}

/* With min_effect 0.5 in the config, a 20% change is "same". */
static void test_compare__config_min_effect(void **state)
{
	struct fixture *f = *state;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 3);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_SAME);
}

static void test_compare__min_effect_override(void **state)
{
	struct fixture *f = *state;

	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	bf_comparison_judge(&f->c, &f->cfg, -1, 0.02, 3);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_REGRESSED);
}

static void test_compare__alpha_override(void **state)
{
	struct fixture *f = *state;

	/* 10 against 10, fully apart: p is about 1e-4, above 1e-9. */
	add_series(f, 0, "slower", "real_time", "ns", 100, 120, 0.5, 10);
	bf_comparison_judge(&f->c, &f->cfg, 1e-9, -1, 3);
	assert_int_equal(find(f, 0, "slower", "real_time")->result.verdict,
	                 BF_VERDICT_UNKNOWN);
}

/*
 * Duet: add_round records each round's cores for the series of its
 * benchmark; judged paired, a series whose ratios swing with the cores
 * gets core_effect and, beyond min_effect at alpha, "differ" in its JSON;
 * one whose ratios do not swing gets it too, not differing.
 */
static void test_compare__duet_cores(void **state)
{
	struct fixture *f = *state;
	json_t *res, *c;

	f->c.paired = true;
	for (int r = 0; r < 12; r++) {
		bool swapped = (r / 2) % 2 == 1; /* balanced pairs of rounds */
		/* the second core twice as slow in wall time, not in CPU */
		double wall = swapped ? 0.5 : 2.0, jitter = 1 + 0.001 * r;
		const struct metric base[] = { { "real_time", "ns", 100 },
			                       { "cpu_time", "ns", 100 } };
		const struct metric patch[] = {
			{ "real_time", "ns", 100 * wall * jitter },
			{ "cpu_time", "ns",
			  100 * jitter * (r % 2 ? 1 : 0.999) },
		};

		add_row(f, 0, BF_SIDE_BASE, r, "b", base, 2);
		add_row(f, 0, BF_SIDE_PATCH, r, "b", patch, 2);
		bf_comparison_add_round(&f->c, 0, swapped);
	}
	assert_int_equal(find(f, 0, "b", "real_time")->swapped.n, 12);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);
	assert_true(find(f, 0, "b", "real_time")->cores);
	assert_float_equal(find(f, 0, "b", "real_time")->core_effect, 1.0,
	                   0.01);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	c = json_object_get(result_of(res, "b", "real_time"), "duet_cores");
	assert_true(json_is_true(json_object_get(c, "differ")));
	assert_float_equal(num(c, "second_slower"), 1.0, 0.01);
	assert_true(num(c, "p_value") < 0.05);
	c = json_object_get(result_of(res, "b", "cpu_time"), "duet_cores");
	assert_true(json_is_false(json_object_get(c, "differ")));
	assert_true(fabs(num(c, "second_slower")) < 0.01);
	json_decref(res);
}

/* Not paired: no cores in the JSON. */
static void test_compare__no_cores_unpaired(void **state)
{
	struct fixture *f = *state;
	json_t *res;

	add_series(f, 0, "b", "real_time", "ns", 100, 100, 0.5, 6);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	assert_null(json_object_get(result_of(res, "b", "real_time"),
	                            "duet_cores"));
	json_decref(res);
}

static void test_compare__empty_comparison(void **state)
{
	struct fixture *f = *state;
	struct bf_tally t;
	json_t *res;

	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);
	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.measured + t.errors + t.regressed + t.improved +
	                         t.same + t.unknown,
	                 0);
	res = bf_comparison_results_json(&f->c, &f->cfg);
	assert_int_equal(json_array_size(res), 0);
	json_decref(res);
}

static void test_compare__real_or_null(void **state)
{
	json_t *v;

	(void)state;
	v = bf_json_real_or_null(1.5);
	assert_true(json_is_real(v) && json_real_value(v) == 1.5);
	json_decref(v);
	v = bf_json_real_or_null(NAN);
	assert_true(json_is_null(v));
	json_decref(v);
	v = bf_json_real_or_null(-INFINITY);
	assert_true(json_is_null(v));
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_compare__verdicts_and_tally),
		T(test_compare__results_json_fields),
		T(test_compare__fdr_across_series),
		T(test_compare__fdr_per_benchmark),
		cmocka_unit_test_teardown(test_compare__primary_gate, teardown),
		cmocka_unit_test_teardown(test_compare__underpowered, teardown),
		T(test_compare__zero_base_median_is_an_error),
		cmocka_unit_test_setup_teardown(test_compare__config_min_effect,
		                                setup_wide, teardown),
		cmocka_unit_test_setup_teardown(
		        test_compare__min_effect_override, setup_wide,
		        teardown),
		T(test_compare__alpha_override),
		T(test_compare__empty_comparison),
		T(test_compare__duet_cores),
		T(test_compare__no_cores_unpaired),
#undef T
		cmocka_unit_test(test_compare__real_or_null),
	};

	return cmocka_run_group_tests_name("compare_judge", tests, NULL, NULL);
}
