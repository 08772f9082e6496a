/*
 * Leases on devices (see store_int.h for the store's files), over the
 * backend-neutral SQL of sql.h.
 *
 * A lease is a row of leases (one per device) in one write transaction
 * with its device's row: on PostgreSQL the device row is locked first
 * (FOR UPDATE to take, renew or drop a lease, FOR SHARE to fence a
 * write), on SQLite the write transaction (BEGIN IMMEDIATE) already
 * holds the database.
 * Each acquire increments the device's lease_gen, and the lease keeps
 * that value as its fencing token: a job that lost its lease (it
 * expired and another job took the device) holds a token lower than
 * the device's, and its writes for that device are refused.
 *
 * Times are the store's (bf_store__now): the caller's now on SQLite,
 * the server's on PostgreSQL, read after the device's row is locked.
 */
#include "store/store_int.h"

#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/log.h"

/* A device as a lease operation sees it. */
struct lease {
	bool found;
	int64_t id;
	char *health, *health_reason;
	int64_t gen; /* the device's last token given out */
	char *holder; /* NULL when not leased */
	int64_t expires_at, token;
	char *host; /* the holder's host and pid; NULL, 0 when unknown */
	int64_t pid;
	int64_t key, alive_at; /* its holder key, when it was last alive */
};

static void lease_release(struct lease *l)
{
	free(l->health);
	free(l->health_reason);
	free(l->holder);
	free(l->host);
	memset(l, 0, sizeof(*l));
}

/* Whether the lease's holder is provably dead (bf_store__holder_dead). */
static bool holder_dead(struct bf_store *store, const struct lease *l,
                        int64_t now)
{
	return bf_store__holder_dead(store, l->host, l->key, l->alive_at, now);
}

static int read_lease(const struct bf_sql_row *row, void *payload)
{
	struct lease *l = payload;

	l->found = true;
	l->id = bf_sql_int(row, 0);
	l->health = bf_sql_strdup(row, 1);
	l->health_reason = bf_sql_strdup(row, 2);
	l->gen = bf_sql_int(row, 3);
	l->holder = bf_sql_strdup(row, 4);
	l->expires_at = bf_sql_int(row, 5);
	l->token = bf_sql_int(row, 6);
	l->host = bf_sql_strdup(row, 7);
	l->pid = bf_sql_int(row, 8);
	l->key = bf_sql_int(row, 9);
	l->alive_at = bf_sql_int(row, 10);
	return 0;
}

#define LEASE_SELECT                                                     \
	"SELECT d.id, d.health, d.health_reason, d.lease_gen, l.holder," \
	" l.expires_at, l.token, l.host, l.pid, l.holder_key,"           \
	" l.alive_at"                                                    \
	" FROM devices d LEFT JOIN leases l ON l.device_id = d.id"       \
	" WHERE d.name = ?1"

/*
 * The device and its lease, the device's row locked on PostgreSQL
 * (for_update: FOR UPDATE, else FOR SHARE); BF_ENOTFOUND without the
 * device. The lock is its own statement, before the read: under READ
 * COMMITTED a statement that waited for a row lock sees the locked row
 * as the other transaction committed it but the joined lease as it was
 * when the statement began; the read after it starts a fresh snapshot,
 * taken once the other transaction's lease is committed.
 */
static int lease_lookup(struct lease *out, struct bf_store *store,
                        const char *device, bool for_update, struct bf_err *err)
{
	struct bf_sql_val v = BF_SQL_V_TEXT(device);
	int rc = 0;

	if (bf_sql_backend(store) == BF_SQL_PG)
		rc = bf_sql_exec(store,
		                 for_update ? "SELECT id FROM devices"
		                              " WHERE name = ?1 FOR UPDATE"
		                            : "SELECT id FROM devices"
		                              " WHERE name = ?1 FOR SHARE",
		                 &v, 1, NULL, NULL, NULL, err,
		                 "cannot lock device '%s'", device);
	if (!rc)
		rc = bf_sql_exec(
		        store, LEASE_SELECT, &v, 1, read_lease, out, NULL, err,
		        "cannot read the lease of device '%s'", device);
	if (!rc && !out->found)
		rc = bf_err_set(err, BF_ENOTFOUND, "no device '%s'", device);
	return rc;
}

