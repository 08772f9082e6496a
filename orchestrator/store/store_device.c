#define BF_STORE_INTERNAL
#include "store/store.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"

static const char *const device_types[] = { "linux", "android", NULL };
static const char *const device_states[] = { "idle", "leased", "running",
	                                     NULL };
static const char *const device_healths[] = { "unknown",     "good",    "bad",
	                                      "maintenance", "retired", NULL };

#define DEVICE_COLUMNS                                                     \
	"SELECT d.id, d.name, d.type, d.host, d.port, d.user, d.key_path," \
	" d.labels, d.agent_path, d.adb_serial, d.host_key_fp, d.state,"   \
	" d.health, d.health_reason, d.last_check_at, d.created_at,"       \
	" l.holder, l.expires_at, d.workdir"                               \
	" FROM devices d LEFT JOIN leases l ON l.device_id = d.id"

/* Copy the row of a DEVICE_COLUMNS query into dev. */
static void read_device(struct bf_store_device *dev, sqlite3_stmt *st)
{
	dev->id = sqlite3_column_int64(st, 0);
	dev->name = bf_store__col_strdup(st, 1);
	dev->type = bf_store__col_strdup(st, 2);
	dev->host = bf_store__col_strdup(st, 3);
	dev->port = sqlite3_column_int(st, 4);
	dev->user = bf_store__col_strdup(st, 5);
	dev->key_path = bf_store__col_strdup(st, 6);
	dev->labels = bf_store__col_strdup(st, 7);
	dev->agent_path = bf_store__col_strdup(st, 8);
	dev->adb_serial = bf_store__col_strdup(st, 9);
	dev->host_key_fp = bf_store__col_strdup(st, 10);
	dev->state = bf_store__col_strdup(st, 11);
	dev->health = bf_store__col_strdup(st, 12);
	dev->health_reason = bf_store__col_strdup(st, 13);
	dev->last_check_at = sqlite3_column_int64(st, 14);
	dev->created_at = sqlite3_column_int64(st, 15);
	dev->lease_holder = bf_store__col_strdup(st, 16);
	dev->lease_expires_at = sqlite3_column_int64(st, 17);
	dev->workdir = bf_store__col_strdup(st, 18);
}

void bf_store_device_release(struct bf_store_device *dev)
{
	if (!dev)
		return;
	free(dev->name);
	free(dev->type);
	free(dev->host);
	free(dev->user);
	free(dev->key_path);
	free(dev->labels);
	free(dev->agent_path);
	free(dev->adb_serial);
	free(dev->workdir);
	free(dev->host_key_fp);
	free(dev->state);
	free(dev->health);
	free(dev->health_reason);
	free(dev->lease_holder);
	memset(dev, 0, sizeof(*dev));
}

void bf_store_devices_free(struct bf_store_device *devs, size_t n)
{
	size_t i;

	for (i = 0; devs && i < n; i++)
		bf_store_device_release(&devs[i]);
	free(devs);
}

static int check_device(const struct bf_store_device *dev, struct bf_err *err)
{
	if (!dev->name || !*dev->name)
		return bf_err_set(err, BF_EINVAL, "device has no name");
	if (!bf_store__is_one_of(dev->type, device_types))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': type must be linux or android",
		                  dev->name);
	if (dev->state && !bf_store__is_one_of(dev->state, device_states))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': unknown state '%s'", dev->name,
		                  dev->state);
	if (dev->health && !bf_store__is_one_of(dev->health, device_healths))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': unknown health '%s'", dev->name,
		                  dev->health);
	if (dev->port < 0 || dev->port > 65535)
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': port %d out of range",
		                  dev->name, dev->port);
	return 0;
}

