/*
 * The store's location (--db, $BENCHFARM_DB): which backend it names,
 * and its form for messages with any password removed (see store.h).
 */
#include "store/store.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"

#define HIDDEN "***"

/* The length of the URI scheme at s ("name:"), 0 when s has none. */
static size_t scheme_len(const char *s)
{
	size_t i = 0;

	if (!isalpha((unsigned char)s[0]))
		return 0;
	while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' ||
	       s[i] == '.')
		i++;
	return s[i] == ':' ? i : 0;
}

static bool is_pg_uri(const char *s)
{
	return !strncmp(s, "postgresql://", 13) ||
	       !strncmp(s, "postgres://", 11);
}

/* A path given as one: absolute, or starting with . or ~. */
static bool is_explicit_path(const char *s)
{
	return s[0] == '/' || s[0] == '.' || s[0] == '~';
}

int bf_store_location_kind(bool *is_pg, const char *loc, struct bf_err *err)
{
	size_t n;

	if (!loc || !*loc)
		return bf_err_set(err, BF_EINVAL, "empty database location");
	if (is_explicit_path(loc)) {
		*is_pg = false;
		return 0;
	}
	if (is_pg_uri(loc)) {
		*is_pg = true;
		return 0;
	}
	n = scheme_len(loc);
	if (n)
		return bf_err_set(
		        err, BF_EINVAL,
		        "database location '%.*s:...' has a URI scheme "
		        "that is neither postgresql:// nor postgres://; "
		        "give a file path (./NAME for a file whose name has "
		        "a colon) or a PostgreSQL URI or key=value string",
		        (int)n, loc);
	*is_pg = strchr(loc, '=') != NULL;
	return 0;
}

/* The value of %XX hex digit c, or -1. */
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) percent-decoded (a bad escape stays as it is). */
static char *pct_decode(const char *s, size_t n)
{
	char *out = bf_xmalloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			out[o++] = (char)(hexval(s[i + 1]) * 16 +
			                  hexval(s[i + 2]));
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* Whether the query parameter key=value at p (length n) may be shown:
 * not a password, nor a dbname that is itself a connection string. */
static bool uri_param_shown(const char *p, size_t n)
{
	const char *eq = memchr(p, '=', n);
	char *key, *val;
	bool shown = true;

	if (!eq)
		return true;
	key = pct_decode(p, (size_t)(eq - p));
	val = pct_decode(eq + 1, n - (size_t)(eq - p) - 1);
	if (!strcasecmp(key, "password"))
		shown = false;
	else if (!strcasecmp(key, "dbname") &&
	         (strchr(val, '=') || strstr(val, "://")))
		shown = false;
	free(key);
	free(val);
	return shown;
}

/*
 * A postgresql:// URI without its password: the userinfo's ":PASSWORD"
 * (everything up to the last '@' of the authority after the user name,
 * so that an unencoded '@' or ':' in a password never shows) and the
 * query's password= (and a dbname= holding a connection string).
 */
static char *uri_display(const char *loc)
{
	struct bf_buf b = BF_BUF_INIT;
	const char *auth = strstr(loc, "://") + 3;
	const char *query = strchr(auth, '?');
	const char *end = query ? query : auth + strlen(auth);
	const char *at = NULL, *p, *colon;

	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	bf_buf_add(&b, loc, (size_t)(auth - loc));
	if (at) {
		colon = memchr(auth, ':', (size_t)(at - auth));
		if (colon) {
			bf_buf_add(&b, auth, (size_t)(colon - auth));
			bf_buf_addstr(&b, ":" HIDDEN);
		} else {
			bf_buf_add(&b, auth, (size_t)(at - auth));
		}
		auth = at;
	}
	bf_buf_add(&b, auth, (size_t)(end - auth));
	if (query) {
		p = query + 1;
		bf_buf_addch(&b, '?');
		while (*p) {
			size_t n = strcspn(p, "&");

			if (uri_param_shown(p, n)) {
				bf_buf_add(&b, p, n);
			} else {
				const char *eq = memchr(p, '=', n);

				bf_buf_add(&b, p, (size_t)(eq - p) + 1);
				bf_buf_addstr(&b, HIDDEN);
			}
			p += n;
			if (*p == '&')
				bf_buf_addch(&b, *p++);
		}
	}
	return bf_buf_detach(&b, NULL);
}

/*
 * Scan one value of a key=value string at *p as libpq does (single
 * quotes with backslash escapes, or up to the next space with backslash
 * escapes) into val, leaving *p after it. false when a quote is not
 * closed.
 */
static bool kv_value(const char **p, struct bf_buf *val)
{
	const char *s = *p;

	if (*s == '\'') {
		for (s++; *s && *s != '\''; s++) {
			if (*s == '\\' && s[1])
				s++;
			bf_buf_addch(val, *s);
		}
		if (*s != '\'')
			return false;
		*p = s + 1;
		return true;
	}
	for (; *s && !isspace((unsigned char)*s); s++) {
		if (*s == '\\' && s[1])
			s++;
		bf_buf_addch(val, *s);
	}
	*p = s;
	return true;
}

/*
 * A key=value string without its password: password='***', a dbname
 * that is itself a connection string shown without its password, the
 * rest as it was written. What follows a malformed pair is not shown.
 */
static char *kv_display(const char *loc)
{
	struct bf_buf b = BF_BUF_INIT;
	struct bf_buf val = BF_BUF_INIT;
	const char *p = loc, *key, *start;
	size_t keylen;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		start = key = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		keylen = (size_t)(p - key);
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=')
			goto malformed;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		bf_buf_reset(&val);
		if (!kv_value(&p, &val))
			goto malformed;
		if (b.len)
			bf_buf_addch(&b, ' ');
		if (keylen == 8 && !strncasecmp(key, "password", 8)) {
			bf_buf_addstr(&b, "password=" HIDDEN);
		} else if (keylen == 6 && !strncasecmp(key, "dbname", 6) &&
		           (strchr(val.buf, '=') || strstr(val.buf, "://"))) {
			char *inner = bf_store_location_display(val.buf);

			bf_buf_addstr(&b, "dbname='");
			for (const char *q = inner; *q; q++) {
				if (*q == '\'' || *q == '\\')
					bf_buf_addch(&b, '\\');
				bf_buf_addch(&b, *q);
			}
			bf_buf_addch(&b, '\'');
			free(inner);
		} else {
			bf_buf_add(&b, start, (size_t)(p - start));
		}
	}
	bf_buf_release(&val);
	return bf_buf_detach(&b, NULL);
malformed:
	bf_buf_release(&val);
	if (b.len)
		bf_buf_addch(&b, ' ');
	bf_buf_addstr(&b, "(malformed from here on: not shown)");
	return bf_buf_detach(&b, NULL);
}

char *bf_store_location_display(const char *loc)
{
	bool is_pg = false;

	if (!loc)
		return bf_xstrdup("");
	if (is_pg_uri(loc))
		return uri_display(loc);
	if (bf_store_location_kind(&is_pg, loc, NULL) == 0 && is_pg)
		return kv_display(loc);
	if (scheme_len(loc) && strchr(loc, '@'))
		return bf_xstrdup("(a URI with an unknown scheme: not shown)");
	return bf_xstrdup(loc);
}
