#ifndef BF_STORE_INT_H
#define BF_STORE_INT_H

/*
 * The store's internals, shared by the files of orchestrator/store/ and
 * included by no caller (callers see store.h: an opaque struct bf_store
 * and functions). The files, each calling only the ones below it:
 *
 *   store.c          open and close, the database's default path
 *   store_queue.c    the queue of jobs waiting for a pool, and the
 *                    list of leases (store_lease.c's liveness checks)
 *   store_lease.c    leases, on the devices of
 *   store_device.c   devices
 *   store_run.c      runs
 *   store_sample.c   samples, checks, and the postsubmit history
 *   store_alert.c    alerts
 *   store_rows.c     rows read and written through sql.h
 *   store_copy.c     copying a store into another, through sql.h only
 *   schema_sqlite.c  the schema, its migrations, counts and checks
 *   schema_pg.c      the schema on PostgreSQL
 *   sql_sqlite.c     the SQLite connection, statements and transactions,
 *                    and sql.h, handing PostgreSQL's store to sql_pg.c
 *   sql_pg.c         the PostgreSQL connection, sql.h over libpq
 *   sql_pg_text.c    its statements and messages as text (no libpq)
 *   sql_pg_copy.c    COPY on that connection: store_sample.c's bulk
 *                    path for a batch of samples on PostgreSQL
 *   store_location.c which backend a location names, and its form
 *                    without a password
 *   store_live.c     who is alive: this process's holder key, the
 *                    store's clock, dead holders, bf_store_alive
 *   store_lock.c     the liveness locks (PATH.lock; PostgreSQL's
 *                    advisory locks)
 *   store_holder_pg.c  a holder's lock on PostgreSQL, on a connection
 *                    of its own per process
 *
 * The subject files (devices, runs, samples, alerts) check their
 * callers' input themselves and run their SQL through store/sql.h and
 * the row helpers below only: one SQL text, in the dialect SQLite and
 * PostgreSQL both accept, for every backend. A placeholder whose type
 * nothing around it fixes (?1 IS NULL, ?1 = 0) is cast where it first
 * appears (CAST(?1 AS TEXT), CAST(?1 AS BIGINT)): PostgreSQL infers a
 * parameter's type from that first use, and would take 0 for a 32-bit
 * integer or refuse IS NULL. sql_sqlite.h is the one header that names
 * SQLite's types; this header does not include it, and the subject files
 * and store_rows.c include only this one, so an SQLite call or type in
 * them does not compile.
 */
#include <math.h>

#include "store/sql.h"
#include "store/store.h"