int bf_store_device_add(struct bf_store *store,
                        const struct bf_store_device *dev, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t created = dev->created_at ? dev->created_at : time(NULL);
	int rc;

	rc = check_device(dev, err);
	if (!rc)
		rc = bf_store__prepare(
		        &st, store, -1,
		        "INSERT INTO devices (name, type, host, port, user,"
		        " key_path, labels, agent_path, adb_serial,"
		        " host_key_fp, state, health, health_reason,"
		        " last_check_at, created_at, workdir) VALUES (?1, ?2,"
		        " ?3, ?4, ?5, ?6, coalesce(?7, ''), ?8, ?9, ?10,"
		        " coalesce(?11, 'idle'), coalesce(?12, 'unknown'),"
		        " ?13, ?14, ?15, ?16)",
		        err);
	if (rc)
		goto out;
	if (bf_store__bind_text(st, 1, dev->name) ||
	    bf_store__bind_text(st, 2, dev->type) ||
	    bf_store__bind_text(st, 3, dev->host) ||
	    sqlite3_bind_int(st, 4, dev->port) ||
	    bf_store__bind_text(st, 5, dev->user) ||
	    bf_store__bind_text(st, 6, dev->key_path) ||
	    bf_store__bind_text(st, 7, dev->labels) ||
	    bf_store__bind_text(st, 8, dev->agent_path) ||
	    bf_store__bind_text(st, 9, dev->adb_serial) ||
	    bf_store__bind_text(st, 10, dev->host_key_fp) ||
	    bf_store__bind_text(st, 11, dev->state) ||
	    bf_store__bind_text(st, 12, dev->health) ||
	    bf_store__bind_text(st, 13, dev->health_reason) ||
	    bf_store__bind_opt_int(st, 14, dev->last_check_at) ||
	    sqlite3_bind_int64(st, 15, created) ||
	    bf_store__bind_text(st, 16, dev->workdir)) {
		rc = bf_store__err(store, sqlite3_errcode(store->db), err,
		                   "cannot add device '%s'", dev->name);
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc == SQLITE_CONSTRAINT_UNIQUE)
		rc = bf_err_set(err, BF_EEXISTS, "device '%s' already exists",
		                dev->name);
	else
		rc = bf_store__err(store, rc, err, "cannot add device '%s'",
		                   dev->name);
out:
	sqlite3_finalize(st);
	return rc;
}

int bf_store_device_get(struct bf_store_device *out, struct bf_store *store,
                        const char *name, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(&st, store, -1,
	                       DEVICE_COLUMNS " WHERE d.name = ?1", err);
	if (rc)
		goto out;
	bf_store__bind_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_device(out, st);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = bf_err_set(err, BF_ENOTFOUND, "no device '%s'",
		                name ? name : "");
	} else {
		rc = bf_store__err(store, rc, err, "cannot read device '%s'",
		                   name ? name : "");
	}
out:
	sqlite3_finalize(st);
	return rc;
}

int bf_store_device_list(struct bf_store_device **out, size_t *n_out,
                         struct bf_store *store, struct bf_err *err)
{
	struct bf_store_device *devs = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0, alloc = 0;
	int rc;

	rc = bf_store__prepare(&st, store, -1,
	                       DEVICE_COLUMNS " ORDER BY d.name", err);
	if (rc)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			devs = bf_xreallocarray(devs, alloc, sizeof(*devs));
		}
		read_device(&devs[n++], st);
	}
	if (rc != SQLITE_DONE) {
		rc = bf_store__err(store, rc, err, "cannot list devices");
		goto out;
	}
	rc = 0;
	*out = devs;
	*n_out = n;
	devs = NULL;
out:
	sqlite3_finalize(st);
	bf_store_devices_free(devs, n);
	return rc;
}

/*
 * Run an UPDATE or DELETE on the device called name (bound as ?1, with
 * text ?2 and ?3 and integer ?4 when non-NULL/used); BF_ENOTFOUND when
 * no row changed.
 */
static int device_write(struct bf_store *store, const char *sql,
                        const char *name, const char *t2, const char *t3,
                        int64_t i4, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int nparams;
	int rc;

	rc = bf_store__prepare(&st, store, -1, sql, err);
	if (rc)
		goto out;
	nparams = sqlite3_bind_parameter_count(st);
	bf_store__bind_text(st, 1, name);
	if (nparams >= 2)
		bf_store__bind_text(st, 2, t2);
	if (nparams >= 3)
		bf_store__bind_text(st, 3, t3);
	if (nparams >= 4)
		sqlite3_bind_int64(st, 4, i4);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		rc = bf_store__err(store, rc, err, "cannot update device '%s'",
		                   name);
	else if (sqlite3_changes(store->db) == 0)
		rc = bf_err_set(err, BF_ENOTFOUND, "no device '%s'", name);
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int bf_store_device_remove(struct bf_store *store, const char *name,
                           struct bf_err *err)
{
	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	return device_write(store, "DELETE FROM devices WHERE name = ?1", name,
	                    NULL, NULL, 0, err);
}

int bf_store_device_set_health(struct bf_store *store, const char *name,
                               const char *health, const char *reason,
                               int64_t checked_at, struct bf_err *err)
{
	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	if (!bf_store__is_one_of(health, device_healths))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': unknown health '%s'", name,
		                  health ? health : "");
	return device_write(store,
	                    "UPDATE devices SET health = ?2,"
	                    " health_reason = ?3, last_check_at = CASE"
	                    " WHEN ?4 > 0 THEN ?4 ELSE last_check_at END"
	                    " WHERE name = ?1",
	                    name, health, reason, checked_at, err);
}

