/* Devices (see store_int.h for the store's files). */
#include "store/store_int.h"

#include <string.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

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

/* Copy the row of a DEVICE_COLUMNS query into the device at out. */
static void read_device(void *out, sqlite3_stmt *st)
{
	struct bf_store_device *dev = out;

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

static void release_device(void *dev)
{
	bf_store_device_release(dev);
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
	if (!rc) {
		bf_store__bind_text(st, 1, name);
		rc = bf_store__one_row(store, st, read_device, out, err,
		                       "device '%s'", name ? name : "");
	}
	sqlite3_finalize(st);
	return rc;
}

int bf_store_device_list(struct bf_store_device **out, size_t *n_out,
                         struct bf_store *store, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	void *devs = NULL;
	int rc;

	rc = bf_store__prepare(&st, store, -1,
	                       DEVICE_COLUMNS " ORDER BY d.name", err);
	if (!rc)
		rc = bf_store__list_rows(&devs, n_out, store, st, sizeof(**out),
		                         read_device, release_device, "devices",
		                         err);
	if (!rc)
		*out = devs;
	sqlite3_finalize(st);
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
	const struct bf_store__val vals[] = { BF_STORE__TEXT(name),
		                              BF_STORE__TEXT(t2),
		                              BF_STORE__TEXT(t3),
		                              BF_STORE__INT(i4) };

	return bf_store__write(store, sql, vals, BF_ARRAY_SIZE(vals), true, err,
	                       "device '%s'", name);
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
