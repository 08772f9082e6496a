/*
 * sql.h's rows and backend, for both backends (see store_int.h for the
 * store's files).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "benchfarm/spawn.h"
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

/* What SQLite holds in a column, as messages name it. */
static const char *sqlite_kind(int t)
{
	switch (t) {
	case SQLITE_INTEGER:
		return "an integer";
	case SQLITE_FLOAT:
		return "a real number";
	case SQLITE_TEXT:
		return "a text";
	case SQLITE_BLOB:
		return "a blob";
	default:
		return "NULL";
	}
}

static const char *const type_names[] = { "NULL", "an integer", "a real number",
	                                  "a text" };

static int sqlite_get(struct bf_sql_val *out, sqlite3_stmt *st, int col,
                      enum bf_sql_type type, struct bf_err *err)
{
	int t = sqlite3_column_type(st, col);
	bool ok = (type == BF_SQL_INT && t == SQLITE_INTEGER) ||
	          (type == BF_SQL_REAL &&
	           (t == SQLITE_FLOAT || t == SQLITE_INTEGER)) ||
	          (type == BF_SQL_TEXT && t == SQLITE_TEXT);
	const char *text;

	if (!ok)
		return bf_err_set(err, BF_EINVAL, "it holds %s, not %s",
		                  sqlite_kind(t), type_names[type]);
	if (type == BF_SQL_INT) {
		*out = BF_SQL_V_INT(sqlite3_column_int64(st, col));
	} else if (type == BF_SQL_REAL) {
		*out = BF_SQL_V_REAL(sqlite3_column_double(st, col));
	} else {
		text = (const char *)sqlite3_column_text(st, col);
		if (!text ||
		    strlen(text) != (size_t)sqlite3_column_bytes(st, col))
			return bf_err_set(err, BF_EINVAL,
			                  "its text has a NUL byte");
		*out = BF_SQL_V_TEXT(text);
	}
	return 0;
}

int bf_sql_get(struct bf_sql_val *out, const struct bf_sql_row *row, int col,
               enum bf_sql_type type, struct bf_err *err)
{
	const char *t;
	int64_t i;
	double r;

	if (type == BF_SQL_NULL || type > BF_SQL_TEXT)
		BF_BUG("bf_sql_get: type %d", (int)type);
	if (bf_sql_is_null(row, col)) {
		*out = BF_SQL_V_NULL;
		return 0;
	}
	if (row->st)
		return sqlite_get(out, row->st, col, type, err);
	t = bf_sql_pg__text(row, col);
	if (type == BF_SQL_TEXT) {
		*out = BF_SQL_V_TEXT(t);
	} else if (type == BF_SQL_INT) {
		if (bf_parse_i64(&i, t, NULL))
			return bf_err_set(err, BF_EINVAL,
			                  "it holds a text, not an integer");
		*out = BF_SQL_V_INT(i);
	} else {
		if (bf_parse_double(&r, t, true, NULL))
			return bf_err_set(err, BF_EINVAL,
			                  "it holds a text, not a real number");
		*out = BF_SQL_V_REAL(r);
	}
	return 0;
}

const char *bf_sql_col_name(const struct bf_sql_row *row, int col)
{
	const char *name;

	if (!row->st)
		return bf_sql_pg__col_name(row, col);
	name = sqlite3_column_name(row->st, col);
	return name ? name : "?";
}

/* SQLite's progress handler: non-zero interrupts the running step. */
static int past_deadline(void *payload)
{
	const struct bf_store *store = payload;

	return store->step_deadline > 0 &&
	       bf_now_monotonic() > store->step_deadline;
}

/* How many virtual machine instructions between two looks at the clock. */
#define PROGRESS_OPS 1000

int bf_store_set_query_limit(struct bf_store *store, double seconds,
                             struct bf_err *err)
{
	store->query_limit_s = seconds > 0 ? seconds : 0;
	store->step_deadline = 0;
	if (store->pg)
		return bf_sql_pg__set_statement_timeout(store, err);
	sqlite3_progress_handler(
	        store->db, store->query_limit_s ? PROGRESS_OPS : 0,
	        store->query_limit_s ? past_deadline : NULL, store);
	return 0;
}