int bf_store_device_set_host_key(struct bf_store *store, const char *name,
                                 const char *fp, struct bf_err *err)
{
	if (!name || !fp)
		return bf_err_set(err, BF_EINVAL,
		                  "no device name or key given");
	return device_write(store,
	                    "UPDATE devices SET host_key_fp = ?2,"
	                    " health = CASE WHEN health IN ('maintenance',"
	                    " 'retired') THEN health ELSE 'unknown' END,"
	                    " health_reason = CASE WHEN health IN"
	                    " ('maintenance', 'retired') THEN health_reason"
	                    " END WHERE name = ?1",
	                    name, fp, NULL, 0, err);
}

int bf_store_device_set_state(struct bf_store *store, const char *name,
                              const char *state, struct bf_err *err)
{
	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	if (!bf_store__is_one_of(state, device_states))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': unknown state '%s'", name,
		                  state ? state : "");
	return device_write(store,
	                    "UPDATE devices SET state = ?2 WHERE name = ?1",
	                    name, state, NULL, 0, err);
}

struct lease {
	int64_t device_id;
	char *holder; /* NULL when not leased */
	int64_t expires_at;
	char *health; /* the device's health */
	char *reason; /* and why; may be NULL */
	char *host; /* the holder's host and pid; NULL, 0 when unknown */
	int64_t pid;
};

#define LEASE_INIT                              \
	{                                       \
		0, NULL, 0, NULL, NULL, NULL, 0 \
	}

static void lease_release(struct lease *l)
{
	free(l->holder);
	free(l->health);
	free(l->reason);
	free(l->host);
}

static int lease_lock(const char *store_path, int64_t pid, int cmd, short type);

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
	return lease_lock(store->path, l->pid, F_OFD_GETLK, F_WRLCK) == F_UNLCK;
}

/* The device's id and current lease; BF_ENOTFOUND without the device. */
static int lease_lookup(struct lease *out, struct bf_store *store,
                        const char *device, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(&st, store, -1,
	                       "SELECT d.id, l.holder, l.expires_at, d.health,"
	                       " d.health_reason, l.host, l.pid FROM devices d"
	                       " LEFT JOIN leases l ON l.device_id = d.id"
	                       " WHERE d.name = ?1",
	                       err);
	if (rc)
		goto out;
	bf_store__bind_text(st, 1, device);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->device_id = sqlite3_column_int64(st, 0);
		out->holder = bf_store__col_strdup(st, 1);
		out->expires_at = sqlite3_column_int64(st, 2);
		out->health = bf_store__col_strdup(st, 3);
		out->reason = bf_store__col_strdup(st, 4);
		out->host = bf_store__col_strdup(st, 5);
		out->pid = sqlite3_column_int64(st, 6);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = bf_err_set(err, BF_ENOTFOUND, "no device '%s'", device);
	} else {
		rc = bf_store__err(store, rc, err, "cannot read device '%s'",
		                   device);
	}
out:
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
	char host[256];
	sqlite3_stmt *st = NULL;
	int nparams;
	int rc;

	rc = bf_store__prepare(&st, store, -1, sql, err);
	if (rc)
		goto out;
	nparams = sqlite3_bind_parameter_count(st);
	sqlite3_bind_int64(st, 1, l->device_id);
	if (nparams >= 2)
		bf_store__bind_text(st, 2, holder);
	if (nparams >= 3)
		sqlite3_bind_int64(st, 3, t3);
	if (nparams >= 4)
		sqlite3_bind_int64(st, 4, t4);
	if (nparams >= 6) {
		self_host(host, sizeof(host)); /* bound until the step */
		bf_store__bind_text(st, 5, *host ? host : NULL);
		sqlite3_bind_int64(st, 6, (int64_t)getpid());
	}
	rc = sqlite3_step(st);
	rc = rc == SQLITE_DONE
	             ? 0
	             : bf_store__err(store, rc, err, "cannot update a lease");
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * The lease liveness locks' file (PATH.lock), one open file per store
 * file and process, kept open until the process exits: a lease outlives
 * the store handle that took it, and the kernel drops the locks exactly
 * when the process ends. A child forked from a holder opens its own
 * (the open file it inherited is its parent's). -1 when it cannot be
 * opened or too many store files were leased from.
 */
static int lease_lock_fd(const char *store_path)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		char *path;
		int fd;
		pid_t pid;
	} files[16];
	static size_t nfiles;
	int fd = -1;

	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nfiles && fd < 0; i++)
		if (files[i].pid == getpid() &&
		    !strcmp(files[i].path, store_path))
			fd = files[i].fd;
	if (fd < 0 && nfiles < BF_ARRAY_SIZE(files)) {
		char *p = bf_xasprintf("%s.lock", store_path);

		fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		free(p);
		if (fd >= 0) {
			files[nfiles].path = bf_xstrdup(store_path);
			files[nfiles].fd = fd;
			files[nfiles++].pid = getpid();
		}
	}
	pthread_mutex_unlock(&mu);
	return fd;
}

