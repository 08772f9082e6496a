#include "farm/ssh_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"

/*
 * The session under every other ssh_*.c file: TCP connect and SSH
 * handshake (nothing verified or authenticated yet), the waits and the
 * error mapping for libssh2 calls, and tear-down. It calls no other
 * ssh_*.c file: ssh_known.c checks a session's host key, ssh.c
 * authenticates it, ssh_channel.c and ssh_sftp.c use it.
 */

#define CLOSE_GRACE_S 1.0

static pthread_once_t ssh_once = PTHREAD_ONCE_INIT;
static int ssh_init_rc;

/* libssh2_init is not thread-safe; the dispatcher connects in threads. */
static void ssh_init(void)
{
	ssh_init_rc = libssh2_init(0);
}

/* Wait for a non-blocking connect on fd; 0, BF_ETIMEOUT or BF_ESYS. */
static int connect_wait(int fd, double deadline)
{
	struct pollfd pfd = { fd, POLLOUT, 0 };
	socklen_t len = sizeof(int);
	int rc, soerr = 0;

	for (;;) {
		double left = deadline - bf_now_monotonic();

		if (left <= 0)
			return BF_ETIMEOUT;
		rc = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (rc > 0)
			break;
		if (rc < 0 && errno != EINTR)
			return BF_ESYS;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		return BF_ESYS;
	errno = soerr;
	return soerr ? BF_ESYS : 0;
}

/* One address: a non-blocking, close-on-exec socket connected to it. */
static int connect_one(int *fd_out, const struct addrinfo *ai, double deadline)
{
	int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	int one = 1, ret = 0, saved;

	if (fd < 0)
		return BF_ESYS;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		ret = BF_ESYS;
		goto out;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS && errno != EINTR)
			ret = BF_ESYS;
		else
			ret = connect_wait(fd, deadline);
	}
out:
	if (ret) {
		saved = errno;
		close(fd);
		errno = saved;
	} else {
		*fd_out = fd;
	}
	return ret;
}

void bf_ssh__numeric_addr(char *out, size_t size, const struct sockaddr *sa,
                          size_t len)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
	struct sockaddr_in in4;

	if (sa->sa_family == AF_INET6 && len >= sizeof(*in6) &&
	    IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		memset(&in4, 0, sizeof(in4));
		in4.sin_family = AF_INET;
		in4.sin_port = in6->sin6_port;
		memcpy(&in4.sin_addr, in6->sin6_addr.s6_addr + 12, 4);
		sa = (const struct sockaddr *)&in4;
		len = sizeof(in4);
	}
	if (getnameinfo(sa, (socklen_t)len, out, (socklen_t)size, NULL, 0,
	                NI_NUMERICHOST))
		out[0] = '\0'; /* host keys are pinned by name only */
}

char *bf_ssh__host_unbracketed(const char *host)
{
	size_t n = strlen(host);

	if (n > 2 && host[0] == '[' && host[n - 1] == ']' &&
	    !memchr(host + 1, '[', n - 2) && !memchr(host + 1, ']', n - 2))
		return bf_xasprintf("%.*s", (int)(n - 2), host + 1);
	return bf_xstrdup(host);
}

bool bf_ssh_host_is_at(const char *host, int port, const char *addr)
{
	struct addrinfo hints, *res = NULL, *ai;
	char *name = bf_ssh__host_unbracketed(host), num[64], p[16];
	bool at = false;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(p, sizeof(p), "%d", port ? port : 22);
	if (addr && *addr && !getaddrinfo(name, p, &hints, &res))
		for (ai = res; ai && !at; ai = ai->ai_next) {
			bf_ssh__numeric_addr(num, sizeof(num), ai->ai_addr,
			                     ai->ai_addrlen);
			at = !strcmp(num, addr);
		}
	if (res)
		freeaddrinfo(res);
	free(name);
	return at;
}

