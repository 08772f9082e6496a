/*
 * Unit tests for the store's backend-neutral SQL (store/sql.h), over
 * SQLite (test_store_sql) and PostgreSQL (test_store_sql_pg): binding every
 * value type, rows through a callback, changes, errors mapped and worded with
 * what was being done, a callback that stops the query or runs the same
 * statement again, more distinct statements than the connection keeps, and
 * write transactions.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/sql.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

#define CREATE "CREATE TABLE t (k TEXT PRIMARY KEY, i INTEGER, r REAL)"
#define INSERT "INSERT INTO t (k, i, r) VALUES (?1, ?2, ?3)"
#define SELECT "SELECT k, i, r FROM t ORDER BY k"

static void exec_ok(struct bf_store *s, const char *sql,
                    const struct bf_sql_val *v, size_t n)
{
	struct bf_err err = BF_ERR_INIT;

	if (bf_sql_exec(s, sql, v, n, NULL, NULL, NULL, &err, "test"))
		fail_msg("%s: %s", sql, err.msg);
}

static void put(struct bf_store *s, const char *k, int64_t i, double r)
{
	struct bf_sql_val v[] = { BF_SQL_V_TEXT(k), BF_SQL_V_INT(i),
		                  BF_SQL_V_REAL(r) };

	exec_ok(s, INSERT, v, 3);
}

static int first_int(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

/* The rows in t (bf_store_count knows only the store's own tables). */
static int64_t count_t(struct bf_store *s)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t n = -1;

	assert_int_equal(bf_sql_exec(s, "SELECT count(*) FROM t", NULL, 0,
	                             first_int, &n, NULL, &err, "count"),
	                 0);
	return n;
}

struct rows {
	char text[256];
	int stop_at; /* return 7 at this row (1-based); 0: never */
	int n;
	struct bf_store *store; /* set: each row runs SELECT again */
	int inner;
};

static int collect(const struct bf_sql_row *row, void *payload)
{
	struct rows *r = payload;
	size_t len = strlen(r->text);
	char *k = bf_sql_strdup(row, 0);

	r->n++;
	snprintf(r->text + len, sizeof(r->text) - len, "%s=%lld/%s%s;",
	         k ? k : "(null)", (long long)bf_sql_int(row, 1),
	         bf_sql_is_null(row, 2) ? "null" : "",
	         bf_sql_is_null(row, 2)
	                 ? ""
	                 : (bf_sql_real(row, 2) == 0.5 ? "0.5" : "other"));
	free(k);
	if (r->store) {
		struct rows in = { .n = 0 };
		struct bf_err err = BF_ERR_INIT;

		assert_int_equal(bf_sql_exec(r->store, SELECT, NULL, 0, collect,
		                             &in, NULL, &err, "inner"),
		                 0);
		r->inner += in.n;
	}
	return r->stop_at && r->n == r->stop_at ? 7 : 0;
}

static void test_sql__binds_reads_and_counts(void **state)
{
	struct fixture *f = *state;
	struct bf_sql_val v[] = { BF_SQL_V_TEXT("b"), BF_SQL_V_NULL,
		                  BF_SQL_V_NULL };
	struct bf_err err = BF_ERR_INIT;
	struct rows r = { .n = 0 };
	int64_t changes = -1;

	assert_int_equal(bf_sql_backend(f->store),
	                 store_on_pg ? BF_SQL_PG : BF_SQL_SQLITE);
	exec_ok(f->store, CREATE, NULL, 0);
	put(f->store, "a", 1, 0.5);
	exec_ok(f->store, INSERT, v, 3);
	assert_int_equal(bf_sql_exec(f->store, SELECT, NULL, 0, collect, &r,
	                             NULL, &err, "listing"),
	                 0);
	assert_string_equal(r.text, "a=1/0.5;b=0/null;");
	assert_int_equal(bf_sql_exec(f->store, "UPDATE t SET i = i + ?1",
	                             (struct bf_sql_val[]){ BF_SQL_V_INT(5) },
	                             1, NULL, NULL, &changes, &err, "bump"),
	                 0);
	assert_int_equal(changes, 2);
	/* a TEXT value whose text is NULL binds NULL */
	v[0] = BF_SQL_V_TEXT(NULL);
	memset(&r, 0, sizeof(r));
	assert_int_equal(bf_sql_exec(f->store, "SELECT ?1 IS NULL, 1, NULL", v,
	                             1, collect, &r, NULL, &err, "null text"),
	                 0);
	assert_string_equal(r.text, "1=1/null;");
}

static void test_sql__errors_are_mapped_and_worded(void **state)
{
	struct fixture *f = *state;
	struct bf_sql_val v[] = { BF_SQL_V_TEXT("a"), BF_SQL_V_INT(2),
		                  BF_SQL_V_REAL(1) };
	struct bf_err err = BF_ERR_INIT;

	exec_ok(f->store, CREATE, NULL, 0);
	put(f->store, "a", 1, 0.5);
	assert_int_equal(bf_sql_exec(f->store, INSERT, v, 3, NULL, NULL, NULL,
	                             &err, "cannot add key '%s'", "a"),
	                 BF_EEXISTS);
	assert_non_null(strstr(err.msg, "cannot add key 'a'"));
	assert_non_null(
	        strstr(err.msg, store_on_pg ? "unique constraint" : "UNIQUE"));
	err = (struct bf_err)BF_ERR_INIT;
	assert_int_not_equal(bf_sql_exec(f->store, "SELECT nope FROM t", NULL,
	                                 0, NULL, NULL, NULL, &err,
	                                 "cannot list"),
	                     0);
	assert_non_null(strstr(err.msg, "cannot list"));
	/* the failed statement left nothing behind: the next one runs */
	put(f->store, "b", 2, 0.5);
	assert_int_equal(count_t(f->store), 2);
}