/*
 * F_OFD_SETLK or F_OFD_GETLK of type on pid's byte of the lease lock
 * file; for GETLK the type another open file holds (F_UNLCK: none).
 * -1 when fcntl fails.
 */
static int lease_lock(const char *store_path, int64_t pid, int cmd, short type)
{
	int fd = lease_lock_fd(store_path);
	struct flock fl;

	if (fd < 0)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)(BF_STORE__LEASE_LOCK_BASE + pid);
	fl.l_len = 1;
	if (fcntl(fd, cmd, &fl) < 0)
		return -1;
	return cmd == F_OFD_GETLK ? fl.l_type : 0;
}

/* This process's liveness lock as a lease holder, held until it exits. */
static int lease_take_lock(struct bf_store *store, struct bf_err *err)
{
	if (lease_lock(store->path, (int64_t)getpid(), F_OFD_SETLK, F_WRLCK))
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
	bool held =
	        l->holder && !strcmp(l->holder, holder) && l->expires_at > now;

	if (held || !l->health ||
	    (strcmp(l->health, "maintenance") && strcmp(l->health, "retired")))
		return 0;
	return bf_err_set(
	        err, BF_EBUSY,
	        "device '%s' takes no new lease: its health is %s%s%s%s",
	        device, l->health, l->reason ? " (" : "",
	        l->reason ? l->reason : "", l->reason ? ")" : "");
}

int bf_store_lease_acquire(struct bf_store *store, const char *device,
                           const char *holder, int64_t ttl_s, int64_t now,
                           struct bf_err *err)
{
	struct lease l = LEASE_INIT;
	int token;
	int rc;

	rc = check_lease_args(device, holder, ttl_s, now, err);
	if (!rc)
		rc = bf_store__write_begin(&token, store, err);
	if (rc)
		return rc;
	rc = lease_lookup(&l, store, device, err);
	if (!rc && l.holder && strcmp(l.holder, holder) && l.expires_at > now &&
	    holder_dead(store, &l)) {
		BF_LOG_WARN("device '%s': taking back the lease of '%s': its "
		            "process %lld on %s has ended",
		            device, l.holder, (long long)l.pid, l.host);
		l.expires_at = now;
	}
	if (!rc && l.holder && strcmp(l.holder, holder) && l.expires_at > now)
		rc = bf_err_set(
		        err, BF_EBUSY,
		        "device '%s' is leased by '%s' for another %lld s",
		        device, l.holder, (long long)(l.expires_at - now));
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
	lease_release(&l);
	return bf_store__write_end(store, token, rc, err);
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

int bf_store_lease_renew(struct bf_store *store, const char *device,
                         const char *holder, int64_t ttl_s, int64_t now,
                         struct bf_err *err)
{
	struct lease l = LEASE_INIT;
	int token;
	int rc;

	rc = check_lease_args(device, holder, ttl_s, now, err);
	if (!rc)
		rc = bf_store__write_begin(&token, store, err);
	if (rc)
		return rc;
	rc = lease_lookup(&l, store, device, err);
	if (!rc)
		rc = check_holder(&l, device, holder, err);
	if (!rc)
		rc = lease_write(store,
		                 "UPDATE leases SET expires_at = ?3"
		                 " WHERE device_id = ?1",
		                 &l, NULL, now + ttl_s, 0, err);
	lease_release(&l);
	return bf_store__write_end(store, token, rc, err);
}

int bf_store_lease_release(struct bf_store *store, const char *device,
                           const char *holder, struct bf_err *err)
{
	struct lease l = LEASE_INIT;
	int token;
	int rc;

	rc = check_lease_args(device, holder, 1, 0, err);
	if (!rc)
		rc = bf_store__write_begin(&token, store, err);
	if (rc)
		return rc;
	rc = lease_lookup(&l, store, device, err);
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
	lease_release(&l);
	return bf_store__write_end(store, token, rc, err);
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
