#ifndef BF_SQL_PG_H
#define BF_SQL_PG_H

/*
 * The PostgreSQL backend of the store (internal: see store_int.h): the
 * connection and sql.h over libpq (sql_pg.c), the schema (schema_pg.c).
 * No libpq type appears here; sql_pg.c and sql_pg_copy.c (COPY, the bulk
 * path) are the only files that include libpq-fe.h.
 */
#include "benchfarm/common.h"
#include "store/sql.h"
#include "store/store_handle.h"

struct bf_err;

/*
 * Connect to store->path (a URI or key=value string: PQconnectdb, so
 * PGPASSFILE, ~/.pgpass, service files and sslmode work as libpq
 * documents) into store->pg. BF_ESYS when the server cannot be reached,
 * BF_EAUTH when it refused the credentials; the message names the
 * store by store->shown, never with a password.
 */
int bf_sql_pg__connect(struct bf_store *store, struct bf_err *err);
/* Roll back what is open, close; a NULL store->pg is ok. */
void bf_sql_pg__disconnect(struct bf_store *store);

/* sql.h over PostgreSQL (bf_sql_exec and the write transactions call
 * these when store->pg is set). */
int bf_sql_pg__exec(struct bf_store *store, const char *sql,
                    const struct bf_sql_val *vals, size_t n, bf_sql_row_fn *fn,
                    void *payload, int64_t *changes, struct bf_err *err,
                    const char *what);
int bf_sql_pg__write_begin(int *token, struct bf_store *store,
                           struct bf_err *err);
int bf_sql_pg__write_end(struct bf_store *store, int token, int rc,
                         struct bf_err *err);
/* The connection, libpq's PGconn (struct pg_conn), for sql_pg_copy.c,
 * which runs COPY on it inside the transactions of sql_pg.c. */
struct pg_conn;
struct pg_conn *bf_sql_pg__conn(struct bf_store *store);
/* A SQLSTATE (PG_DIAG_SQLSTATE; NULL: none) as the BF_E* code
 * bf_sql_exec gives for it. */
int bf_sql_pg__state_code(const char *state);
/* Whether a transaction (bf_store_begin or a write) is open. */
bool bf_sql_pg__in_transaction(const struct bf_store *store);

/*
 * Liveness locks on PostgreSQL: session advisory locks (bigint keys)
 * held by this store's connection, so the server drops them when the
 * process dies and its connection ends. bf_sql_pg__lock takes one (0,
 * BF_EBUSY when another session holds it, BF_ESYS); it is taken again
 * after a reconnect. bf_sql_pg__lock_held: 1 when another session holds
 * key, 0 when none does, or a BF_E* code (it takes nothing).
 */
int bf_sql_pg__lock(struct bf_store *store, int64_t key, struct bf_err *err);
void bf_sql_pg__unlock(struct bf_store *store, int64_t key);
int bf_sql_pg__lock_held(struct bf_store *store, int64_t key,
                         struct bf_err *err);

/* A row of a PostgreSQL result (the row is a bf_sql_row whose res is
 * set). */
bool bf_sql_pg__is_null(const struct bf_sql_row *row, int col);
const char *bf_sql_pg__text(const struct bf_sql_row *row, int col);

/*
 * ?1, ?2, ... in sql rewritten to $1, $2, ... outside string literals,
 * quoted identifiers and comments. A new string the caller frees.
 */
char *bf_sql_pg__placeholders(const char *sql);

/*
 * schema_pg.c: create or migrate the schema to BF_STORE_SCHEMA_VERSION
 * in one transaction under an advisory lock (two hosts opening a new
 * database at once wait for each other), refusing a database of another
 * program or of a newer version, as SQLite's.
 */
int bf_store__schema_pg_open(struct bf_store *store, struct bf_err *err);

/*
 * bf_store_integrity_check on PostgreSQL: the server enforces the
 * constraints and foreign keys on every write and checksums nothing
 * the store could check instead (pg_amcheck is the operator's tool),
 * so this checks that the server answers and the schema is this
 * build's.
 */
int bf_store__integrity_pg(struct bf_store *store, struct bf_err *err);

#endif /* BF_SQL_PG_H */
