#include "farm/ssh.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/sha256.h"
#include "benchfarm/spawn.h"
#include "farm/ssh_int.h"

/*
 * Host keys: benchfarm's known_hosts file (OpenSSH format, plain host
 * names), SHA256 fingerprints as OpenSSH prints them, and the scan used
 * by `device add --accept-host-key`. Nothing is ever trusted on first
 * use: an unknown key is an error until a person records it.
 */

#define SCAN_TIMEOUT_S   10.0
#define KNOWN_HOSTS_MAX  (16u * 1024 * 1024)
#define FINGERPRINT_TEXT "SHA256:"

static const struct key_type {
	int hostkey; /* LIBSSH2_HOSTKEY_TYPE_* */
	int known; /* LIBSSH2_KNOWNHOST_KEY_* */
	const char *name; /* as written in known_hosts */
} key_types[] = {
	{ LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "ssh-rsa" },
	{ LIBSSH2_HOSTKEY_TYPE_DSS, LIBSSH2_KNOWNHOST_KEY_SSHDSS, "ssh-dss" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256,
	  "ecdsa-sha2-nistp256" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384,
	  "ecdsa-sha2-nistp384" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521,
	  "ecdsa-sha2-nistp521" },
	{ LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519,
	  "ssh-ed25519" },
};

static const char B64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Standard base64 of n bytes; caller frees. */
static char *b64_encode(const unsigned char *p, size_t n, bool pad)
{
	char *out = bf_xmalloc(n / 3 * 4 + 5), *o = out;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*o++ = B64[p[i] >> 2];
		*o++ = B64[(p[i] & 3) << 4 | p[i + 1] >> 4];
		*o++ = B64[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
		*o++ = B64[p[i + 2] & 63];
	}
	if (n - i == 1) {
		*o++ = B64[p[i] >> 2];
		*o++ = B64[(p[i] & 3) << 4];
	} else if (n - i == 2) {
		*o++ = B64[p[i] >> 2];
		*o++ = B64[(p[i] & 3) << 4 | p[i + 1] >> 4];
		*o++ = B64[(p[i + 1] & 15) << 2];
	}
	while (pad && (o - out) % 4)
		*o++ = '=';
	*o = '\0';
	return out;
}

/* Decode base64 text (padding optional) into *out; false when invalid. */
static bool b64_decode(unsigned char **out, size_t *len, const char *s)
{
	size_t n = strcspn(s, "="), i, o = 0;
	unsigned char *buf = bf_xmalloc(n / 4 * 3 + 3);
	uint32_t acc = 0;

	for (i = 0; i < n; i++) {
		const char *c = strchr(B64, s[i]);

		if (!s[i] || !c) {
			free(buf);
			return false;
		}
		acc = acc << 6 | (uint32_t)(c - B64);
		if (i % 4 == 3) {
			buf[o++] = (unsigned char)(acc >> 16);
			buf[o++] = (unsigned char)(acc >> 8);
			buf[o++] = (unsigned char)acc;
		}
	}
	if (n % 4 == 2) {
		buf[o++] = (unsigned char)(acc >> 4);
	} else if (n % 4 == 3) {
		buf[o++] = (unsigned char)(acc >> 10);
		buf[o++] = (unsigned char)(acc >> 2);
	} else if (n % 4 == 1) {
		free(buf);
		return false;
	}
	*out = buf;
	*len = o;
	return true;
}

/* "SHA256:" and the unpadded base64 of the key blob's digest. */
static char *fingerprint(const void *blob, size_t len)
{
	unsigned char d[BF_SHA256_LEN];
	char *b64, *fp;

	bf_sha256(d, blob, len);
	b64 = b64_encode(d, sizeof(d), false);
	fp = bf_xasprintf(FINGERPRINT_TEXT "%s", b64);
	free(b64);
	return fp;
}

/* The host as known_hosts names it: "host", or "[host]:port". */
static char *host_field(const char *host, int port)
{
	if (!port || port == 22)
		return bf_xstrdup(host);
	return bf_xasprintf("[%s]:%d", host, port);
}

