/*
 * sql.h's rows and backend, for both backends (see store_int.h for the
 * store's files).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "store/sql_pg.h"
#include "store/sql_sqlite.h"

/*
 * The backend-neutral SQL of sql.h: over SQLite here, handed to sql_pg.c
 * for a PostgreSQL store (store->pg set). PostgreSQL's values come as
 * text (a boolean's as 1 or 0): integers are parsed, reals with strtod
 * (NaN, Infinity included).
 */

enum bf_sql_backend bf_sql_backend(const struct bf_store *store)
{
	return store->pg ? BF_SQL_PG : BF_SQL_SQLITE;
}

bool bf_sql_is_null(const struct bf_sql_row *row, int col)
{
	if (!row->st)
		return bf_sql_pg__is_null(row, col);
	return sqlite3_column_type(row->st, col) == SQLITE_NULL;
}

int64_t bf_sql_int(const struct bf_sql_row *row, int col)
{
	const char *t;

	if (row->st)
		return sqlite3_column_int64(row->st, col);
	t = bf_sql_pg__text(row, col);
	return t ? strtoll(t, NULL, 10) : 0;
}

double bf_sql_real(const struct bf_sql_row *row, int col)
{
	const char *t;

	if (row->st)
		return bf_store__col_real(row->st, col);
	t = bf_sql_pg__text(row, col);
	return t ? strtod(t, NULL) : NAN;
}

const char *bf_sql_text(const struct bf_sql_row *row, int col)
{
	if (!row->st)
		return bf_sql_pg__text(row, col);
	return bf_store__col_text(row->st, col);
}

char *bf_sql_strdup(const struct bf_sql_row *row, int col)
{
	const char *t;

	if (row->st)
		return bf_store__col_strdup(row->st, col);
	t = bf_sql_pg__text(row, col);
	return t ? bf_xstrdup(t) : NULL;
}