static int check_lease_args(const char *device, const char *holder,
                            int64_t ttl_s, int64_t now, struct bf_err *err)
{
	if (!device || !*device)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	if (!holder || !*holder)
		return bf_err_set(err, BF_EINVAL,
		                  "lease on '%s': no holder given", device);
	if (ttl_s <= 0 || now > INT64_MAX - ttl_s)
		return bf_err_set(err, BF_EINVAL,
		                  "lease on '%s': bad duration %lld s", device,
		                  (long long)ttl_s);
	return 0;
}

/* Drained (maintenance) and retired devices take no new lease. */
static int check_leasable(const struct lease *l, const char *device,
                          const char *holder, int64_t now, struct bf_err *err)
{
	bool held =
	        l->holder && !strcmp(l->holder, holder) && l->expires_at > now;

	if (held || !l->health ||
	    (strcmp(l->health, "maintenance") && strcmp(l->health, "retired")))
		return 0;
	return bf_err_set(
	        err, BF_EBUSY,
	        "device '%s' takes no new lease: its health is %s%s%s%s",
	        device, l->health, l->health_reason ? " (" : "",
	        l->health_reason ? l->health_reason : "",
	        l->health_reason ? ")" : "");
}

/*
 * The start of a lease operation on device by holder: check the
 * arguments, open the write transaction (*token, for lease_end; left 0
 * when none was opened), read the device's lease into *l, its row
 * locked, and set *now to the store's time (the caller's on entry).
 */
static int lease_begin(struct lease *l, int *token, struct bf_store *store,
                       const char *device, const char *holder, int64_t ttl_s,
                       int64_t *now, struct bf_err *err)
{
	int rc = check_lease_args(device, holder, ttl_s, *now, err);

	if (!rc)
		rc = bf_sql_write_begin(token, store, err);
	if (!rc)
		rc = lease_lookup(l, store, device, true, err);
	if (!rc)
		rc = bf_store__now(now, store, *now, err);
	if (!rc && *now > INT64_MAX - ttl_s)
		rc = bf_err_set(err, BF_EINVAL,
		                "lease on '%s': bad duration %lld s", device,
		                (long long)ttl_s);
	return rc;
}

/*
 * The end of a lease operation: free *l and, when lease_begin opened the
 * transaction, commit it when rc is 0 or roll it back.
 */
static int lease_end(struct bf_store *store, struct lease *l, int token, int rc,
                     struct bf_err *err)
{
	lease_release(l);
	return token ? bf_sql_write_end(store, token, rc, err) : rc;
}

/* Whether someone other than holder has a lease that has not expired. */
static bool held_by_other(const struct lease *l, const char *holder,
                          int64_t now)
{
	return l->holder && strcmp(l->holder, holder) && l->expires_at > now;
}

/* Run one lease write; what names it in an error. */
static int lease_write(struct bf_store *store, const char *sql,
                       const struct bf_sql_val *vals, size_t n,
                       const char *device, struct bf_err *err)
{
	return bf_sql_exec(store, sql, vals, n, NULL, NULL, NULL, err,
	                   "cannot update the lease of device '%s'", device);
}

static int read_i64(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

/* Record holder's lease on l's device with a new token (*token_out). */
static int lease_store(struct bf_store *store, const struct lease *l,
                       const char *device, const char *holder, int64_t now,
                       int64_t ttl_s, int64_t *token_out, struct bf_err *err)
{
	char host[256];
	int64_t gen = 0;
	int rc;

	bf_store__self_host(host, sizeof(host));
	{
		const struct bf_sql_val v[] = { BF_SQL_V_INT(l->id) };

		rc = bf_sql_exec(store,
		                 "UPDATE devices SET state = 'leased',"
		                 " lease_gen = lease_gen + 1 WHERE id = ?1"
		                 " RETURNING lease_gen",
		                 v, 1, read_i64, &gen, NULL, err,
		                 "cannot lease device '%s'", device);
	}
	if (!rc) {
		const struct bf_sql_val v[] = {
			BF_SQL_V_INT(l->id),
			BF_SQL_V_TEXT(holder),
			BF_SQL_V_INT(now),
			BF_SQL_V_INT(now + ttl_s),
			BF_SQL_V_TEXT(*host ? host : NULL),
			BF_SQL_V_INT((int64_t)getpid()),
			BF_SQL_V_INT(gen),
			BF_SQL_V_INT(bf_store__self_key()),
		};

		rc = lease_write(
		        store,
		        "INSERT INTO leases (device_id, holder, acquired_at,"
		        " expires_at, host, pid, token, holder_key, alive_at)"
		        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?3)"
		        " ON CONFLICT (device_id) DO UPDATE SET"
		        " holder = excluded.holder,"
		        " acquired_at = excluded.acquired_at,"
		        " expires_at = excluded.expires_at,"
		        " host = excluded.host, pid = excluded.pid,"
		        " token = excluded.token,"
		        " holder_key = excluded.holder_key,"
		        " alive_at = excluded.alive_at",
		        v, BF_ARRAY_SIZE(v), device, err);
	}
	if (!rc && token_out)
		*token_out = gen;
	return rc;
}