/*
 * The names a device's key is pinned under: its host name and, when the
 * host is a name (localhost, 127.1, a DNS name), also the numeric
 * address it resolved to, "name,addr" as OpenSSH's CheckHostIP writes
 * them. So another name for the same address and port cannot record a
 * different key for it.
 */
static char *host_fields(const char *host, const char *addr, int port)
{
	char *name = host_field(host, port), *a, *both;

	if (!addr || !*addr || !strcmp(addr, host))
		return name;
	a = host_field(addr, port);
	both = bf_xasprintf("%s,%s", name, a);
	free(a);
	free(name);
	return both;
}

static const struct key_type *key_type_of(int hostkey)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(key_types); i++)
		if (key_types[i].hostkey == hostkey)
			return &key_types[i];
	return NULL;
}

/* The session's host key blob (borrowed from libssh2) and its type. */
static int session_key(const char **blob, size_t *len,
                       const struct key_type **type, struct bf_ssh *s,
                       struct bf_err *err)
{
	int t = LIBSSH2_HOSTKEY_TYPE_UNKNOWN;

	*blob = libssh2_session_hostkey(s->session, len, &t);
	if (!*blob || !*len)
		return bf_err_set(err, BF_EPROTO, "'%s' sent no host key",
		                  s->name);
	*type = key_type_of(t);
	if (!*type)
		return bf_err_set(err, BF_EPROTO,
		                  "'%s' offers an unsupported host key type",
		                  s->name);
	return 0;
}

static int unknown_key(struct bf_ssh *s, const char *host, const char *fp,
                       struct bf_err *err)
{
	return bf_err_set(err, BF_ENOTFOUND,
	                  "'%s' (%s): host key %s is not known; check it, "
	                  "then run 'benchfarm device add %s ... "
	                  "--accept-host-key'",
	                  s->name, host, fp, s->name);
}

/*
 * known: the fingerprint trusted so far (NULL when unreadable), and how
 * it is known ("known" in known_hosts, "pinned" in the registry).
 */
static int changed_fp(struct bf_ssh *s, const char *host, const char *fp,
                      const char *how, const char *known, struct bf_err *err)
{
	return bf_err_set(err, BF_ECORRUPT,
	                  "'%s' (%s): HOST KEY CHANGED: %s %s, now %s; "
	                  "refused (if the device was reinstalled: "
	                  "'benchfarm device rekey %s')",
	                  s->name, host, how,
	                  known ? known : "(unreadable key)", fp, s->name);
}

static int changed_key(struct bf_ssh *s, const char *host, const char *fp,
                       const char *recorded_b64, struct bf_err *err)
{
	unsigned char *blob = NULL;
	char *old = NULL;
	size_t len = 0;
	int ret;

	if (recorded_b64 && b64_decode(&blob, &len, recorded_b64))
		old = fingerprint(blob, len);
	ret = changed_fp(s, host, fp, "known", old, err);
	free(blob);
	free(old);
	return ret;
}

static int check_name(LIBSSH2_KNOWNHOSTS *kh, const char *name,
                      const char *blob, size_t len, const struct key_type *type,
                      struct libssh2_knownhost **found)
{
	return libssh2_knownhost_check(kh, name, blob, len,
	                               LIBSSH2_KNOWNHOST_TYPE_PLAIN |
	                                       LIBSSH2_KNOWNHOST_KEYENC_RAW |
	                                       type->known,
	                               found);
}

int bf_ssh__verify_host_key(struct bf_ssh *s, const char *known_hosts,
                            struct bf_err *err)
{
	struct libssh2_knownhost *found = NULL, *afound = NULL;
	const struct key_type *type = NULL;
	LIBSSH2_KNOWNHOSTS *kh = NULL;
	char *fp = NULL, *host = NULL, *addr = NULL, *msg = NULL;
	const char *blob;
	size_t len;
	int rc, ret;

