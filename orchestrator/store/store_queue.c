/*
 * The leases held and the queue of jobs waiting for a busy pool (see
 * store_int.h for the store's files), over sql.h.
 *
 * A waiter is a row of waiters. Its ticket is the row's integer key,
 * which both servers give as one more than the largest (RETURNING
 * ticket), so a new waiter comes after every live one. A waiter renews
 * its row while it waits; each waiter, when it looks at its turn,
 * removes the dead ones ahead of it, so a waiter that was killed or
 * whose host went away holds nobody back for longer than its expiry.
 * Times are the store's (bf_store__now: the server's on PostgreSQL).
 */
#include "store/store_int.h"

#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

struct rows {
	void *v;
	size_t n, cap, size;
};

/* Room for one more record of rows; zeroed. */
static void *rows_add(struct rows *r)
{
	char *p;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->v = bf_xrealloc(r->v, r->cap * r->size);
	}
	p = (char *)r->v + r->n++ * r->size;
	memset(p, 0, r->size);
	return p;
}

static int read_lease(const struct bf_sql_row *row, void *payload)
{
	struct bf_store_lease *l = rows_add(payload);

	l->device = bf_sql_strdup(row, 0);
	l->holder = bf_sql_strdup(row, 1);
	l->host = bf_sql_strdup(row, 2);
	l->pid = bf_sql_int(row, 3);
	l->acquired_at = bf_sql_int(row, 4);
	l->expires_at = bf_sql_int(row, 5);
	l->token = bf_sql_int(row, 6);
	return 0;
}

int bf_store_lease_list(struct bf_store_lease **out, size_t *n_out,
                        struct bf_store *store, struct bf_err *err)
{
	struct rows r = { NULL, 0, 0, sizeof(**out) };
	int rc;

	rc = bf_sql_exec(store,
	                 "SELECT d.name, l.holder, l.host, l.pid,"
	                 " l.acquired_at, l.expires_at, l.token"
	                 " FROM leases l JOIN devices d ON d.id = l.device_id"
	                 " ORDER BY d.name",
	                 NULL, 0, read_lease, &r, NULL, err,
	                 "cannot list the leases");
	if (rc) {
		bf_store_leases_free(r.v, r.n);
		return rc;
	}
	*out = r.v;
	*n_out = r.n;
	return 0;
}

void bf_store_leases_free(struct bf_store_lease *leases, size_t n)
{
	for (size_t i = 0; leases && i < n; i++) {
		free(leases[i].device);
		free(leases[i].holder);
		free(leases[i].host);
	}
	free(leases);
}

static int read_i64(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

int bf_store_wait_join(int64_t *ticket, struct bf_store *store,
                       const char *pool, const char *holder, int64_t ttl_s,
                       int64_t now, struct bf_err *err)
{
	char host[256];
	struct bf_sql_val v[8];
	int txn, rc;

	if (!pool || !*pool || !holder || !*holder)
		return bf_err_set(err, BF_EINVAL,
		                  "cannot wait for a pool: no pool or holder");
	if (ttl_s <= 0 || now > INT64_MAX - ttl_s)
		return bf_err_set(
		        err, BF_EINVAL,
		        "cannot wait for pool '%s': bad duration %lld s", pool,
		        (long long)ttl_s);
	if ((rc = bf_store__holder_lock(store, err)))
		return rc;
	bf_store__self_host(host, sizeof(host));
	*ticket = 0;
	if ((rc = bf_sql_write_begin(&txn, store, err)))
		return rc;
	rc = bf_store__now(&now, store, now, err);
	if (!rc && now > INT64_MAX - ttl_s)
		rc = bf_err_set(
		        err, BF_EINVAL,
		        "cannot wait for pool '%s': bad duration %lld s", pool,
		        (long long)ttl_s);
	/*
	 * Tickets are never handed out twice, also after the newest one
	 * left (SQLite would reuse the highest INTEGER PRIMARY KEY): a
	 * waiter whose ticket expired and was removed must find it gone,
	 * not renew a newer waiter's. The counter lives in meta.
	 */
	if (!rc)
		rc = bf_sql_exec(
		        store,
		        "INSERT INTO meta (key, value) VALUES ('queue_ticket',"
		        " CAST((SELECT coalesce(max(ticket), 0) + 1"
		        " FROM waiters) AS TEXT))"
		        " ON CONFLICT (key) DO UPDATE SET value ="
		        " CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT)"
		        " RETURNING CAST(value AS BIGINT)",
		        NULL, 0, read_i64, ticket, NULL, err,
		        "cannot take a queue ticket for pool '%s'", pool);
	v[0] = BF_SQL_V_TEXT(pool);
	v[1] = BF_SQL_V_TEXT(holder);
	v[2] = BF_SQL_V_TEXT(*host ? host : NULL);
	v[3] = BF_SQL_V_INT((int64_t)getpid());
	v[4] = BF_SQL_V_INT(now);
	v[5] = BF_SQL_V_INT(now + ttl_s);
	v[6] = BF_SQL_V_INT(*ticket);
	v[7] = BF_SQL_V_INT(bf_store__self_key());
	if (!rc)
		rc = bf_sql_exec(store,
		                 "INSERT INTO waiters (pool, holder, host, pid,"
		                 " since, expires_at, ticket, holder_key,"
		                 " alive_at)"
		                 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?5)",
		                 v, BF_ARRAY_SIZE(v), NULL, NULL, NULL, err,
		                 "cannot join the queue for pool '%s'", pool);
	if (rc)
		*ticket = 0;
	return bf_sql_write_end(store, txn, rc, err);
}

