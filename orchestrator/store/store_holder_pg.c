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

#include "store/store_handle.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

static pthread_mutex_t holder_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *location;
	pid_t pid;
	PGconn *conn;
	int64_t key; /* the key whose lock conn holds; 0: none */
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
	return nholders++;
}

/* Whether another entry of this process holds pg_key's lock. */
static bool held_by_self(size_t self, int64_t pg_key)
{
	for (size_t i = 0; i < nholders; i++)
		if (i != self && holders[i].pid == getpid() &&
		    holders[i].key == pg_key && holders[i].conn &&
		    PQstatus(holders[i].conn) == CONNECTION_OK)
			return true;
	return false;
}

int bf_store__pg_holder_lock(struct bf_store *store, int64_t pg_key,
                             struct bf_err *err)
{
	size_t i;
	int rc = 0, got;

	pthread_mutex_lock(&holder_mu);
	i = holder_find(store->path);
	if (i == BF_ARRAY_SIZE(holders)) {
		rc = bf_err_set(err, BF_ESYS,
		                "cannot take the lease lock on '%s': this "
		                "process leases from too many stores",
		                store->shown);
		goto out;
	}
	if (holders[i].conn && holders[i].key == pg_key &&
	    conn_alive(holders[i].conn))
		goto out;
	/* never opened, lost (a server restart), or not locked yet:
	 * connect and lock (again) */
	if (!holders[i].conn)
		holders[i].conn = PQconnectdb(store->path);
	else if (PQstatus(holders[i].conn) != CONNECTION_OK ||
	         !conn_alive(holders[i].conn))
		PQreset(holders[i].conn);
	holders[i].key = 0;
	/* libpq's own message can quote the location, password included:
	 * it is not shown */
	if (PQstatus(holders[i].conn) != CONNECTION_OK) {
		rc = bf_err_set(err, BF_ESYS,
		                "cannot connect to the store '%s' for its "
		                "lease lock",
		                store->shown);
		goto out;
	}
	got = try_lock(holders[i].conn, pg_key);
	if (got == 1)
		holders[i].key = pg_key;
	else if (got == 0 && held_by_self(i, pg_key))
		; /* another location of this process names the same
		   * database, and its connection holds the lock */
	else if (got == 0)
		rc = bf_err_set(
		        err, BF_EBUSY,
		        "the lease lock %lld on '%s' is held by another "
		        "process",
		        (long long)pg_key, store->shown);
	else
		rc = bf_err_set(err, BF_ESYS,
		                "cannot take the lease lock %lld on '%s'",
		                (long long)pg_key, store->shown);
out:
	pthread_mutex_unlock(&holder_mu);
	return rc;
}
