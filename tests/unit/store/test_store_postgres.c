/*
 * Unit tests for the store's PostgreSQL backend beyond sql.h's cases
 * (which test_store_sql_pg runs): ?N rewritten to $N only outside
 * literals and comments, a wrong password and a server that is not
 * there (their codes, no secret in the message), the schema created
 * under a lock by two hosts at once, a database of another program or
 * of a newer version refused, a read whose connection was lost outside
 * a transaction repeated on a new one, a write or commit not repeated
 * and inside a transaction failed as BF_ESYS, the counts and
 * integrity check, SQLSTATEs as BF_E* codes, a real server restart, and
 * runs' liveness locks: seen by
 * other hosts, gone when the holder dies (SIGKILL), taken again after a
 * reconnect.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/sql.h"
#include "store/sql_pg.h"
#include "store/store.h"
#include "store/store_int.h"
#include "unit/store/store_fixture.h"

static void rewritten(const char *sql, const char *want)
{
	char *got = bf_sql_pg__placeholders(sql);

	if (strcmp(got, want))
		fail_msg("%s: rewritten as '%s', want '%s'", sql, got, want);
	free(got);
}

static void test_pg__placeholders(void **state)
{
	(void)state;
	rewritten("SELECT ?1, ?12 FROM t WHERE a = ?2",
	          "SELECT $1, $12 FROM t WHERE a = $2");
	rewritten("SELECT '?1', 'it''s ?2', ?3", "SELECT '?1', 'it''s ?2', $3");
	rewritten("SELECT \"?1\" FROM t -- ?2\nWHERE x = ?3 /* ?4 */",
	          "SELECT \"?1\" FROM t -- ?2\nWHERE x = $3 /* ?4 */");
	rewritten("SELECT ? , 'x", "SELECT ? , 'x");
}

/* Only a read or BEGIN is sent again after a lost connection. */
static void test_pg__safe_to_repeat(void **state)
{
	(void)state;
	assert_true(bf_sql_pg__safe_to_repeat("SELECT 1"));
	assert_true(bf_sql_pg__safe_to_repeat("\n  select count(*) FROM t"));
	assert_true(bf_sql_pg__safe_to_repeat("BEGIN"));
	assert_false(bf_sql_pg__safe_to_repeat("SELECTED"));
	assert_false(bf_sql_pg__safe_to_repeat("INSERT INTO t VALUES (1)"));
	assert_false(bf_sql_pg__safe_to_repeat("UPDATE t SET x = 1"));
	assert_false(bf_sql_pg__safe_to_repeat("DELETE FROM t"));
	assert_false(bf_sql_pg__safe_to_repeat("COMMIT"));
	assert_false(bf_sql_pg__safe_to_repeat(
	        "WITH a AS (DELETE FROM t RETURNING id) SELECT id FROM a"));
}

static int first_text(const struct bf_sql_row *row, void *payload)
{
	char **out = payload;

	free(*out);
	*out = bf_sql_strdup(row, 0);
	return 0;
}

static void test_pg__wrong_password(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char loc[PATH_MAX];

	raw_exec(f->path, "DROP ROLE IF EXISTS bf_pw");
	raw_exec(f->path, "CREATE ROLE bf_pw LOGIN PASSWORD 'right-one'");
	pathf(loc, "%s user=bf_pw password='wr0ng s3cret'", pg_server());
	assert_int_equal(bf_store_open(&s, loc, &err), BF_EAUTH);
	assert_null(s);
	if (strstr(err.msg, "s3cret") || !strstr(err.msg, "password=***") ||
	    !strstr(err.msg, "bf_pw"))
		fail_msg("message: %s", err.msg);
	/* the right one, given the libpq way (PGPASSFILE) */
	pathf(loc, "%s/pgpass", f->dir);
	{
		FILE *fp = fopen(loc, "w");

		assert_non_null(fp);
		fprintf(fp, "*:*:*:bf_pw:right-one\n");
		fclose(fp);
		chmod(loc, 0600);
	}
	setenv("PGPASSFILE", loc, 1);
	pathf(loc, "%s user=bf_pw options='-csearch_path=%s'", pg_server(),
	      f->schema);
	raw_exec(f->path, "GRANT ALL ON SCHEMA public TO bf_pw");
	{
		char sql[128];

		snprintf(sql, sizeof(sql), "GRANT ALL ON SCHEMA %s TO bf_pw",
		         f->schema);
		raw_exec(f->path, sql);
	}
	bf_store_close(f->store);
	f->store = NULL;
	raw_exec(f->path,
	         "DROP TABLE meta, leases, waiters, devices, samples, checks,"
	         " alerts, runs CASCADE");
	if (bf_store_open(&s, loc, &err))
		fail_msg("with PGPASSFILE: %s", err.msg);
	bf_store_close(s);
	unsetenv("PGPASSFILE");
	raw_exec(f->path,
	         "DROP TABLE meta, leases, waiters, devices, samples, checks,"
	         " alerts, runs CASCADE");
	raw_exec(f->path, "DROP OWNED BY bf_pw");
	raw_exec(f->path, "DROP ROLE bf_pw");
}