	if ((ret = session_key(&blob, &len, &type, s, err)))
		return ret;
	fp = fingerprint(blob, len);
	host = host_field(s->host, s->port);
	if (!bf_fs_exists(known_hosts)) {
		ret = unknown_key(s, host, fp, err);
		goto out;
	}
	kh = libssh2_knownhost_init(s->session);
	if (!kh) {
		ret = bf_err_set(err, BF_ERROR, "cannot allocate known hosts");
		goto out;
	}
	if (libssh2_knownhost_readfile(kh, known_hosts,
	                               LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		libssh2_session_last_error(s->session, &msg, NULL, 0);
		ret = bf_err_set(err, BF_ECORRUPT,
		                 "cannot read known_hosts '%s': %s",
		                 known_hosts, msg ? msg : "");
		goto out;
	}
	/*
	 * The exact name: "[h]:p" must not fall back to plain "h". Then
	 * the address it resolved to: a key pinned there by any other
	 * name must match too.
	 */
	rc = check_name(kh, host, blob, len, type, &found);
	if (rc != LIBSSH2_KNOWNHOST_CHECK_MISMATCH && *s->addr &&
	    strcmp(s->addr, s->host)) {
		int arc;

		addr = host_field(s->addr, s->port);
		arc = check_name(kh, addr, blob, len, type, &afound);
		if (arc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH ||
		    rc == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND) {
			rc = arc;
			found = afound;
			free(host);
			host = bf_xasprintf("%s at %s", s->host, addr);
		}
	}
	if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH)
		ret = 0;
	else if (rc == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND)
		ret = unknown_key(s, host, fp, err);
	else if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
		ret = changed_key(s, host, fp, found ? found->key : NULL, err);
	else
		ret = bf_err_set(err, BF_ERROR, "'%s': cannot check host key",
		                 s->name);
out:
	if (kh)
		libssh2_knownhost_free(kh);
	free(fp);
	free(host);
	free(addr);
	return ret;
}

/*
 * The registry's pin is the whole truth for a registered device: the
 * same on every host that shares the store, and changed for all of
 * them by one `device rekey`. A per-host known_hosts file is not read,
 * so a stale line there neither lets a changed key in nor keeps the
 * pinned one out.
 */
int bf_ssh__verify_pin(struct bf_ssh *s, const char *pin, struct bf_err *err)
{
	const struct key_type *type = NULL;
	const char *blob;
	char *fp, *host;
	size_t len;
	int ret;

	if ((ret = session_key(&blob, &len, &type, s, err)))
		return ret;
	fp = fingerprint(blob, len);
	if (!strcmp(fp, pin)) {
		free(fp);
		return 0;
	}
	host = host_field(s->host, s->port);
	ret = changed_fp(s, host, fp, "pinned", pin, err);
	free(host);
	free(fp);
	return ret;
}

int bf_ssh_scan_host_key(char **fp_out, char **line_out, char **addr_out,
                         const char *host, int port, double timeout_s,
                         struct bf_err *err)
{
	const struct key_type *type = NULL;
	struct bf_ssh *s = NULL;
	char *name, *field, *b64;
	const char *blob;
	size_t len;
	int ret;

	if (!host || !*host)
		return bf_err_set(err, BF_EINVAL, "no host to scan");
	port = port ? port : 22;
	name = bf_xasprintf("%s:%d", host, port);
	ret = bf_ssh__open(&s, name, host, port,
	                   bf_now_monotonic() +
	                           (timeout_s > 0 ? timeout_s : SCAN_TIMEOUT_S),
	                   err);
	if (!ret)
		ret = session_key(&blob, &len, &type, s, err);
	if (!ret) {
		field = host_fields(host, s->addr, port);
		b64 = b64_encode((const unsigned char *)blob, len, true);
		*fp_out = fingerprint(blob, len);
		*line_out = bf_xasprintf("%s %s %s", field, type->name, b64);
		if (addr_out)
			*addr_out = bf_xstrdup(s->addr);
		free(field);
		free(b64);
	}
	bf_ssh_close(s);
	free(name);
	return ret;
}

int bf_ssh_known_hosts_path(char **out, struct bf_err *err)
{
	const char *env = getenv("BENCHFARM_KNOWN_HOSTS");
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	/* The XDG spec says to ignore a relative XDG_DATA_HOME, as the
	 * store does: the file must not follow the working directory. */
	if (env && *env)
		*out = bf_xstrdup(env);
	else if (xdg && xdg[0] == '/')
		*out = bf_xasprintf("%s/benchfarm/known_hosts", xdg);
	else if (home && *home)
		*out = bf_xasprintf("%s/.local/share/benchfarm/known_hosts",
		                    home);
	else
		return bf_err_set(err, BF_ENOTFOUND,
		                  "cannot place benchfarm's known_hosts: set "
		                  "$BENCHFARM_KNOWN_HOSTS or $HOME");
	return 0;
}

