/*
 * Unit tests for a PostgreSQL session that stalls while it holds row
 * locks, on a real server: another host's lease operation on the
 * locked device fails busy (BF_EBUSY, saying the store is busy) once
 * the lock timeout passes, instead of waiting for ever, and goes through
 * once the rows are let go; the server ends a session left idle inside
 * a transaction (its timeout lowered by the location's options), its
 * locks go with it, and the stalled holder's next statement fails as a
 * lost connection with nothing of its transaction stored; the
 * session's lock and idle timeouts are the store's unless the location
 * or PGOPTIONS sets them, after a reconnect too; the connection
 * parameters carry TCP keepalives that a location can override.
 *
 * alarm() only guards against a hang (the default action ends the
 * binary, failing the run); no assertion is about time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/sql.h"
#include "store/sql_pg.h"
#include "store/store.h"
#include "store/store_handle.h"
#include "store/store_int.h"
#include "unit/store/store_fixture.h"

/* Generous: a lock timeout is 5 s; a hang without one is for ever. */
#define HANG_GUARD_S 120

static int first_text(const struct bf_sql_row *row, void *payload)
{
	char **out = payload;

	free(*out);
	*out = bf_sql_strdup(row, 0);
	return 0;
}

/* The text of sql's first row on s (the test fails on an error). */
static char *store_text(struct bf_store *s, const char *sql)
{
	struct bf_err err = BF_ERR_INIT;
	char *v = NULL;

	if (bf_sql_exec(s, sql, NULL, 0, first_text, &v, NULL, &err, "%s", sql))
		fail_msg("%s", err.msg);
	return v;
}

static void assert_setting(struct bf_store *s, const char *name,
                           const char *want)
{
	char sql[128], *v;

	snprintf(sql, sizeof(sql), "SELECT current_setting('%s')", name);
	v = store_text(s, sql);
	if (strcmp(v, want))
		fail_msg("%s is %s, want %s", name, v, want);
	free(v);
}

/* Open a second store on loc (another host) and lock dev's row in a
 * write transaction (*token). */
static struct bf_store *hold_row(const char *loc, const char *dev, int *token)
{
	struct bf_store *other = NULL;
	struct bf_err err = BF_ERR_INIT;
	struct bf_sql_val v[] = { BF_SQL_V_TEXT(dev) };

	if (bf_store_open(&other, loc, &err) ||
	    bf_sql_write_begin(token, other, &err) ||
	    bf_sql_exec(other,
	                "SELECT id FROM devices WHERE name = ?1 FOR UPDATE", v,
	                1, NULL, NULL, NULL, &err, "lock %s", dev))
		fail_msg("hold the row: %s", err.msg);
	return other;
}

/* Another host holds the device's row: the lease operations fail busy,
 * store nothing, and go through once it lets go. */
static void test_pg_locks__row_held_is_busy(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other;
	int64_t now = (int64_t)time(NULL), token = 0;
	int t, rc;

	add_device(f->store, "dev");
	other = hold_row(f->path, "dev", &t);
	alarm(HANG_GUARD_S);
	rc = bf_store_lease_take(f->store, "dev", "me", 60, now, &token, &err);
	alarm(0);
	assert_int_equal(rc, BF_EBUSY);
	if (!strstr(err.msg, "cannot lock device 'dev': the store '") ||
	    !strstr(err.msg, "is busy: another host has held the rows") ||
	    !strstr(err.msg, "run the command again later"))
		fail_msg("message: %s", err.msg);
	alarm(HANG_GUARD_S);
	rc = bf_store_lease_fence(f->store, "dev", 1, now, &err);
	alarm(0);
	assert_int_equal(rc, BF_EBUSY);
	assert_non_null(strstr(err.msg, "is busy"));
	assert_int_equal(count(f->store, "leases"), 0);
	/* the holder is not disturbed: it still commits */
	assert_int_equal(bf_sql_write_end(other, t, 0, &err), 0);
	bf_store_close(other);
	rc = bf_store_lease_take(f->store, "dev", "me", 60, now, &token, &err);
	if (rc)
		fail_msg("after the holder let go: %s", err.msg);
	assert_int_equal(count(f->store, "leases"), 1);
}

/*
 * The holder stalls inside its transaction (it sends nothing more): the
 * server ends its session after the idle timeout (lowered to 1 s by the
 * location), the row is free for the others, and when the holder goes
 * on its next statement fails as a lost connection inside a
 * transaction; nothing of the transaction is stored, and the store then
 * reconnects for the next one.
 */