static void test_pg__no_server(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char loc[PATH_MAX];

	pathf(loc, "postgresql://u:s3cret@/bf?host=%s/nothing", f->dir);
	assert_int_equal(bf_store_open(&s, loc, &err), BF_ESYS);
	assert_null(s);
	if (strstr(err.msg, "s3cret") || !strstr(err.msg, "u:***@"))
		fail_msg("message: %s", err.msg);
}

static void test_pg__two_hosts_create_at_once(void **state)
{
	struct fixture *f = *state;
	char sql[160], *v;
	pid_t pid[4];
	int i, st;

	bf_store_close(f->store);
	f->store = NULL;
	snprintf(sql, sizeof(sql),
	         "DROP TABLE meta, leases, waiters, devices, samples, checks,"
	         " alerts,"
	         " runs CASCADE");
	raw_exec(f->path, sql);
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0) {
			struct bf_err err = BF_ERR_INIT;
			struct bf_store *s = NULL;
			int rc = bf_store_open(&s, f->path, &err);

			if (rc)
				fprintf(stderr, "child: %s\n", err.msg);
			bf_store_close(s);
			_exit(rc ? 1 : 0);
		}
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	v = raw_text(f->path, "SELECT value FROM meta WHERE key ="
	                      " 'schema_version'");
	assert_int_equal(strtol(v, NULL, 10), BF_STORE_SCHEMA_VERSION);
	free(v);
	v = raw_text(f->path, "SELECT count(*) FROM meta");
	assert_string_equal(v, "2");
	free(v);
}

static void test_pg__refuses_others_and_newer(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;

	bf_store_close(f->store);
	f->store = NULL;
	raw_exec(f->path, "UPDATE meta SET value = '99' WHERE key ="
	                  " 'schema_version'");
	assert_int_equal(bf_store_open(&s, f->path, &err), BF_EVERSION);
	assert_non_null(strstr(err.msg, "newer"));
	raw_exec(f->path,
	         "DROP TABLE meta, leases, waiters, devices, samples, checks,"
	         " alerts, runs CASCADE");
	raw_exec(f->path, "CREATE TABLE theirs (x INT)");
	assert_int_equal(bf_store_open(&s, f->path, &err), BF_ECORRUPT);
	assert_non_null(strstr(err.msg, "not a benchfarm database"));
	assert_null(s);
	/* refused without being written to */
	{
		char *n = raw_text(f->path, "SELECT count(*) FROM pg_tables"
		                            " WHERE schemaname ="
		                            " current_schema()");

		assert_string_equal(n, "1");
		free(n);
	}
}

/* Ends the store's connection from another one, as a server restart
 * would. */
static void kill_backend(struct fixture *f)
{
	char *pid = NULL;
	char sql[160];
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_sql_exec(f->store, "SELECT pg_backend_pid()", NULL,
	                             0, first_text, &pid, NULL, &err, "pid"),
	                 0);
	/* it waits (up to a minute) until the backend has ended */
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%s, 60000)",
	         pid);
	free(pid);
	free(raw_text(f->path, sql));
}