static int tcp_connect(struct bf_ssh *s, double timeout_s, double deadline,
                       struct bf_err *err)
{
	struct addrinfo hints, *res = NULL, *ai;
	char port[16];
	int rc, ret = BF_ESYS;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", s->port);
	rc = getaddrinfo(s->host, port, &hints, &res);
	if (rc)
		return bf_err_set(err, BF_ESYS, "'%s': cannot resolve '%s': %s",
		                  s->name, s->host, gai_strerror(rc));
	errno = EHOSTUNREACH;
	for (ai = res; ai && ret == BF_ESYS; ai = ai->ai_next)
		if (!(ret = connect_one(&s->sock, ai, deadline)))
			bf_ssh__numeric_addr(s->addr, sizeof(s->addr),
			                     ai->ai_addr, ai->ai_addrlen);
	if (ret == BF_ETIMEOUT)
		bf_err_set(err, BF_ETIMEOUT,
		           "'%s' (%s:%d) did not accept a connection within "
		           "%g s",
		           s->name, s->host, s->port, timeout_s);
	else if (ret)
		bf_err_sys(err, "cannot connect to '%s' (%s:%d)", s->name,
		           s->host, s->port);
	freeaddrinfo(res);
	return ret;
}

int bf_ssh__open(struct bf_ssh **out, const char *name, const char *host,
                 int port, double deadline, struct bf_err *err)
{
	double timeout_s = deadline - bf_now_monotonic();
	struct bf_ssh *s = bf_xcalloc(1, sizeof(*s));
	int rc, ret;

	s->name = bf_xstrdup(name);
	s->host = bf_ssh__host_unbracketed(host);
	s->port = port;
	s->sock = -1;
	pthread_once(&ssh_once, ssh_init);
	if (ssh_init_rc) {
		ret = bf_err_set(err, BF_ERROR, "cannot initialise libssh2");
		goto out;
	}
	if ((ret = tcp_connect(s, timeout_s, deadline, err)))
		goto out;
	s->session = libssh2_session_init_ex(NULL, NULL, NULL, NULL);
	if (!s->session) {
		ret = bf_err_set(err, BF_ERROR, "cannot create an SSH session");
		goto out;
	}
	libssh2_session_set_blocking(s->session, 0);
	while ((rc = libssh2_session_handshake(s->session, s->sock)) ==
	       LIBSSH2_ERROR_EAGAIN) {
		if ((ret = bf_ssh__wait(s, deadline, err)))
			break;
	}
	if (ret == BF_ETIMEOUT)
		bf_err_set(err, BF_ETIMEOUT,
		           "'%s' (%s:%d) did not complete the SSH handshake "
		           "within %.3g s",
		           s->name, s->host, s->port, timeout_s);
	else if (!ret && rc)
		ret = bf_ssh__fail(s, rc, "SSH handshake", err);
out:
	if (ret)
		bf_ssh_close(s);
	else
		*out = s;
	return ret;
}

/* Free the SFTP channel; s->sftp is NULL afterwards unless it stalled. */
static void sftp_free(struct bf_ssh *s, double deadline)
{
	int rc;

	if (!s->sftp)
		return;
	while ((rc = libssh2_sftp_shutdown(s->sftp)) == LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait(s, deadline, NULL))
			return;
	s->sftp = NULL;
}

/* Tear down the session without ever blocking for long. */
static void session_free(struct bf_ssh *s)
{
	double deadline = bf_now_monotonic() + CLOSE_GRACE_S;
	int rc, tries = 0;

	if (!s->dead) {
		sftp_free(s, deadline);
		while (libssh2_session_disconnect(s->session, "bye") ==
		               LIBSSH2_ERROR_EAGAIN &&
		       !bf_ssh__wait(s, deadline, NULL))
			;
	}
	/* From here every write fails at once instead of waiting. */
	if (s->sock >= 0)
		shutdown(s->sock, SHUT_RDWR);
	sftp_free(s, bf_now_monotonic() + CLOSE_GRACE_S);
	do
		rc = libssh2_session_free(s->session);
	while (rc == LIBSSH2_ERROR_EAGAIN && ++tries < 1000);
}

void bf_ssh_close(struct bf_ssh *s)
{
	if (!s)
		return;
	if (s->session)
		session_free(s);
	if (s->sock >= 0)
		close(s->sock);
	free(s->closing); /* the channels went with the session */
	free(s->name);
	free(s->host);
	free(s);
}