static void test_pg_locks__idle_holder_ended(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *holder;
	char loc[PATH_MAX], *pid, sql[160], *gone = NULL;
	int64_t token = 0;
	int t, rc;

	pathf(loc,
	      "%s options='-csearch_path=%s"
	      " -cidle_in_transaction_session_timeout=1000'",
	      pg_server(), f->schema);
	add_device(f->store, "dev");
	holder = hold_row(loc, "dev", &t);
	assert_setting(holder, "idle_in_transaction_session_timeout", "1s");
	add_device(holder, "inside");
	pid = store_text(holder, "SELECT pg_backend_pid()");
	snprintf(sql, sizeof(sql),
	         "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", pid);
	free(pid);
	/* the state waited for: the server ended the holder's session */
	alarm(HANG_GUARD_S);
	while (free(gone), strcmp(gone = store_text(f->store, sql), "0"))
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	free(gone);
	rc = bf_store_lease_take(f->store, "dev", "me", 60, (int64_t)time(NULL),
	                         &token, &err);
	alarm(0);
	if (rc)
		fail_msg("the row of the ended session: %s", err.msg);
	/* the holder goes on */
	rc = bf_sql_exec(holder, "SELECT 1", NULL, 0, NULL, NULL, NULL, &err,
	                 "go on");
	assert_int_equal(rc, BF_ESYS);
	if (!strstr(err.msg, "lost the connection to the store") ||
	    !strstr(err.msg, "inside a transaction") ||
	    !strstr(err.msg, "nothing of the transaction was stored"))
		fail_msg("message: %s", err.msg);
	assert_int_equal(bf_sql_write_end(holder, t, rc, &err), BF_ESYS);
	assert_int_equal(count(f->store, "devices"), 1);
	assert_int_equal(count(f->store, "leases"), 1);
	/* outside a transaction it connects again, with its settings */
	assert_int_equal(count(holder, "devices"), 1);
	assert_setting(holder, "idle_in_transaction_session_timeout", "1s");
	bf_store_close(holder);
}

/* The store's timeouts by default, after a reconnect too; a location's
 * own values win. */
static void test_pg_locks__session_timeouts(void **state)
{
	struct fixture *f = *state;
	struct bf_store *s = NULL;
	struct bf_err err = BF_ERR_INIT;
	char loc[PATH_MAX], sql[96], *pid, *v;
	int rc;

	assert_setting(f->store, "lock_timeout", "5s");
	assert_setting(f->store, "idle_in_transaction_session_timeout", "1min");
	/* the server's keepalives read 0 on a Unix socket: set all the same */
	v = store_text(f->store,
	               "SELECT string_agg(source, ',' ORDER BY name)"
	               " FROM pg_settings WHERE name LIKE 'tcp_keepalives_%'");
	assert_string_equal(v, "session,session,session");
	free(v);
	pid = store_text(f->store, "SELECT pg_backend_pid()");
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%s, 60000)",
	         pid);
	free(pid);
	free(raw_text(f->path, sql));
	assert_setting(f->store, "lock_timeout", "5s");
	assert_setting(f->store, "idle_in_transaction_session_timeout", "1min");

	pathf(loc, "%s options='-csearch_path=%s -clock_timeout=7s'",
	      pg_server(), f->schema);
	if (bf_store_open(&s, loc, &err))
		fail_msg("%s", err.msg);
	assert_setting(s, "lock_timeout", "7s");
	assert_setting(s, "idle_in_transaction_session_timeout", "1min");
	bf_store_close(s);
	s = NULL;

	/* PGOPTIONS as well (for a location that gives no options) */
	pathf(loc, "-csearch_path=%s -cidle_in_transaction_session_timeout=90s",
	      f->schema);
	setenv("PGOPTIONS", loc, 1);
	rc = bf_store_open(&s, pg_server(), &err);
	unsetenv("PGOPTIONS");
	if (rc)
		fail_msg("%s", err.msg);
	assert_setting(s, "lock_timeout", "5s");
	assert_setting(s, "idle_in_transaction_session_timeout", "90s");
	bf_store_close(s);
}

/* The connection's TCP keepalives: on by default, a location's own
 * keepalives_* kept; connect_timeout as before. */
