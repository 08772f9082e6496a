/*
 * Unit tests for gathering a comparison (orchestrator/job/compare.c):
 * each run's samples into series per benchmark, name and metric, the
 * config's metrics and directions, and the errors of a side.
 */
#include "unit/compare/fixture.h"

static void test_compare__run_contributes_its_median(void **state)
{
	struct fixture *f = *state;
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_series *a;
	json_t *first;

	/* Three repetitions of BM_a, interleaved with other rows. */
	bf_samples_add(&s, "BM_a", "real_time", "ns", 10, 0);
	bf_samples_add(&s, "BM_b", "real_time", "ns", 100, 0);
	bf_samples_add(&s, "BM_a", "cpu_time", "ns", 7, 0);
	bf_samples_add(&s, "BM_a", "real_time", "ns", 30, 1);
	bf_samples_add(&s, "BM_a", "cpu_time", "ns", 5, 1);
	bf_samples_add(&s, "BM_a", "real_time", "ns", 20, 2);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_BASE, 0, &s);
	bf_samples_release(&s);

	assert_int_equal(f->c.n, 3);
	/* series in the order their first row was printed */
	assert_string_equal(f->c.series[0].name, "BM_a");
	assert_string_equal(f->c.series[0].metric, "real_time");
	assert_string_equal(f->c.series[1].name, "BM_b");
	assert_string_equal(f->c.series[2].metric, "cpu_time");
	a = find(f, 0, "BM_a", "real_time");
	assert_int_equal(a->side[BF_SIDE_BASE].n, 1);
	assert_true(a->side[BF_SIDE_BASE].v[0] == 20);
	assert_int_equal(a->side[BF_SIDE_PATCH].n, 0);
	/* An even count gives the mean of the middle two. */
	assert_true(find(f, 0, "BM_a", "cpu_time")->side[0].v[0] == 6);
	assert_true(find(f, 0, "BM_b", "real_time")->side[0].v[0] == 100);
	assert_int_equal(f->c.runs_ok[0], 1);
	assert_int_equal(f->c.runs_ok[1], 0);

	/* Each raw row is kept, with where it came from. */
	assert_int_equal(json_array_size(f->c.samples), 6);
	first = json_array_get(f->c.samples, 3);
	assert_string_equal(str(first, "benchmark"), "micro");
	assert_string_equal(str(first, "name"), "BM_a");
	assert_string_equal(str(first, "metric"), "real_time");
	assert_string_equal(str(first, "unit"), "ns");
	assert_string_equal(str(first, "side"), "base");
	assert_int_equal(json_integer_value(json_object_get(first, "repeat")),
	                 0);
	assert_int_equal(
	        json_integer_value(json_object_get(first, "iteration")), 1);
	assert_true(num(first, "value") == 30);

	/* A second run adds one more value per series, in run order. */
	bf_samples_init(&s);
	for (int i = 0; i < 5; i++)
		bf_samples_add(&s, "BM_a", "real_time", "ns",
		               (double[]){ 4, 100, 1, 3, 2 }[i], i);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_BASE, 1, &s);
	bf_comparison_add_run(&f->c, &f->cfg, 0, BF_SIDE_PATCH, 0, &s);
	bf_samples_release(&s);
	a = find(f, 0, "BM_a", "real_time");
	assert_int_equal(a->side[BF_SIDE_BASE].n, 2);
	assert_true(a->side[BF_SIDE_BASE].v[1] == 3);
	assert_int_equal(a->side[BF_SIDE_PATCH].n, 1);
	assert_true(a->side[BF_SIDE_PATCH].v[0] == 3);
	assert_int_equal(f->c.runs_ok[0], 2);
	assert_int_equal(f->c.runs_ok[1], 1);
	assert_int_equal(f->c.n, 3);
}

