#ifndef BF_STORE_H
#define BF_STORE_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * The store (docs/architecture.md): devices, leases, runs, raw
 * samples, check results and alerts. The embedded backend is SQLite
 * (WAL mode, foreign keys on, schema version with forward migrations,
 * file mode 0600); nothing here exposes SQL or SQLite types, so that a
 * server backend can be added beside it (store_int.h lists the store's
 * files).
 *
 * Strings in the record structs below: records filled by the store own
 * their strings (free with the matching _release/_free function);
 * records passed in are only read, never kept. Timestamps are unix
 * seconds supplied by the caller, except where a function says it uses
 * time(NULL).
 *
 * Every write runs in a transaction: single-statement writes in their
 * own implicit one, multi-statement writes in BEGIN IMMEDIATE (or in a
 * savepoint when the caller has opened a transaction with
 * bf_store_begin(), so each call is atomic either way).
 *
 * Errors: the message is filled in here and names the object; codes a
 * caller may branch on are listed per function. Any function can also
 * fail with BF_ERROR, BF_ESYS (I/O), BF_EBUSY (the database stayed
 * locked for longer than the 5 s busy timeout) or BF_ECORRUPT.
 */
struct bf_store;

/* Highest schema version this build knows (PRAGMA user_version). */
#define BF_STORE_SCHEMA_VERSION 12

/*
 * The database path to use: db_flag when non-NULL (from --db; must not
 * be empty), else $BENCHFARM_DB when set and non-empty, else
 * $XDG_DATA_HOME/benchfarm/benchfarm.db when XDG_DATA_HOME is an
 * absolute path, else $HOME/.local/share/benchfarm/benchfarm.db.
 * *out is a new string the caller frees. Returns 0, BF_EINVAL (empty
 * db_flag) or BF_ENOTFOUND (none of these set, no HOME).
 */
int bf_store_default_path(char **out, const char *db_flag, struct bf_err *err);

/*
 * As bf_store_default_path, with the config's store: (cfg_loc, NULL
 * when it has none) between $BENCHFARM_DB and the default: --db, then
 * $BENCHFARM_DB, then the config, then the default file.
 */
int bf_store_choose(char **out, const char *db_flag, const char *cfg_loc,
                    struct bf_err *err);

/*
 * Which backend the location loc names (store_location.c): a path is
 * SQLite; a postgresql:// or postgres:// URI, or a libpq key=value
 * string (one with '=' that does not start with '/', '.' or '~'), is
 * PostgreSQL (*is_pg true). Anything else with a URI scheme ("name:")
 * is refused with BF_EINVAL, as is an empty location; a file whose name
 * has a colon is given as ./NAME.
 */
int bf_store_location_kind(bool *is_pg, const char *loc, struct bf_err *err);

/*
 * loc as every message naming the store shows it: a password (a URI's
 * user:PASSWORD@ and password= parameter, a key=value string's
 * password=..., also inside a dbname that is itself a connection
 * string) replaced by ***. A new string the caller frees. Cannot fail.
 */
char *bf_store_location_display(const char *loc);

/*
 * Open the database at path, creating it (mode 0600) and its missing
 * parent directories (mode 0700) when needed, and migrate its schema to
 * BF_STORE_SCHEMA_VERSION. A file that is not a benchfarm database is
 * refused before anything is written to it. On success *out is a new
 * store the caller closes with bf_store_close(); on failure *out is
 * unchanged. Returns 0, BF_ECORRUPT (not SQLite, or another program's
 * SQLite database), BF_EVERSION (schema newer than this build), BF_ESYS
 * (cannot create the directory or file) or BF_ERROR.
 */
int bf_store_open(struct bf_store **out, const char *path, struct bf_err *err);

/*
 * Close the store, rolling back a transaction left open. NULL is ok.
 * Cannot fail.
 */
void bf_store_close(struct bf_store *store);

/* The location the store was opened with, password included (to open
 * it again; never for a message); borrowed, valid until close. */
const char *bf_store_path(const struct bf_store *store);

/* The location as messages show it (bf_store_location_display);
 * borrowed, valid until close. */
const char *bf_store_shown(const struct bf_store *store);