static void test_pg_locks__keepalives(void **state)
{
	const char *keys[BF_SQL_PG_PARAMS], *vals[BF_SQL_PG_PARAMS];
	const char *locs[] = { pg_server(), NULL };
	const char *want_idle[] = { "30", "77" };
	char loc[PATH_MAX];
	PQconninfoOption *info;
	size_t i;

	(void)state;
	pathf(loc, "%s keepalives_idle=77", pg_server());
	locs[1] = loc;
	for (i = 0; i < BF_ARRAY_SIZE(locs); i++) {
		PGconn *conn;
		int seen = 0;

		bf_sql_pg__conn_params(keys, vals, locs[i], false);
		conn = PQconnectdbParams(keys, vals, 1);
		assert_int_equal(PQstatus(conn), CONNECTION_OK);
		info = PQconninfo(conn);
		for (const PQconninfoOption *o = info; o->keyword; o++) {
			const char *want =
			        !strcmp(o->keyword, "keepalives") ? "1"
			        : !strcmp(o->keyword, "keepalives_idle")
			                ? want_idle[i]
			        : !strcmp(o->keyword, "keepalives_interval")
			                ? "10"
			        : !strcmp(o->keyword, "keepalives_count") ? "3"
			        : !strcmp(o->keyword, "connect_timeout")  ? "5"
			                                                 : NULL;

			if (!want)
				continue;
			seen++;
			if (!o->val || strcmp(o->val, want))
				fail_msg("%s: %s is %s, want %s", locs[i],
				         o->keyword, o->val ? o->val : "unset",
				         want);
		}
		assert_int_equal(seen, 5);
		PQconninfoFree(info);
		PQfinish(conn);
	}
}

/* The lease holder's connection (a session of its own) gets the same
 * parameters and session settings as the store's. */
static void test_pg_locks__holder_session(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	const char *names[] = { "lock_timeout",
		                "idle_in_transaction_session_timeout",
		                "tcp_keepalives_idle",
		                "tcp_keepalives_interval",
		                "tcp_keepalives_count" };
	PQconninfoOption *info;
	PGconn *conn;
	int seen = 0;

	if (bf_store__pg_holder_lock(f->store, 4242, &err))
		fail_msg("%s", err.msg);
	conn = bf_store__pg_holder_conn(f->store);
	assert_non_null(conn);
	for (size_t i = 0; i < BF_ARRAY_SIZE(names); i++) {
		char sql[96], *want;
		PGresult *res;

		snprintf(sql, sizeof(sql), "SELECT current_setting('%s')",
		         names[i]);
		want = store_text(f->store, sql);
		res = PQexec(conn, sql);
		assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
		if (strcmp(PQgetvalue(res, 0, 0), want))
			fail_msg("holder's %s is %s, the store's %s", names[i],
			         PQgetvalue(res, 0, 0), want);
		PQclear(res);
		free(want);
	}
	info = PQconninfo(conn);
	for (const PQconninfoOption *o = info; o->keyword; o++) {
		const char *want = !strcmp(o->keyword, "keepalives") ? "1"
		                   : !strcmp(o->keyword, "connect_timeout")
		                           ? "5"
		                           : NULL;

		if (!want)
			continue;
		seen++;
		if (!o->val || strcmp(o->val, want))
			fail_msg("holder's %s is %s, want %s", o->keyword,
			         o->val ? o->val : "unset", want);
	}
	assert_int_equal(seen, 2);
	PQconninfoFree(info);
}

/* A TCP listener on 127.0.0.1 that never answers (the kernel accepts
 * connections into its backlog); its port in *port. */
static int silent_listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t n = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 8) || getsockname(fd, (struct sockaddr *)&a, &n))
		fail_msg("listener: %s", strerror(errno));
	*port = ntohs(a.sin_port);
	return fd;
}

struct holder_call {
	struct bf_store *store;
	struct bf_err err;
	int rc;
	atomic_bool done;
};

static void *holder_call(void *arg)
{
	struct holder_call *c = arg;

	c->rc = bf_store__pg_holder_lock(c->store, 4243, &c->err);
	atomic_store(&c->done, true);
	return NULL;
}

/*
 * A server that never answers: the holder lock fails as a connection
 * error once the default connect timeout passes, instead of waiting
 * for ever; while one call waits so, another process-wide call for a
 * reachable store goes through (the table's mutex is not held across
 * the network).
 */
