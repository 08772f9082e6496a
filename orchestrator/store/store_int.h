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
 *   sql_pg_copy.c    COPY on that connection: store_sample.c's bulk
 *                    path for a batch of samples on PostgreSQL
 *   store_location.c which backend a location names, and its form
 *                    without a password
 *   store_lock.c     the liveness locks (PATH.lock; PostgreSQL's
 *                    advisory locks)
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
 * (bf_store__run_lock, below); a lease holder locks BF_STORE__LEASE_LOCK_BASE +
 * its pid through one open file per process (store_lease.c).
 */
#define BF_STORE__LEASE_LOCK_BASE ((int64_t)1 << 30)
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
 * The same on pid's lease byte, through this process's own open file
 * of store_path's lock file (opened on first use, kept open until the
 * process exits: a lease outlives the store handle that took it). -1
 * also when that file cannot be opened.
 */
int bf_store__lease_lock(const char *store_path, int64_t pid, int cmd,
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
 * A lease holder's or waiter's liveness lock (store_lock.c), for both
 * backends: this process's, taken by bf_store__pid_lock (0 or a BF_E*
 * code) and held until it exits; bf_store__pid_lock_held says whether
 * another process holds pid's (1), nobody does (0), or fails (a BF_E*
 * code).
 */
#define BF_STORE__LIVE_PID 2
int bf_store__pid_lock(struct bf_store *store, struct bf_err *err);
int bf_store__pid_lock_held(struct bf_store *store, int64_t pid,
                            struct bf_err *err);

/*
 * Liveness of lease holders and waiters (store_lease.c): this machine's
 * name as they record it ("" when unknown); whether the process pid on
 * host is provably dead (on this host, not us, and nobody holds its
 * liveness lock; another host's process is never judged).
 */
void bf_store__self_host(char *buf, size_t len);
bool bf_store__pid_dead(struct bf_store *store, const char *host, int64_t pid);

#endif /* BF_STORE_INT_H */