/*
 * Transactions (BEGIN IMMEDIATE: the write lock is taken at once, so
 * two orchestrators never both read-then-write). Do not nest: begin
 * while one is open is BF_EINVAL, as is commit without one. Rollback
 * without an open transaction does nothing and returns 0. Store calls
 * made between begin and commit join the transaction; one that fails
 * undoes its own writes and leaves the rest of the transaction alone.
 * A failed commit leaves the transaction open: retry or roll back.
 */
int bf_store_begin(struct bf_store *store, struct bf_err *err);
int bf_store_commit(struct bf_store *store, struct bf_err *err);
int bf_store_rollback(struct bf_store *store, struct bf_err *err);

/*
 * Number of rows in one of the tables "meta", "devices", "leases",
 * "runs", "samples", "checks" or "alerts" into *out (for tests and
 * `status` output). Returns 0 or BF_EINVAL for any other name.
 */
int bf_store_count(int64_t *out, struct bf_store *store, const char *table,
                   struct bf_err *err);

/*
 * Run SQLite's integrity and foreign-key checks. Returns 0, or
 * BF_ECORRUPT with the first problem found in the message.
 */
int bf_store_integrity_check(struct bf_store *store, struct bf_err *err);

/* Devices (store_device.c) and leases (store_lease.c). */

/*
 * A device's work directory when none was given: relative, so under the
 * directory the device's SFTP server starts in (the remote user's
 * home); bf_ssh_workdir() resolves it to an absolute path.
 */
#define BF_DEVICE_WORKDIR_DEFAULT ".cache/benchfarm"

struct bf_store_device {
	int64_t id; /* assigned by the store; ignored on add */
	char *name; /* unique, required */
	char *type; /* "linux" | "android" */
	char *host; /* ssh host; NULL for local or adb */
	int port; /* ssh port; 0 = default */
	char *user; /* ssh user; NULL = current */
	char *key_path; /* ssh private key file */
	char *labels; /* comma-separated; NULL or "" for none */
	char *agent_path; /* benchfarm-agent on the device */
	char *adb_serial; /* android only */
	char *workdir; /* remote work dir; NULL = BF_DEVICE_WORKDIR_DEFAULT */
	char *host_key_fp; /* pinned ssh host key fingerprint */
	char *state; /* idle|leased|running; NULL = idle on add */
	char *health; /* unknown|good|bad|maintenance|retired */
	char *health_reason; /* why, for bad/maintenance/retired */
	int64_t last_check_at; /* 0 = never checked */
	int64_t created_at; /* 0 on add = time(NULL) */
	/*
	 * What the device's agent said of the machine it runs on: JSON
	 * text (farm/machine.h), NULL unknown.
	 */
	char *machine;
	char *lease_holder; /* read-only: current lease holder or NULL */
	int64_t lease_expires_at; /* read-only: 0 when not leased */
};

/*
 * Register a device. Only the fields up to machine are read; health
 * NULL means "unknown". dev is borrowed. Returns 0, BF_EEXISTS (name
 * taken) or BF_EINVAL (missing name, bad type, state or health).
 */
int bf_store_device_add(struct bf_store *store,
                        const struct bf_store_device *dev, struct bf_err *err);

/*
 * Fill *out with the device called name, including its lease. out's
 * previous contents are overwritten, not freed; release it with
 * bf_store_device_release(). Returns 0 or BF_ENOTFOUND (out untouched).
 */
int bf_store_device_get(struct bf_store_device *out, struct bf_store *store,
                        const char *name, struct bf_err *err);

/*
 * All devices ordered by name: *out is a new array of *n_out records
 * (NULL when there are none) that the caller frees with
 * bf_store_devices_free(*out, *n_out).
 */
int bf_store_device_list(struct bf_store_device **out, size_t *n_out,
                         struct bf_store *store, struct bf_err *err);

/* Free the strings of one record and zero it. NULL is ok. */
void bf_store_device_release(struct bf_store_device *dev);
/* Free an array from bf_store_device_list(). NULL is ok. */
void bf_store_devices_free(struct bf_store_device *devs, size_t n);

/*
 * Remove a device and its lease (run history keeps its name). Returns
 * 0 or BF_ENOTFOUND.
 */
int bf_store_device_remove(struct bf_store *store, const char *name,
                           struct bf_err *err);

