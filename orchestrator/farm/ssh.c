#include "farm/ssh.h"

#include <errno.h>
#include <sys/stat.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "benchfarm/spawn.h"
#include "farm/ssh_int.h"

/*
 * Connecting to a device: the target's defaults, the private key's
 * checks, then a session (ssh_session.c) whose host key is checked
 * (ssh_known.c: against the registry's pin when the device has one,
 * else against known_hosts) before public-key authentication.
 */

#define CONNECT_TIMEOUT_S 10.0
#define KEEPALIVE_S       15

/* The target with its defaults filled in; strings owned. */
struct params {
	char *name, *user, *key, *known_hosts;
	int port;
	double timeout_s;
	int keepalive_s;
};

static void params_release(struct params *p)
{
	free(p->name);
	free(p->user);
	free(p->key);
	free(p->known_hosts);
}

/* Whether the registry pins the target's host key ("": no pin). */
static bool has_pin(const struct bf_ssh_target *t)
{
	return t->host_key_fp && *t->host_key_fp;
}

static int resolve(struct params *p, const struct bf_ssh_target *t,
                   struct bf_err *err)
{
	const char *home = getenv("HOME"), *user = getenv("USER");

	if (!t->host || !*t->host)
		return bf_err_set(err, BF_EINVAL, "device '%s' has no host",
		                  t->name ? t->name : "?");
	p->name = bf_xstrdup(t->name ? t->name : t->host);
	p->port = t->port ? t->port : 22;
	if (p->port < 1 || p->port > 65535)
		return bf_err_set(err, BF_EINVAL, "'%s': port %d out of range",
		                  p->name, p->port);
	p->user =
	        bf_xstrdup(t->user ? t->user : (user && *user ? user : "root"));
	if (t->key_path)
		p->key = bf_xstrdup(t->key_path);
	else if (home && *home)
		p->key = bf_xasprintf("%s/.ssh/id_ed25519", home);
	else
		return bf_err_set(err, BF_EAUTH,
		                  "'%s': no key given and $HOME is not set",
		                  p->name);
	p->timeout_s = t->connect_timeout_s > 0 ? t->connect_timeout_s
	                                        : CONNECT_TIMEOUT_S;
	p->keepalive_s = t->keepalive_s > 0 ? t->keepalive_s : KEEPALIVE_S;
	if (has_pin(t))
		return 0; /* the pin decides: known_hosts is not needed */
	if (t->known_hosts)
		p->known_hosts = bf_xstrdup(t->known_hosts);
	else
		return bf_ssh_known_hosts_path(&p->known_hosts, err);
	return 0;
}

/* Refuse a missing key or one others can read, as ssh does. */
static int check_key_file(const struct params *p, struct bf_err *err)
{
	struct stat st;

	if (stat(p->key, &st) < 0) {
		if (errno == ENOENT)
			return bf_err_set(
			        err, BF_EAUTH,
			        "'%s': private key '%s' does not exist",
			        p->name, p->key);
		bf_err_sys(err, "'%s': cannot use private key '%s'", p->name,
		           p->key);
		err->code = BF_EAUTH;
		return BF_EAUTH;
	}
	if (!S_ISREG(st.st_mode))
		return bf_err_set(err, BF_EAUTH,
		                  "'%s': private key '%s' is not a file",
		                  p->name, p->key);
	if (st.st_mode & 077)
		return bf_err_set(err, BF_EAUTH,
		                  "'%s': permissions %04o for '%s' are too "
		                  "open; the key must not be accessible by "
		                  "others (chmod 600)",
		                  p->name, (unsigned)(st.st_mode & 07777),
		                  p->key);
	return 0;
}

static int authenticate(struct bf_ssh *s, const struct params *p,
                        double deadline, struct bf_err *err)
{
	char *msg = NULL;
	int rc, ret = 0;

	while ((rc = libssh2_userauth_publickey_fromfile_ex(
	                s->session, p->user, (unsigned)strlen(p->user), NULL,
	                p->key, NULL)) == LIBSSH2_ERROR_EAGAIN) {
		if ((ret = bf_ssh__wait(s, deadline, err)))
			break;
	}
	if (ret == BF_ETIMEOUT)
		return bf_err_set(err, BF_ETIMEOUT,
		                  "'%s' did not finish authentication within "
		                  "%g s",
		                  s->name, p->timeout_s);
	if (ret)
		return ret;
	switch (rc) {
	case 0:
		return 0;
	case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
	case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
		return bf_err_set(err, BF_EAUTH,
		                  "'%s' refused key '%s' for user '%s'",
		                  s->name, p->key, p->user);
	case LIBSSH2_ERROR_FILE:
	case LIBSSH2_ERROR_KEYFILE_AUTH_FAILED:
	case LIBSSH2_ERROR_METHOD_NOT_SUPPORTED:
		/* libssh2's text here is fixed; it never quotes the key. */
		libssh2_session_last_error(s->session, &msg, NULL, 0);
		return bf_err_set(err, BF_EAUTH,
		                  "'%s': cannot use private key '%s' (needs "
		                  "an unencrypted key): %s",
		                  s->name, p->key, msg ? msg : "");
	default:
		return bf_ssh__fail(s, rc, "authentication", err);
	}
}

int bf_ssh_connect(struct bf_ssh **out, const struct bf_ssh_target *t,
                   struct bf_err *err)
{
	struct params p = { 0 };
	struct bf_ssh *s = NULL;
	double start = bf_now_monotonic();
	int ret;

	if ((ret = resolve(&p, t, err)) || (ret = check_key_file(&p, err)))
		goto out;
	ret = bf_ssh__open(&s, p.name, t->host, p.port, start + p.timeout_s,
	                   err);
	if (ret)
		goto out;
	ret = has_pin(t) ? bf_ssh__verify_pin(s, t->host_key_fp, err)
	                 : bf_ssh__verify_host_key(s, p.known_hosts, err);
	if (ret || (ret = authenticate(s, &p, start + p.timeout_s, err)))
		goto out;
	libssh2_keepalive_config(s->session, 1, (unsigned)p.keepalive_s);
	BF_LOG_DEBUG("'%s': connected as '%s' in %.3f s", s->name, p.user,
	             bf_now_monotonic() - start);
	*out = s;
	s = NULL;
out:
	bf_ssh_close(s);
	params_release(&p);
	return ret;
}
