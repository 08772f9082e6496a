/*
 * The store's SQLite connection, statements and transactions (see
 * store_int.h for the store's files).
 */
#include "store/sql_sqlite.h"
#include "store/sql_pg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"

enum { TOKEN_BEGIN = 1, TOKEN_SAVEPOINT = 2 };

int bf_store__map_rc(int rc)
{
	switch (rc) {
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
		return BF_EEXISTS;
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return BF_ENOTFOUND;
	default:
		break;
	}
	switch (rc & 0xff) {
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return BF_EINVAL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return BF_EBUSY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return BF_ECORRUPT;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_FULL:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return BF_ESYS;
	case SQLITE_TOOBIG:
		return BF_ETOOBIG;
	default:
		return BF_ERROR;
	}
}

int bf_store__err(struct bf_store *store, int rc, struct bf_err *err,
                  const char *fmt, ...)
{
	char ctx[BF_ERR_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	return bf_err_set(err, bf_store__map_rc(rc), "%s: %s", ctx,
	                  sqlite3_errmsg(store->db));
}

int bf_store__connect(struct bf_store *store, struct bf_err *err)
{
	int rc = sqlite3_open_v2(store->path, &store->db, SQLITE_OPEN_READWRITE,
	                         NULL);

	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot open '%s'",
		                     store->path);
	sqlite3_extended_result_codes(store->db, 1);
	sqlite3_busy_timeout(store->db, BF_SQL_BUSY_MS);
	return 0;
}

void bf_store__disconnect(struct bf_store *store)
{
	size_t i;

	for (i = 0; i < BF_STORE__NSTMT; i++)
		sqlite3_finalize(store->stmt[i]);
	bf_sql__cache_release(store);
	if (store->db && !sqlite3_get_autocommit(store->db))
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_close(store->db) != SQLITE_OK)
		BF_BUG("store '%s' closed with statements still open",
		       store->path);
	store->db = NULL;
}

int bf_store__prepare(sqlite3_stmt **out, struct bf_store *store, int id,
                      const char *sql, struct bf_err *err)
{
	int rc;

	if (id >= 0 && store->stmt[id]) {
		sqlite3_reset(store->stmt[id]);
		sqlite3_clear_bindings(store->stmt[id]);
		*out = store->stmt[id];
		return 0;
	}
	rc = sqlite3_prepare_v2(store->db, sql, -1, out, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot query '%s'",
		                     store->path);
	if (id >= 0)
		store->stmt[id] = *out;
	return 0;
}

int bf_store__step_i64(int64_t *out, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		*out = 0;
	else
		return rc;
	return SQLITE_OK;
}

int bf_store__query_i64(int64_t *out, sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = bf_store__step_i64(out, st);
	sqlite3_finalize(st);
	return rc;
}