/*
 * Set the health ("unknown", "good", "bad", "maintenance", "retired")
 * and its reason (may be NULL). checked_at > 0 also records it as the
 * time of the last health check; 0 leaves that unchanged. Returns 0,
 * BF_ENOTFOUND or BF_EINVAL (unknown health).
 */
int bf_store_device_set_health(struct bf_store *store, const char *name,
                               const char *health, const char *reason,
                               int64_t checked_at, struct bf_err *err);

/*
 * Pin a new host key fingerprint ("SHA256:...") after an admin accepted
 * the key (device rekey); health becomes unknown until the next check.
 * Returns 0 or BF_ENOTFOUND.
 */
int bf_store_device_set_host_key(struct bf_store *store, const char *name,
                                 const char *fp, struct bf_err *err);

/*
 * Record what the device's agent said of its machine (JSON text of
 * farm/machine.h; NULL: unknown). Returns 0 or BF_ENOTFOUND.
 */
int bf_store_device_set_machine(struct bf_store *store, const char *name,
                                const char *machine, struct bf_err *err);

/*
 * Set the state ("idle", "leased", "running"). Returns 0, BF_ENOTFOUND
 * or BF_EINVAL.
 */
int bf_store_device_set_state(struct bf_store *store, const char *name,
                              const char *state, struct bf_err *err);

/*
 * The clock of leases and the queue. The now these functions take is
 * the caller's clock (time(NULL)): the store uses it on SQLite (one
 * host); on PostgreSQL it uses the server's clock instead, read in the
 * operation's transaction, so that hosts whose clocks disagree still
 * agree on when a lease expires. bf_store_clock_from_caller(true)
 * makes PostgreSQL use the caller's now too, for tests that play out
 * time with made-up values; a lab never calls it.
 */
void bf_store_clock_from_caller(bool on);

/*
 * How long a PostgreSQL store goes on trying to make a lost connection
 * again (a server restart: refused, then "starting up" for a moment),
 * in seconds, for every store of the process; BF_STORE_RECONNECT_S by
 * default. A job lowers it to a third of its lease time (the
 * heartbeat's period) when that is shorter: its leases then outlast the
 * attempts. Once the attempts gave up, the next reconnect within the
 * window is one attempt, until one succeeds. 0: one attempt.
 */
#define BF_STORE_RECONNECT_S 10.0
void bf_store_reconnect_window(double seconds);

/*
 * Bound every statement on store in time from now on (seconds; 0: no
 * bound, the default): on SQLite each step of a statement (the work for
 * one row, or for a whole count) is stopped when it runs longer; on
 * PostgreSQL the session's statement_timeout. A statement stopped so
 * fails with BF_ETIMEOUT, its message naming the bound. For a store
 * that is read but not trusted (store copy's source), where a recursive
 * view would never end. 0, or BF_ESYS when the server refused.
 */
int bf_store_set_query_limit(struct bf_store *store, double seconds,
                             struct bf_err *err);

/*
 * On PostgreSQL, a holder whose lock is free is dead at once when it
 * said it was alive after the server last started; only a restart since
 * then earns it the grace of BF_STORE_ALIVE_GRACE_S.
 * bf_store_server_started_at(t) makes the store take the server as
 * started at t (seconds since the epoch; 0: ask the server), for tests
 * that play out a restart by ending sessions; a lab never calls it.
 */
void bf_store_server_started_at(int64_t t);

/*
 * Liveness that survives a PostgreSQL restart (which drops every
 * liveness lock at once, until each holder's next statement takes its
 * own again): a job says it is alive every BF_STORE_ALIVE_PERIOD_S
 * (its heartbeat calls bf_store_alive), and on PostgreSQL a running
 * run, a lease holder or a waiter is judged ended only when nobody
 * holds its liveness lock AND it last said so BF_STORE_ALIVE_GRACE_S
 * ago or more. bf_store_alive takes this process's holder lock again
 * when the server lost it, and sets alive_at (the store's clock) of
 * run run_id (when > 0 and running) and of this process's leases.
 */
#define BF_STORE_ALIVE_PERIOD_S 20
#define BF_STORE_ALIVE_GRACE_S  (3 * BF_STORE_ALIVE_PERIOD_S)
int bf_store_alive(struct bf_store *store, int64_t run_id, struct bf_err *err);

