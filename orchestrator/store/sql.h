#ifndef BF_STORE_SQL_H
#define BF_STORE_SQL_H

#include "benchfarm/common.h"

/*
 * The store's SQL, the same over both backends (SQLite, the embedded
 * default; PostgreSQL through libpq, for a lab shared by many hosts).
 * The store's subject files (devices, leases, runs, samples, alerts)
 * speak only this; sql_sqlite.c and sql_pg.c implement it. No SQLite or
 * libpq type appears here.
 *
 * The SQL text is the dialect both servers accept: placeholders ?1, ?2,
 * ... (sql_pg.c rewrites them to $1, $2, ... outside string literals),
 * INSERT ... ON CONFLICT, RETURNING, coalesce, no AUTOINCREMENT or
 * rowid (an id comes back with RETURNING id). Integers are 64-bit on
 * both (BIGINT in PostgreSQL's schema).
 */

struct bf_store;
struct bf_err;

/*
 * How long a statement waits for a lock another connection holds before
 * it fails with BF_EBUSY, in milliseconds, on both backends: SQLite's
 * busy timeout (the database's write lock), PostgreSQL's lock_timeout
 * (a row another session locked). A host that stalls while holding a
 * lock then makes the others fail, not hang.
 */
#define BF_SQL_BUSY_MS 5000

enum bf_sql_backend {
	BF_SQL_SQLITE = 0,
	BF_SQL_PG,
};

/* Which server runs the store, for the few statements whose text must
 * differ (row locks: PostgreSQL's SELECT ... FOR UPDATE / FOR SHARE;
 * SQLite's write transaction already holds the whole database). */
enum bf_sql_backend bf_sql_backend(const struct bf_store *store);

enum bf_sql_type {
	BF_SQL_NULL = 0,
	BF_SQL_INT,
	BF_SQL_REAL,
	BF_SQL_TEXT,
};

/* A value bound to a placeholder. A TEXT value whose text is NULL binds
 * NULL. */
struct bf_sql_val {
	enum bf_sql_type type;
	int64_t i;
	double r;
	const char *text;
};

#define BF_SQL_V_NULL    ((struct bf_sql_val){ .type = BF_SQL_NULL })
#define BF_SQL_V_INT(v)  ((struct bf_sql_val){ .type = BF_SQL_INT, .i = (v) })
#define BF_SQL_V_REAL(v) ((struct bf_sql_val){ .type = BF_SQL_REAL, .r = (v) })
#define BF_SQL_V_TEXT(s) \
	((struct bf_sql_val){ .type = BF_SQL_TEXT, .text = (s) })

/* One row of a result, valid only during the callback that gets it.
 * Columns count from 0. */
struct bf_sql_row;

bool bf_sql_is_null(const struct bf_sql_row *row, int col);
int64_t bf_sql_int(const struct bf_sql_row *row, int col); /* NULL: 0 */
double bf_sql_real(const struct bf_sql_row *row, int col); /* NULL: NAN */
/* The text of a column, borrowed until the callback returns; NULL for
 * NULL. */
const char *bf_sql_text(const struct bf_sql_row *row, int col);
/* A copy of the text (bf_xstrdup), or NULL for NULL. Caller frees. */
char *bf_sql_strdup(const struct bf_sql_row *row, int col);

/*
 * Column col exactly as a value of type (BF_SQL_INT, BF_SQL_REAL or
 * BF_SQL_TEXT) into *out, its text borrowed as bf_sql_text's; a NULL is
 * BF_SQL_V_NULL. BF_EINVAL when the stored value is not one of that
 * type, where bf_sql_int and friends would coerce it: on SQLite (which
 * keeps any value in any column) a text, blob or real in an integer
 * column, a text or blob in a real one, a blob or a text with a NUL
 * byte in a text one; on PostgreSQL a text that does not parse as the
 * number. err's message says only what the value is ("the text 'abc'
 * is not an integer"), for the caller to say where it was.
 */
int bf_sql_get(struct bf_sql_val *out, const struct bf_sql_row *row, int col,
               enum bf_sql_type type, struct bf_err *err);
/* The name of column col of row's result (borrowed like the row). */
const char *bf_sql_col_name(const struct bf_sql_row *row, int col);

/* Called for each row; a non-zero return stops the query and is
 * returned by bf_sql_exec. */
typedef int bf_sql_row_fn(const struct bf_sql_row *row, void *payload);

/*
 * Run one statement with vals bound to ?1..?n, calling fn (may be NULL)
 * on each row it returns; *changes (may be NULL) gets the number of rows
 * it inserted, updated or deleted. 0, fn's non-zero value, or a BF_E*
 * code with err set to "WHAT: the server's message" (what: a printf
 * format saying what was being done, e.g. "cannot add device 'x'").
 * A unique constraint failing gives BF_EEXISTS, a foreign key
 * BF_ENOTFOUND, a check BF_EINVAL; a busy database BF_EBUSY; a lost connection
 * BF_ESYS. On PostgreSQL a connection the server ended while it was idle is
 * made again before a statement outside a transaction is sent; a read
 * (SELECT) or BEGIN whose connection was lost while it ran outside a
 * transaction is repeated once on a new connection; a write never is (its
 * reply may have been lost after it was stored): its message says it may or
 * may not have been stored. The SQLite side prepares each statement text
 * once per connection and keeps it, so a statement run per sample costs a bind
 * and a step.
 */
int bf_sql_exec(struct bf_store *store, const char *sql,
                const struct bf_sql_val *vals, size_t n, bf_sql_row_fn *fn,
                void *payload, int64_t *changes, struct bf_err *err,
                const char *what, ...) BF_PRINTF(9, 10);

/*
 * Write transactions: bf_sql_write_begin takes the database's write lock
 * at once (SQLite: BEGIN IMMEDIATE, a SAVEPOINT when one is open;
 * PostgreSQL: BEGIN, and the statements lock their rows), and
 * bf_sql_write_end commits when rc is 0 and rolls back otherwise; it
 * returns rc, or the commit's error. Nested pairs are savepoints.
 */
int bf_sql_write_begin(int *token, struct bf_store *store, struct bf_err *err);
int bf_sql_write_end(struct bf_store *store, int token, int rc,
                     struct bf_err *err);

#endif /* BF_STORE_SQL_H */
