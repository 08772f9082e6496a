#ifndef BF_SQL_PG_H
#define BF_SQL_PG_H

/*
 * The PostgreSQL backend of the store (internal: see store_int.h): the
 * connection and sql.h over libpq (sql_pg.c), the schema (schema_pg.c).
 * No libpq type appears here; sql_pg.c, sql_pg_copy.c (COPY, the bulk
 * path) and store_holder_pg.c (the lease holder's lock, on a connection
 * of its own) are the only files that include libpq-fe.h.
 */
#include "benchfarm/common.h"
#include "store/sql.h"
#include "store/store_handle.h"

struct bf_err;

/*
 * Connect to store->path (a URI or key=value string: PQconnectdb, so
 * PGPASSFILE, ~/.pgpass, service files and sslmode work as libpq
 * documents; connect_timeout is 5 s unless the location or
 * PGCONNECT_TIMEOUT sets it, TCP keepalives are on unless the location
 * sets them) into store->pg. The session gets
 * bf_sql_pg__session_settings (lock_timeout BF_SQL_BUSY_MS,
 * idle_in_transaction_session_timeout BF_SQL_PG_IDLE_MS, the server's
 * keepalives), on this connection and every reconnect, each unless the
 * location's options, PGOPTIONS or the server's settings set it.
 * BF_ESYS when the server cannot be reached, BF_EAUTH when it refused
 * the credentials; the message names the store by store->shown, never
 * with a password.
 */
int bf_sql_pg__connect(struct bf_store *store, struct bf_err *err);
/*
 * A connection to location made as bf_sql_pg__connect makes the store's
 * (the same parameters and session settings, notices quiet), for a
 * session of its own (the lease holder's lock, store_holder_pg.c);
 * NULL with err set as bf_sql_pg__connect sets it, naming the store by
 * shown. bf_sql_pg__reset_conn makes a connection of these again after
 * it was lost (PQreset, then the session settings): false when either
 * failed.
 */
struct pg_conn;
struct pg_conn *bf_sql_pg__open_conn(const char *location, const char *shown,
                                     struct bf_err *err);
bool bf_sql_pg__reset_conn(struct pg_conn *conn);
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
struct pg_conn *bf_sql_pg__conn(struct bf_store *store);
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

/* The connection of this process's lease holder lock on store's
 * location (store_holder_pg.c; NULL when none was made), for tests. */
struct pg_conn *bf_store__pg_holder_conn(const struct bf_store *store);

/* A row of a PostgreSQL result (the row is a bf_sql_row whose res is
 * set). */
bool bf_sql_pg__is_null(const struct bf_sql_row *row, int col);
const char *bf_sql_pg__text(const struct bf_sql_row *row, int col);
/*
 * Set the session's statement_timeout to store->query_limit_s (0: the
 * server's default); kept across reconnects. 0 or BF_ESYS.
 */
int bf_sql_pg__set_statement_timeout(struct bf_store *store,
                                     struct bf_err *err);
/* The name of column col ("?" when there is none). */
const char *bf_sql_pg__col_name(const struct bf_sql_row *row, int col);

/*
 * How long the server lets a session sit idle inside a transaction
 * before it ends the session (rolling the transaction back and freeing
 * its row locks), in milliseconds: a store transaction runs its
 * statements one after the other, so a session idle in one this long
 * belongs to a host that stopped (SIGSTOP, a paused VM, a lost network)
 * while the others wait for its rows.
 */
#define BF_SQL_PG_IDLE_MS 60000

/*
 * sql_pg_text.c: statements, messages and connection parameters as
 * text.
 *
 * The keywords and values (NULL-terminated) for PQconnectdbParams with
 * expand_dbname for location: connect_timeout 5 s (not when
 * env_timeout: PGCONNECT_TIMEOUT is set), TCP keepalives, then location
 * as dbname, so that what the location sets wins.
 */
#define BF_SQL_PG_PARAMS 8
void bf_sql_pg__conn_params(const char *keys[BF_SQL_PG_PARAMS],
                            const char *vals[BF_SQL_PG_PARAMS],
                            const char *location, bool env_timeout);
/*
 * The session settings the store gives each connection where nothing
 * else set them, as name, value pairs: lock_timeout BF_SQL_BUSY_MS,
 * idle_in_transaction_session_timeout BF_SQL_PG_IDLE_MS, and the
 * server's side of the TCP keepalives (tcp_keepalives_idle 30,
 * _interval 10, _count 3).
 */
#define BF_SQL_PG_SETTINGS 5
void bf_sql_pg__session_settings(const char *pairs[2 * BF_SQL_PG_SETTINGS]);
/* err set to BF_EBUSY saying that the store is busy (a lock timed out:
 * SQLSTATE 55P03) and what to do; BF_EBUSY. */
int bf_sql_pg__busy(struct bf_err *err, const char *what, const char *shown);
/*
 * ?1, ?2, ... in sql rewritten to $1, $2, ... outside string literals,
 * quoted identifiers and comments. A new string the caller frees.
 */
char *bf_sql_pg__placeholders(const char *sql);
/* A SQLSTATE (PG_DIAG_SQLSTATE; may be NULL) as the BF_E* code
 * bf_sql_exec gives for it (sql_pg_copy.c's errors too). */
int bf_sql_pg__map_state(const char *state);
/* Whether the statement sql starts with the word keyword (any case). */
bool bf_sql_pg__starts_with(const char *sql, const char *keyword);
/*
 * Whether a statement whose connection was lost while it ran, outside
 * a transaction, may be sent again on a new connection: a read or
 * BEGIN, never a write (see the function).
 */
bool bf_sql_pg__safe_to_repeat(const char *sql);
/*
 * msg (NULL: "unknown error") into buf as it may be shown: every
 * occurrence of password (NULL or "": none) replaced by "***", trailing
 * newlines and spaces removed, and only then cut to size, so that no
 * part of a password survives the cut; buf.
 */
const char *bf_sql_pg__shown(char *buf, size_t size, const char *msg,
                             const char *password);

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