/*
 * Lease a device for ttl_s seconds from now. Atomic across processes.
 * Succeeds when there is no lease, the lease expired (expires_at <=
 * now), its holder is provably dead (nobody holds the liveness lock of
 * the holder key it recorded: the process ended, SIGKILL included; on
 * SQLite only for a holder of this host, on PostgreSQL for any host
 * once its alive_at is BF_STORE_ALIVE_GRACE_S old) or holder already
 * holds it (then it is extended). The lease records this process's
 * holder key, host and pid, and the process holds its liveness lock
 * from then until it exits. Sets the
 * device state to "leased". A device whose health is "maintenance"
 * (drained) or "retired" takes no new lease; a holder's existing lease
 * may still be extended. Returns 0, BF_EBUSY (another holder's lease
 * has not expired, or the device is drained or retired; the message
 * says which), BF_ENOTFOUND (no such device) or BF_EINVAL (ttl_s <= 0,
 * empty holder).
 */
int bf_store_lease_acquire(struct bf_store *store, const char *device,
                           const char *holder, int64_t ttl_s, int64_t now,
                           struct bf_err *err);

/*
 * bf_store_lease_acquire() that also gives the lease's fencing token
 * (*token_out, may be NULL): every lease taken on a device, by any
 * holder, gets a token greater than all the device's earlier ones.
 */
int bf_store_lease_take(struct bf_store *store, const char *device,
                        const char *holder, int64_t ttl_s, int64_t now,
                        int64_t *token_out, struct bf_err *err);

/*
 * Whether the lease with token still holds device at now: nobody took
 * it since (the device's last token is token), it was not released and
 * it has not expired. Returns 0, or BF_EBUSY with err saying what
 * happened ("device 'X': its lease was taken by another job (token N >
 * M); this job's results for it are not stored"). On PostgreSQL it
 * locks the device's row until the transaction ends, so that no lease
 * is taken between the check and the writes after it.
 */
int bf_store_lease_fence(struct bf_store *store, const char *device,
                         int64_t token, int64_t now, struct bf_err *err);

/*
 * A fenced write: open a write transaction (*txn) and check
 * bf_store_lease_fence() in it; on failure the transaction is closed
 * again and the error returned. Otherwise the caller's writes for the
 * device follow, and bf_store_fence_end() commits them when rc is 0 or
 * rolls them back; it returns rc or the commit's error.
 */
int bf_store_fence_begin(int *txn, struct bf_store *store, const char *device,
                         int64_t token, int64_t now, struct bf_err *err);
int bf_store_fence_end(struct bf_store *store, int txn, int rc,
                       struct bf_err *err);

/*
 * Extend holder's lease to now + ttl_s, also when it has expired but
 * nobody else took the device. Returns 0, BF_EBUSY (held by another),
 * BF_ENOTFOUND (no lease or no device), BF_EINVAL, BF_ETIMEOUT (the
 * store was too busy to answer: try again) or the store's error.
 */
int bf_store_lease_renew(struct bf_store *store, const char *device,
                         const char *holder, int64_t ttl_s, int64_t now,
                         struct bf_err *err);

/*
 * Drop holder's lease and set the device state to "idle". Returns 0,
 * BF_EBUSY (held by another) or BF_ENOTFOUND (no lease or no device).
 */
int bf_store_lease_release(struct bf_store *store, const char *device,
                           const char *holder, struct bf_err *err);

/*
 * Drop every lease this process (its holder key) holds and set those
 * devices "idle", and leave the queue; *n_out (may be NULL) gets how
 * many leases. For a process that is about to end on a signal.
 */
int bf_store_leases_release_own(struct bf_store *store, int *n_out,
                                struct bf_err *err);

/* The leases held, and the queue of jobs waiting (store_queue.c). */

struct bf_store_lease {
	char *device;
	char *holder; /* the job's holder id */
	char *host; /* the holder's host and pid; NULL, 0 when unknown */
	int64_t pid;
	int64_t acquired_at, expires_at;
	int64_t token; /* its fencing token */
};

/*
 * Every lease, expired ones included, by device name. *out is a new
 * array of *n_out (NULL when none); free with bf_store_leases_free().
 */
int bf_store_lease_list(struct bf_store_lease **out, size_t *n_out,
                        struct bf_store *store, struct bf_err *err);
void bf_store_leases_free(struct bf_store_lease *leases, size_t n);

