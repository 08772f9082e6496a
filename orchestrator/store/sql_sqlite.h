#ifndef BF_SQL_SQLITE_H
#define BF_SQL_SQLITE_H

/*
 * The SQLite backend of the store (internal: see store_int.h): the
 * handle, the statement, row and transaction helpers (sql_sqlite.c) and
 * the schema (schema_sqlite.c). The only header that names SQLite.
 */
#include <sqlite3.h>

#include "benchfarm/common.h"
#include "store/sql.h"
#include "store/store.h"
#include "store/store_handle.h"

struct bf_err;

/* The connection (sql_sqlite.c). */

/*
 * Open the existing file store->path read-write with extended result
 * codes and the busy timeout. The schema is schema_sqlite.c's.
 */
/* Finalize the statements bf_sql_exec kept (before closing). */
void bf_sql__cache_release(struct bf_store *store);
int bf_store__connect(struct bf_store *store, struct bf_err *err);
/* Finalize the kept statements, roll back, close. NULL db is ok. */
void bf_store__disconnect(struct bf_store *store);

/* SQLite's result code rc as a BF_E* code. */
int bf_store__map_rc(int rc);

/*
 * Translate an SQLite result code into a BF_E* code and set err to
 * "<formatted context>: <sqlite3_errmsg>". Returns the code.
 */
int bf_store__err(struct bf_store *store, int rc, struct bf_err *err,
                  const char *fmt, ...) BF_PRINTF(4, 5);

/* Statements. */

/*
 * Prepare sql into *out. id < 0 gives a fresh statement the caller
 * finalizes; otherwise the cached statement with that id, reset and
 * with cleared bindings, which the caller resets after use.
 */
int bf_store__prepare(sqlite3_stmt **out, struct bf_store *store, int id,
                      const char *sql, struct bf_err *err);

/* Bind a string, or NULL when s is NULL. Returns the SQLite code. */
int bf_store__bind_text(sqlite3_stmt *st, int idx, const char *s);
/* Bind a double, or NULL when it is NaN. */
int bf_store__bind_real(sqlite3_stmt *st, int idx, double v);
/* A copy of a text column for the caller to free; NULL for NULL. */
char *bf_store__col_strdup(sqlite3_stmt *st, int col);
/* A borrowed text column, valid until the next step; NULL for NULL. */
char *bf_store__col_text(sqlite3_stmt *st, int col);
/* A real column; NaN for NULL. */
double bf_store__col_real(sqlite3_stmt *st, int col);

/*
 * Reading a row: a row reader copies the current row of st into the
 * record at out (its strings new copies).
 */
typedef void bf_store__read_fn(void *out, sqlite3_stmt *st);

/*
 * Step st (prepared and bound) once and read its row into out: 0, or
 * BF_ENOTFOUND "no WHAT" when there is none, or the store's error
 * "cannot read WHAT", WHAT formatted from fmt. The caller finalizes st.
 */
int bf_store__one_row(struct bf_store *store, sqlite3_stmt *st,
                      bf_store__read_fn *read, void *out, struct bf_err *err,
                      const char *fmt, ...) BF_PRINTF(6, 7);

/*
 * Step st, prepared and bound, once and read the first column of its
 * row into *out (0 when there is no row). Returns an SQLite code.
 */
int bf_store__step_i64(int64_t *out, sqlite3_stmt *st);

/*
 * Run a constant query returning one integer (0 when it returns no
 * row). Returns an SQLite code; on error sqlite3_errmsg() describes it.
 */
int bf_store__query_i64(int64_t *out, sqlite3 *db, const char *sql);

/* Transactions (sql_sqlite.c). */

/*
 * Open a write transaction: BEGIN IMMEDIATE, or a savepoint when the
 * caller already has one open. *token remembers which for
 * bf_store__write_end(), which commits when rc is 0 and rolls back
 * otherwise, and returns rc (or the commit error).
 */
int bf_store__write_begin(int *token, struct bf_store *store,
                          struct bf_err *err);
int bf_store__write_end(struct bf_store *store, int token, int rc,
                        struct bf_err *err);

/* One value to bind: a text (NULL binds NULL), or an integer. */
struct bf_store__val {
	const char *text;
	int64_t i;
	bool is_int;
};
#define BF_STORE__TEXT(s) ((struct bf_store__val){ .text = (s) })
#define BF_STORE__INT(v)  ((struct bf_store__val){ .i = (v), .is_int = true })

/*
 * Run the write sql once with vals[0..n) bound to ?1, ?2, ... (as many
 * as sql has; the rest are not bound). With must_change, a write that
 * changes no row is BF_ENOTFOUND "no WHAT"; a failed one is the store's
 * error "cannot update WHAT", WHAT formatted from fmt.
 */
int bf_store__write(struct bf_store *store, const char *sql,
                    const struct bf_store__val *vals, size_t n,
                    bool must_change, struct bf_err *err, const char *fmt, ...)
        BF_PRINTF(7, 8);

/* The schema (schema_sqlite.c). */

/*
 * Check that the newly connected store->db is empty or a benchfarm
 * database this build can read (reads only: a refused file is never
 * written to), switch it to WAL with foreign keys on, and migrate its
 * schema to BF_STORE_SCHEMA_VERSION. Errors as for bf_store_open().
 */
int bf_store__schema_open(struct bf_store *store, struct bf_err *err);

/*
 * The forward migrations: bf_store__migrations[v] takes schema version
 * v to v + 1 (the tests build an older store from them).
 */
extern const char *const bf_store__migrations[BF_STORE_SCHEMA_VERSION];

#endif /* BF_SQL_SQLITE_H */
