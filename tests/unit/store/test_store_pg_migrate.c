/*
 * Unit tests for the PostgreSQL schema's migrations, on a real server:
 * a store at version 8 (the first PostgreSQL store's, the oldest
 * schema_pg.c migrates from) with rows in it opens at the current
 * version with every row kept and the same tables, columns and indexes
 * as a store created at the current version; two hosts opening the old
 * store at once both succeed and migrate it once.
 *
 * The version 8 store is made as schema_pg.c's steps describe it: a
 * current store less what steps 9, 10 and 11 add. alarm() only guards
 * against a hang; no assertion is about time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libpq-fe.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

#define HANG_GUARD_S 120

/* schema_pg.c's lock of the schema (pg_advisory_xact_lock's key). */
#define SCHEMA_LOCK_KEY "1650869314"

/* Take the fixture's (closed) store back to version 8 and fill it. */
static void make_version_8(struct fixture *f)
{
	raw_exec(f->path,
	         "DROP TABLE waiters;"
	         "ALTER TABLE devices DROP COLUMN lease_gen;"
	         "ALTER TABLE leases DROP COLUMN token,"
	         " DROP COLUMN holder_key, DROP COLUMN alive_at;"
	         "ALTER TABLE runs DROP COLUMN alive_at,"
	         " DROP COLUMN build_id, DROP COLUMN base_build_id,"
	         " DROP COLUMN measured_by;"
	         "ALTER TABLE devices DROP COLUMN machine;"
	         "UPDATE meta SET value = '8' WHERE key = 'schema_version';"
	         "INSERT INTO devices (name, type, host, created_at, state)"
	         " VALUES ('dev', 'linux', 'h1', 100, 'leased'),"
	         " ('idle', 'linux', 'h2', 101, 'idle');"
	         "INSERT INTO leases (device_id, holder, acquired_at,"
	         " expires_at, host, pid) SELECT id, 'ci-1', 200, 999999999,"
	         " 'h9', 42 FROM devices WHERE name = 'dev';"
	         "INSERT INTO runs (kind, status, base_commit, started_at)"
	         " VALUES ('compare', 'complete', 'abc', 300);"
	         "INSERT INTO samples (run_id, benchmark, metric, side,"
	         " repeat_idx, iter_idx, value) SELECT id, 'BM_x',"
	         " 'real_time', 'base', 0, i, i * 1.5 FROM runs,"
	         " generate_series(0, 9) AS i;");
	free(raw_text(f->path, "SELECT count(*) FROM samples"));
}

/* The columns and indexes of the tables of schema, as one text. */
static char *shape(const char *schema)
{
	char sql[1024];

	snprintf(sql, sizeof(sql),
	         "SELECT string_agg(x, ',' ORDER BY x) FROM ("
	         " SELECT table_name || '.' || column_name || ':' ||"
	         "  data_type || ':' || is_nullable || ':' ||"
	         "  coalesce(column_default, '') || ':' || is_identity"
	         "  || ':' || coalesce(collation_name, '') AS x"
	         " FROM information_schema.columns WHERE table_schema = '%s'"
	         " UNION ALL SELECT 'index ' || tablename || '.' || indexname"
	         " FROM pg_indexes WHERE schemaname = '%s') AS t",
	         schema, schema);
	return raw_text(pg_server(), sql);
}

static void assert_kept(struct fixture *f)
{
	char *v;

	v = raw_text(f->path, "SELECT value FROM meta"
	                      " WHERE key = 'schema_version'");
	assert_int_equal(strtol(v, NULL, 10), BF_STORE_SCHEMA_VERSION);
	free(v);
	v = raw_text(f->path,
	             "SELECT string_agg(d.name || ':' || d.state || ':' ||"
	             " d.lease_gen || ':' || coalesce(l.holder, '-') || ':' ||"
	             " coalesce(l.token::text, '-') || ':' ||"
	             " coalesce(l.holder_key::text, 'null'), ','"
	             " ORDER BY d.name) FROM devices d"
	             " LEFT JOIN leases l ON l.device_id = d.id");
	assert_string_equal(v, "dev:leased:0:ci-1:0:null,idle:idle:0:-:-:null");
	free(v);
	v = raw_text(f->path, "SELECT count(*) || ':' || sum(value)"
	                      " FROM samples s JOIN runs r ON r.id = s.run_id"
	                      " WHERE r.base_commit = 'abc'"
	                      " AND r.alive_at IS NULL");
	assert_string_equal(v, "10:67.5");
	free(v);
	v = raw_text(f->path, "SELECT count(*) FROM waiters");
	assert_string_equal(v, "0");
	free(v);
}