/*
 * A job waiting its turn for a pool whose devices are all leased. The
 * queue is first come, first served across processes and hosts: each
 * waiter gets a ticket greater than every live one, and takes a device
 * only when no earlier live ticket waits for the same pool.
 */
struct bf_store_waiter {
	int64_t ticket;
	char *pool; /* a label, or "device:NAME" */
	char *holder; /* the job's holder id */
	char *host; /* NULL, 0 when unknown */
	int64_t pid;
	int64_t since, expires_at;
	int64_t key, alive_at; /* its holder key, when last alive; 0: none */
};

/*
 * Join the queue for pool as holder, alive until now + ttl_s unless
 * renewed by bf_store_wait_turn(); *ticket gets the ticket. The process
 * takes its liveness lock, as for a lease. Returns 0 or BF_EINVAL
 * (empty pool or holder, ttl_s <= 0).
 */
int bf_store_wait_join(int64_t *ticket, struct bf_store *store,
                       const char *pool, const char *holder, int64_t ttl_s,
                       int64_t now, struct bf_err *err);

/*
 * Renew ticket until now + ttl_s, remove the dead waiters ahead of it in
 * its pool (past their expiry, or their process on this host ended)
 * and set *ahead to the live ones still ahead (0: its turn). Returns 0
 * or BF_ENOTFOUND (the ticket is gone: it expired and another waiter
 * removed it; join again).
 */
int bf_store_wait_turn(int64_t *ahead, struct bf_store *store, int64_t ticket,
                       int64_t ttl_s, int64_t now, struct bf_err *err);

/* Leave the queue (a ticket already gone is no error). */
int bf_store_wait_leave(struct bf_store *store, int64_t ticket,
                        struct bf_err *err);

/*
 * Every waiter, dead ones included, by ticket; free with
 * bf_store_waiters_free().
 */
int bf_store_waiter_list(struct bf_store_waiter **out, size_t *n_out,
                         struct bf_store *store, struct bf_err *err);
void bf_store_waiters_free(struct bf_store_waiter *waiters, size_t n);

/* Runs (store_run.c), samples and checks (store_sample.c). */

struct bf_store_run {
	int64_t id; /* assigned by bf_store_run_create() */
	char *kind; /* "compare" | "run" | "bisect" */
	char *status; /* running|complete|failed|aborted */
	char *config_digest; /* digest of the config used; may be NULL */
	char *base_commit; /* may be NULL */
	char *patch_commit; /* may be NULL */
	char *device; /* device name; may be NULL */
	int64_t seed; /* seed of the run's random choices */
	int64_t started_at; /* 0 on create = time(NULL) */
	int64_t finished_at; /* 0 while running */
	char *info; /* JSON text, not parsed here; may be NULL */
	/*
	 * The build identity of what the measured side shipped (the
	 * patch's, or a postsubmit run's commit's) and a compare's
	 * base's: "code:HEX" or "bytes:HEX" (artifacts.h); NULL when not
	 * known (no build yet, or a store of an older benchfarm).
	 */
	char *build_id;
	char *base_build_id;
	/*
	 * A postsubmit run recorded as the same build as an earlier
	 * complete run of its device class: that run's id, whose samples
	 * are this commit's point. 0: measured itself.
	 */
	int64_t measured_by;
};

/*
 * Record a new run; status NULL means "running" and id, finished_at are
 * ignored. run is borrowed. On success *id_out is its id. Returns 0 or
 * BF_EINVAL (bad kind or status).
 */
int bf_store_run_create(int64_t *id_out, struct bf_store *store,
                        const struct bf_store_run *run, struct bf_err *err);

/*
 * A running run holds a lock (an open-file-description lock on byte ID
 * of PATH.lock; a session advisory lock on PostgreSQL) from its
 * creation until it is finished or its process ends, however it ends.
 * Marks every "running" run whose lock nobody holds (its orchestrator
 * was killed or crashed) "aborted" (on PostgreSQL only once its
 * alive_at is also BF_STORE_ALIVE_GRACE_S old: see bf_store_alive),
 * keeping its
 * samples and saying why in its info; *n_out (may be NULL) gets how
 * many. Returns 0 or the store's error. bf_store_open calls it (errors
 * ignored); a handle's own runs are never stale to itself, so it is
 * only right before the handle creates runs.
 */
