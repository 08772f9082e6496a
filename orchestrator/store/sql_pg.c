/*
 * The store's PostgreSQL connection and sql.h over libpq (see
 * store_int.h for the store's files), and the connections of others
 * that need the same parameters and settings (bf_sql_pg__open_conn).
 */
#include "store/sql_pg.h"

#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"
#include "store/store.h"

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
	double limit_s; /* statement_timeout set on the session; 0: none */
};

enum { TOKEN_BEGIN = 1 };

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
	const PQconninfoOption *o;
	const char *password = NULL;

	if (!opts) {
		PQfreemem(perr);
		snprintf(buf, size,
		         "the location is not a valid PostgreSQL URI or "
		         "connection string (libpq's message is not shown: it "
		         "can quote a password)");
		return buf;
	}
	for (o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val)
			password = o->val;
	bf_sql_pg__shown(buf, size, msg, password);
	PQconninfoFree(opts);
	return buf;
}

static void quiet_notices(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* PQconnectdb(location) over the defaults of bf_sql_pg__conn_params. */
static PGconn *connect_to(const char *location)
{
	const char *keys[BF_SQL_PG_PARAMS], *vals[BF_SQL_PG_PARAMS];
	const char *env = getenv("PGCONNECT_TIMEOUT");

	bf_sql_pg__conn_params(keys, vals, location, env && *env);
	return PQconnectdbParams(keys, vals, 1);
}

/*
 * The session's settings (bf_sql_pg__session_settings), each only where
 * nothing set it (its source is still the server's default): a
 * location's options ("-c lock_timeout=..."), PGOPTIONS, ALTER
 * ROLE/DATABASE ... SET and postgresql.conf keep their values. Run on
 * every new connection, a reconnect's too (a session's settings end
 * with it). false when the server refused.
 */
static bool set_timeouts(PGconn *conn)
{
	const char *vals[2 * BF_SQL_PG_SETTINGS];
	PGresult *res;
	bool ok;

	bf_sql_pg__session_settings(vals);
	res = PQexecParams(conn,
	                   "SELECT set_config(s.name, v.value, false)"
	                   " FROM pg_settings s JOIN (VALUES ($1, $2),"
	                   " ($3, $4), ($5, $6), ($7, $8), ($9, $10))"
	                   " AS v (name, value) ON s.name = v.name"
	                   " WHERE s.source = 'default'",
	                   2 * BF_SQL_PG_SETTINGS, NULL, vals, NULL, NULL, 0);
	ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	PQclear(res);
	return ok;
}

struct pg_conn *bf_sql_pg__open_conn(const char *location, const char *shown,
                                     struct bf_err *err)
{
	char msg[BF_ERR_SIZE];
	PGconn *conn = connect_to(location);
	int code;

	if (!conn) {
		bf_err_set(err, BF_ESYS,
		           "cannot connect to the store '%s': out of memory",
		           shown);
		return NULL;
	}
	if (PQstatus(conn) != CONNECTION_OK) {
		safe_message(msg, sizeof(msg), PQerrorMessage(conn), location);
		code = PQconnectionNeedsPassword(conn) ||
		                       strstr(msg, "authentication failed")
		               ? BF_EAUTH
		               : BF_ESYS;
		PQfinish(conn);
		bf_err_set(err, code, "cannot connect to the store '%s': %s%s",
		           shown, msg,
		           code == BF_EAUTH ? " (the password comes from "
		                              "PGPASSFILE, ~/.pgpass or the "
		                              "location)"
		                            : "");
		return NULL;
	}
	if (!set_timeouts(conn)) {
		safe_message(msg, sizeof(msg), PQerrorMessage(conn), location);
		PQfinish(conn);
		bf_err_set(err, BF_ESYS,
		           "cannot set the lock and idle timeouts of the "
		           "session on the store '%s': %s",
		           shown, msg);
		return NULL;
	}
	PQsetNoticeProcessor(conn, quiet_notices, NULL);
	return conn;
}

/* The first pause between two attempts to reconnect, and the longest. */
#define RECONNECT_FIRST_S 0.05
#define RECONNECT_MAX_S   1.0

static pthread_mutex_t reconnect_mu = PTHREAD_MUTEX_INITIALIZER;
static double reconnect_window_s = BF_STORE_RECONNECT_S;
static double gave_up_at; /* bf_now_monotonic() of the last give-up */

void bf_store_reconnect_window(double seconds)
{
	pthread_mutex_lock(&reconnect_mu);
	reconnect_window_s = seconds > 0 ? seconds : 0;
	gave_up_at = 0;
	pthread_mutex_unlock(&reconnect_mu);
}

/*
 * How long this reconnect may go on trying: the window, or nothing when
 * an attempt of this process gave up within the last window (a server
 * that is down costs the first statement the window, not every one).
 */
static double reconnect_budget(void)
{
	double now = bf_now_monotonic(), w;

	pthread_mutex_lock(&reconnect_mu);
	w = gave_up_at > 0 && now - gave_up_at < reconnect_window_s
	            ? 0
	            : reconnect_window_s;
	pthread_mutex_unlock(&reconnect_mu);
	return w;
}

static void reconnect_done(bool ok)
{
	pthread_mutex_lock(&reconnect_mu);
	gave_up_at = ok ? 0 : bf_now_monotonic();
	pthread_mutex_unlock(&reconnect_mu);
}

/* A refusal that waiting does not change: the password, the role. */
static bool is_final(PGconn *conn)
{
	const char *msg = PQerrorMessage(conn);

	return PQconnectionNeedsPassword(conn) ||
	       strstr(msg, "authentication failed") ||
	       strstr(msg, "does not exist");
}

static void pause_s(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A server that restarts refuses connections, then answers "the
 * database system is starting up", for a moment after it went away:
 * one attempt at that moment would end the job. So the attempts go on,
 * 50 ms apart and doubling up to 1 s, until one succeeds, the refusal
 * is final (is_final) or the window (bf_store_reconnect_window) is
 * over; after a give-up, one attempt until one succeeds again.
 */
bool bf_sql_pg__reset_conn(struct pg_conn *conn)
{
	double end = bf_now_monotonic() + reconnect_budget();
	double wait = RECONNECT_FIRST_S;

	for (;;) {
		PQreset(conn);
		if (PQstatus(conn) == CONNECTION_OK) {
			reconnect_done(true);
			return set_timeouts(conn);
		}
		if (is_final(conn) || bf_now_monotonic() + wait > end) {
			reconnect_done(false);
			return false;
		}
		pause_s(wait);
		wait = wait * 2 < RECONNECT_MAX_S ? wait * 2 : RECONNECT_MAX_S;
	}
}

int bf_sql_pg__connect(struct bf_store *store, struct bf_err *err)
{
	PGconn *conn = bf_sql_pg__open_conn(store->path, store->shown, err);

	if (!conn)
		return err->code;
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

/*
 * Make pg's connection again after the server ended it: the new
 * session gets the timeouts and the locks of the old one. false when
 * any of it failed (PQerrorMessage says why).
 */
static bool apply_limit(struct bf_sql_pg *pg)
{
	char ms[32];
	const char *vals[1] = { ms };
	PGresult *res;
	bool ok;

	if (pg->limit_s <= 0)
		snprintf(ms, sizeof(ms), "0");
	else
		snprintf(ms, sizeof(ms), "%.0f", ceil(pg->limit_s * 1000));
	res = PQexecParams(pg->conn,
	                   "SELECT set_config('statement_timeout', $1, false)",
	                   1, NULL, vals, NULL, NULL, 0);
	ok = PQresultStatus(res) == PGRES_TUPLES_OK;
	PQclear(res);
	return ok;
}

static bool reconnect(struct bf_sql_pg *pg)
{
	return bf_sql_pg__reset_conn(pg->conn) && retake_locks(pg) &&
	       (pg->limit_s <= 0 || apply_limit(pg));
}

int bf_sql_pg__set_statement_timeout(struct bf_store *store, struct bf_err *err)
{
	char msg[BF_ERR_SIZE];

	store->pg->limit_s = store->query_limit_s;
	if (apply_limit(store->pg))
		return 0;
	safe_message(msg, sizeof(msg), PQerrorMessage(store->pg->conn),
	             store->path);
	return bf_err_set(err, BF_ESYS,
	                  "cannot set the statement timeout of the session on "
	                  "the store '%s': %s",
	                  store->shown, msg);
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

/*
 * Whether the server ended conn while it was idle (a restart, an
 * administrator, an idle timeout): it then sends an error and closes,
 * so the socket is readable when nothing was asked. What is there is
 * read without waiting: the end of the stream marks conn bad. A notice
 * alone leaves it good.
 */
static bool ended_while_idle(PGconn *conn)
{
	struct pollfd p = { PQsocket(conn), POLLIN, 0 };
	int i;

	if (PQstatus(conn) == CONNECTION_BAD || p.fd < 0)
		return true;
	if (poll(&p, 1, 0) != 1)
		return false;
	for (i = 0; i < 4 && PQconsumeInput(conn); i++)
		;
	return PQstatus(conn) == CONNECTION_BAD;
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
	const char *state;
	PGresult *res = NULL;
	ExecStatusType st;
	bool retried = false, repeat = bf_sql_pg__safe_to_repeat(sql), in_txn;
	int ret = 0, nrows, i;

	if (set_params(params, vals, n)) {
		ret = bf_err_set(err, BF_ETOOBIG, "%s: more than %zu values",
		                 what, BF_ARRAY_SIZE(params->types));
		goto out;
	}
again:
	/* a transaction begun with a statement of the caller's (store
	 * copy's read snapshot) counts as one too */
	in_txn = pg->depth > 0 ||
	         PQtransactionStatus(pg->conn) == PQTRANS_INTRANS ||
	         PQtransactionStatus(pg->conn) == PQTRANS_INERROR;
	if (!retried && ended_while_idle(pg->conn)) {
		/* nothing was sent: inside a transaction, the server has
		 * rolled it back; outside, any statement may go on a new
		 * connection */
		retried = true;
		safe_message(msg, sizeof(msg), PQerrorMessage(pg->conn),
		             store->path);
		if (in_txn) {
			ret = bf_err_set(
			        err, BF_ESYS,
			        "%s: lost the connection to the store "
			        "'%s' inside a transaction (%s): "
			        "nothing of the transaction was stored",
			        what, store->shown, msg);
			goto out;
		}
		if (!reconnect(pg)) {
			safe_message(msg, sizeof(msg), PQerrorMessage(pg->conn),
			             store->path);
			ret = bf_err_set(err, BF_ESYS,
			                 "%s: lost the connection to the store "
			                 "'%s' and cannot make it again (%s); "
			                 "the statement was not sent",
			                 what, store->shown, msg);
			goto out;
		}
	}
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
		/* Inside a transaction what it did is gone: the caller's
		 * job fails. Outside one, a read (or BEGIN) is repeated once
		 * on a new connection; a write is not (it may have been
		 * stored), but the connection is made again for the next
		 * statement. */
		safe_message(msg, sizeof(msg), PQerrorMessage(pg->conn),
		             store->path);
		if (!retried && !in_txn) {
			retried = true;
			PQclear(res);
			res = NULL;
			if (reconnect(pg) && repeat)
				goto again;
		}
		/* a COMMIT's reply lost: it may have committed */
		if ((in_txn || repeat) &&
		    !bf_sql_pg__starts_with(sql, "COMMIT"))
			ret = bf_err_set(err, BF_ESYS,
			                 "%s: lost the connection to the store "
			                 "'%s'%s: %s",
			                 what, store->shown,
			                 in_txn ? " inside a transaction" : "",
			                 msg);
		else
			ret = bf_err_set(
			        err, BF_ESYS,
			        "%s: lost the connection to the store "
			        "'%s' while writing: the write may or "
			        "may not have been stored (%s); look at "
			        "the store before doing it again",
			        what, store->shown, msg);
		goto out;
	}
	state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (state && !strcmp(state, "57014") && pg->limit_s > 0) {
		/* query_canceled: statement_timeout */
		ret = bf_err_set(err, BF_ETIMEOUT,
		                 "%s: stopped after %g s, the bound of one "
		                 "query on '%s' (a recursive view, or a store "
		                 "too large for it)",
		                 what, pg->limit_s, store->shown);
		goto out;
	}
	if (state && !strcmp(state, "55P03")) {
		/* lock_not_available: lock_timeout (or NOWAIT) */
		ret = bf_sql_pg__busy(err, what, store->shown);
		goto out;
	}
	safe_message(msg, sizeof(msg),
	             res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
	                 : PQerrorMessage(pg->conn),
	             store->path);
	ret = bf_err_set(err, bf_sql_pg__map_state(state), "%s: %s", what, msg);
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

const char *bf_sql_pg__col_name(const struct bf_sql_row *row, int col)
{
	const char *name = PQfname(row->res, col);

	return name ? name : "?";
}
