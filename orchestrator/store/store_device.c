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

/* "user" is quoted: a reserved word in PostgreSQL. */
#define DEVICE_COLUMNS                                                         \
	"SELECT d.id, d.name, d.type, d.host, d.port, d.\"user\", d.key_path," \
	" d.labels, d.agent_path, d.adb_serial, d.host_key_fp, d.state,"       \
	" d.health, d.health_reason, d.last_check_at, d.created_at,"           \
	" l.holder, l.expires_at, d.workdir, d.machine"                        \
	" FROM devices d LEFT JOIN leases l ON l.device_id = d.id"

/* Copy a row of a DEVICE_COLUMNS query into the device at out. */
static void read_device(void *out, const struct bf_sql_row *row)
{
	struct bf_store_device *dev = out;

	dev->id = bf_sql_int(row, 0);
	dev->name = bf_sql_strdup(row, 1);
	dev->type = bf_sql_strdup(row, 2);
	dev->host = bf_sql_strdup(row, 3);
	dev->port = (int)bf_sql_int(row, 4);
	dev->user = bf_sql_strdup(row, 5);
	dev->key_path = bf_sql_strdup(row, 6);
	dev->labels = bf_sql_strdup(row, 7);
	dev->agent_path = bf_sql_strdup(row, 8);
	dev->adb_serial = bf_sql_strdup(row, 9);
	dev->host_key_fp = bf_sql_strdup(row, 10);
	dev->state = bf_sql_strdup(row, 11);
	dev->health = bf_sql_strdup(row, 12);
	dev->health_reason = bf_sql_strdup(row, 13);
	dev->last_check_at = bf_sql_int(row, 14);
	dev->created_at = bf_sql_int(row, 15);
	dev->lease_holder = bf_sql_strdup(row, 16);
	dev->lease_expires_at = bf_sql_int(row, 17);
	dev->workdir = bf_sql_strdup(row, 18);
	dev->machine = bf_sql_strdup(row, 19);
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
	free(dev->machine);
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
	int64_t created = dev->created_at ? dev->created_at : time(NULL);
	const struct bf_sql_val vals[] = {
		BF_SQL_V_TEXT(dev->name),
		BF_SQL_V_TEXT(dev->type),
		BF_SQL_V_TEXT(dev->host),
		BF_SQL_V_INT(dev->port),
		BF_SQL_V_TEXT(dev->user),
		BF_SQL_V_TEXT(dev->key_path),
		BF_SQL_V_TEXT(dev->labels),
		BF_SQL_V_TEXT(dev->agent_path),
		BF_SQL_V_TEXT(dev->adb_serial),
		BF_SQL_V_TEXT(dev->host_key_fp),
		BF_SQL_V_TEXT(dev->state),
		BF_SQL_V_TEXT(dev->health),
		BF_SQL_V_TEXT(dev->health_reason),
		bf_store__opt_int(dev->last_check_at),
		BF_SQL_V_INT(created),
		BF_SQL_V_TEXT(dev->workdir),
		BF_SQL_V_TEXT(dev->machine),
	};
	int rc;

	rc = check_device(dev, err);
	if (rc)
		return rc;
	rc = bf_sql_exec(
	        store,
	        "INSERT INTO devices (name, type, host, port, \"user\","
	        " key_path, labels, agent_path, adb_serial,"
	        " host_key_fp, state, health, health_reason,"
	        " last_check_at, created_at, workdir, machine) VALUES"
	        " (?1, ?2, ?3, ?4, ?5, ?6, coalesce(?7, ''), ?8, ?9, ?10,"
	        " coalesce(?11, 'idle'), coalesce(?12, 'unknown'),"
	        " ?13, ?14, ?15, ?16, ?17)",
	        vals, BF_ARRAY_SIZE(vals), NULL, NULL, NULL, err,
	        "cannot add device '%s'", dev->name);
	if (rc == BF_EEXISTS)
		rc = bf_err_set(err, BF_EEXISTS, "device '%s' already exists",
		                dev->name);
	return rc;
}

int bf_store_device_get(struct bf_store_device *out, struct bf_store *store,
                        const char *name, struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(name) };

	return bf_store__get(store, DEVICE_COLUMNS " WHERE d.name = ?1", vals,
	                     BF_ARRAY_SIZE(vals), read_device, out, err,
	                     "device '%s'", name ? name : "");
}

int bf_store_device_list(struct bf_store_device **out, size_t *n_out,
                         struct bf_store *store, struct bf_err *err)
{
	void *devs = NULL;
	int rc;

	rc = bf_store__get_all(
	        &devs, n_out, store, DEVICE_COLUMNS " ORDER BY d.name", NULL, 0,
	        sizeof(**out), read_device, release_device, "devices", err);
	if (!rc)
		*out = devs;
	return rc;
}

/*
 * Run an UPDATE or DELETE on the device called name, bound as ?1, with
 * vals[0..n) bound as ?2, ?3, ... (at most 3); BF_ENOTFOUND when no row
 * changed.
 */
static int device_write(struct bf_store *store, const char *sql,
                        const char *name, const struct bf_sql_val *vals,
                        size_t n, struct bf_err *err)
{
	struct bf_sql_val all[4] = { BF_SQL_V_TEXT(name) };

	if (n >= BF_ARRAY_SIZE(all))
		BF_BUG("device_write: %zu values", n);
	for (size_t i = 0; i < n; i++)
		all[i + 1] = vals[i];
	return bf_store__change(store, sql, all, n + 1, true, err,
	                        "device '%s'", name);
}

int bf_store_device_remove(struct bf_store *store, const char *name,
                           struct bf_err *err)
{
	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	return device_write(store, "DELETE FROM devices WHERE name = ?1", name,
	                    NULL, 0, err);
}

int bf_store_device_set_health(struct bf_store *store, const char *name,
                               const char *health, const char *reason,
                               int64_t checked_at, struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(health),
		                           BF_SQL_V_TEXT(reason),
		                           BF_SQL_V_INT(checked_at) };

	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	if (!bf_store__is_one_of(health, device_healths))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': unknown health '%s'", name,
		                  health ? health : "");
	return device_write(
	        store,
	        "UPDATE devices SET health = ?2,"
	        " health_reason = ?3, last_check_at = CASE"
	        " WHEN CAST(?4 AS BIGINT) > 0 THEN ?4 ELSE last_check_at END"
	        " WHERE name = ?1",
	        name, vals, BF_ARRAY_SIZE(vals), err);
}

int bf_store_device_set_host_key(struct bf_store *store, const char *name,
                                 const char *fp, struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(fp) };

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
	                    name, vals, BF_ARRAY_SIZE(vals), err);
}

int bf_store_device_set_machine(struct bf_store *store, const char *name,
                                const char *machine, struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(machine) };

	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	return device_write(store,
	                    "UPDATE devices SET machine = ?2 WHERE name = ?1",
	                    name, vals, BF_ARRAY_SIZE(vals), err);
}

int bf_store_device_set_state(struct bf_store *store, const char *name,
                              const char *state, struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(state) };

	if (!name)
		return bf_err_set(err, BF_EINVAL, "no device name given");
	if (!bf_store__is_one_of(state, device_states))
		return bf_err_set(err, BF_EINVAL,
		                  "device '%s': unknown state '%s'", name,
		                  state ? state : "");
	return device_write(store,
	                    "UPDATE devices SET state = ?2 WHERE name = ?1",
	                    name, vals, BF_ARRAY_SIZE(vals), err);
}