int bf_store_lease_take(struct bf_store *store, const char *device,
                        const char *holder, int64_t ttl_s, int64_t now,
                        int64_t *token_out, struct bf_err *err)
{
	struct lease l = { 0 };
	int token = 0;
	int rc;

	rc = lease_begin(&l, &token, store, device, holder, ttl_s, &now, err);
	if (!rc && held_by_other(&l, holder, now) &&
	    holder_dead(store, &l, now)) {
		BF_LOG_WARN("device '%s': taking back the lease of '%s': its "
		            "process %lld on %s has ended",
		            device, l.holder, (long long)l.pid, l.host);
		l.expires_at = now;
	}
	if (!rc && held_by_other(&l, holder, now))
		rc = bf_err_set(err, BF_EBUSY,
		                "device '%s' is leased by '%s' for another "
		                "%lld s",
		                device, l.holder,
		                (long long)(l.expires_at - now));
	if (!rc)
		rc = check_leasable(&l, device, holder, now, err);
	if (!rc)
		rc = bf_store__holder_lock(store, err);
	if (!rc)
		rc = lease_store(store, &l, device, holder, now, ttl_s,
		                 token_out, err);
	return lease_end(store, &l, token, rc, err);
}

int bf_store_lease_acquire(struct bf_store *store, const char *device,
                           const char *holder, int64_t ttl_s, int64_t now,
                           struct bf_err *err)
{
	return bf_store_lease_take(store, device, holder, ttl_s, now, NULL,
	                           err);
}

/* Whether holder holds the lease in l; sets err when not. */
static int check_holder(const struct lease *l, const char *device,
                        const char *holder, struct bf_err *err)
{
	if (!l->holder)
		return bf_err_set(err, BF_ENOTFOUND,
		                  "device '%s' is not leased", device);
	if (strcmp(l->holder, holder))
		return bf_err_set(err, BF_EBUSY,
		                  "device '%s' is leased by '%s', not '%s'",
		                  device, l->holder, holder);
	return 0;
}

/*
 * A store too busy to answer (SQLite's busy timeout, a PostgreSQL
 * serialization failure or deadlock: BF_EBUSY from sql.h) is no
 * refusal: BF_ETIMEOUT, err's message kept, so that a heartbeat tries
 * again rather than give the lease up.
 */
static int busy_store(int rc, struct bf_err *err)
{
	if (rc != BF_EBUSY)
		return rc;
	if (err)
		err->code = BF_ETIMEOUT;
	return BF_ETIMEOUT;
}

int bf_store_lease_renew(struct bf_store *store, const char *device,
                         const char *holder, int64_t ttl_s, int64_t now,
                         struct bf_err *err)
{
	struct lease l = { 0 };
	int token = 0, refused = 0;
	int rc;

	/* alive_at is written only with the lock held: after a server
	 * restart it is taken again first (bf_store__alive_since_start) */
	if ((rc = bf_store__holder_lock(store, err)))
		return busy_store(rc, err);
	rc = busy_store(lease_begin(&l, &token, store, device, holder, ttl_s,
	                            &now, err),
	                err);
	if (!rc)
		rc = refused = check_holder(&l, device, holder, err);
	if (!rc) {
		const struct bf_sql_val v[] = { BF_SQL_V_INT(l.id),
			                        BF_SQL_V_INT(now + ttl_s),
			                        BF_SQL_V_INT(now) };

		rc = busy_store(
		        lease_write(store,
		                    "UPDATE leases SET expires_at = ?2,"
		                    " alive_at = ?3 WHERE device_id = ?1",
		                    v, BF_ARRAY_SIZE(v), device, err),
		        err);
	}
	rc = lease_end(store, &l, token, rc, err);
	return rc && rc == refused ? rc : busy_store(rc, err);
}

