/*
 * COPY ... FROM STDIN on a PostgreSQL store: the bulk path of
 * sql_pg_copy.h (see store_int.h for the store's files).
 */
#include "store/sql_pg_copy.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "store/sql_pg.h"
#include "store/store_handle.h"

/* The data goes to libpq in chunks of about this many bytes. */
#define CHUNK (64 * 1024)

/* text in COPY's text format: \, tab, newline and CR escaped. */
static void add_text(struct bf_buf *b, const char *text)
{
	const char *p = text, *start = text;

	for (; *p; p++) {
		const char *esc = NULL;

		switch (*p) {
		case '\\':
			esc = "\\\\";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		default:
			continue;
		}
		bf_buf_add(b, start, (size_t)(p - start));
		bf_buf_add(b, esc, 2);
		start = p + 1;
	}
	bf_buf_add(b, start, (size_t)(p - start));
}

static void add_value(struct bf_buf *b, const struct bf_sql_val *v)
{
	char num[40];
	int len;

	switch (v->type) {
	case BF_SQL_INT:
		len = snprintf(num, sizeof(num), "%lld", (long long)v->i);
		bf_buf_add(b, num, (size_t)len);
		return;
	case BF_SQL_REAL:
		if (isnan(v->r))
			break;
		if (isinf(v->r))
			bf_buf_addstr(b, v->r > 0 ? "Infinity" : "-Infinity");
		else {
			len = snprintf(num, sizeof(num), "%.17g", v->r);
			bf_buf_add(b, num, (size_t)len);
		}
		return;
	case BF_SQL_TEXT:
		if (!v->text)
			break;
		add_text(b, v->text);
		return;
	case BF_SQL_NULL:
	default:
		break;
	}
	bf_buf_add(b, "\\N", 2);
}

/* Send b's bytes; false when the connection failed. */
static bool put(PGconn *conn, struct bf_buf *b)
{
	bool ok = !b->len || PQputCopyData(conn, b->buf, (int)b->len) == 1;

	bf_buf_reset(b);
	return ok;
}

/* The COPY's error: the server's message and SQLSTATE, the store's
 * busy message for a lock timeout, or a lost connection. Never libpq's
 * connection text (it can quote the location's password). */
static int copy_error(struct bf_store *store, PGconn *conn, PGresult *res,
                      struct bf_err *err, const char *what)
{
	const char *msg, *state;

	if (PQstatus(conn) == CONNECTION_BAD)
		return bf_err_set(err, BF_ESYS,
		                  "%s: lost the connection to the store '%s'",
		                  what, store->shown);
	msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	/* a lock timeout says what every other statement's says */
	if (state && !strcmp(state, "55P03"))
		return bf_sql_pg__busy(err, what, store->shown);
	return bf_err_set(err, bf_sql_pg__map_state(state), "%s: %s", what,
	                  msg ? msg : "COPY failed");
}

int bf_sql_pg_copy(struct bf_store *store, const char *table, const char *cols,
                   size_t ncols, size_t nrows, bf_sql_copy_row_fn *row,
                   void *payload, struct bf_err *err, const char *what, ...)
{
	PGconn *conn = bf_sql_pg__conn(store);
	struct bf_sql_val vals[64];
	struct bf_buf b = BF_BUF_INIT;
	char whatbuf[BF_ERR_SIZE];
	PGresult *res;
	bool ok = true;
	va_list ap;
	int rc = 0;

	va_start(ap, what);
	vsnprintf(whatbuf, sizeof(whatbuf), what, ap);
	va_end(ap);
	if (ncols == 0 || ncols > BF_ARRAY_SIZE(vals))
		return bf_err_set(err, BF_EINVAL, "%s: %zu columns", whatbuf,
		                  ncols);
	if (nrows == 0)
		return 0;
	bf_buf_addf(&b, "COPY %s (%s) FROM STDIN", table, cols);
	res = PQexec(conn, b.buf);
	bf_buf_reset(&b);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		rc = copy_error(store, conn, res, err, whatbuf);
		PQclear(res);
		bf_buf_release(&b);
		return rc;
	}
	PQclear(res);
	for (size_t i = 0; i < nrows && ok; i++) {
		row(vals, i, payload);
		for (size_t c = 0; c < ncols; c++) {
			if (c)
				bf_buf_addch(&b, '\t');
			add_value(&b, &vals[c]);
		}
		bf_buf_addch(&b, '\n');
		if (b.len >= CHUNK)
			ok = put(conn, &b);
	}
	if (ok)
		ok = put(conn, &b);
	bf_buf_release(&b);
	/* a failed send still ends the COPY, so that the connection is
	 * usable for the rollback */
	if (PQputCopyEnd(conn, ok ? NULL : "benchfarm: sending failed") != 1)
		ok = false;
	while ((res = PQgetResult(conn))) {
		if (!rc && PQresultStatus(res) != PGRES_COMMAND_OK)
			rc = copy_error(store, conn, res, err, whatbuf);
		PQclear(res);
	}
	if (!rc && !ok)
		rc = copy_error(store, conn, NULL, err, whatbuf);
	return rc;
}
