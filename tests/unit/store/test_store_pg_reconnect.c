/*
 * Unit tests for making a PostgreSQL store's connection again after
 * the server ended it, on a real server reached through a TCP proxy of
 * this test's own (proxy below), which plays a server restart: it cuts
 * every connection, then closes the next few it accepts at once, as a
 * server that is still starting up does. The store's next statement
 * goes through once the proxy forwards again (the attempts went on, with
 * backoff, instead of one that came too early); with the refusals going
 * on past the reconnect window it fails as a lost connection, saying
 * so, instead of waiting for ever.
 *
 * alarm() only guards against a hang; no assertion is about time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/sql.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

#define HANG_GUARD_S 120
#define MAX_CONNS    64

/* A TCP proxy on 127.0.0.1 in front of the test's PostgreSQL server. */
struct proxy {
	int lfd, port;
	struct sockaddr_storage up; /* the server: TCP or its Unix socket */
	socklen_t uplen;
	pthread_mutex_t mu;
	int fds[MAX_CONNS]; /* client-side sockets of live connections */
	int refuse; /* connections still to close at once */
	int refused; /* closed at once so far */
	pthread_t thread;
};

struct pipe_ends {
	int a, b;
};

/* Copy bytes both ways until either side ends. */
static void *forward(void *arg)
{
	struct pipe_ends *e = arg;
	struct pollfd p[2] = { { e->a, POLLIN, 0 }, { e->b, POLLIN, 0 } };
	char buf[16384];
	bool open = true;

	while (open && poll(p, 2, -1) > 0)
		for (int i = 0; i < 2 && open; i++) {
			ssize_t n;

			if (!p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			open = n > 0 && write(p[1 - i].fd, buf, (size_t)n) == n;
		}
	shutdown(e->a, SHUT_RDWR);
	shutdown(e->b, SHUT_RDWR);
	close(e->b);
	free(e);
	return NULL;
}

static void *accept_loop(void *arg)
{
	struct proxy *p = arg;
	int fd;

	while ((fd = accept(p->lfd, NULL, NULL)) >= 0) {
		struct pipe_ends *e;
		pthread_t t;
		int up, slot = -1;

		pthread_mutex_lock(&p->mu);
		if (p->refuse > 0) {
			p->refuse--;
			p->refused++;
			pthread_mutex_unlock(&p->mu);
			close(fd);
			continue;
		}
		for (int i = 0; i < MAX_CONNS && slot < 0; i++)
			if (p->fds[i] < 0)
				slot = i;
		if (slot >= 0)
			p->fds[slot] = fd;
		pthread_mutex_unlock(&p->mu);
		up = socket(p->up.ss_family, SOCK_STREAM, 0);
		if (slot < 0 || up < 0 ||
		    connect(up, (struct sockaddr *)&p->up, p->uplen)) {
			close(fd);
			if (up >= 0)
				close(up);
			continue;
		}
		e = malloc(sizeof(*e));
		e->a = fd;
		e->b = up;
		pthread_create(&t, NULL, forward, e);
		pthread_detach(t);
	}
	return NULL;
}

/* The server of location as a socket address (libpq's defaults). */
static void upstream(struct proxy *p, const char *location)
{
	char *perr = NULL;
	PQconninfoOption *opts = PQconninfoParse(location, &perr), *o;
	const char *host = "/var/run/postgresql", *port = "5432";

	if (!opts)
		fail_msg("cannot parse '%s': %s", location, perr);
	for (o = opts; o->keyword; o++) {
		if (!strcmp(o->keyword, "host") && o->val && *o->val)
			host = o->val;
		if (!strcmp(o->keyword, "port") && o->val && *o->val)
			port = o->val;
	}
	memset(&p->up, 0, sizeof(p->up));
	if (host[0] == '/') {
		struct sockaddr_un *u = (struct sockaddr_un *)&p->up;

		u->sun_family = AF_UNIX;
		snprintf(u->sun_path, sizeof(u->sun_path), "%s/.s.PGSQL.%s",
		         host, port);
		p->uplen = sizeof(*u);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&p->up;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)strtol(port, NULL, 10));
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		p->uplen = sizeof(*in);
	}
	PQconninfoFree(opts);
}