/* A device row, through sql.h alone (store_device.c is SQLite's until
 * it is converted). */
static void add_device_row(struct bf_store *s, const char *name)
{
	struct bf_sql_val v[] = { BF_SQL_V_TEXT(name) };
	struct bf_err err = BF_ERR_INIT;

	if (bf_sql_exec(s,
	                "INSERT INTO devices (name, type, created_at)"
	                " VALUES (?1, 'linux', 1)",
	                v, 1, NULL, NULL, NULL, &err, "add %s", name))
		fail_msg("%s", err.msg);
}

static void test_pg__lost_connection(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	char *v = NULL;
	int token, rc;

	kill_backend(f);
	/* outside a transaction: reconnected, the statement runs */
	rc = bf_sql_exec(f->store, "SELECT count(*) FROM devices", NULL, 0,
	                 first_text, &v, NULL, &err, "count");
	if (rc)
		fail_msg("after a reconnect: %s", err.msg);
	assert_string_equal(v, "0");
	free(v);
	/* inside one: BF_ESYS, nothing of it stored */
	assert_int_equal(bf_sql_write_begin(&token, f->store, &err), 0);
	add_device_row(f->store, "d1");
	kill_backend(f);
	rc = bf_sql_exec(f->store, "SELECT 1", NULL, 0, NULL, NULL, NULL, &err,
	                 "select");
	assert_int_equal(rc, BF_ESYS);
	assert_non_null(strstr(err.msg, "inside a transaction"));
	assert_int_equal(bf_sql_write_end(f->store, token, rc, &err), BF_ESYS);
	assert_int_equal(count(f->store, "devices"), 0);
	add_device_row(f->store, "d2");
	assert_int_equal(count(f->store, "devices"), 1);
	assert_int_equal(bf_store_integrity_check(f->store, &err), 0);
}

/*
 * Ends the store's backend while it runs its next statement: a child
 * locks the devices on a connection of its own, waits until the
 * store's backend waits for that lock, terminates it and lets go.
 * Returns the child, once it holds the lock.
 */
static pid_t kill_while_waiting(struct fixture *f)
{
	struct bf_err err = BF_ERR_INIT;
	char *pid = NULL, sql[256], c;
	int fds[2];
	pid_t child;

	assert_int_equal(bf_sql_exec(f->store, "SELECT pg_backend_pid()", NULL,
	                             0, first_text, &pid, NULL, &err, "pid"),
	                 0);
	snprintf(sql, sizeof(sql),
	         "SELECT count(pg_terminate_backend(pid, 60000))"
	         " FROM pg_stat_activity WHERE pid = %s"
	         " AND wait_event_type = 'Lock'",
	         pid);
	free(pid);
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct bf_store *s = NULL;
		char *n = NULL;
		int token;

		if (bf_store_open(&s, f->path, &err) ||
		    bf_sql_write_begin(&token, s, &err) ||
		    bf_sql_exec(s, "LOCK TABLE devices", NULL, 0, NULL, NULL,
		                NULL, &err, "lock") ||
		    write(fds[1], "x", 1) != 1)
			_exit(1);
		/* until the store's backend waits for the lock */
		while (n == NULL || strcmp(n, "1")) {
			free(n);
			n = raw_text(f->path, sql);
		}
		free(n);
		bf_sql_write_end(s, token, BF_ERROR, &err); /* lets go */
		bf_store_close(s);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return child;
}

