/*
 * A lease holder's liveness lock on PostgreSQL (see store_int.h): the
 * session advisory lock of a connection this process opens for it
 * alone, one per process and location, kept until the process exits.
 *
 * It is not the store handle's connection because a lease outlives
 * the handle that took it and one process may have several handles
 * (each its own session): a lock of one handle's session would be
 * refused to the next handle of the same process ("held by another
 * process") and would go away when the first handle closed. This is
 * the PostgreSQL form of SQLite's one open lock file per process
 * (store_lock.c). The lock ends with the process (its socket closes);
 * a child after fork opens its own connection under its own key and
 * never touches its parent's.
 *
 * When the server restarts the lock is gone with the session; every
 * bf_store__pg_holder_lock call (each lease taken, each queue turn,
 * each heartbeat) checks the connection and, when it was lost, makes it
 * again and takes the lock again. Meanwhile the holder's alive_at,
 * renewed by the same calls, keeps others from judging it dead
 * (bf_store__holder_dead).
 */
#include "store/store_int.h"

#include "store/sql_pg.h"
#include "store/store_handle.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

/*
 * This process's holder connections. holder_mu guards the table, never
 * network I/O: a call marks its entry busy, lets the mutex go while it
 * checks, connects and locks (each bounded by the connection's
 * connect_timeout, keepalives and lock_timeout, sql_pg.h), then takes
 * it again to record the result. A second call for the same entry
 * waits on holder_cv for the first; calls for other stores go on.
 */
static pthread_mutex_t holder_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t holder_cv = PTHREAD_COND_INITIALIZER;
static struct {
	char *location;
	pid_t pid;
	PGconn *conn;
	int64_t key; /* the key whose lock conn holds; 0: none */
	bool busy; /* a call works on conn without holder_mu */
} holders[16];
static size_t nholders;

/* Whether conn answers (a round trip: a restart shows only then). */
static bool conn_alive(PGconn *conn)
{
	PGresult *res;
	bool ok;

	if (PQstatus(conn) != CONNECTION_OK)
		return false;
	res = PQexec(conn, "SELECT 1");
	ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	PQclear(res);
	return ok && PQstatus(conn) == CONNECTION_OK;
}

/* pg_try_advisory_lock(key) on conn: 1 taken, 0 held by another
 * session, -1 failed. */
static int try_lock(PGconn *conn, int64_t key)
{
	char num[32];
	const char *vals[1] = { num };
	PGresult *res;
	int ret = -1;

	snprintf(num, sizeof(num), "%lld", (long long)key);
	res = PQexecParams(conn, "SELECT pg_try_advisory_lock($1::bigint)", 1,
	                   NULL, vals, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		ret = PQgetvalue(res, 0, 0)[0] == 't';
	PQclear(res);
	return ret;
}

/* The index of this process's entry for location (a new one when
 * none); BF_ARRAY_SIZE(holders) when the table is full. */
static size_t holder_find(const char *location)
{
	pid_t self = getpid();
	size_t i;

	for (i = 0; i < nholders; i++)
		if (holders[i].pid == self &&
		    !strcmp(holders[i].location, location))
			return i;
	if (nholders == BF_ARRAY_SIZE(holders))
		return nholders;
	holders[nholders].location = bf_xstrdup(location);
	holders[nholders].pid = self;
	holders[nholders].conn = NULL;
	holders[nholders].key = 0;
	holders[nholders].busy = false;
	return nholders++;
}

/* Whether another entry of this process holds pg_key's lock (its
 * connection was fine when its last call ended). */
static bool held_by_self(size_t self, int64_t pg_key)
{
	for (size_t i = 0; i < nholders; i++)
		if (i != self && holders[i].pid == getpid() &&
		    holders[i].key == pg_key && holders[i].conn)
			return true;
	return false;
}

/* Make conn (*conn, NULL: none yet) usable and take pg_key's lock on
 * it, without holder_mu: 1 taken, 0 held by another session, -1 failed
 * (err set when it could not connect). */
static int connect_and_lock(PGconn **conn, const struct bf_store *store,
                            int64_t pg_key, struct bf_err *err)
{
	if (!*conn)
		*conn = bf_sql_pg__open_conn(store->path, store->shown, err);
	else if (!conn_alive(*conn) && !bf_sql_pg__reset_conn(*conn))
		bf_err_set(err, BF_ESYS,
		           "lost the connection to the store '%s' and cannot "
		           "make it again",
		           store->shown);
	if (!*conn || PQstatus(*conn) != CONNECTION_OK)
		return -1;
	return try_lock(*conn, pg_key);
}

int bf_store__pg_holder_lock(struct bf_store *store, int64_t pg_key,
                             struct bf_err *err)
{
	struct bf_err cerr = BF_ERR_INIT;
	PGconn *conn;
	size_t i;
	int rc = 0, got;
	bool had;

	pthread_mutex_lock(&holder_mu);
	i = holder_find(store->path);
	if (i == BF_ARRAY_SIZE(holders)) {
		pthread_mutex_unlock(&holder_mu);
		return bf_err_set(err, BF_ESYS,
		                  "cannot take the lease lock on '%s': this "
		                  "process leases from too many stores",
		                  store->shown);
	}
	while (holders[i].busy)
		pthread_cond_wait(&holder_cv, &holder_mu);
	holders[i].busy = true;
	conn = holders[i].conn;
	had = conn && holders[i].key == pg_key;
	pthread_mutex_unlock(&holder_mu);

	if (had && conn_alive(conn))
		got = 1;
	else /* never opened, lost (a server restart), or not locked
	      * yet: connect and lock (again) */
		got = connect_and_lock(&conn, store, pg_key, &cerr);

	pthread_mutex_lock(&holder_mu);
	holders[i].conn = conn;
	holders[i].key = got == 1 ? pg_key : 0;
	if (got == 1)
		;
	else if (got == 0 && held_by_self(i, pg_key))
		; /* another location of this process names the same
		   * database, and its connection holds the lock */
	else if (got == 0)
		rc = bf_err_set(
		        err, BF_EBUSY,
		        "the lease lock %lld on '%s' is held by another "
		        "process",
		        (long long)pg_key, store->shown);
	else if (cerr.code) {
		rc = bf_err_set(err, cerr.code, "%s", cerr.msg);
		bf_err_prefix(err, "cannot take the lease lock %lld",
		              (long long)pg_key);
	} else
		rc = bf_err_set(err, BF_ESYS,
		                "cannot take the lease lock %lld on '%s'",
		                (long long)pg_key, store->shown);
	holders[i].busy = false;
	pthread_cond_broadcast(&holder_cv);
	pthread_mutex_unlock(&holder_mu);
	return rc;
}

struct pg_conn *bf_store__pg_holder_conn(const struct bf_store *store)
{
	struct pg_conn *conn = NULL;

	pthread_mutex_lock(&holder_mu);
	for (size_t i = 0; i < nholders; i++)
		if (holders[i].pid == getpid() &&
		    !strcmp(holders[i].location, store->path))
			conn = holders[i].conn;
	pthread_mutex_unlock(&holder_mu);
	return conn;
}
