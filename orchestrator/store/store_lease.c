/* Leases on devices (see store_int.h for the store's files). */
#include "store/store_int.h"

#include "store/sql_sqlite.h"

#include <fcntl.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/log.h"

/* A device as a lease operation sees it. */
struct lease {
	struct bf_store_device dev; /* with its lease's holder and expiry */
	char *host; /* the holder's host and pid; NULL, 0 when unknown */
	int64_t pid;
};

static void lease_release(struct lease *l)
{
	bf_store_device_release(&l->dev);
	free(l->host);
}

/* This machine's name, as leases record it ("" when unknown). */
static void self_host(char *buf, size_t len)
{
	if (gethostname(buf, len - 1) < 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
}

/*
 * Whether the lease's holder is provably dead: it recorded this host
 * and a pid not ours, and nobody holds that pid's liveness lock, which
 * the holder took with the lease and the kernel dropped when it ended.
 * A pid reused since is no holder and holds no lock. A lease from
 * another host, or one without host and pid, is never judged here.
 */
static bool holder_dead(struct bf_store *store, const struct lease *l)
{
	char host[256];

	if (!l->host || l->pid <= 0 || l->pid == (int64_t)getpid())
		return false;
	self_host(host, sizeof(host));
	if (!*host || strcmp(host, l->host))
		return false;
	return bf_store__lease_lock(store->path, l->pid, F_OFD_GETLK,
	                            F_WRLCK) == F_UNLCK;
}

/* Copy the row of lease_lookup's query into the lease at out. */
static void read_owner(void *out, sqlite3_stmt *st)
{
	struct lease *l = out;

	l->host = bf_store__col_strdup(st, 0);
	l->pid = sqlite3_column_int64(st, 1);
}

/*
 * The device and its lease, with the host and pid of the process that
 * took it; BF_ENOTFOUND without the device.
 */
static int lease_lookup(struct lease *out, struct bf_store *store,
                        const char *device, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store_device_get(&out->dev, store, device, err);
	if (rc || !out->dev.lease_holder)
		return rc;
	rc = bf_store__prepare(
	        &st, store, -1,
	        "SELECT host, pid FROM leases WHERE device_id = ?1", err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, out->dev.id);
		rc = bf_store__one_row(store, st, read_owner, out, err,
		                       "the lease of device '%s'", device);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Run a lease write binding ?1 device id, ?2 holder, ?3 and ?4 times
 * and, when sql has them, ?5 and ?6 this process's host and pid.
 */
static int lease_write(struct bf_store *store, const char *sql,
                       const struct lease *l, const char *holder, int64_t t3,
                       int64_t t4, struct bf_err *err)
{
	struct bf_store__val vals[6];
	char host[256];

	self_host(host, sizeof(host)); /* bound until the step */
	vals[0] = BF_STORE__INT(l->dev.id);
	vals[1] = BF_STORE__TEXT(holder);
	vals[2] = BF_STORE__INT(t3);
	vals[3] = BF_STORE__INT(t4);
	vals[4] = BF_STORE__TEXT(*host ? host : NULL);
	vals[5] = BF_STORE__INT((int64_t)getpid());
	return bf_store__write(store, sql, vals, BF_ARRAY_SIZE(vals), false,
	                       err, "a lease");
}

/* This process's liveness lock as a lease holder, held until it exits. */
static int lease_take_lock(struct bf_store *store, struct bf_err *err)
{
	if (bf_store__lease_lock(store->path, (int64_t)getpid(), F_OFD_SETLK,
	                         F_WRLCK))
		return bf_err_sys(err,
		                  "cannot take the lease lock in '%s.lock'",
		                  store->path);
	return 0;
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
	bool held = l->dev.lease_holder &&
	            !strcmp(l->dev.lease_holder, holder) &&
	            l->dev.lease_expires_at > now;

	if (held || !l->dev.health ||
	    (strcmp(l->dev.health, "maintenance") &&
	     strcmp(l->dev.health, "retired")))
		return 0;
	return bf_err_set(
	        err, BF_EBUSY,
	        "device '%s' takes no new lease: its health is %s%s%s%s",
	        device, l->dev.health, l->dev.health_reason ? " (" : "",
	        l->dev.health_reason ? l->dev.health_reason : "",
	        l->dev.health_reason ? ")" : "");
}

/*
 * The start of a lease operation on device by holder: check the
 * arguments, open the write transaction (*token, for lease_end; left 0
 * when none was opened) and read the device's lease into *l.
 */
static int lease_begin(struct lease *l, int *token, struct bf_store *store,
                       const char *device, const char *holder, int64_t ttl_s,
                       int64_t now, struct bf_err *err)
{
	int rc = check_lease_args(device, holder, ttl_s, now, err);

	if (!rc)
		rc = bf_store__write_begin(token, store, err);
	if (!rc)
		rc = lease_lookup(l, store, device, err);
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
	return token ? bf_store__write_end(store, token, rc, err) : rc;
}

/* Whether someone other than holder has a lease that has not expired. */
static bool held_by_other(const struct lease *l, const char *holder,
                          int64_t now)
{
	return l->dev.lease_holder && strcmp(l->dev.lease_holder, holder) &&
	       l->dev.lease_expires_at > now;
}

int bf_store_lease_acquire(struct bf_store *store, const char *device,
                           const char *holder, int64_t ttl_s, int64_t now,
                           struct bf_err *err)
{
	struct lease l = { 0 };
	int token = 0;
	int rc;

	rc = lease_begin(&l, &token, store, device, holder, ttl_s, now, err);
	if (!rc && held_by_other(&l, holder, now) && holder_dead(store, &l)) {
		BF_LOG_WARN("device '%s': taking back the lease of '%s': its "
		            "process %lld on %s has ended",
		            device, l.dev.lease_holder, (long long)l.pid,
		            l.host);
		l.dev.lease_expires_at = now;
	}
	if (!rc && held_by_other(&l, holder, now))
		rc = bf_err_set(
		        err, BF_EBUSY,
		        "device '%s' is leased by '%s' for another %lld s",
		        device, l.dev.lease_holder,
		        (long long)(l.dev.lease_expires_at - now));
	if (!rc)
		rc = check_leasable(&l, device, holder, now, err);
	if (!rc)
		rc = lease_take_lock(store, err);
	if (!rc)
		rc = lease_write(store,
		                 "INSERT OR REPLACE INTO leases (device_id,"
		                 " holder, acquired_at, expires_at, host, pid)"
		                 " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
		                 &l, holder, now, now + ttl_s, err);
	if (!rc)
		rc = lease_write(store,
		                 "UPDATE devices SET state = 'leased'"
		                 " WHERE id = ?1",
		                 &l, NULL, 0, 0, err);
	return lease_end(store, &l, token, rc, err);
}

/* Whether holder holds the lease in l; sets err when not. */
static int check_holder(const struct lease *l, const char *device,
                        const char *holder, struct bf_err *err)
{
	if (!l->dev.lease_holder)
		return bf_err_set(err, BF_ENOTFOUND,
		                  "device '%s' is not leased", device);
	if (strcmp(l->dev.lease_holder, holder))
		return bf_err_set(err, BF_EBUSY,
		                  "device '%s' is leased by '%s', not '%s'",
		                  device, l->dev.lease_holder, holder);
	return 0;
}

int bf_store_lease_renew(struct bf_store *store, const char *device,
                         const char *holder, int64_t ttl_s, int64_t now,
                         struct bf_err *err)
{
	struct lease l = { 0 };
	int token = 0;
	int rc;

	rc = lease_begin(&l, &token, store, device, holder, ttl_s, now, err);
	if (!rc)
		rc = check_holder(&l, device, holder, err);
	if (!rc)
		rc = lease_write(store,
		                 "UPDATE leases SET expires_at = ?3"
		                 " WHERE device_id = ?1",
		                 &l, NULL, now + ttl_s, 0, err);
	return lease_end(store, &l, token, rc, err);
}

int bf_store_lease_release(struct bf_store *store, const char *device,
                           const char *holder, struct bf_err *err)
{
	struct lease l = { 0 };
	int token = 0;
	int rc;

	rc = lease_begin(&l, &token, store, device, holder, 1, 0, err);
	if (!rc)
		rc = check_holder(&l, device, holder, err);
	if (!rc)
		rc = lease_write(store,
		                 "DELETE FROM leases WHERE device_id = ?1", &l,
		                 NULL, 0, 0, err);
	if (!rc)
		rc = lease_write(store,
		                 "UPDATE devices SET state = 'idle'"
		                 " WHERE id = ?1",
		                 &l, NULL, 0, 0, err);
	return lease_end(store, &l, token, rc, err);
}

int bf_store_leases_release_own(struct bf_store *store, int *n_out,
                                struct bf_err *err)
{
	static const char *const sql[] = {
		"UPDATE devices SET state = 'idle' WHERE id IN"
		" (SELECT device_id FROM leases WHERE host = ?1 AND pid = ?2)",
		"DELETE FROM leases WHERE host = ?1 AND pid = ?2",
	};
	sqlite3_stmt *st = NULL;
	char host[256];
	int token, rc;

	if (n_out)
		*n_out = 0;
	self_host(host, sizeof(host));
	if (!*host)
		return 0;
	if ((rc = bf_store__write_begin(&token, store, err)))
		return rc;
	for (size_t i = 0; !rc && i < BF_ARRAY_SIZE(sql); i++) {
		rc = bf_store__prepare(&st, store, -1, sql[i], err);
		if (rc)
			break;
		bf_store__bind_text(st, 1, host);
		sqlite3_bind_int64(st, 2, (int64_t)getpid());
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE ? 0
		                       : bf_store__err(store, rc, err,
		                                       "cannot release leases");
		if (!rc && i == 1 && n_out)
			*n_out = sqlite3_changes(store->db);
		sqlite3_finalize(st);
		st = NULL;
	}
	return bf_store__write_end(store, token, rc, err);
}