/* Whether s is one of the NULL-terminated set (the columns' values). */
static inline bool bf_store__is_one_of(const char *s, const char *const *set)
{
	if (!s)
		return false;
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

/* An optional id or time: NULL when 0. */
static inline struct bf_sql_val bf_store__opt_int(int64_t v)
{
	return v ? BF_SQL_V_INT(v) : BF_SQL_V_NULL;
}

/* An optional measurement: NULL when NaN. */
static inline struct bf_sql_val bf_store__opt_real(double v)
{
	return isnan(v) ? BF_SQL_V_NULL : BF_SQL_V_REAL(v);
}

/*
 * Rows through sql.h (store_rows.c). A row reader copies a row into the
 * record at out (its strings new copies); a free function frees such a
 * record's strings. vals[0..n) are bound to ?1..?n: exactly as many as
 * the SQL has.
 */
typedef void bf_store__get_fn(void *out, const struct bf_sql_row *row);
typedef void bf_store__free_fn(void *rec);

/*
 * Read the first row of the query sql into out: 0, BF_ENOTFOUND "no
 * WHAT" when it returns none, or the server's error "cannot read WHAT",
 * WHAT formatted from fmt.
 */
int bf_store__get(struct bf_store *store, const char *sql,
                  const struct bf_sql_val *vals, size_t n,
                  bf_store__get_fn *read, void *out, struct bf_err *err,
                  const char *fmt, ...) BF_PRINTF(8, 9);

/*
 * Read every row of the query sql into a new record of size bytes: *out
 * a new array of *n_out records (NULL when none) on success. On failure
 * ("cannot list WHAT") the records read are freed and *out, *n_out are
 * unchanged.
 */
int bf_store__get_all(void **out, size_t *n_out, struct bf_store *store,
                      const char *sql, const struct bf_sql_val *vals, size_t n,
                      size_t size, bf_store__get_fn *read,
                      bf_store__free_fn *release, const char *what,
                      struct bf_err *err);

/*
 * Run the write sql. With must_change, a write that changes no row is
 * BF_ENOTFOUND "no WHAT"; a failed one is the server's error "cannot
 * update WHAT", WHAT formatted from fmt.
 */
int bf_store__change(struct bf_store *store, const char *sql,
                     const struct bf_sql_val *vals, size_t n, bool must_change,
                     struct bf_err *err, const char *fmt, ...) BF_PRINTF(7, 8);

/*
 * Run sql, an UPDATE of one row of table `what`s ("run", "alert") with
 * ?1 the row's id and ?2 text: 0, BF_ENOTFOUND ("no WHAT ID") when no
 * row has that id, or the server's error ("cannot update WHAT ID").
 */
int bf_store__change_row(struct bf_store *store, const char *what,
                         const char *sql, int64_t id, const char *text,
                         struct bf_err *err);

/*
 * A bf_sql_row_fn storing column 0 of its row at payload (an int64_t):
 * the id a RETURNING id gives, a count.
 */
int bf_store__read_int(const struct bf_sql_row *row, void *payload);

/*
 * Liveness locks (store_lock.c): one byte of PATH.lock per live holder,
 * held by an open file description (F_OFD_SETLK). Such a lock belongs
 * to the open file, not to the process: another handle's close does not
 * drop it, and the kernel drops it when the process dies, SIGKILL
 * included, so a lock nobody holds names a holder that has ended. A
 * running run locks byte ID through its store's own open file
 * (bf_store__run_lock, below); a lease holder locks
 * BF_STORE__HOLDER_LOCK_BASE + its holder key (bf_store__self_key)
 * through one open file per process (store_lease.c). Run ids stay
 * below the base, keys (62 bits) fit above it in an off_t.
 */
#define BF_STORE__HOLDER_LOCK_BASE ((int64_t)1 << 32)
/*
 * The constants are the kernel's ABI; <fcntl.h> shows them only under
 * _GNU_SOURCE, which the build does not define (it asks for POSIX 2008
 * alone).
 */
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#endif

/*
 * Open (creating it, mode 0600) store_path's lock file PATH.lock: a new
 * descriptor, or -1 with errno set.
 */
int bf_store__lock_file_open(const char *store_path);

/*
 * Take (cmd F_OFD_SETLK, type F_WRLCK), drop (F_OFD_SETLK, F_UNLCK) or
 * ask about (F_OFD_GETLK, F_WRLCK) the lock on byte off of the lock file
 * fd. Returns 0 for SETLK, the type another open file holds (F_UNLCK:
 * none) for GETLK, or -1 when fcntl fails.
 */
int bf_store__lock_byte(int fd, int64_t off, int cmd, short type);

/*
 * The same on holder key's byte, through this process's own open file
 * of store_path's lock file (opened on first use, kept open until the
 * process exits: a lease outlives the store handle that took it). -1
 * also when that file cannot be opened.
 */
int bf_store__lease_lock(const char *store_path, int64_t key, int cmd,
                         short type);

/*
 * A running run's liveness lock, for both backends: byte ID of PATH.lock
 * through the store's own open file on SQLite, a session advisory lock
 * of the store's connection on PostgreSQL (key BF_STORE__LIVE_RUN << 32
 * | ID). Either is dropped when the process ends, however it ends.
 * bf_store__run_lock takes it (0 or a BF_E* code), bf_store__run_unlock
 * drops it, bf_store__run_lock_held says whether another handle holds it
 * (1), nobody does (0), or fails (a BF_E* code).
 */
#define BF_STORE__LIVE_RUN 1
int bf_store__run_lock(struct bf_store *store, int64_t id, struct bf_err *err);
void bf_store__run_unlock(struct bf_store *store, int64_t id);
int bf_store__run_lock_held(struct bf_store *store, int64_t id,
                            struct bf_err *err);

/* Whether some holder other than this store handle holds run id's
 * liveness lock: *alive set, 0; or a BF_E* code. */
int bf_store__run_alive(bool *alive, struct bf_store *store, int64_t id,
                        struct bf_err *err);

/*
 * Lease holders and waiters (store_live.c). A process is known to the
 * store by its holder key: 62 random bits (getrandom), drawn once per
 * process and again in a child after fork, so two orchestrators never
 * share one, whatever their pids, pid namespaces or hosts. A row of
 * leases or waiters keeps its holder's key (holder_key) beside its host
 * and pid, which are for people.
 *
 * The holder's liveness lock is keyed by it: byte
 * BF_STORE__HOLDER_LOCK_BASE + key of PATH.lock on SQLite, and on
 * PostgreSQL the session advisory lock BF_STORE__HOLDER_KEY_BIT | key
 * (no run's key has that bit) of a connection this process opens for
 * it alone (store_holder_pg.c), so that, like the lock file, it is one
 * per process and location, outlives every store handle, and ends
 * with the process. bf_store__holder_lock takes this process's (0 or a
 * BF_E* code; again after the server lost it), and
 * bf_store__holder_lock_held says whether some other holder holds
 * key's (1), nobody does (0), or fails (a BF_E* code).
 */
#define BF_STORE__HOLDER_KEY_BIT ((int64_t)1 << 62)
int64_t bf_store__self_key(void);
int bf_store__holder_lock(struct bf_store *store, struct bf_err *err);
int bf_store__holder_lock_held(struct bf_store *store, int64_t key,
                               struct bf_err *err);
/* store_holder_pg.c: the PostgreSQL side of bf_store__holder_lock. */
int bf_store__pg_holder_lock(struct bf_store *store, int64_t pg_key,
                             struct bf_err *err);

/*
 * Whether the holder of key, on host, last alive at alive_at (0:
 * never said), is provably dead at now (the store's clock). Never us,
 * nor a row without a key. SQLite: on this host, and nobody holds its
 * liveness lock (another host's lock file is not ours to read). On
 * PostgreSQL, whose locks all hosts see but which a server restart
 * drops all at once: nobody holds its lock AND either it said it was
 * alive since the server last started (bf_store__alive_since_start) or
 * alive_at is at least BF_STORE_ALIVE_GRACE_S old.
 */
bool bf_store__holder_dead(struct bf_store *store, const char *host,
                           int64_t key, int64_t alive_at, int64_t now);

/*
 * On PostgreSQL: whether alive_at (the store's clock, whole seconds)
 * is later than the server's start. Everything that writes alive_at
 * first holds (or takes again) its liveness lock, so such a lock, now
 * free, was dropped by its holder's session ending, not by a restart:
 * the holder is gone, and no grace is owed. false when the start
 * cannot be read, on SQLite, and when alive_at is within the second
 * the server started in.
 */
bool bf_store__alive_since_start(struct bf_store *store, int64_t alive_at);

/* This machine's name as holders record it ("" when unknown). */
void bf_store__self_host(char *buf, size_t len);

/*
 * The store's clock, in seconds since the epoch: the host's on SQLite
 * (one host), the server's (statement_timestamp(): when the statement
 * reading it began, so after any row lock the operation waited for) on
 * PostgreSQL, so that the hosts of a lab never compare their own
 * clocks. bf_store__now is the time for an operation whose caller
 * passed caller_now: caller_now on SQLite, and on PostgreSQL too when
 * bf_store_clock_from_caller(true) (tests that play out time); else
 * the server's.
 */
int bf_store__clock(int64_t *now, struct bf_store *store, struct bf_err *err);
int bf_store__now(int64_t *now, struct bf_store *store, int64_t caller_now,
                  struct bf_err *err);

#endif /* BF_STORE_INT_H */
