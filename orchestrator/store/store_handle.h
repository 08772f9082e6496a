#ifndef BF_STORE_HANDLE_H
#define BF_STORE_HANDLE_H

/*
 * struct bf_store, the handle both backends share (internal: see
 * store_int.h). Each backend's part is named by a forward declaration
 * only, so that neither SQLite's nor libpq's header is needed here.
 */
#include "benchfarm/common.h"

struct sqlite3;
struct sqlite3_stmt;
struct bf_sql_pg; /* sql_pg.c's connection */

/* Statements prepared once and kept for the life of the store. */
enum bf_store__stmt_id {
	BF_STORE__SAMPLE_ADD = 0,
	BF_STORE__CHECK_ADD,
	BF_STORE__NSTMT
};

/* Statements bf_sql_exec prepared, kept by their text (SQLite). */
#define BF_SQL__CACHE 32
struct bf_sql__cached {
	char *sql; /* a copy of the statement's text, compared by value */
	struct sqlite3_stmt *st;
	bool busy; /* a query is running it */
};

struct bf_store {
	/* SQLite (NULL db on PostgreSQL) */
	struct sqlite3 *db;
	struct bf_sql__cached cache[BF_SQL__CACHE];
	size_t ncache;
	struct sqlite3_stmt *stmt[BF_STORE__NSTMT];
	int lock_fd; /* PATH.lock: running runs' liveness locks; -1: not open */
	/* PostgreSQL (NULL when SQLite) */
	struct bf_sql_pg *pg;
	/* both */
	double query_limit_s; /* bf_store_set_query_limit; 0: none */
	double step_deadline; /* SQLite: when the running step must end */
	char *path; /* the location as given, password included */
	char *shown; /* the location for messages: no password */
};

/* One row of a result, as sql.h's callbacks get it: SQLite's statement
 * on its row, or PostgreSQL's result and row number. */
struct pg_result;
struct bf_sql_row {
	struct sqlite3_stmt *st; /* SQLite; NULL on PostgreSQL */
	const struct pg_result *res; /* PostgreSQL */
	int row;
};

#endif /* BF_STORE_HANDLE_H */