static int read_waiter(const struct bf_sql_row *row, void *payload)
{
	struct bf_store_waiter *w = rows_add(payload);

	w->ticket = bf_sql_int(row, 0);
	w->pool = bf_sql_strdup(row, 1);
	w->holder = bf_sql_strdup(row, 2);
	w->host = bf_sql_strdup(row, 3);
	w->pid = bf_sql_int(row, 4);
	w->since = bf_sql_int(row, 5);
	w->expires_at = bf_sql_int(row, 6);
	w->key = bf_sql_int(row, 7);
	w->alive_at = bf_sql_int(row, 8);
	return 0;
}

#define WAITER_SELECT                                                \
	"SELECT ticket, pool, holder, host, pid, since, expires_at," \
	" holder_key, alive_at FROM waiters"

/* Remove ticket's dead waiters ahead; *ahead: the live ones left. */
static int count_ahead(int64_t *ahead, struct bf_store *store, int64_t ticket,
                       const char *pool, int64_t now, struct bf_err *err)
{
	struct rows r = { NULL, 0, 0, sizeof(struct bf_store_waiter) };
	struct bf_sql_val v[2] = { BF_SQL_V_TEXT(pool), BF_SQL_V_INT(ticket) };
	struct bf_store_waiter *w;
	int rc;

	*ahead = 0;
	rc = bf_sql_exec(store,
	                 WAITER_SELECT " WHERE pool = ?1 AND ticket < ?2"
	                               " ORDER BY ticket",
	                 v, 2, read_waiter, &r, NULL, err,
	                 "cannot read the queue for pool '%s'", pool);
	w = r.v;
	for (size_t i = 0; !rc && i < r.n; i++) {
		struct bf_sql_val t = BF_SQL_V_INT(w[i].ticket);

		if (w[i].expires_at > now &&
		    !bf_store__holder_dead(store, w[i].host, w[i].key,
		                           w[i].alive_at, now)) {
			(*ahead)++;
			continue;
		}
		rc = bf_sql_exec(store, "DELETE FROM waiters WHERE ticket = ?1",
		                 &t, 1, NULL, NULL, NULL, err,
		                 "cannot remove the dead waiter %lld",
		                 (long long)w[i].ticket);
	}
	bf_store_waiters_free(r.v, r.n);
	return rc;
}

static int read_text(const struct bf_sql_row *row, void *payload)
{
	*(char **)payload = bf_sql_strdup(row, 0);
	return 0;
}

int bf_store_wait_turn(int64_t *ahead, struct bf_store *store, int64_t ticket,
                       int64_t ttl_s, int64_t now, struct bf_err *err)
{
	struct bf_sql_val v[3];
	char *pool = NULL;
	int txn, rc;

	*ahead = 0;
	if (ttl_s <= 0 || now > INT64_MAX - ttl_s)
		return bf_err_set(err, BF_EINVAL,
		                  "queue ticket %lld: bad duration %lld s",
		                  (long long)ticket, (long long)ttl_s);
	/* alive_at is written only with the lock held: after a server
	 * restart it is taken again first (bf_store__alive_since_start) */
	if ((rc = bf_store__holder_lock(store, err)))
		return rc;
	if ((rc = bf_sql_write_begin(&txn, store, err)))
		return rc;
	rc = bf_store__now(&now, store, now, err);
	if (!rc && now > INT64_MAX - ttl_s)
		rc = bf_err_set(err, BF_EINVAL,
		                "queue ticket %lld: bad duration %lld s",
		                (long long)ticket, (long long)ttl_s);
	v[0] = BF_SQL_V_INT(ticket);
	v[1] = BF_SQL_V_INT(now + (rc ? 0 : ttl_s));
	v[2] = BF_SQL_V_INT(now);
	if (!rc)
		rc = bf_sql_exec(
		        store,
		        "UPDATE waiters SET expires_at = ?2, alive_at = ?3"
		        " WHERE ticket = ?1 RETURNING pool",
		        v, 3, read_text, &pool, NULL, err,
		        "cannot renew the queue ticket %lld",
		        (long long)ticket);
	if (!rc && !pool)
		rc = bf_err_set(err, BF_ENOTFOUND,
		                "queue ticket %lld is gone (it expired)",
		                (long long)ticket);
	if (!rc)
		rc = count_ahead(ahead, store, ticket, pool, now, err);
	free(pool);
	return bf_sql_write_end(store, txn, rc, err);
}

int bf_store_wait_leave(struct bf_store *store, int64_t ticket,
                        struct bf_err *err)
{
	struct bf_sql_val v = BF_SQL_V_INT(ticket);

	return bf_sql_exec(store, "DELETE FROM waiters WHERE ticket = ?1", &v,
	                   1, NULL, NULL, NULL, err,
	                   "cannot leave the queue (ticket %lld)",
	                   (long long)ticket);
}

int bf_store_waiter_list(struct bf_store_waiter **out, size_t *n_out,
                         struct bf_store *store, struct bf_err *err)
{
	struct rows r = { NULL, 0, 0, sizeof(**out) };
	int rc;

	rc = bf_sql_exec(store, WAITER_SELECT " ORDER BY ticket", NULL, 0,
	                 read_waiter, &r, NULL, err,
	                 "cannot list the waiting jobs");
	if (rc) {
		bf_store_waiters_free(r.v, r.n);
		return rc;
	}
	*out = r.v;
	*n_out = r.n;
	return 0;
}

void bf_store_waiters_free(struct bf_store_waiter *waiters, size_t n)
{
	for (size_t i = 0; waiters && i < n; i++) {
		free(waiters[i].pool);
		free(waiters[i].holder);
		free(waiters[i].host);
	}
	free(waiters);
}