int bf_store__one_row(struct bf_store *store, sqlite3_stmt *st,
                      bf_store__read_fn *read, void *out, struct bf_err *err,
                      const char *fmt, ...)
{
	char what[BF_ERR_SIZE];
	int rc = sqlite3_step(st);
	va_list ap;

	if (rc == SQLITE_ROW) {
		read(out, st);
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (rc == SQLITE_DONE)
		return bf_err_set(err, BF_ENOTFOUND, "no %s", what);
	return bf_store__err(store, rc, err, "cannot read %s", what);
}

int bf_store__write_begin(int *token, struct bf_store *store,
                          struct bf_err *err)
{
	bool nested = !sqlite3_get_autocommit(store->db);
	int rc;

	rc = sqlite3_exec(store->db,
	                  nested ? "SAVEPOINT bf_write" : "BEGIN IMMEDIATE",
	                  NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err,
		                     "cannot start a transaction on '%s'",
		                     store->path);
	*token = nested ? TOKEN_SAVEPOINT : TOKEN_BEGIN;
	return 0;
}

int bf_store__write_end(struct bf_store *store, int token, int rc,
                        struct bf_err *err)
{
	int src;

	if (rc == 0) {
		src = sqlite3_exec(store->db,
		                   token == TOKEN_SAVEPOINT ? "RELEASE bf_write"
		                                            : "COMMIT",
		                   NULL, NULL, NULL);
		if (src == SQLITE_OK)
			return 0;
		rc = bf_store__err(store, src, err, "cannot commit to '%s'",
		                   store->path);
	}
	/* SQLite may have rolled back already (I/O errors, full disk). */
	if (sqlite3_get_autocommit(store->db))
		return rc;
	if (token == TOKEN_SAVEPOINT)
		sqlite3_exec(store->db,
		             "ROLLBACK TO bf_write; RELEASE bf_write", NULL,
		             NULL, NULL);
	else
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int bf_store_begin(struct bf_store *store, struct bf_err *err)
{
	int rc;

	if (store->pg) {
		if (bf_sql_pg__in_transaction(store))
			return bf_err_set(
			        err, BF_EINVAL,
			        "a transaction is already open on '%s'",
			        store->shown);
		return bf_sql_pg__write_begin(&rc, store, err);
	}
	if (!sqlite3_get_autocommit(store->db))
		return bf_err_set(err, BF_EINVAL,
		                  "a transaction is already open on '%s'",
		                  store->path);
	rc = sqlite3_exec(store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err,
		                     "cannot start a transaction on '%s'",
		                     store->path);
	return 0;
}

int bf_store_commit(struct bf_store *store, struct bf_err *err)
{
	int rc;

	if (store->pg) {
		if (!bf_sql_pg__in_transaction(store))
			return bf_err_set(err, BF_EINVAL,
			                  "no transaction is open on '%s'",
			                  store->shown);
		return bf_sql_pg__write_end(store, 1, 0, err);
	}
	if (sqlite3_get_autocommit(store->db))
		return bf_err_set(err, BF_EINVAL,
		                  "no transaction is open on '%s'",
		                  store->path);
	rc = sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot commit to '%s'",
		                     store->path);
	return 0;
}

int bf_store_rollback(struct bf_store *store, struct bf_err *err)
{
	int rc;

	if (store->pg) {
		if (!bf_sql_pg__in_transaction(store))
			return 0;
		bf_sql_pg__write_end(store, 1, BF_ERROR, err);
		return 0;
	}
	if (sqlite3_get_autocommit(store->db))
		return 0;
	rc = sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot roll back '%s'",
		                     store->path);
	return 0;
}

int bf_store__bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_STATIC);
}

int bf_store__bind_real(sqlite3_stmt *st, int idx, double v)
{
	if (isnan(v))
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_double(st, idx, v);
}

char *bf_store__col_text(sqlite3_stmt *st, int col)
{
	return (char *)sqlite3_column_text(st, col);
}

char *bf_store__col_strdup(sqlite3_stmt *st, int col)
{
	const char *s = bf_store__col_text(st, col);

	return s ? bf_xstrdup(s) : NULL;
}

double bf_store__col_real(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, col);
}

int bf_store__write(struct bf_store *store, const char *sql,
                    const struct bf_store__val *vals, size_t n,
                    bool must_change, struct bf_err *err, const char *fmt, ...)
{
	char what[BF_ERR_SIZE];
	sqlite3_stmt *st = NULL;
	size_t nparams;
	va_list ap;
	int rc;

	rc = bf_store__prepare(&st, store, -1, sql, err);
	if (rc)
		return rc;
	nparams = (size_t)sqlite3_bind_parameter_count(st);
	for (size_t k = 0; k < n && k < nparams; k++)
		if (vals[k].is_int)
			sqlite3_bind_int64(st, (int)k + 1, vals[k].i);
		else
			bf_store__bind_text(st, (int)k + 1, vals[k].text);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE && (!must_change || sqlite3_changes(store->db)))
		rc = 0;
	else {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		if (rc == SQLITE_DONE)
			rc = bf_err_set(err, BF_ENOTFOUND, "no %s", what);
		else
			rc = bf_store__err(store, rc, err, "cannot update %s",
			                   what);
	}
	sqlite3_finalize(st);
	return rc;
}

/* bf_sql_exec and the write transactions over SQLite (sql.c has the
 * rows' values; a PostgreSQL store goes to sql_pg.c). */

/*
 * The kept statement for sql, prepared on first use, marked busy until
 * release_stmt. A statement a running query of the same text holds (a
 * row callback that runs its own query again) is prepared afresh and
 * not kept; a full cache gives way from its first idle entry. The
 * text is copied: a caller may build it and free it after the call.
 */
static int take_stmt(sqlite3_stmt **out, struct bf_sql__cached **slot,
                     struct bf_store *store, const char *sql)
{
	struct bf_sql__cached *c;
	bool held = false;
	size_t i;
	int rc;