const char *bf_ssh_name(const struct bf_ssh *s)
{
	return s->name;
}

static int wait_socket(struct bf_ssh *s, double deadline, bool idle,
                       struct bf_err *err)
{
	int dirs = libssh2_session_block_directions(s->session);
	struct pollfd pfd = { s->sock, 0, 0 };
	int next = 0, ms = -1, rc;

	/* A keepalive must not interleave with a half-sent packet. */
	if (!(dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND) &&
	    libssh2_keepalive_send(s->session, &next) == 0 && next > 0)
		ms = next * 1000;
	if (deadline > 0) {
		double left = deadline - bf_now_monotonic();

		if (left <= 0) {
			/* A half-sent packet cannot be abandoned. */
			s->dead = s->dead || !idle ||
			          (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND);
			return bf_err_set(err, BF_ETIMEOUT,
			                  "'%s' did not answer in time",
			                  s->name);
		}
		if (ms < 0 || left * 1000 < ms)
			ms = (int)(left * 1000) + 1;
	}
	if (dirs & LIBSSH2_SESSION_BLOCK_INBOUND)
		pfd.events |= POLLIN;
	if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		pfd.events |= POLLOUT;
	if (!pfd.events)
		pfd.events = POLLIN;
	rc = poll(&pfd, 1, ms);
	if (rc < 0 && errno != EINTR)
		return bf_err_sys(err, "'%s': cannot poll", s->name);
	return 0;
}

int bf_ssh__wait(struct bf_ssh *s, double deadline, struct bf_err *err)
{
	return wait_socket(s, deadline, false, err);
}

int bf_ssh__wait_idle(struct bf_ssh *s, double deadline, struct bf_err *err)
{
	return wait_socket(s, deadline, true, err);
}

/* libssh2 errors after which the transport is gone. */
static bool is_transport_error(int rc)
{
	switch (rc) {
	case LIBSSH2_ERROR_SOCKET_NONE:
	case LIBSSH2_ERROR_BANNER_RECV:
	case LIBSSH2_ERROR_BANNER_SEND:
	case LIBSSH2_ERROR_INVALID_MAC:
	case LIBSSH2_ERROR_KEX_FAILURE:
	case LIBSSH2_ERROR_SOCKET_SEND:
	case LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE:
	case LIBSSH2_ERROR_TIMEOUT:
	case LIBSSH2_ERROR_DECRYPT:
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
	case LIBSSH2_ERROR_PROTO:
	case LIBSSH2_ERROR_SOCKET_TIMEOUT:
	case LIBSSH2_ERROR_SOCKET_RECV:
	case LIBSSH2_ERROR_ENCRYPT:
	case LIBSSH2_ERROR_BAD_SOCKET:
		return true;
	default:
		return false;
	}
}

int bf_ssh__fail(struct bf_ssh *s, int rc, const char *what, struct bf_err *err)
{
	char *msg = NULL;

	libssh2_session_last_error(s->session, &msg, NULL, 0);
	if (!msg || !*msg)
		msg = (char *)"unknown error";
	if (is_transport_error(rc)) {
		s->dead = true;
		return bf_err_set(err, BF_EPROTO,
		                  "connection to '%s' dropped (%s): %s",
		                  s->name, what, msg);
	}
	/*
	 * benchfarm keeps two channels open per connection (SFTP and the
	 * agent), so a refusal is most likely the server's limit.
	 */
	if (rc == LIBSSH2_ERROR_CHANNEL_FAILURE)
		return bf_err_set(
		        err, BF_EPROTO,
		        "'%s': %s: the server refused a new channel "
		        "(%s): sshd's MaxSessions (default 10) may be "
		        "reached",
		        s->name, what, msg);
	return bf_err_set(err, BF_EPROTO, "'%s': %s failed: %s", s->name, what,
	                  msg);
}

int bf_ssh__check_alive(struct bf_ssh *s, struct bf_err *err)
{
	if (!s->dead)
		return 0;
	return bf_err_set(err, BF_EPROTO, "connection to '%s' is broken",
	                  s->name);
}