static void test_sql__callback_stops_and_nests(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct rows r = { .stop_at = 2 };

	exec_ok(f->store, CREATE, NULL, 0);
	put(f->store, "a", 1, 0.5);
	put(f->store, "b", 2, 0.5);
	put(f->store, "c", 3, 0.5);
	assert_int_equal(bf_sql_exec(f->store, SELECT, NULL, 0, collect, &r,
	                             NULL, &err, "stop"),
	                 7);
	assert_int_equal(r.n, 2);
	/* stopped midway, the statement is reset: it runs again from row 1 */
	memset(&r, 0, sizeof(r));
	r.store = f->store;
	assert_int_equal(bf_sql_exec(f->store, SELECT, NULL, 0, collect, &r,
	                             NULL, &err, "nest"),
	                 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.inner, 9);
}

static void test_sql__more_statements_than_kept(void **state)
{
	struct fixture *f = *state;
	char *sql[80];
	int i;

	exec_ok(f->store, CREATE, NULL, 0);
	put(f->store, "a", 1, 0.5);
	/* each text a statement of its own; the first ones come back after
	 * the cache has turned over, and still run */
	for (i = 0; i < 80; i++)
		sql[i] = bf_xasprintf("SELECT k, i + %d, r FROM t", i);
	for (i = 0; i < 160; i++) {
		struct rows r = { .n = 0 };
		struct bf_err err = BF_ERR_INIT;
		char want[32];

		assert_int_equal(bf_sql_exec(f->store, sql[i % 80], NULL, 0,
		                             collect, &r, NULL, &err, "q"),
		                 0);
		snprintf(want, sizeof(want), "a=%d/0.5;", 1 + i % 80);
		assert_string_equal(r.text, want);
	}
	for (i = 0; i < 80; i++)
		free(sql[i]);
}

/* A row callback that runs 40 statements of their own, filling the
 * cache while its caller's statement is running. */
static int churn(const struct bf_sql_row *row, void *payload)
{
	struct bf_store *s = payload;
	struct bf_err err = BF_ERR_INIT;
	int64_t got = -1;

	(void)row;
	for (int i = 0; i < 40; i++) {
		char *sql = bf_xasprintf("SELECT %d + count(*) FROM t", i);

		assert_int_equal(bf_sql_exec(s, sql, NULL, 0, first_int, &got,
		                             NULL, &err, "churn"),
		                 0);
		/* the text is gone once the call returns: the cache keeps
		 * its own copy */
		memset(sql, 'x', strlen(sql));
		free(sql);
		assert_int_equal(got, i + 2);
	}
	return 0;
}

static void test_sql__cache_turns_over_under_a_running_query(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct rows r = { .n = 0 };

	exec_ok(f->store, CREATE, NULL, 0);
	put(f->store, "a", 1, 0.5);
	put(f->store, "b", 2, 0.5);
	assert_int_equal(bf_sql_exec(f->store, SELECT, NULL, 0, churn, f->store,
	                             NULL, &err, "outer"),
	                 0);
	/* the outer statement was not moved or freed under it: it runs
	 * again, whole */
	assert_int_equal(bf_sql_exec(f->store, SELECT, NULL, 0, collect, &r,
	                             NULL, &err, "again"),
	                 0);
	assert_string_equal(r.text, "a=1/0.5;b=2/0.5;");
	assert_int_equal(count_t(f->store), 2);
}

static void test_sql__write_transactions(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int outer, inner;

	exec_ok(f->store, CREATE, NULL, 0);
	assert_int_equal(bf_sql_write_begin(&outer, f->store, &err), 0);
	put(f->store, "a", 1, 0.5);
	assert_int_equal(bf_sql_write_begin(&inner, f->store, &err), 0);
	put(f->store, "b", 2, 0.5);
	/* the inner part rolls back alone */
	assert_int_equal(bf_sql_write_end(f->store, inner, BF_EINVAL, &err),
	                 BF_EINVAL);
	assert_int_equal(bf_sql_write_end(f->store, outer, 0, &err), 0);
	assert_int_equal(count_t(f->store), 1);
	assert_int_equal(bf_sql_write_begin(&outer, f->store, &err), 0);
	put(f->store, "c", 3, 0.5);
	assert_int_equal(bf_sql_write_end(f->store, outer, BF_ERROR, &err),
	                 BF_ERROR);
	assert_int_equal(count_t(f->store), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		        test_sql__binds_reads_and_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_sql__errors_are_mapped_and_worded, setup,
		        teardown),
		cmocka_unit_test_setup_teardown(
		        test_sql__callback_stops_and_nests, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_sql__more_statements_than_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_sql__cache_turns_over_under_a_running_query, setup,
		        teardown),
		cmocka_unit_test_setup_teardown(test_sql__write_transactions,
		                                setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