static void proxy_start(struct proxy *p, const char *location)
{
	struct sockaddr_in a;
	socklen_t n = sizeof(a);

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < MAX_CONNS; i++)
		p->fds[i] = -1;
	pthread_mutex_init(&p->mu, NULL);
	upstream(p, location);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(p->lfd, 16) ||
	    getsockname(p->lfd, (struct sockaddr *)&a, &n))
		fail_msg("proxy: %s", strerror(errno));
	p->port = ntohs(a.sin_port);
	pthread_create(&p->thread, NULL, accept_loop, p);
}

/* A restart: every connection cut, the next refuse ones closed at once. */
static void proxy_restart(struct proxy *p, int refuse)
{
	pthread_mutex_lock(&p->mu);
	p->refuse = refuse;
	p->refused = 0;
	for (int i = 0; i < MAX_CONNS; i++)
		if (p->fds[i] >= 0) {
			shutdown(p->fds[i], SHUT_RDWR);
			p->fds[i] = -1;
		}
	pthread_mutex_unlock(&p->mu);
}

static int refused(struct proxy *p)
{
	int n;

	pthread_mutex_lock(&p->mu);
	n = p->refused;
	pthread_mutex_unlock(&p->mu);
	return n;
}

static void proxy_stop(struct proxy *p)
{
	shutdown(p->lfd, SHUT_RDWR);
	close(p->lfd);
	pthread_join(p->thread, NULL);
	proxy_restart(p, 0);
}

static int get_count(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

static int count_runs(struct bf_store *s, struct bf_err *err)
{
	int64_t n = -1;

	return bf_sql_exec(s, "SELECT count(*) FROM runs", NULL, 0, get_count,
	                   &n, NULL, err, "count the runs");
}

/* The fixture's store, but through the proxy (no SSL: a plain pipe). */
static struct bf_store *open_proxied(struct fixture *f, struct proxy *p)
{
	struct bf_store *s = NULL;
	struct bf_err err = BF_ERR_INIT;
	char loc[PATH_MAX];

	pathf(loc,
	      "%s host=127.0.0.1 port=%d sslmode=disable gssencmode=disable",
	      f->path, p->port);
	if (bf_store_open(&s, loc, &err))
		fail_msg("open through the proxy: %s", err.msg);
	return s;
}

/*
 * The server restarts while the store is idle and refuses the first
 * five connections after: the next statement still goes through.
 */
static void test_store__pg_reconnect_waits_for_the_server(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct proxy p;
	struct bf_store *s;
	int rc;

	if (!strncmp(f->path, "postgres", 8))
		skip(); /* a URI location: the proxy's keywords cannot follow */
	alarm(HANG_GUARD_S);
	proxy_start(&p, f->path);
	s = open_proxied(f, &p);
	assert_int_equal(count_runs(s, &err), 0);
	proxy_restart(&p, 5);
	rc = count_runs(s, &err);
	if (rc)
		fail_msg("after the restart: %s", err.msg);
	assert_int_equal(refused(&p), 5);
	assert_int_equal(count_runs(s, &err), 0);
	bf_store_close(s);
	proxy_stop(&p);
	alarm(0);
}

/*
 * A server that does not come back within the reconnect window: the
 * statement fails as a lost connection that could not be made again.
 */
static void test_store__pg_reconnect_gives_up(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct proxy p;
	struct bf_store *s;

	if (!strncmp(f->path, "postgres", 8))
		skip();
	alarm(HANG_GUARD_S);
	proxy_start(&p, f->path);
	s = open_proxied(f, &p);
	bf_store_reconnect_window(0.3);
	proxy_restart(&p, 1000000);
	assert_int_equal(count_runs(s, &err), BF_ESYS);
	assert_non_null(strstr(err.msg, "cannot make it again"));
	assert_true(refused(&p) >= 1);
	bf_store_reconnect_window(BF_STORE_RECONNECT_S);
	bf_store_close(s);
	proxy_stop(&p);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__pg_reconnect_waits_for_the_server),
		T(test_store__pg_reconnect_gives_up),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