int bf_store_runs_reap(struct bf_store *store, int *n_out, struct bf_err *err);

/*
 * Finish a running run with status "complete", "failed" or "aborted"
 * at finished_at. Returns 0, BF_ENOTFOUND or BF_EINVAL (bad status, or
 * the run is not running any more).
 */
int bf_store_run_finish(struct bf_store *store, int64_t id, const char *status,
                        int64_t finished_at, struct bf_err *err);

/*
 * The latest postsubmit run (kind "run") of commit whose build failed
 * under the build inputs of build_key (status "failed", info.stage
 * "build", info.build_key: the build cache's key of the commit's tree,
 * project.build, project.artifacts and the build environment): *id_out
 * is its id, or 0 when there is none. 0 or a store error.
 */
int bf_store_run_failed_build(int64_t *id_out, struct bf_store *store,
                              const char *commit, const char *build_key,
                              struct bf_err *err);

/*
 * Set the build identities of run id (either may be NULL: left as it
 * is). 0 or BF_ENOTFOUND.
 */
int bf_store_run_set_build(struct bf_store *store, int64_t id,
                           const char *base_build_id, const char *build_id,
                           struct bf_err *err);

/*
 * The newest complete postsubmit run (kind "run") on device class
 * device under config_digest (NULL matches NULL) that measured
 * build_id itself (measured_by unset, and with samples): *id_out is its
 * id and commit_out its commit, or *id_out 0 when there is none (or
 * build_id is NULL). 0 or a store error.
 */
int bf_store_run_same_build(int64_t *id_out, char commit_out[41],
                            struct bf_store *store, const char *device,
                            const char *config_digest, const char *build_id,
                            struct bf_err *err);

/*
 * Record that run id was not measured: run by's samples (a complete
 * run that measured the same build) are its commit's point. 0,
 * BF_ENOTFOUND, or BF_EINVAL when by is not a complete measured run.
 */
int bf_store_run_set_measured_by(struct bf_store *store, int64_t id, int64_t by,
                                 struct bf_err *err);

/* One complete postsubmit run of a device class, for its history. */
struct bf_store_build {
	int64_t run_id;
	const char *commit; /* borrowed for the call */
	const char *build_id; /* NULL when not known */
	int64_t measured_by; /* 0: measured itself */
	int64_t started_at;
};
typedef int bf_store_build_fn(const struct bf_store_build *b, void *payload);

/*
 * Every complete postsubmit run of device class device, oldest first:
 * fn is called once per run, and its non-zero return stops the walk
 * and is returned. 0 or a store error.
 */
int bf_store_builds_foreach(struct bf_store *store, const char *device,
                            bf_store_build_fn *fn, void *payload,
                            struct bf_err *err);

/* Replace the run's info JSON text (NULL clears). 0 or BF_ENOTFOUND. */
int bf_store_run_set_info(struct bf_store *store, int64_t id, const char *info,
                          struct bf_err *err);

/*
 * Fill *out with run id; release it with bf_store_run_release().
 * Returns 0 or BF_ENOTFOUND (out untouched).
 */
int bf_store_run_get(struct bf_store_run *out, struct bf_store *store,
                     int64_t id, struct bf_err *err);

/*
 * Runs of one kind (NULL: all kinds), newest first, at most limit of
 * them (0: no limit). *out is a new array of *n_out records (NULL when
 * none); free with bf_store_runs_free(*out, *n_out). Returns 0 or
 * BF_EINVAL (bad kind).
 */
int bf_store_run_list(struct bf_store_run **out, size_t *n_out,
                      struct bf_store *store, const char *kind, size_t limit,
                      struct bf_err *err);

/* Free one record's strings and zero it; NULL is ok. */
void bf_store_run_release(struct bf_store_run *run);
/* Free an array from bf_store_run_list(); NULL is ok. */
void bf_store_runs_free(struct bf_store_run *runs, size_t n);

/* One raw measurement. */
struct bf_store_sample {
	int64_t run_id; /* the run it belongs to */
	char *benchmark; /* required */
	char *metric; /* required, e.g. "real_time" */
	char *unit; /* e.g. "ns"; NULL = "" */
	char *side; /* "base" | "patch" | "commit" */
	char *commit_id; /* commit measured; may be NULL */
	char *device; /* device name; may be NULL */
	char *suite; /* config benchmark entry; may be NULL */
	int64_t repeat_idx; /* which repeat (process run) */
	int64_t iter_idx; /* which iteration within the repeat */
	double value; /* finite */
};

