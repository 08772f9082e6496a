#ifndef BF_SQL_PG_COPY_H
#define BF_SQL_PG_COPY_H

/*
 * The bulk path of a PostgreSQL store (internal: see store_int.h):
 * rows sent with COPY ... FROM STDIN, one statement for a whole batch,
 * instead of one INSERT (a round trip, a parse and a plan) per row.
 * sql_pg_copy.c runs it on sql_pg.c's connection, inside its
 * transactions; no libpq type appears here.
 */
#include "benchfarm/common.h"
#include "store/sql.h"

struct bf_store;
struct bf_err;

/* Fill vals[0..ncols) with row i's values (borrowed until the next call). */
typedef void bf_sql_copy_row_fn(struct bf_sql_val *vals, size_t i,
                                void *payload);

/*
 * Insert nrows rows into table's columns cols (a comma-separated list of
 * ncols names, at most 64) with one COPY ... FROM STDIN on a PostgreSQL
 * store, row i's values from row(vals, i, payload). The rows go in
 * order, so an identity column numbers them as n INSERTs would. Values
 * travel in COPY's text format: a text is sent byte for byte (backslash,
 * tab, newline and carriage return escaped), a TEXT value without text,
 * a NULL and a NaN real as NULL. All rows or none: the caller opens a
 * write transaction around it (bf_sql_write_begin); a failure leaves
 * that transaction to be rolled back. Returns 0 or, as bf_sql_exec, the
 * BF_E* code of the server's SQLSTATE with err set to "WHAT: the
 * server's message" (a foreign key failing: BF_ENOTFOUND); BF_ESYS when
 * the connection was lost.
 */
int bf_sql_pg_copy(struct bf_store *store, const char *table, const char *cols,
                   size_t ncols, size_t nrows, bf_sql_copy_row_fn *row,
                   void *payload, struct bf_err *err, const char *what, ...)
        BF_PRINTF(9, 10);

#endif /* BF_SQL_PG_COPY_H */