int bf_store_lease_release(struct bf_store *store, const char *device,
                           const char *holder, struct bf_err *err)
{
	struct lease l = { 0 };
	int64_t now = 0;
	int token = 0;
	int rc;

	rc = lease_begin(&l, &token, store, device, holder, 1, &now, err);
	if (!rc)
		rc = check_holder(&l, device, holder, err);
	if (!rc) {
		const struct bf_sql_val v[] = { BF_SQL_V_INT(l.id) };

		rc = lease_write(store,
		                 "DELETE FROM leases WHERE device_id = ?1", v,
		                 1, device, err);
		if (!rc)
			rc = lease_write(store,
			                 "UPDATE devices SET state = 'idle'"
			                 " WHERE id = ?1",
			                 v, 1, device, err);
	}
	return lease_end(store, &l, token, rc, err);
}

int bf_store_lease_fence(struct bf_store *store, const char *device,
                         int64_t token, int64_t now, struct bf_err *err)
{
	struct lease l = { 0 };
	int rc = lease_lookup(&l, store, device, false, err);

	if (!rc)
		rc = bf_store__now(&now, store, now, err);
	if (rc == BF_ENOTFOUND)
		rc = bf_err_set(err, BF_EBUSY,
		                "device '%s' was removed from the registry; "
		                "this job's results for it are not stored",
		                device);
	else if (!rc && l.gen > token)
		rc = bf_err_set(
		        err, BF_EBUSY,
		        "device '%s': its lease was taken by another job "
		        "(token %lld > %lld); this job's results for "
		        "it are not stored",
		        device, (long long)l.gen, (long long)token);
	else if (!rc && (!l.holder || l.token != token))
		rc = bf_err_set(err, BF_EBUSY,
		                "device '%s' is no longer leased by this job "
		                "(token %lld); this job's results for it are "
		                "not stored",
		                device, (long long)token);
	else if (!rc && l.expires_at <= now)
		rc = bf_err_set(
		        err, BF_EBUSY,
		        "device '%s': its lease (token %lld) expired %lld s "
		        "ago; this job's results for it are not stored",
		        device, (long long)token,
		        (long long)(now - l.expires_at));
	lease_release(&l);
	return rc;
}

int bf_store_fence_begin(int *txn, struct bf_store *store, const char *device,
                         int64_t token, int64_t now, struct bf_err *err)
{
	int rc = bf_sql_write_begin(txn, store, err);

	if (rc)
		return rc;
	rc = bf_store_lease_fence(store, device, token, now, err);
	if (rc)
		bf_sql_write_end(store, *txn, rc, NULL);
	return rc;
}

int bf_store_fence_end(struct bf_store *store, int txn, int rc,
                       struct bf_err *err)
{
	return bf_sql_write_end(store, txn, rc, err);
}

int bf_store_leases_release_own(struct bf_store *store, int *n_out,
                                struct bf_err *err)
{
	static const char *const sql[] = {
		"UPDATE devices SET state = 'idle' WHERE id IN"
		" (SELECT device_id FROM leases WHERE holder_key = ?1)",
		"DELETE FROM leases WHERE holder_key = ?1",
		"DELETE FROM waiters WHERE holder_key = ?1",
	};
	struct bf_sql_val v[1];
	int64_t changes = 0;
	int token, rc;

	if (n_out)
		*n_out = 0;
	v[0] = BF_SQL_V_INT(bf_store__self_key());
	if ((rc = bf_sql_write_begin(&token, store, err)))
		return rc;
	for (size_t i = 0; !rc && i < BF_ARRAY_SIZE(sql); i++) {
		rc = bf_sql_exec(store, sql[i], v, BF_ARRAY_SIZE(v), NULL, NULL,
		                 &changes, err, "cannot release leases");
		if (!rc && i == 1 && n_out)
			*n_out = (int)changes;
	}
	return bf_sql_write_end(store, token, rc, err);
}
