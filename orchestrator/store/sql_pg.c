/*
 * The store's PostgreSQL connection and sql.h over libpq (see
 * store_int.h for the store's files). The only file that includes
 * libpq-fe.h.
 */
#include "store/sql_pg.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"

/* The OIDs of the parameter types (pg_type.h is a server header). */
#define OID_BOOL   16
#define OID_INT8   20
#define OID_TEXT   25
#define OID_FLOAT8 701

struct bf_sql_pg {
	PGconn *conn;
	int depth; /* open transactions: 0 none, 1 BEGIN, more savepoints */
	int64_t *locks; /* the session advisory locks held */
	size_t nlocks, alloc;
};

enum { TOKEN_BEGIN = 1 };

/* libpq's message without its trailing newline. */
static const char *trimmed(char *buf, size_t size, const char *msg)
{
	size_t n;

	snprintf(buf, size, "%s", msg ? msg : "unknown error");
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return buf;
}

/* buf with every occurrence of what replaced by "***", in place. */
static void mask_all(char *buf, size_t size, const char *what)
{
	size_t n = strlen(what), o = 0;
	char out[BF_ERR_SIZE];
	const char *p = buf;

	while (*p && o + 4 < sizeof(out)) {
		if (!strncmp(p, what, n)) {
			memcpy(out + o, "***", 3);
			o += 3;
			p += n;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	snprintf(buf, size, "%s", out);
}

/*
 * libpq's message about the store at location, safe to show: libpq
 * quotes the part of a connection string it cannot parse, which can be
 * a password (a malformed percent escape, a password with a space), so
 * for a location that does not parse its text is not shown at all; for
 * one that does, the password it holds is masked wherever the message
 * repeats it.
 */
static const char *safe_message(char *buf, size_t size, const char *msg,
                                const char *location)
{
	char *perr = NULL;
	PQconninfoOption *opts = PQconninfoParse(location, &perr);

	if (!opts) {
		PQfreemem(perr);
		snprintf(buf, size,
		         "the location is not a valid PostgreSQL URI or "
		         "connection string (libpq's message is not shown: it "
		         "can quote a password)");
		return buf;
	}
	trimmed(buf, size, msg);
	for (const PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val)
			mask_all(buf, size, o->val);
	PQconninfoFree(opts);
	return buf;
}

static void quiet_notices(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int bf_sql_pg__connect(struct bf_store *store, struct bf_err *err)
{
	char msg[BF_ERR_SIZE];
	PGconn *conn = PQconnectdb(store->path);
	int code;

	if (!conn)
		return bf_err_set(err, BF_ESYS,
		                  "cannot connect to the store '%s': out of "
		                  "memory",
		                  store->shown);
	if (PQstatus(conn) != CONNECTION_OK) {
		safe_message(msg, sizeof(msg), PQerrorMessage(conn),
		             store->path);
		code = PQconnectionNeedsPassword(conn) ||
		                       strstr(msg, "authentication failed")
		               ? BF_EAUTH
		               : BF_ESYS;
		PQfinish(conn);
		return bf_err_set(
		        err, code, "cannot connect to the store '%s': %s%s",
		        store->shown, msg,
		        code == BF_EAUTH ? " (the password comes from "
		                           "PGPASSFILE, ~/.pgpass or the "
		                           "location)"
		                         : "");
	}
	PQsetNoticeProcessor(conn, quiet_notices, NULL);
	store->pg = bf_xcalloc(1, sizeof(*store->pg));
	store->pg->conn = conn;
	return 0;
}

void bf_sql_pg__disconnect(struct bf_store *store)
{
	if (!store->pg)
		return;
	PQfinish(store->pg->conn); /* the server rolls back what is open,
	                            * and drops the advisory locks */
	free(store->pg->locks);
	free(store->pg);
	store->pg = NULL;
}

struct pg_conn *bf_sql_pg__conn(struct bf_store *store)
{
	return store->pg->conn;
}

bool bf_sql_pg__in_transaction(const struct bf_store *store)
{
	return store->pg->depth > 0;
}

char *bf_sql_pg__placeholders(const char *sql)
{
	struct bf_buf b = BF_BUF_INIT;
	const char *p = sql;
	char quote;

	while (*p) {
		if (*p == '\'' || *p == '"') {
			/* a literal or identifier: '' and "" double a quote */
			quote = *p;
			bf_buf_addch(&b, *p++);
			while (*p && *p != quote)
				bf_buf_addch(&b, *p++);
			if (*p)
				bf_buf_addch(&b, *p++);
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				bf_buf_addch(&b, *p++);
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			size_t n = end ? (size_t)(end + 2 - p) : strlen(p);

			bf_buf_add(&b, p, n);
			p += n;
		} else if (*p == '?' && isdigit((unsigned char)p[1])) {
			bf_buf_addch(&b, '$');
			p++;
		} else {
			bf_buf_addch(&b, *p++);
		}
	}
	return bf_buf_detach(&b, NULL);
}

int bf_sql_pg__state_code(const char *state)
{
	if (!state)
		return BF_ERROR;
	if (!strcmp(state, "23505"))
		return BF_EEXISTS;
	if (!strcmp(state, "23503"))
		return BF_ENOTFOUND;
	if (!strcmp(state, "23514") || !strcmp(state, "23502") ||
	    !strncmp(state, "22", 2))
		return BF_EINVAL;
	if (!strcmp(state, "40001") || !strcmp(state, "40P01") ||
	    !strcmp(state, "55P03"))
		return BF_EBUSY;
	if (!strncmp(state, "08", 2) || !strncmp(state, "57P", 3) ||
	    !strncmp(state, "53", 2))
		return BF_ESYS;
	if (!strncmp(state, "28", 2))
		return BF_EAUTH;
	return BF_ERROR;
}

/* The typed parameters of vals, text-format (NaN reals bind NULL, as on
 * SQLite). */
struct params {
	Oid types[64];
	const char *values[64];
	char num[64][32];
};

static int set_params(struct params *p, const struct bf_sql_val *vals, size_t n)
{
	size_t i;

	if (n > BF_ARRAY_SIZE(p->types))
		return BF_ETOOBIG;
	for (i = 0; i < n; i++) {
		p->types[i] = 0;
		p->values[i] = NULL;
		switch (vals[i].type) {
		case BF_SQL_INT:
			p->types[i] = OID_INT8;
			snprintf(p->num[i], sizeof(p->num[i]), "%lld",
			         (long long)vals[i].i);
			p->values[i] = p->num[i];
			break;
		case BF_SQL_REAL:
			p->types[i] = OID_FLOAT8;
			if (isnan(vals[i].r))
				break;
			if (isinf(vals[i].r))
				snprintf(p->num[i], sizeof(p->num[i]), "%s",
				         vals[i].r > 0 ? "Infinity"
				                       : "-Infinity");
			else
				snprintf(p->num[i], sizeof(p->num[i]), "%.17g",
				         vals[i].r);
			p->values[i] = p->num[i];
			break;
		case BF_SQL_TEXT:
			p->types[i] = OID_TEXT;
			p->values[i] = vals[i].text;
			break;
		case BF_SQL_NULL:
		default:
			break;
		}
	}
	return 0;
}

/* Take key's session advisory lock on conn: 1 taken, 0 held by
 * another session, -1 failed. */
static int try_lock(PGconn *conn, int64_t key)
{
	char num[32];
	const char *vals[1] = { num };
	Oid types[1] = { OID_INT8 };
	PGresult *res;
	int ret = -1;

	snprintf(num, sizeof(num), "%lld", (long long)key);
	res = PQexecParams(conn, "SELECT pg_try_advisory_lock($1)", 1, types,
	                   vals, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		ret = PQgetvalue(res, 0, 0)[0] == 't';
	PQclear(res);
	return ret;
}

/*
 * After a reconnect the locks the old session held are gone: take them
 * again (nobody else takes a liveness lock of ours: the others only
 * look). false when one could not be: the statement then fails as on a
 * lost connection, and the caller's job with it.
 */
static bool retake_locks(struct bf_sql_pg *pg)
{
	size_t i;

	for (i = 0; i < pg->nlocks; i++)
		if (try_lock(pg->conn, pg->locks[i]) != 1)
			return false;
	return true;
}

int bf_sql_pg__lock(struct bf_store *store, int64_t key, struct bf_err *err)
{
	struct bf_sql_pg *pg = store->pg;
	int rc = try_lock(pg->conn, key);

	if (rc < 0)
		return bf_err_set(err, BF_ESYS,
		                  "cannot take the liveness lock %lld on '%s'",
		                  (long long)key, store->shown);
	if (rc == 0)
		return bf_err_set(err, BF_EBUSY,
		                  "the liveness lock %lld on '%s' is held by "
		                  "another process",
		                  (long long)key, store->shown);
	if (pg->nlocks == pg->alloc)
		pg->locks = bf_xreallocarray(
		        pg->locks, pg->alloc = pg->alloc ? 2 * pg->alloc : 8,
		        sizeof(*pg->locks));
	pg->locks[pg->nlocks++] = key;
	return 0;
}

void bf_sql_pg__unlock(struct bf_store *store, int64_t key)
{
	struct bf_sql_pg *pg = store->pg;
	struct bf_sql_val v[] = { BF_SQL_V_INT(key) };
	struct bf_err ignored = BF_ERR_INIT;
	size_t i;

	for (i = 0; i < pg->nlocks && pg->locks[i] != key; i++)
		;
	if (i == pg->nlocks)
		return;
	pg->locks[i] = pg->locks[--pg->nlocks];
	bf_sql_pg__exec(store, "SELECT pg_advisory_unlock(?1)", v, 1, NULL,
	                NULL, NULL, &ignored, "unlock");
}

static int first_int(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = strtoll(bf_sql_pg__text(row, 0), NULL, 10);
	return 0;
}

int bf_sql_pg__lock_held(struct bf_store *store, int64_t key,
                         struct bf_err *err)
{
	/* pg_locks shows a bigint key as classid (high half), objid (low
	 * half) and objsubid 1 */
	struct bf_sql_val v[] = { BF_SQL_V_INT(key >> 32),
		                  BF_SQL_V_INT(key & 0xffffffff) };
	char what[BF_ERR_SIZE];
	int64_t n = 0;
	int rc;

	snprintf(what, sizeof(what), "cannot read the locks of '%s'",
	         store->shown);
	rc = bf_sql_pg__exec(
	        store,
	        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
	        " AND granted AND objsubid = 1"
	        " AND database = (SELECT oid FROM pg_database"
	        "  WHERE datname = current_database())"
	        " AND classid::bigint = ?1 AND objid::bigint = ?2"
	        " AND pid <> pg_backend_pid()",
	        v, 2, first_int, &n, NULL, err, what);
	return rc ? rc : n > 0;
}

int bf_sql_pg__exec(struct bf_store *store, const char *sql,
                    const struct bf_sql_val *vals, size_t n, bf_sql_row_fn *fn,
                    void *payload, int64_t *changes, struct bf_err *err,
                    const char *what)
{
	struct bf_sql_pg *pg = store->pg;
	struct bf_sql_row row = { NULL, NULL, 0 };
	struct params *params = bf_xcalloc(1, sizeof(*params));
	char *text = bf_sql_pg__placeholders(sql);
	char msg[BF_ERR_SIZE];
	PGresult *res = NULL;
	ExecStatusType st;
	bool retried = false;
	int ret = 0, nrows, i;

	if (set_params(params, vals, n)) {
		ret = bf_err_set(err, BF_ETOOBIG, "%s: more than %zu values",
		                 what, BF_ARRAY_SIZE(params->types));
		goto out;
	}
again:
	res = PQexecParams(pg->conn, text, (int)n, params->types,
	                   params->values, NULL, NULL, 0);
	st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
		row.res = res;
		nrows = PQntuples(res);
		for (i = 0; fn && i < nrows && !ret; i++) {
			row.row = i;
			ret = fn(&row, payload);
		}
		if (changes && !ret)
			*changes = strtoll(PQcmdTuples(res), NULL, 10);
		goto out;
	}
	if (PQstatus(pg->conn) == CONNECTION_BAD) {
		/* Outside a transaction the statement is whole or not run
		 * at all: repeat it once on a new connection. Inside, what
		 * the transaction did is gone: the caller's job fails. */
		if (!retried && pg->depth == 0) {
			retried = true;
			PQclear(res);
			res = NULL;
			PQreset(pg->conn);
			if (PQstatus(pg->conn) == CONNECTION_OK &&
			    retake_locks(pg))
				goto again;
		}
		safe_message(msg, sizeof(msg), PQerrorMessage(pg->conn),
		             store->path);
		ret = bf_err_set(err, BF_ESYS,
		                 "%s: lost the connection to the store '%s'%s: "
		                 "%s",
		                 what, store->shown,
		                 pg->depth ? " inside a transaction" : "", msg);
		goto out;
	}
	safe_message(msg, sizeof(msg),
	             res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
	                 : PQerrorMessage(pg->conn),
	             store->path);
	ret = bf_err_set(
	        err,
	        bf_sql_pg__state_code(
	                res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL),
	        "%s: %s", what, msg);
out:
	PQclear(res);
	free(text);
	free(params);
	return ret;
}

/* Run a statement of the transaction machinery. */
static int run(struct bf_store *store, const char *sql, struct bf_err *err,
               const char *what)
{
	return bf_sql_pg__exec(store, sql, NULL, 0, NULL, NULL, NULL, err,
	                       what);
}

int bf_sql_pg__write_begin(int *token, struct bf_store *store,
                           struct bf_err *err)
{
	struct bf_sql_pg *pg = store->pg;
	char sql[64], what[BF_ERR_SIZE];
	int rc;

	snprintf(what, sizeof(what), "cannot start a transaction on '%s'",
	         store->shown);
	if (pg->depth == 0) {
		rc = run(store, "BEGIN", err, what);
	} else {
		snprintf(sql, sizeof(sql), "SAVEPOINT bf_write_%d", pg->depth);
		rc = run(store, sql, err, what);
	}
	if (rc)
		return rc;
	*token = ++pg->depth;
	return 0;
}

int bf_sql_pg__write_end(struct bf_store *store, int token, int rc,
                         struct bf_err *err)
{
	struct bf_sql_pg *pg = store->pg;
	struct bf_err ignored = BF_ERR_INIT;
	char sql[96], what[BF_ERR_SIZE];
	int crc;

	if (token != pg->depth)
		return rc ? rc
		          : bf_err_set(err, BF_ERROR,
		                       "transactions on '%s' ended out of "
		                       "order",
		                       store->shown);
	pg->depth--;
	if (PQstatus(pg->conn) == CONNECTION_BAD) {
		pg->depth = 0;
		return rc ? rc
		          : bf_err_set(err, BF_ESYS,
		                       "cannot commit to '%s': the connection "
		                       "was lost",
		                       store->shown);
	}
	if (rc == 0) {
		snprintf(what, sizeof(what), "cannot commit to '%s'",
		         store->shown);
		if (token == TOKEN_BEGIN) {
			crc = run(store, "COMMIT", err, what);
		} else {
			snprintf(sql, sizeof(sql),
			         "RELEASE SAVEPOINT bf_write_%d", token - 1);
			crc = run(store, sql, err, what);
		}
		if (!crc)
			return 0;
		rc = crc;
	}
	if (token == TOKEN_BEGIN) {
		run(store, "ROLLBACK", &ignored, "rollback");
	} else {
		snprintf(sql, sizeof(sql), "ROLLBACK TO SAVEPOINT bf_write_%d",
		         token - 1);
		run(store, sql, &ignored, "rollback");
		snprintf(sql, sizeof(sql), "RELEASE SAVEPOINT bf_write_%d",
		         token - 1);
		run(store, sql, &ignored, "rollback");
	}
	return rc;
}

bool bf_sql_pg__is_null(const struct bf_sql_row *row, int col)
{
	return col < 0 || col >= PQnfields(row->res) ||
	       PQgetisnull(row->res, row->row, col);
}

/* A boolean reads as SQLite's would: 1 or 0, not t or f. */
const char *bf_sql_pg__text(const struct bf_sql_row *row, int col)
{
	const char *v;

	if (bf_sql_pg__is_null(row, col))
		return NULL;
	v = PQgetvalue(row->res, row->row, col);
	if (PQftype(row->res, col) == OID_BOOL)
		return v[0] == 't' ? "1" : "0";
	return v;
}