/* Version 8 with rows opens at the current version, the rows kept and
 * the schema that of a store created now; the store then works. */
static void test_pg_migrate__from_8(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *fresh = NULL;
	char loc[PATH_MAX], sql[160], fresh_schema[96], *want, *got;
	int64_t token = 0;

	close_store(f);
	make_version_8(f);
	if (bf_store_open(&f->store, f->path, &err))
		fail_msg("open at version 8: %s", err.msg);
	assert_kept(f);
	if (bf_store_integrity_check(f->store, &err))
		fail_msg("%s", err.msg);
	/* the new columns work: a lease with a fencing token */
	if (bf_store_lease_take(f->store, "idle", "ci-2", 60, 1000, &token,
	                        &err))
		fail_msg("%s", err.msg);
	assert_int_equal(token, 1);

	snprintf(fresh_schema, sizeof(fresh_schema), "%s_fresh", f->schema);
	snprintf(sql, sizeof(sql), "CREATE SCHEMA %s", fresh_schema);
	raw_exec(pg_server(), sql);
	pathf(loc, "%s options='-csearch_path=%s'", pg_server(), fresh_schema);
	if (bf_store_open(&fresh, loc, &err))
		fail_msg("%s", err.msg);
	bf_store_close(fresh);
	want = shape(fresh_schema);
	got = shape(f->schema);
	snprintf(sql, sizeof(sql), "DROP SCHEMA %s CASCADE", fresh_schema);
	raw_exec(pg_server(), sql);
	if (strcmp(got, want))
		fail_msg("migrated schema\n%s\nis not the created one\n%s", got,
		         want);
	free(want);
	free(got);
}

struct opener {
	const char *path;
	struct bf_store *store;
	struct bf_err err;
	int rc;
};

static void *open_store(void *arg)
{
	struct opener *o = arg;

	o->rc = bf_store_open(&o->store, o->path, &o->err);
	return NULL;
}

/* Two hosts open the version 8 store at once (both wait on the schema
 * lock, held meanwhile by a third session): both open, the store is
 * migrated once, its rows kept. */
static void test_pg_migrate__two_at_once(void **state)
{
	struct fixture *f = *state;
	struct opener o[2] = { { f->path, NULL, BF_ERR_INIT, -1 },
		               { f->path, NULL, BF_ERR_INIT, -1 } };
	pthread_t t[2];
	PGconn *lock;
	PGresult *res;
	char *n = NULL;

	close_store(f);
	make_version_8(f);
	lock = PQconnectdb(pg_server());
	assert_int_equal(PQstatus(lock), CONNECTION_OK);
	res = PQexec(lock, "SELECT pg_advisory_lock(" SCHEMA_LOCK_KEY ")");
	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	PQclear(res);
	alarm(HANG_GUARD_S);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, open_store, &o[i]),
		                 0);
	/* the state waited for: both opens wait for the schema lock */
	while (free(n),
	       strcmp(n = raw_text(
	                      pg_server(),
	                      "SELECT count(*) FROM pg_locks"
	                      " WHERE locktype = 'advisory'"
	                      " AND NOT granted AND objid = " SCHEMA_LOCK_KEY),
	              "2"))
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	free(n);
	PQfinish(lock); /* lets the lock go */
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (o[i].rc)
			fail_msg("open %d: %s", i, o[i].err.msg);
		bf_store_close(o[i].store);
	}
	alarm(0);
	assert_kept(f);
	if (bf_store_open(&f->store, f->path, &o[0].err) ||
	    bf_store_integrity_check(f->store, &o[0].err))
		fail_msg("%s", o[0].err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pg_migrate__from_8, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_pg_migrate__two_at_once,
		                                setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