static void reap(pid_t child)
{
	int st;

	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * A write whose connection is lost while it runs, outside a
 * transaction, is not sent again (it may have been stored with only its
 * reply lost): BF_ESYS saying so, and the next statement has a new
 * connection. One whose connection the server ended while it was idle
 * was never sent: it goes on a new connection. A COMMIT whose
 * transaction the server ended is not sent again either (on a new
 * connection it would commit nothing and report success): nothing of
 * the transaction is stored, and the error says so.
 */
static void test_pg__lost_write_not_repeated(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_sql_val v[] = { BF_SQL_V_TEXT("w1") };
	pid_t child;
	int token, rc;

	child = kill_while_waiting(f);
	rc = bf_sql_exec(f->store,
	                 "  insert INTO devices (name, type, created_at)"
	                 " VALUES (?1, 'linux', 1)",
	                 v, 1, NULL, NULL, NULL, &err, "add %s", "w1");
	reap(child);
	assert_int_equal(rc, BF_ESYS);
	if (!strstr(err.msg, "add w1: lost the connection") ||
	    !strstr(err.msg, "may or may not have been stored"))
		fail_msg("message: %s", err.msg);
	assert_int_equal(count(f->store, "devices"), 0);
	/* the connection was made again: the next write goes through */
	add_device_row(f->store, "w2");
	assert_int_equal(count(f->store, "devices"), 1);
	/* ended while idle: the write was not sent, and goes on a new
	 * connection, once */
	kill_backend(f);
	add_device_row(f->store, "w3");
	assert_int_equal(count(f->store, "devices"), 2);

	assert_int_equal(bf_sql_write_begin(&token, f->store, &err), 0);
	add_device_row(f->store, "w4");
	kill_backend(f);
	rc = bf_sql_write_end(f->store, token, 0, &err);
	assert_int_equal(rc, BF_ESYS);
	if (!strstr(err.msg, "cannot commit") ||
	    !strstr(err.msg, "nothing of the transaction was stored"))
		fail_msg("message: %s", err.msg);
	assert_int_equal(count(f->store, "devices"), 2);

	/* in a transaction begun by a statement of the caller's (store
	 * copy's read snapshot), a read is not repeated outside it */
	assert_int_equal(bf_sql_exec(f->store,
	                             "BEGIN ISOLATION LEVEL REPEATABLE READ"
	                             " READ ONLY",
	                             NULL, 0, NULL, NULL, NULL, &err, "begin"),
	                 0);
	kill_backend(f);
	rc = bf_sql_exec(f->store, "SELECT count(*) FROM devices", NULL, 0,
	                 NULL, NULL, NULL, &err, "count");
	assert_int_equal(rc, BF_ESYS);
	assert_non_null(strstr(err.msg, "inside a transaction"));
}

static void test_pg__run_liveness_locks(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other = NULL;
	int fds[2], st;
	char c;
	pid_t pid;

	assert_int_equal(bf_store_open(&other, f->path, &err), 0);
	assert_int_equal(bf_store__run_lock(f->store, 5, &err), 0);
	assert_int_equal(bf_store__run_lock_held(other, 5, &err), 1);
	assert_int_equal(bf_store__run_lock_held(f->store, 5, &err), 0);
	assert_int_equal(bf_store__run_lock_held(other, 6, &err), 0);
	assert_int_equal(bf_store__run_lock(other, 5, &err), BF_EBUSY);
	/* after a reconnect the lock is held again */
	kill_backend(f);
	assert_int_equal(count(f->store, "runs"), 0);
	assert_int_equal(bf_store__run_lock_held(other, 5, &err), 1);
	bf_store__run_unlock(f->store, 5);
	assert_int_equal(bf_store__run_lock_held(other, 5, &err), 0);
	/* a holder killed: its lock goes with its connection */
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *s = NULL;

		if (bf_store_open(&s, f->path, &err) ||
		    bf_store__run_lock(s, 7, &err) ||
		    write(fds[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(bf_store__run_lock_held(other, 7, &err), 1);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* the server ends the dead connection's session on its own time:
	 * wait for the lock there, then nobody else holds it */
	raw_exec(f->path, "SELECT pg_advisory_lock((1::bigint << 32) | 7),"
	                  " pg_advisory_unlock((1::bigint << 32) | 7)");
	assert_int_equal(bf_store__run_lock_held(other, 7, &err), 0);
	bf_store_close(other);
}

/* A location without '/' (the host from PGHOST) makes no lock file in
 * the working directory: PostgreSQL's liveness locks are the server's. */
static void test_pg__no_lock_file(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char host[PATH_MAX], loc[PATH_MAX], cwd[PATH_MAX], lock[PATH_MAX];

	assert_int_equal(sscanf(pg_server(), "host=%4000s", host), 1);
	setenv("PGHOST", host, 1);
	pathf(loc, "dbname=benchfarm options='-csearch_path=%s'", f->schema);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->dir), 0);
	if (bf_store_open(&s, loc, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(bf_store__run_lock(s, 3, &err), 0);
	bf_store_close(s);
	assert_int_equal(chdir(cwd), 0);
	unsetenv("PGHOST");
	pathf(lock, "%s/%s.lock", f->dir, loc);
	assert_int_not_equal(access(lock, F_OK), 0);
}

static int run_sql(struct bf_store *s, const char *sql, struct bf_err *err)
{
	*err = (struct bf_err)BF_ERR_INIT;
	return bf_sql_exec(s, sql, NULL, 0, NULL, NULL, NULL, err, "doing %s",
	                   "it");
}

/* SQLSTATEs as BF_E* codes, worded "WHAT: the server's message". */
static void test_pg__sqlstates_mapped(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other = NULL;
	int token;

	assert_int_equal(run_sql(f->store,
	                         "INSERT INTO leases (device_id, holder,"
	                         " acquired_at, expires_at)"
	                         " VALUES (42, 'h', 1, 2)",
	                         &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "doing it: "));
	assert_non_null(strstr(err.msg, "foreign key"));
	assert_int_equal(run_sql(f->store,
	                         "INSERT INTO devices (name, type,"
	                         " created_at) VALUES ('d', 'vax', 1)",
	                         &err),
	                 BF_EINVAL);
	assert_int_equal(run_sql(f->store, "SELECT 1 / 0", &err), BF_EINVAL);
	assert_int_equal(run_sql(f->store,
	                         "INSERT INTO devices (name, type,"
	                         " created_at) VALUES ('d', 'linux', 1)",
	                         &err),
	                 0);
	/* a row another connection holds, asked for without waiting */
	assert_int_equal(bf_store_open(&other, f->path, &err), 0);
	assert_int_equal(bf_sql_write_begin(&token, other, &err), 0);
	assert_int_equal(
	        run_sql(other, "SELECT id FROM devices FOR UPDATE", &err), 0);
	assert_int_equal(run_sql(f->store,
	                         "SELECT id FROM devices FOR UPDATE NOWAIT",
	                         &err),
	                 BF_EBUSY);
	assert_int_equal(bf_sql_write_end(other, token, 0, &err), 0);
	bf_store_close(other);
	assert_int_equal(run_sql(f->store, "SELECT nope FROM devices", &err),
	                 BF_ERROR);
}

/*
 * A real server restart (ci/pg.sh restart, run from the source tree as
 * ci/run-tests.sh does): a store with no transaction open reconnects
 * and goes on; one in a transaction fails it with BF_ESYS, and what the
 * transaction wrote is not stored.
 */
static void test_pg__server_restart(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	char host[PATH_MAX];
	int token;
	pid_t pid;
	int st;

	if (access("ci/pg.sh", X_OK) ||
	    sscanf(pg_server(), "host=%4000s", host) != 1)
		skip();
	add_device_row(f->store, "before");
	assert_int_equal(bf_sql_write_begin(&token, f->store, &err), 0);
	add_device_row(f->store, "inside");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("ci/pg.sh", "ci/pg.sh", "restart", host, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(run_sql(f->store, "SELECT 1", &err), BF_ESYS);
	assert_int_equal(bf_sql_write_end(f->store, token, BF_ESYS, &err),
	                 BF_ESYS);
	/* outside a transaction: reconnected */
	assert_int_equal(count(f->store, "devices"), 1);
	add_device_row(f->store, "after");
	assert_int_equal(count(f->store, "devices"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg__placeholders),
		cmocka_unit_test(test_pg__safe_to_repeat),
		cmocka_unit_test_setup_teardown(test_pg__wrong_password, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_pg__no_server, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(
		        test_pg__two_hosts_create_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_pg__refuses_others_and_newer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg__lost_connection, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(
		        test_pg__lost_write_not_repeated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg__run_liveness_locks,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg__no_lock_file, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_pg__sqlstates_mapped,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg__server_restart, setup,
		                                teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
