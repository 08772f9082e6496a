/* Unit tests for the store's file, schema, migrations, default path and
 * transactions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/sql_sqlite.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

static void test_store__create_and_reopen_keeps_data(void **state)
{
	struct fixture *f = *state;
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char want[16];
	char *s;

	add_device(f->store, "pixel-1");
	assert_string_equal(bf_store_path(f->store), f->path);
	close_store(f);
	s = raw_text(f->path, "PRAGMA user_version");
	snprintf(want, sizeof(want), "%d", BF_STORE_SCHEMA_VERSION);
	assert_string_equal(s, want);
	free(s);
	s = raw_text(f->path, "PRAGMA journal_mode");
	assert_string_equal(s, "wal");
	free(s);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(count(f->store, "devices"), 1);
	assert_int_equal(bf_store_device_get(&d, f->store, "pixel-1", &err), 0);
	assert_string_equal(d.type, "linux");
	assert_string_equal(d.state, "idle");
	assert_string_equal(d.health, "unknown");
	assert_string_equal(d.labels, "");
	assert_null(d.host);
	assert_true(d.created_at > 0);
	bf_store_device_release(&d);
	assert_int_equal(bf_store_integrity_check(f->store, &err), 0);
}

static void test_store__file_and_dir_modes(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char path[PATH_MAX], wal[PATH_MAX];
	struct stat st;
	mode_t old;

	/* umask 0, so only the modes the store asks for can protect. */
	pathf(path, "%s/a/b/new.db", f->dir);
	old = umask(0);
	assert_int_equal(bf_store_open(&s, path, &err), 0);
	add_device(s, "d");
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	pathf(wal, "%s-wal", path);
	assert_int_equal(stat(wal, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	pathf(path, "%s/a/b", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	pathf(path, "%s/a", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	bf_store_close(s);
}

/*
 * Opening path fails with code, leaves no store and leaves the file as
 * it was, byte for byte; err says why.
 */
static void expect_refused(const char *path, int code, struct bf_err *err)
{
	struct bf_store *s = NULL;
	size_t nb;
	char *before = slurp(path, &nb);

	assert_int_equal(bf_store_open(&s, path, err), code);
	assert_null(s);
	assert_int_equal(err->code, code);
	assert_unchanged(path, before, nb);
}

static void test_store__refuses_newer_schema(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	char want[PATH_MAX];

	close_store(f);
	raw_exec(f->path, "PRAGMA user_version = 99");
	expect_refused(f->path, BF_EVERSION, &err);
	pathf(want,
	      "'%s' has schema version 99, newer than this benchfarm (%d); upgrade benchfarm",
	      f->path, BF_STORE_SCHEMA_VERSION);
	assert_string_equal(err.msg, want);
}

static void test_store__refuses_garbage_file_unchanged(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX], want[PATH_MAX];
	FILE *fp;
	int i;

	pathf(path, "%s/notes.txt", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (i = 0; i < 100; i++)
		fprintf(fp, "line %d: these are my notes, not a database\n", i);
	fclose(fp);
	expect_refused(path, BF_ECORRUPT, &err);
	pathf(want, "'%s' is not a benchfarm database (file is not a database)",
	      path);
	assert_string_equal(err.msg, want);
	assert_false(sidecar_exists(path, "-wal"));
	assert_false(sidecar_exists(path, "-shm"));
	assert_false(sidecar_exists(path, "-journal"));
}

static void test_store__refuses_other_sqlite_database(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];

	pathf(path, "%s/other.db", f->dir);
	raw_exec(path, "CREATE TABLE foo (x); INSERT INTO foo VALUES (1)");
	expect_refused(path, BF_ECORRUPT, &err);
	assert_non_null(strstr(
	        err.msg,
	        "is not a benchfarm database (it holds another program's tables)"));
	/* A user_version alone does not make it ours either. */
	raw_exec(path, "PRAGMA user_version = 1");
	expect_refused(path, BF_ECORRUPT, &err);
}

/* An environment variable saved for restoring (NULL: was unset). */
static char *save_env(const char *name)
{
	const char *v = getenv(name);

	return v ? bf_xstrdup(v) : NULL;
}

static void restore_env(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

static void expect_path(const char *db_flag, const char *want)
{
	struct bf_err err = BF_ERR_INIT;
	char *out = NULL;

	assert_int_equal(bf_store_default_path(&out, db_flag, &err), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_store__default_path_resolution(void **state)
{
	char *db = save_env("BENCHFARM_DB");
	char *xdg = save_env("XDG_DATA_HOME");
	char *home = save_env("HOME");
	struct bf_err err = BF_ERR_INIT;
	char *out = NULL;

	(void)state;
	setenv("BENCHFARM_DB", "/env/bf.db", 1);
	setenv("XDG_DATA_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	expect_path("flag.db", "flag.db");
	assert_int_equal(bf_store_default_path(&out, "", &err), BF_EINVAL);
	assert_null(out);
	expect_path(NULL, "/env/bf.db");
	setenv("BENCHFARM_DB", "", 1);
	expect_path(NULL, "/xdg/benchfarm/benchfarm.db");
	unsetenv("BENCHFARM_DB");
	expect_path(NULL, "/xdg/benchfarm/benchfarm.db");
	setenv("XDG_DATA_HOME", "relative/dir", 1);
	expect_path(NULL, "/home/u/.local/share/benchfarm/benchfarm.db");
	unsetenv("XDG_DATA_HOME");
	expect_path(NULL, "/home/u/.local/share/benchfarm/benchfarm.db");
	unsetenv("HOME");
	assert_int_equal(bf_store_default_path(&out, NULL, &err), BF_ENOTFOUND);
	assert_null(out);
	assert_non_null(strstr(err.msg, "HOME"));
	expect_path("/x.db", "/x.db");
	restore_env("BENCHFARM_DB", db);
	restore_env("XDG_DATA_HOME", xdg);
	restore_env("HOME", home);
}

/*
 * A schema-5 store (the alerts key without the suite, as a table
 * constraint), built by the shipped migration steps 0..4, is migrated:
 * its alerts are kept, and the suite is now part of the key.
 */
static void test_store__migrates_alert_key(void **state)
{
	struct fixture *f = *state;
	struct bf_store_alert *list = NULL;
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];
	size_t n = 0;

	close_store(f);
	pathf(path, "%s/v5.db", f->dir);
	for (int v = 0; v < 5; v++)
		raw_exec(path, bf_store__migrations[v]);
	raw_exec(path,
	         "INSERT INTO alerts (id, benchmark, metric, commit_lo,"
	         " commit_hi, direction, size, score, status, created_at,"
	         " group_id, suite, detail, culprit) VALUES (7, 'BM_x',"
	         " 'cpu_time', 'c1', 'c2', 'regressed', 0.1, 30, 'ack', 5, 9,"
	         " 's1', '{}', 'c2');"
	         "PRAGMA user_version = 5;");
	assert_int_equal(bf_store_open(&f->store, path, &err), 0);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, NULL, &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, 7);
	assert_string_equal(list[0].status, "ack");
	assert_string_equal(list[0].suite, "s1");
	assert_string_equal(list[0].culprit, "c2");
	assert_int_equal(list[0].group_id, 9);
	bf_store_alerts_free(list, n);
	add_alert(f->store, NULL, "s2", "c2", 0);
	add_alert(f->store, NULL, "s1", "c2", BF_EEXISTS);
	assert_int_equal(bf_store_integrity_check(f->store, &err), 0);
}

static void test_store__rollback_leaves_nothing(void **state)
{
	struct fixture *f = *state;
	struct bf_store_sample s = { 0 }, many[2];
	struct bf_err err = BF_ERR_INIT;
	char bench[] = "b", metric[] = "m", side[] = "patch";

	assert_int_equal(bf_store_commit(f->store, &err), BF_EINVAL);
	assert_int_equal(bf_store_rollback(f->store, &err), 0);
	assert_int_equal(bf_store_begin(f->store, &err), 0);
	assert_int_equal(bf_store_begin(f->store, &err), BF_EINVAL);
	add_device(f->store, "dev");
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "dev", "A", 60, 1, &err), 0);
	s.run_id = add_run(f->store, "compare", 1);
	s.benchmark = bench;
	s.metric = metric;
	s.side = side;
	s.value = 2.0;
	assert_int_equal(bf_store_sample_add(f->store, &s, &err), 0);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(bf_store_rollback(f->store, &err), 0);
	assert_int_equal(count(f->store, "devices"), 0);
	assert_int_equal(count(f->store, "leases"), 0);
	assert_int_equal(count(f->store, "runs"), 0);
	assert_int_equal(count(f->store, "samples"), 0);

	/* A failed call inside a transaction undoes only itself. */
	assert_int_equal(bf_store_begin(f->store, &err), 0);
	s.run_id = add_run(f->store, "run", 2);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "nope", "A", 60, 1, &err),
	        BF_ENOTFOUND);
	assert_int_equal(bf_store_sample_add(f->store, &s, &err), 0);
	many[0] = s;
	many[1] = s;
	many[1].run_id = s.run_id + 1;
	assert_int_equal(bf_store_sample_add_many(f->store, many, 2, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(bf_store_commit(f->store, &err), 0);
	assert_int_equal(count(f->store, "runs"), 1);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(bf_store_count(NULL, f->store, "sqlite_master", &err),
	                 BF_EINVAL);
}

/* BEGIN IMMEDIATE: the write lock is taken at begin, not at first write. */
static void test_store__begin_takes_write_lock(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(bf_store_begin(f->store, &err), 0);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	                 SQLITE_BUSY);
	assert_int_equal(bf_store_commit(f->store, &err), 0);
	assert_int_equal(
	        sqlite3_exec(db, "BEGIN IMMEDIATE; ROLLBACK", NULL, NULL, NULL),
	        SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* A transaction left open at close is rolled back, not committed. */
static void test_store__close_rolls_back_open_transaction(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_store_begin(f->store, &err), 0);
	add_device(f->store, "dev");
	close_store(f);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(count(f->store, "devices"), 0);
	assert_int_equal(count(f->store, "meta"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__create_and_reopen_keeps_data),
		T(test_store__file_and_dir_modes),
		T(test_store__refuses_newer_schema),
		T(test_store__refuses_garbage_file_unchanged),
		T(test_store__refuses_other_sqlite_database),
		cmocka_unit_test(test_store__default_path_resolution),
		T(test_store__migrates_alert_key),
		T(test_store__rollback_leaves_nothing),
		T(test_store__begin_takes_write_lock),
		T(test_store__close_rolls_back_open_transaction),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