/* Thousands of names: each its own series, found again on each run. */
static void test_compare__many_names(void **state)
{
	struct fixture *f = *state;
	char name[32];

	for (int run = 0; run < 3; run++) {
		struct bf_samples s = BF_SAMPLES_INIT;

		for (int i = 5000; i-- > 0;) {
			snprintf(name, sizeof(name), "n%d", i);
			bf_samples_add(&s, name, "value", "ns", i + run, 0);
		}
		bf_comparison_add_run(&f->c, &f->cfg, 0, run % 2, run, &s);
		bf_samples_release(&s);
	}
	assert_int_equal(f->c.n, 5000);
	for (size_t i = 0; i < f->c.n; i++) {
		const struct bf_series *x = &f->c.series[i];

		snprintf(name, sizeof(name), "n%zu", 4999 - i);
		assert_string_equal(x->name, name);
		assert_int_equal(x->side[BF_SIDE_BASE].n, 2);
		assert_int_equal(x->side[BF_SIDE_PATCH].n, 1);
		assert_true(x->side[BF_SIDE_PATCH].v[0] ==
		            4999 - (double)i + 1);
	}
}

static void test_compare__series_are_per_benchmark(void **state)
{
	struct fixture *f = *state;

	add1(f, 0, BF_SIDE_BASE, 0, "BM_x", "real_time", "ns", 1);
	add1(f, 1, BF_SIDE_BASE, 0, "BM_x", "real_time", "ns", 2);
	assert_int_equal(f->c.n, 2);
	assert_true(find(f, 0, "BM_x", "real_time")->side[0].v[0] == 1);
	assert_true(find(f, 1, "BM_x", "real_time")->side[0].v[0] == 2);
	assert_int_equal(f->c.runs_ok[0], 1);
	assert_int_equal(f->c.runs_ok[2], 1);
}

static void test_compare__config_metrics_filter_and_direction(void **state)
{
	static const struct metric m[] = {
		{ "real_time", "ns", 10 },
		{ "cpu_time", "ns", 9 },
		{ "score", "", 5 },
		{ "rate", "/s", 1000 },
		{ "items_per_second", "/s", 1e6 },
	};
	struct fixture *f = *state;

	add_row(f, 1, BF_SIDE_PATCH, 0, "BM_p", m, 5);

	/* Only the listed metrics make series. */
	assert_int_equal(f->c.n, 3);
	for (size_t i = 0; i < f->c.n; i++) {
		assert_string_not_equal(f->c.series[i].metric, "cpu_time");
		assert_string_not_equal(f->c.series[i].metric,
		                        "items_per_second");
	}
	assert_false(find(f, 1, "BM_p", "real_time")->higher_is_better);
	/* The config's direction wins over the unit, both ways. */
	assert_true(find(f, 1, "BM_p", "score")->higher_is_better);
	assert_false(find(f, 1, "BM_p", "rate")->higher_is_better);
	/* Raw samples are all kept. */
	assert_int_equal(json_array_size(f->c.samples), 5);
}

static void test_compare__default_direction_from_unit(void **state)
{
	static const struct metric m[] = {
		{ "real_time", "ns", 1 }, { "items_per_second", "/s", 1 },
		{ "bytes", "B/s", 1 },    { "count", "", 1 },
		{ "seconds", "s", 1 },    { "slash", "/", 1 },
	};
	struct fixture *f = *state;

	add_row(f, 0, BF_SIDE_BASE, 0, "BM", m, 6);

	assert_int_equal(f->c.n, 6);
	assert_false(find(f, 0, "BM", "real_time")->higher_is_better);
	assert_true(find(f, 0, "BM", "items_per_second")->higher_is_better);
	assert_true(find(f, 0, "BM", "bytes")->higher_is_better);
	assert_false(find(f, 0, "BM", "count")->higher_is_better);
	assert_false(find(f, 0, "BM", "seconds")->higher_is_better);
	assert_false(find(f, 0, "BM", "slash")->higher_is_better);
	assert_string_equal(find(f, 0, "BM", "bytes")->unit, "B/s");
}

/*
 * A patch that renames its slowed benchmark (only_base is the base's
 * name, only_patch the patch's) while another benchmark is measured:
 * each series one side does not report has its own verdict, "missing"
 * with the side, counted apart from errors, never "not measured".
 */