/* "HOST TYPE BASE64 [comment]" on one line, with a plain host name. */
static bool is_valid_line(const char *line)
{
	const char *p = line;
	int fields = 0;

	if (strpbrk(line, "\r\n") || strchr("#@|", *line))
		return false;
	while (*p) {
		p += strspn(p, " \t");
		if (*p)
			fields++;
		p += strcspn(p, " \t");
	}
	return fields >= 3 && *line != ' ' && *line != '\t';
}

/*
 * The first name of the comma-separated host field a (alen bytes) that
 * is also in b (blen bytes), into *name and *nlen; false when none.
 */
static bool shared_name(const char *a, size_t alen, const char *b, size_t blen,
                        const char **name, size_t *nlen)
{
	for (const char *p = a; p < a + alen;) {
		size_t n = strcspn(p, ",");

		n = n > (size_t)(a + alen - p) ? (size_t)(a + alen - p) : n;
		for (const char *q = b; q < b + blen;) {
			size_t m = strcspn(q, ",");

			m = m > (size_t)(b + blen - q) ? (size_t)(b + blen - q)
			                               : m;
			if (m == n && !strncmp(p, q, n)) {
				*name = p;
				*nlen = n;
				return true;
			}
			q += m + 1;
		}
		p += n + 1;
	}
	return false;
}

int bf_ssh_known_hosts_add(const char *known_hosts, const char *line,
                           bool replace, struct bf_err *err)
{
	struct bf_buf old = BF_BUF_INIT, out = BF_BUF_INIT;
	size_t hostlen = strcspn(line, " \t");
	const char *key = line + hostlen + strspn(line + hostlen, " \t");
	char *dir = NULL, *p, *nl;
	int ret;

	if (!is_valid_line(line))
		return bf_err_set(err, BF_EINVAL,
		                  "not a known_hosts line: '%.80s'", line);
	bf_buf_init(&old, KNOWN_HOSTS_MAX);
	ret = bf_buf_read_file(&old, known_hosts, err);
	if (ret == BF_ENOTFOUND)
		ret = 0;
	if (ret)
		goto out;
	/*
	 * Keep every line but those naming one of line's hosts (its name
	 * or its address, any key type) with another key; a line with the
	 * same key stays (it may name other hosts too), the very same
	 * line is written once.
	 */
	for (p = old.buf; *p; p = nl ? nl + 1 : p + strlen(p)) {
		size_t len, plen, klen = strlen(key), nlen;
		const char *pkey, *name;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		plen = strcspn(p, " \t\n");
		pkey = p + plen + strspn(p + plen, " \t");
		if (plen < len &&
		    shared_name(line, hostlen, p, plen, &name, &nlen)) {
			bool same_key = (size_t)(p + len - pkey) >= klen &&
			                !strncmp(pkey, key, klen);

			if (len == strlen(line) && !strncmp(p, line, len))
				continue;
			if (!same_key && !replace) {
				/* another key pinned for it: only rekey */
				ret = bf_err_set(
				        err, BF_EEXISTS,
				        "%.*s already has another host key in "
				        "%s: if that machine was reinstalled, "
				        "run 'benchfarm device rekey NAME' for "
				        "the device there; otherwise this may "
				        "be someone else answering",
				        (int)nlen, name, known_hosts);
				goto out;
			}
			if (!same_key)
				continue;
		}
		bf_buf_add(&out, p, len);
		bf_buf_addch(&out, '\n');
	}
	bf_buf_addf(&out, "%s\n", line);
	dir = bf_fs_dirname(known_hosts);
	if (!(ret = bf_fs_mkdirs(dir, 0700, err)))
		ret = bf_fs_write_atomic(known_hosts, out.buf, out.len, 0600,
		                         err);
out:
	bf_buf_release(&old);
	bf_buf_release(&out);
	free(dir);
	return ret;
}
