/*
 * Unit tests for store copy against a hostile source (store_copy.c):
 * SQLite keeps any value in any column, so a source file can hold the
 * text 'abc' as a sample's value, a name with a NUL byte in it or a
 * blob as a name, and a view can stand where a table was. Each such
 * row is refused naming its table, row and column, nothing is copied,
 * and a query of the source that runs away (a recursive view) ends
 * within the source's time bound. Built twice (tests/unit/files.mk):
 * on PostgreSQL only the runaway view applies (its columns hold their
 * declared types).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

/* A second store beside the fixture's: dir/dst.db. */
static struct bf_store *open_dst(struct fixture *f, char *path)
{
	struct bf_store *s = NULL;
	struct bf_err err = BF_ERR_INIT;

	pathf(path, "%s/dst.db", f->dir);
	assert_int_equal(bf_store_open(&s, path, &err), 0);
	return s;
}

/* A device, a run with three samples, and an alert in the source. */
static void fill(struct fixture *f)
{
	int64_t run;

	add_device(f->store, "d1");
	run = add_run(f->store, "compare", 1000);
	add_commit_sample(f->store, run, "BM_a", 1);
	add_commit_sample(f->store, run, "BM_b", 2);
	add_commit_sample(f->store, run, "BM_c", 3);
	add_alert(f->store, NULL, NULL, "c9", 0);
}

/*
 * Run sql on the source, then copy it: the copy must fail with want,
 * its message naming each of words, and the destination stay empty.
 */
static void refused(struct fixture *f, const char *sql, int want,
                    const char *const *words)
{
	struct bf_store_copy_result r;
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];
	struct bf_store *dst;
	int rc;

	fill(f);
	raw_exec(f->path, sql);
	dst = open_dst(f, path);
	rc = bf_store_copy(&r, dst, f->store, NULL, NULL, &err);
	if (rc != want)
		fail_msg("copy after '%s': %d, want %d (%s)", sql, rc, want,
		         err.msg);
	for (; *words; words++)
		if (!strstr(err.msg, *words))
			fail_msg("'%s' does not name '%s'", err.msg, *words);
	assert_int_equal(count(dst, "devices"), 0);
	assert_int_equal(count(dst, "runs"), 0);
	assert_int_equal(count(dst, "samples"), 0);
	assert_int_equal(count(dst, "alerts"), 0);
	bf_store_close(dst);
}

static void test_store__copy_refuses_text_value(void **state)
{
	static const char *const words[] = { "samples", "row 2", "value",
		                             NULL };

	if (store_on_pg)
		skip();
	refused(*state, "UPDATE samples SET value = 'abc' WHERE id = 2",
	        BF_EINVAL, words);
}

static void test_store__copy_refuses_nul_in_name(void **state)
{
	static const char *const words[] = { "samples", "row 3", "benchmark",
		                             "NUL", NULL };

	if (store_on_pg)
		skip();
	refused(*state,
	        "UPDATE samples SET benchmark = CAST(X'424d5f630078' AS TEXT)"
	        " WHERE id = 3",
	        BF_EINVAL, words);
}

static void test_store__copy_refuses_blob_name(void **state)
{
	static const char *const words[] = { "samples", "row 1", "benchmark",
		                             "blob", NULL };

	if (store_on_pg)
		skip();
	refused(*state, "UPDATE samples SET benchmark = X'00424d' WHERE id = 1",
	        BF_EINVAL, words);
}

static void test_store__copy_refuses_text_integer(void **state)
{
	static const char *const words[] = { "runs", "row 1", "started_at",
		                             NULL };

	if (store_on_pg)
		skip();
	refused(*state, "UPDATE runs SET started_at = '1000x'", BF_EINVAL,
	        words);
}

/*
 * The alerts table replaced by a view that never ends: counting it
 * runs until the source's time bound (0.2 s here) stops it.
 */
static void test_store__copy_bounds_a_recursive_view(void **state)
{
	static const char *const words[] = { "alerts", "0.2 s", NULL };
	struct fixture *f = *state;

	assert_int_equal(bf_store_set_query_limit(f->store, 0.2, NULL), 0);
	refused(f,
	        "DROP TABLE alerts; CREATE VIEW alerts AS WITH RECURSIVE"
	        " r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"
	        " SELECT n AS id, 'b' AS benchmark, 'm' AS metric,"
	        " '' AS device_class, 'c1' AS commit_lo, 'c2' AS commit_hi,"
	        " 'regression' AS direction, 0.1 AS size, 5.0 AS score,"
	        " 'open' AS status, 1 AS created_at, 0 AS group_id,"
	        " '' AS suite, NULL AS detail, NULL AS culprit FROM r",
	        BF_ETIMEOUT, words);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__copy_refuses_text_value),
		T(test_store__copy_refuses_nul_in_name),
		T(test_store__copy_refuses_blob_name),
		T(test_store__copy_refuses_text_integer),
		T(test_store__copy_bounds_a_recursive_view),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