static void test_compare__missing_side_is_its_own_verdict(void **state)
{
	struct fixture *f = *state;
	struct bf_tally t;
	json_t *res, *o;

	for (int r = 0; r < 3; r++) {
		add1(f, 0, BF_SIDE_BASE, r, "only_base", "real_time", "ns",
		     10 + r);
		add1(f, 0, BF_SIDE_PATCH, r, "only_patch", "real_time", "ns",
		     10 + r);
	}
	add_series(f, 0, "both", "real_time", "ns", 100, 100, 0.01, 5);
	bf_comparison_judge(&f->c, &f->cfg, -1, -1, 1);

	assert_false(find(f, 0, "only_base", "real_time")->judged);
	assert_int_equal(find(f, 0, "only_base", "real_time")->missing,
	                 BF_SIDE_PATCH);
	assert_false(find(f, 0, "only_patch", "real_time")->judged);
	assert_int_equal(find(f, 0, "only_patch", "real_time")->missing,
	                 BF_SIDE_BASE);
	assert_true(find(f, 0, "both", "real_time")->judged);
	assert_int_equal(find(f, 0, "both", "real_time")->missing, -1);

	bf_comparison_tally(&t, &f->c);
	assert_int_equal(t.missing, 2);
	assert_int_equal(t.errors, 0);
	assert_int_equal(t.measured, 1);

	res = bf_comparison_results_json(&f->c, &f->cfg);
	o = result_of(res, "only_base", "real_time");
	assert_string_equal(str(o, "verdict"), "missing");
	assert_string_equal(str(o, "missing"), "patch");
	assert_non_null(strstr(str(o, "error"), "the base reports"));
	assert_string_equal(str(o, "benchmark"), "micro");
	assert_null(json_object_get(o, "effect"));
	o = result_of(res, "only_patch", "real_time");
	assert_string_equal(str(o, "verdict"), "missing");
	assert_string_equal(str(o, "missing"), "base");
	assert_non_null(strstr(str(o, "error"), "the patch reports"));
	json_decref(res);
}

static void test_compare__add_error_counts_and_json(void **state)
{
	struct fixture *f = *state;
	json_t *e;

	bf_comparison_add_error(&f->c, &f->cfg, 1, BF_SIDE_PATCH, 3, "timeout",
	                        "'picky' timed out after 300 s");
	bf_comparison_add_error(&f->c, &f->cfg, 1, BF_SIDE_PATCH, 4,
	                        "benchmark_failed", "'picky' exited 1");
	bf_comparison_add_error(&f->c, &f->cfg, 0, BF_SIDE_BASE, 0,
	                        "parse_error", "out:1:1: bad");
	assert_int_equal(f->c.runs_failed[1 * 2 + BF_SIDE_PATCH], 2);
	assert_int_equal(f->c.runs_failed[0 * 2 + BF_SIDE_BASE], 1);
	assert_int_equal(f->c.runs_failed[1 * 2 + BF_SIDE_BASE], 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(f->c.runs_ok[i], 0);
	/* Failed runs make no series. */
	assert_int_equal(f->c.n, 0);

	assert_int_equal(json_array_size(f->c.errors), 3);
	e = json_array_get(f->c.errors, 0);
	assert_string_equal(str(e, "benchmark"), "picky");
	assert_string_equal(str(e, "side"), "patch");
	assert_int_equal(json_integer_value(json_object_get(e, "repeat")), 3);
	assert_string_equal(str(e, "code"), "timeout");
	assert_string_equal(str(e, "message"), "'picky' timed out after 300 s");
	e = json_array_get(f->c.errors, 2);
	assert_string_equal(str(e, "benchmark"), "micro");
	assert_string_equal(str(e, "side"), "base");
	assert_string_equal(str(e, "code"), "parse_error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_compare__run_contributes_its_median),
		T(test_compare__many_names),
		T(test_compare__series_are_per_benchmark),
		T(test_compare__config_metrics_filter_and_direction),
		T(test_compare__default_direction_from_unit),
		T(test_compare__missing_side_is_its_own_verdict),
		T(test_compare__add_error_counts_and_json),
#undef T
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
