/*
 * The text side of the store's PostgreSQL backend (see sql_pg.h):
 * statements and messages as strings, without libpq or a server, so
 * that sql_pg.c keeps to the connection.
 */
#include "store/sql_pg.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"

const char *bf_sql_pg__shown(char *buf, size_t size, const char *msg,
                             const char *password)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t n = password ? strlen(password) : 0;
	const char *p = msg ? msg : "unknown error";

	/* masked whole before anything is cut: a cut first could leave
	 * the start of a password that straddles it */
	while (*p) {
		if (n && !strncmp(p, password, n)) {
			bf_buf_add(&b, "***", 3);
			p += n;
		} else {
			bf_buf_addch(&b, *p++);
		}
	}
	while (b.len && (b.buf[b.len - 1] == '\n' || b.buf[b.len - 1] == ' '))
		b.buf[--b.len] = '\0';
	snprintf(buf, size, "%s", b.len ? b.buf : "");
	bf_buf_release(&b);
	return buf;
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

/* SQLSTATE state as a BF_E* code. */
int bf_sql_pg__map_state(const char *state)
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

/* Whether the statement at sql starts with keyword (any case). */
bool bf_sql_pg__starts_with(const char *sql, const char *keyword)
{
	size_t n = strlen(keyword);

	while (isspace((unsigned char)*sql))
		sql++;
	return !strncasecmp(sql, keyword, n) &&
	       !isalnum((unsigned char)sql[n]) && sql[n] != '_';
}

/*
 * Whether a statement whose connection was lost outside a transaction
 * may be sent again on a new one: a read (SELECT: the store's SQL runs
 * no SELECT that writes a row) or BEGIN. A write may have committed
 * with only its reply lost (COMMIT among them), so sending it again
 * could store it twice: it is never repeated.
 */
bool bf_sql_pg__safe_to_repeat(const char *sql)
{
	return bf_sql_pg__starts_with(sql, "SELECT") ||
	       bf_sql_pg__starts_with(sql, "BEGIN");
}

/*
 * How long a connection attempt (and a reconnect) waits for the server
 * by default, in seconds: a server that is down or behind a firewall
 * that drops packets ends a command soon, as an infrastructure failure,
 * instead of hanging it.
 */
#define CONNECT_TIMEOUT "5"

/*
 * TCP keepalives on a connection over the network (libpq ignores them
 * on a Unix socket): after 30 s without traffic the kernel probes the
 * other end every 10 s and gives the connection up after 3 unanswered
 * probes, so a server (or a route to it) that vanished ends a command in
 * about a minute instead of hanging it.
 */
static const char *const keepalive_keys[] = { "keepalives", "keepalives_idle",
	                                      "keepalives_interval",
	                                      "keepalives_count" };
static const char *const keepalive_vals[] = { "1", "30", "10", "3" };

void bf_sql_pg__conn_params(const char *keys[BF_SQL_PG_PARAMS],
                            const char *vals[BF_SQL_PG_PARAMS],
                            const char *location, bool env_timeout)
{
	size_t n = 0, i;

	/* the location comes after the defaults (PQconnectdbParams with
	 * expand_dbname), so that what it sets overrides them */
	if (!env_timeout) {
		keys[n] = "connect_timeout";
		vals[n++] = CONNECT_TIMEOUT;
	}
	for (i = 0; i < BF_ARRAY_SIZE(keepalive_keys); i++) {
		keys[n] = keepalive_keys[i];
		vals[n++] = keepalive_vals[i];
	}
	keys[n] = "dbname";
	vals[n++] = location;
	keys[n] = NULL;
	vals[n] = NULL;
}

#define STRING(x)    #x
#define AS_STRING(x) STRING(x)

void bf_sql_pg__session_settings(const char *pairs[2 * BF_SQL_PG_SETTINGS])
{
	/* the server's side of the keepalives (ignored on a Unix socket):
	 * the session of a host that vanished ends, its locks with it */
	static const char *const all[] = {
		"lock_timeout",
		AS_STRING(BF_SQL_BUSY_MS),
		"idle_in_transaction_session_timeout",
		AS_STRING(BF_SQL_PG_IDLE_MS),
		"tcp_keepalives_idle",
		"30",
		"tcp_keepalives_interval",
		"10",
		"tcp_keepalives_count",
		"3",
	};
	size_t i;

	_Static_assert(BF_ARRAY_SIZE(all) == 2 * BF_SQL_PG_SETTINGS,
	               "BF_SQL_PG_SETTINGS pairs");
	for (i = 0; i < BF_ARRAY_SIZE(all); i++)
		pairs[i] = all[i];
}

int bf_sql_pg__busy(struct bf_err *err, const char *what, const char *shown)
{
	return bf_err_set(err, BF_EBUSY,
	                  "%s: the store '%s' is busy: another host has held "
	                  "the rows locked past the lock timeout (%d s); run "
	                  "the command again later (a host stalled inside a "
	                  "transaction loses its session after %d s idle)",
	                  what, shown, BF_SQL_BUSY_MS / 1000,
	                  BF_SQL_PG_IDLE_MS / 1000);
}