/*
 * Store one sample (a cached prepared statement: cheap enough to call
 * per sample; wrap many in bf_store_begin()/commit, or use
 * bf_store_sample_add_many(), for speed). s is borrowed. Returns 0,
 * BF_ENOTFOUND (no run s->run_id) or BF_EINVAL (missing benchmark or
 * metric, bad side, value not finite).
 */
int bf_store_sample_add(struct bf_store *store, const struct bf_store_sample *s,
                        struct bf_err *err);

/*
 * Store n samples in one transaction: all or none, in order. Errors as
 * for bf_store_sample_add(), the message naming the index of the bad
 * one. On PostgreSQL every sample is checked first and the batch goes
 * in one COPY (a statement for the batch, not a round trip per sample);
 * a missing run then fails the whole batch as "no run N for samples".
 */
int bf_store_sample_add_many(struct bf_store *store,
                             const struct bf_store_sample *samples, size_t n,
                             struct bf_err *err);

/*
 * Called once per record. The record and its strings are borrowed and
 * valid only during the call. Return 0 to go on; any other value stops
 * the iteration and is returned by the foreach function.
 */
typedef int bf_store_sample_fn(const struct bf_store_sample *s, void *payload);

/*
 * Call fn for every sample of run_id in the order they were added.
 * Returns 0, fn's non-zero value, or an error. A run without samples
 * (or no such run) is 0 with no calls.
 */
int bf_store_samples_foreach(struct bf_store *store, int64_t run_id,
                             bf_store_sample_fn *fn, void *payload,
                             struct bf_err *err);

/*
 * The postsubmit history of device (a device class): call fn for every
 * sample with side "commit" of the complete runs of kind "run" on
 * device, ordered by run, suite, benchmark, metric and repeat. In each
 * record commit_id is the run's commit, suite is the sample's suite or,
 * when it has none, its benchmark, iter_idx is 0 and a missing text is
 * ""; records are borrowed as for bf_store_samples_foreach(). A run
 * recorded as the same build as another (measured_by) gets that run's
 * samples under its own run id and commit. Returns 0, fn's non-zero
 * value, or an error.
 */
int bf_store_history_foreach(struct bf_store *store, const char *device,
                             bf_store_sample_fn *fn, void *payload,
                             struct bf_err *err);

/*
 * Whether a complete run of kind "run" measured commit on device: *out
 * true when the store has one. 0 or a store error.
 */
int bf_store_run_measured(bool *out, struct bf_store *store, const char *device,
                          const char *commit, struct bf_err *err);

/* One device-fitness check result (from the agent). */
struct bf_store_check {
	int64_t id; /* assigned by the store; ignored on add */
	int64_t run_id; /* the run it guarded; 0 = none */
	char *device; /* device name; required */
	char *check_id; /* e.g. "battery", "thermal"; required */
	char *status; /* "pass" | "warn" | "fail" | "skip" */
	double value; /* measured value; NAN = none */
	double threshold; /* limit it was held to; NAN = none */
	char *message; /* human text; may be NULL */
	int64_t at; /* when measured; 0 on add = time(NULL) */
};

/*
 * Store a check result; c is borrowed. Returns 0, BF_ENOTFOUND (run_id
 * set but no such run) or BF_EINVAL (missing field, bad status).
 */
int bf_store_check_add(struct bf_store *store, const struct bf_store_check *c,
                       struct bf_err *err);

typedef int bf_store_check_fn(const struct bf_store_check *c, void *payload);

/*
 * Call fn for each check result matching run_id (0: any run, including
 * none) and device (NULL: any), oldest first. Records are borrowed as
 * for samples. Returns 0, fn's non-zero value, or an error.
 */
int bf_store_checks_foreach(struct bf_store *store, int64_t run_id,
                            const char *device, bf_store_check_fn *fn,
                            void *payload, struct bf_err *err);

/*
 * Alerts and copying a store are part of this interface, in headers of
 * their own so that each stays short: callers include this one.
 */
#include "store/store_alert.h"
#include "store/store_copy.h"

#endif /* BF_STORE_H */
