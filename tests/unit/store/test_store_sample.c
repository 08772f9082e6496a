/* Unit tests for a batch of samples (bf_store_sample_add_many): on
 * SQLite one INSERT per sample, on PostgreSQL one COPY for the batch
 * (sql_pg_copy.c). Both must store the same rows, read back exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

/* Strings COPY's text format must escape or must not mistake for its
 * own markers, and bytes beyond ASCII. */
static const char *const hostile[] = {
	"BM_plain/1024",
	"back\\slash",
	"tab\there",
	"new\nline",
	"carriage\rreturn",
	"\\N",
	"\\.",
	"\\",
	"end\\",
	"quote'd \"and\" ;DROP TABLE samples;--",
	"tabs\t\t\tand\\t escapes \\n",
	"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5",
	",comma,separated,",
	" ",
};

static const double values[] = {
	0.0,     1.0,      -1.5, 1e-300,  DBL_MIN,
	DBL_MAX, -DBL_MAX, 0.1,  1.0 / 3, 123456789.123456789,
	5e-324,  2.5e15,
};

#define NH BF_ARRAY_SIZE(hostile)
#define NV BF_ARRAY_SIZE(values)

/* Sample i of a batch: hostile strings in every text column, NULLs in
 * the optional ones, a unit left NULL now and then (stored as ""). */
static void make_sample(struct bf_store_sample *s, int64_t run, size_t i)
{
	memset(s, 0, sizeof(*s));
	s->run_id = run;
	s->benchmark = (char *)hostile[i % NH];
	s->metric = (char *)hostile[(i + 3) % NH];
	s->unit = i % 7 == 0 ? NULL : (char *)hostile[(i + 5) % NH];
	s->side = (char *)(i % 3 == 0   ? "base"
	                   : i % 3 == 1 ? "patch"
	                                : "commit");
	s->commit_id = i % 5 == 0 ? NULL : (char *)hostile[(i + 1) % NH];
	s->device = i % 11 == 0 ? NULL : (char *)hostile[(i + 2) % NH];
	s->suite = i % 4 == 0 ? NULL : (char *)hostile[(i + 7) % NH];
	s->repeat_idx = (int64_t)(i / 10) - 3;
	s->iter_idx = i % 2 ? INT64_MAX - (int64_t)i : INT64_MIN + (int64_t)i;
	/* negated now and then; never -0.0, which SQLite stores as 0 */
	s->value = values[i % NV];
	if (i % 13 == 0 && s->value != 0)
		s->value = -s->value;
}

struct check {
	int64_t run;
	size_t n; /* rows seen */
};

static void assert_opt_string(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

/* Each row read back must be make_sample's row n, in order. */
static int check_row(const struct bf_store_sample *s, void *payload)
{
	struct check *c = payload;
	struct bf_store_sample w;

	make_sample(&w, c->run, c->n++);
	assert_int_equal(s->run_id, w.run_id);
	assert_string_equal(s->benchmark, w.benchmark);
	assert_string_equal(s->metric, w.metric);
	assert_string_equal(s->unit, w.unit ? w.unit : "");
	assert_string_equal(s->side, w.side);
	assert_opt_string(s->commit_id, w.commit_id);
	assert_opt_string(s->device, w.device);
	assert_opt_string(s->suite, w.suite);
	assert_int_equal(s->repeat_idx, w.repeat_idx);
	assert_int_equal(s->iter_idx, w.iter_idx);
	assert_memory_equal(&s->value, &w.value, sizeof(double));
	return 0;
}

static struct bf_store_sample *batch(int64_t run, size_t n)
{
	struct bf_store_sample *rows = bf_xcalloc(n, sizeof(*rows));

	for (size_t i = 0; i < n; i++)
		make_sample(&rows[i], run, i);
	return rows;
}

/* A batch far larger than one chunk of COPY data, then a second batch
 * of the same run: every row back, byte for byte, in order. */
static void test_sample__batch_reads_back_exactly(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t run = add_run(f->store, "run", 1000);
	struct bf_store_sample *rows = batch(run, 5000);
	struct check c = { run, 0 };

	assert_int_equal(bf_store_sample_add_many(f->store, rows, 3000, &err),
	                 0);
	assert_int_equal(
	        bf_store_sample_add_many(f->store, rows + 3000, 2000, &err), 0);
	assert_int_equal(
	        bf_store_samples_foreach(f->store, run, check_row, &c, &err),
	        0);
	assert_int_equal(c.n, 5000);
	assert_int_equal(count(f->store, "samples"), 5000);
	/* an empty batch stores nothing and is no error */
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 0, &err), 0);
	assert_int_equal(count(f->store, "samples"), 5000);
	free(rows);
}

/* A bad sample anywhere in a batch stores none of it, names the
 * sample, and leaves the store usable. */
static void test_sample__bad_sample_stores_nothing(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t run = add_run(f->store, "run", 1000);
	struct bf_store_sample *rows = batch(run, 300);
	struct check c = { run, 0 };

	rows[250].side = (char *)"sideways";
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 300, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "sample 250"));
	assert_non_null(strstr(err.msg, "unknown side 'sideways'"));
	assert_int_equal(count(f->store, "samples"), 0);

	rows[299].run_id = run + 1000;
	bf_err_clear(&err);
	rows[250].side = (char *)"base";
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 300, &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "no run"));
	assert_int_equal(count(f->store, "samples"), 0);

	for (size_t i = 0; i < 300; i++)
		rows[i].run_id = run + 1000;
	bf_err_clear(&err);
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 300, &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "no run"));
	assert_int_equal(count(f->store, "samples"), 0);

	/* the connection and the store are fine afterwards */
	free(rows);
	rows = batch(run, 300);
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 300, &err),
	                 0);
	assert_int_equal(
	        bf_store_samples_foreach(f->store, run, check_row, &c, &err),
	        0);
	assert_int_equal(c.n, 300);
	free(rows);
}

/* Inside the caller's transaction the batch is part of it: a rollback
 * takes it back, a commit keeps it. */
static void test_sample__batch_in_a_transaction(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t run = add_run(f->store, "run", 1000);
	struct bf_store_sample *rows = batch(run, 100);
	struct check c = { run, 0 };

	assert_int_equal(bf_store_begin(f->store, &err), 0);
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 100, &err),
	                 0);
	assert_int_equal(bf_store_rollback(f->store, &err), 0);
	assert_int_equal(count(f->store, "samples"), 0);

	assert_int_equal(bf_store_begin(f->store, &err), 0);
	assert_int_equal(bf_store_sample_add_many(f->store, rows, 100, &err),
	                 0);
	assert_int_equal(bf_store_commit(f->store, &err), 0);
	assert_int_equal(
	        bf_store_samples_foreach(f->store, run, check_row, &c, &err),
	        0);
	assert_int_equal(c.n, 100);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_sample__batch_reads_back_exactly),
		T(test_sample__bad_sample_stores_nothing),
		T(test_sample__batch_in_a_transaction),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