static void test_pg_locks__holder_unreachable(void **state)
{
	struct fixture *f = *state;
	struct bf_store dead = { 0 };
	struct holder_call c = { .store = &dead, .err = BF_ERR_INIT };
	struct bf_err err = BF_ERR_INIT;
	struct pollfd p;
	char loc[128];
	pthread_t t;
	int port, fd = silent_listener(&port), peer;

	snprintf(loc, sizeof(loc), "host=127.0.0.1 port=%d dbname=bf", port);
	dead.path = loc;
	dead.shown = loc;
	alarm(HANG_GUARD_S);
	c.rc = bf_store__pg_holder_lock(&dead, 4243, &c.err);
	alarm(0);
	assert_int_equal(c.rc, BF_ESYS);
	if (!strstr(c.err.msg, "cannot connect to the store '") ||
	    !strstr(c.err.msg, "timeout"))
		fail_msg("message: %s", c.err.msg);
	close(fd);

	/* a long connect timeout: the second call's return, not a timer,
	 * ends the wait of the first */
	fd = silent_listener(&port);
	snprintf(loc, sizeof(loc), "host=127.0.0.1 port=%d dbname=bf", port);
	setenv("PGCONNECT_TIMEOUT", "600", 1);
	alarm(HANG_GUARD_S);
	assert_int_equal(pthread_create(&t, NULL, holder_call, &c), 0);
	p = (struct pollfd){ fd, POLLIN, 0 };
	assert_int_equal(poll(&p, 1, -1), 1); /* the call is connecting */
	peer = accept(fd, NULL, NULL);
	if (bf_store__pg_holder_lock(f->store, 4244, &err))
		fail_msg("%s", err.msg);
	assert_false(atomic_load(&c.done));
	close(peer); /* the first call's server goes away */
	pthread_join(t, NULL);
	alarm(0);
	unsetenv("PGCONNECT_TIMEOUT");
	assert_int_equal(c.rc, BF_ESYS);
	close(fd);
}

/* A password across the cut of a long message: masked before the cut,
 * so no prefix of it is shown. */
static void test_pg_locks__mask_before_cut(void **state)
{
	const char *pw = "Sup3rSecretPassw0rd";
	char msg[700], buf[BF_ERR_SIZE];

	(void)state;
	for (size_t at = BF_ERR_SIZE - 15; at < BF_ERR_SIZE; at++) {
		memset(msg, 'x', at);
		snprintf(msg + at, sizeof(msg) - at, "%s and more\n", pw);
		bf_sql_pg__shown(buf, sizeof(buf), msg, pw);
		assert_null(strstr(buf, "Sup"));
		/* what follows the x's is the start of "***", never of pw */
		if (buf[at] != '\0' && buf[at] != '*')
			fail_msg("cut at %zu shows '%s'", at, buf + at);
	}
	/* a short one: trailing newline gone, every occurrence masked */
	bf_sql_pg__shown(buf, sizeof(buf),
	                 "a Sup3rSecretPassw0rd b "
	                 "Sup3rSecretPassw0rd\n",
	                 pw);
	assert_string_equal(buf, "a *** b ***");
	bf_sql_pg__shown(buf, sizeof(buf), NULL, pw);
	assert_string_equal(buf, "unknown error");
}

/* Another host holds the samples table locked while a batch is copied
 * in: the COPY fails busy with the message of every other statement,
 * stores nothing, and goes through once the table is let go. */
static void test_pg_locks__copy_busy(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	char bm_a[] = "BM_a", bm_b[] = "BM_b", metric[] = "real_time",
	     side[] = "base";
	struct bf_store_sample s[2] = {
		{ .run_id = 1,
		  .benchmark = bm_a,
		  .metric = metric,
		  .side = side,
		  .value = 1.5 },
		{ .run_id = 1,
		  .benchmark = bm_b,
		  .metric = metric,
		  .side = side,
		  .value = 2.5 },
	};
	struct bf_store *other = NULL;
	int t, rc;

	if (bf_store_open(&other, f->path, &err) ||
	    bf_sql_write_begin(&t, other, &err) ||
	    bf_sql_exec(other, "LOCK TABLE samples IN SHARE MODE", NULL, 0,
	                NULL, NULL, NULL, &err, "lock samples"))
		fail_msg("hold the table: %s", err.msg);
	alarm(HANG_GUARD_S);
	rc = bf_store_sample_add_many(f->store, s, 2, &err);
	alarm(0);
	assert_int_equal(rc, BF_EBUSY);
	if (!strstr(err.msg, "cannot store 2 samples: the store '") ||
	    !strstr(err.msg, "is busy: another host has held the rows") ||
	    !strstr(err.msg, "run the command again later"))
		fail_msg("message: %s", err.msg);
	assert_int_equal(bf_sql_write_end(other, t, 0, &err), 0);
	bf_store_close(other);
	assert_int_equal(count(f->store, "samples"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg_locks__mask_before_cut),
		cmocka_unit_test_setup_teardown(test_pg_locks__row_held_is_busy,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_pg_locks__idle_holder_ended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg_locks__session_timeouts,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg_locks__keepalives,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(test_pg_locks__copy_busy, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_pg_locks__holder_session,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_pg_locks__holder_unreachable, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