	*slot = NULL;
	for (i = 0; i < store->ncache; i++) {
		c = &store->cache[i];
		if (!strcmp(c->sql, sql)) {
			if (c->busy) {
				held = true;
				break;
			}
			c->busy = true;
			*slot = c;
			*out = c->st;
			return SQLITE_OK;
		}
	}
	rc = sqlite3_prepare_v2(store->db, sql, -1, out, NULL);
	if (rc != SQLITE_OK || held)
		return rc;
	if (store->ncache < BF_SQL__CACHE) {
		c = &store->cache[store->ncache++];
	} else {
		/* full: an idle entry gives way, replaced where it is (a
		 * running query's slot must not move under it) */
		for (i = 0; i < store->ncache && store->cache[i].busy; i++)
			;
		if (i == store->ncache)
			return SQLITE_OK; /* every one busy: not kept */
		c = &store->cache[i];
		sqlite3_finalize(c->st);
		free(c->sql);
	}
	c->sql = bf_xstrdup(sql);
	c->st = *out;
	c->busy = true;
	*slot = c;
	return SQLITE_OK;
}

static void release_stmt(sqlite3_stmt *st, struct bf_sql__cached *slot)
{
	if (!slot) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	slot->busy = false;
}

void bf_sql__cache_release(struct bf_store *store)
{
	size_t i;

	for (i = 0; i < store->ncache; i++) {
		sqlite3_finalize(store->cache[i].st);
		free(store->cache[i].sql);
	}
	store->ncache = 0;
}

static int bind_val(sqlite3_stmt *st, int idx, const struct bf_sql_val *v)
{
	switch (v->type) {
	case BF_SQL_INT:
		return sqlite3_bind_int64(st, idx, v->i);
	case BF_SQL_REAL:
		return bf_store__bind_real(st, idx, v->r);
	case BF_SQL_TEXT:
		return bf_store__bind_text(st, idx, v->text);
	case BF_SQL_NULL:
	default:
		return sqlite3_bind_null(st, idx);
	}
}

int bf_sql_exec(struct bf_store *store, const char *sql,
                const struct bf_sql_val *vals, size_t n, bf_sql_row_fn *fn,
                void *payload, int64_t *changes, struct bf_err *err,
                const char *what, ...)
{
	struct bf_sql__cached *slot;
	struct bf_sql_row row = { NULL, NULL, 0 };
	char ctx[BF_ERR_SIZE];
	va_list ap;
	size_t i;
	int rc, ret = 0;

	if (store->pg) {
		va_start(ap, what);
		vsnprintf(ctx, sizeof(ctx), what, ap);
		va_end(ap);
		return bf_sql_pg__exec(store, sql, vals, n, fn, payload,
		                       changes, err, ctx);
	}
	rc = take_stmt(&row.st, &slot, store, sql);
	for (i = 0; rc == SQLITE_OK && i < n; i++)
		rc = bind_val(row.st, (int)i + 1, &vals[i]);
	while (rc == SQLITE_OK || rc == SQLITE_ROW) {
		/* the bound counts the step's own work, not fn's */
		if (store->query_limit_s > 0)
			store->step_deadline =
			        bf_now_monotonic() + store->query_limit_s;
		rc = sqlite3_step(row.st);
		store->step_deadline = 0;
		if (rc == SQLITE_ROW && fn && (ret = fn(&row, payload)))
			break;
	}
	if (changes && rc == SQLITE_DONE)
		*changes = sqlite3_changes(store->db);
	if (rc != SQLITE_DONE && !ret) {
		va_start(ap, what);
		vsnprintf(ctx, sizeof(ctx), what, ap);
		va_end(ap);
		if (rc == SQLITE_INTERRUPT && store->query_limit_s > 0)
			ret = bf_err_set(
			        err, BF_ETIMEOUT,
			        "%s: stopped after %g s, the bound of "
			        "one query on '%s' (a recursive view, or "
			        "a store too large for it)",
			        ctx, store->query_limit_s, store->shown);
		else
			ret = bf_store__err(store, rc, err, "%s", ctx);
	}
	if (row.st)
		release_stmt(row.st, slot);
	return ret;
}

int bf_sql_write_begin(int *token, struct bf_store *store, struct bf_err *err)
{
	if (store->pg)
		return bf_sql_pg__write_begin(token, store, err);
	return bf_store__write_begin(token, store, err);
}

int bf_sql_write_end(struct bf_store *store, int token, int rc,
                     struct bf_err *err)
{
	if (store->pg)
		return bf_sql_pg__write_end(store, token, rc, err);
	return bf_store__write_end(store, token, rc, err);
}
