/*
 * Unit tests of who is alive on a store (store_live.c, store_lock.c,
 * store_holder_pg.c, and their use in store_lease.c and store_run.c):
 * holder keys, the holder lock of a process, the store's clock, and
 * liveness across a PostgreSQL restart (simulated by ending a
 * session with pg_terminate_backend, which drops its advisory locks
 * as a restart drops all of them, with the server taken as started
 * after everything, as it is after a restart:
 * bf_store_server_started_at).
 */
#define _GNU_SOURCE /* unshare, CLONE_NEWPID */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

/* PostgreSQL's advisory lock key of a holder key (store_int.h). */
#define HOLDER_KEY_BIT ((int64_t)1 << 62)

/* Read until EOF; 0 when the write ends are all closed. */
static int wait_eof(int fd)
{
	ssize_t r;
	char c;

	do
		r = read(fd, &c, 1);
	while (r > 0 || (r < 0 && errno == EINTR));
	return r == 0 ? 0 : -1;
}

static int64_t raw_int(struct fixture *f, const char *sql)
{
	char *v = raw_text(f->path, sql);
	int64_t n = strtoll(v, NULL, 10);

	free(v);
	return n;
}

/* How many sessions hold the advisory lock key (PostgreSQL). */
static int64_t lock_holders(struct fixture *f, int64_t key)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
	         "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
	         " AND granted AND objsubid = 1 AND classid::bigint = %lld"
	         " AND objid::bigint = %lld",
	         (long long)(key >> 32), (long long)(key & 0xffffffff));
	return raw_int(f, sql);
}

/*
 * End the sessions that hold the advisory lock key, as a server restart
 * ends them all, and wait until they are gone (PostgreSQL).
 */
static void end_sessions(struct fixture *f, int64_t key)
{
	char sql[320];

	snprintf(sql, sizeof(sql),
	         "SELECT count(pg_terminate_backend(pid, 60000)) FROM pg_locks"
	         " WHERE locktype = 'advisory' AND granted AND objsubid = 1"
	         " AND classid::bigint = %lld AND objid::bigint = %lld",
	         (long long)(key >> 32), (long long)(key & 0xffffffff));
	assert_true(raw_int(f, sql) >= 1);
	assert_int_equal(lock_holders(f, key), 0);
}

/* The holder lock's key of the lease of holder (PostgreSQL). */
static int64_t holder_lock_key(struct fixture *f, const char *holder)
{
	char sql[128];

	snprintf(sql, sizeof(sql),
	         "SELECT holder_key FROM leases WHERE holder = '%s'", holder);
	return HOLDER_KEY_BIT | raw_int(f, sql);
}

/* A lease holder in a pid namespace of its own, where its pid is 1. */
struct ns_holder {
	pid_t pid; /* the process that made the namespace */
	int go; /* closing it ends the holder */
	int ready; /* 'k' leased, 'e' failed, 's' no namespace allowed */
};

/* The holder: lease device as name, say so, wait, end holding it. */
static void ns_holder_main(const struct fixture *f, const char *name,
                           const char *device, int go, int ready)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char c = 'k';

	if (getpid() != 1) {
		fprintf(stderr, "%s: pid %ld, not 1\n", name, (long)getpid());
		c = 'e';
	} else if (bf_store_open(&s, f->path, &err) ||
	           bf_store_lease_acquire(s, device, name, 600, 1000, &err)) {
		fprintf(stderr, "%s: %s\n", name, err.msg);
		c = 'e';
	}
	if (write(ready, &c, 1) != 1)
		c = 'e';
	wait_eof(go);
	_exit(c == 'k' ? 0 : 1); /* its lease and store left as they are */
}

/* Start h; other (NULL: none) is a holder started before, whose pipe
 * ends the new one must not keep open. */
static void ns_start(struct ns_holder *h, const struct fixture *f,
                     const char *name, const char *device,
                     const struct ns_holder *other)
{
	int go[2], ready[2], st = 0;
	pid_t in;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	fflush(NULL);
	h->pid = fork();
	assert_true(h->pid >= 0);
	if (h->pid == 0) {
		close(go[1]);
		close(ready[0]);
		if (other) {
			close(other->go);
			close(other->ready);
		}
		if (unshare(CLONE_NEWPID)) {
			_exit(write(ready[1], "s", 1) == 1 ? 0 : 1);
		}
		in = fork();
		if (in == 0)
			ns_holder_main(f, name, device, go[0], ready[1]);
		close(go[0]);
		close(ready[1]);
		if (in < 0 || waitpid(in, &st, 0) != in)
			_exit(1);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	close(go[0]);
	close(ready[1]);
	h->go = go[1];
	h->ready = ready[0];
}

/* 'k', 'e' or 's' from the holder. */
static char ns_ready(const struct ns_holder *h)
{
	char c = 'e';

	assert_int_equal(read(h->ready, &c, 1), 1);
	return c;
}

static void ns_end(struct ns_holder *h)
{
	int st = -1;

	close(h->go);
	close(h->ready);
	assert_int_equal(waitpid(h->pid, &st, 0), h->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * Two orchestrators in containers of their own (pid namespaces: both
 * are pid 1 on one host) lease from one store at the same time; when
 * one ends, its lease is taken back although a live process with its
 * pid still holds a lease, and the live one's lease is not. With a
 * holder's liveness keyed by its pid the second could not lease at all
 * (the first held pid 1's lock), and the first's dead lease would look
 * alive.
 */
static void test_live__same_pid_in_two_containers(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_lease *l = NULL;
	struct ns_holder a, b;
	size_t n = 0;
	char ca, cb;

	add_device(f->store, "dev-a");
	add_device(f->store, "dev-b");
	close_store(f); /* no store state crosses a fork */
	ns_start(&a, f, "ns-a", "dev-a", NULL);
	ca = ns_ready(&a);
	if (ca == 's') {
		ns_end(&a);
		assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
		printf("skip: no pid namespaces here (unshare: not "
		       "permitted)\n");
		skip();
	}
	ns_start(&b, f, "ns-b", "dev-b", &a);
	cb = ns_ready(&b);
	assert_int_equal(ca, 'k');
	assert_int_equal(cb, 'k');
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(bf_store_lease_list(&l, &n, f->store, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(l[0].pid, 1);
	assert_int_equal(l[1].pid, 1);
	assert_string_equal(l[0].host, l[1].host);
	bf_store_leases_free(l, n);
	assert_int_equal(
	        raw_int(f, "SELECT count(DISTINCT holder_key) FROM leases"), 2);

	ns_end(&a); /* ends holding dev-a */
	wait_holder_gone(f, "ns-a");
	if (store_on_pg) /* past the grace: only the locks decide */
		raw_exec(f->path, "UPDATE leases SET alive_at = 0");
	assert_int_equal(bf_store_lease_acquire(f->store, "dev-a", "parent", 60,
	                                        1001, &err),
	                 0);
	assert_int_equal(bf_store_lease_acquire(f->store, "dev-b", "parent", 60,
	                                        1001, &err),
	                 BF_EBUSY);
	assert_string_equal(err.msg, "device 'dev-b' is leased by 'ns-b' for "
	                             "another 599 s");
	ns_end(&b);
}

/*
 * A second store handle of the same process takes a lease while the
 * first holds one, and both leases stay alive after both handles are
 * closed: the holder's liveness lock is the process's, not a
 * handle's. Another process (here a child) cannot take them back.
 */
static void test_live__leases_outlive_their_handles(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *two = NULL;
	int st = -1;
	pid_t pid;

	add_device(f->store, "dev");
	add_device(f->store, "dev2");
	assert_int_equal(bf_store_open(&two, f->path, &err), 0);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "dev", "one", 600, 1000, &err),
	        0);
	assert_int_equal(
	        bf_store_lease_acquire(two, "dev2", "two", 600, 1000, &err), 0);
	bf_store_close(two);
	close_store(f);
	/* past the grace on PostgreSQL: only the lock keeps them */
	raw_exec(f->path, "UPDATE leases SET alive_at = 0");
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *s = NULL;
		int rc = 1;

		if (!bf_store_open(&s, f->path, &err) &&
		    bf_store_lease_acquire(s, "dev", "child", 60, 1001, &err) ==
		            BF_EBUSY &&
		    bf_store_lease_acquire(s, "dev2", "child", 60, 1001,
		                           &err) == BF_EBUSY)
			rc = 0;
		else
			fprintf(stderr, "child: %s\n", err.msg);
		_exit(rc);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(count(f->store, "leases"), 2);
}

/* The lease of device's expires_at and acquired_at. */
static void lease_times(struct fixture *f, int64_t *acquired, int64_t *expires)
{
	*acquired = raw_int(f, "SELECT acquired_at FROM leases");
	*expires = raw_int(f, "SELECT expires_at FROM leases");
}

/*
 * Leases are timed by the store's clock: the caller's on SQLite (one
 * host), the server's on PostgreSQL, whatever the host's clock says.
 * Here the host's clock is wrong by decades, then an hour ahead.
 */
static void test_live__lease_times_from_the_store_clock(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t server = 0, acquired, expires, token = 0, ticket = 0;

	bf_store_clock_from_caller(false);
	add_device(f->store, "dev");
	if (store_on_pg)
		server = raw_int(f, "SELECT CAST(floor(extract(epoch FROM"
		                    " now())) AS BIGINT)");
	assert_int_equal(bf_store_lease_take(f->store, "dev", "A", 60, 1000,
	                                     &token, &err),
	                 0);
	lease_times(f, &acquired, &expires);
	if (!store_on_pg) {
		assert_int_equal(acquired, 1000);
		assert_int_equal(expires, 1060);
		/* one host: its clock says the lease is over */
		assert_int_equal(bf_store_lease_acquire(f->store, "dev", "B",
		                                        60, 1060, &err),
		                 0);
		bf_store_clock_from_caller(true);
		return;
	}
	assert_true(acquired >= server);
	assert_int_equal(expires, acquired + 60);
	/* a host an hour ahead cannot take it early, nor fence it out */
	assert_int_equal(bf_store_lease_acquire(f->store, "dev", "B", 60,
	                                        server + 3600, &err),
	                 BF_EBUSY);
	assert_int_equal(bf_store_lease_fence(f->store, "dev", token,
	                                      server + 3600, &err),
	                 0);
	/* a renewal with a clock in 1970 extends it from the server's now */
	assert_int_equal(
	        bf_store_lease_renew(f->store, "dev", "A", 600, 1000, &err), 0);
	lease_times(f, &acquired, &expires);
	assert_true(expires >= server + 600);
	/* the queue too */
	assert_int_equal(bf_store_wait_join(&ticket, f->store, "lab", "W", 60,
	                                    1000, &err),
	                 0);
	assert_true(raw_int(f, "SELECT since FROM waiters") >= server);
	assert_true(raw_int(f, "SELECT alive_at FROM waiters") >= server);
	bf_store_clock_from_caller(true);
}

/* Give runs ids no other test process's runs have on this server: a
 * run's lock key is its id, and the tests share one database. */
static const char *run_status(struct bf_store *s, int64_t id, char *buf,
                              size_t size)
{
	struct bf_store_run r = { 0 };
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_store_run_get(&r, s, id, &err), 0);
	snprintf(buf, size, "%s", r.status);
	bf_store_run_release(&r);
	return buf;
}

/*
 * PostgreSQL: a server restart drops a running run's liveness lock
 * until its host's next statement. Another host that opens the store
 * meanwhile leaves the run running, because it said it was alive less
 * than BF_STORE_ALIVE_GRACE_S ago; the job's next statement takes its
 * lock again. A run whose lock is free and that has been silent past
 * the grace is aborted.
 */
static void test_live__restart_does_not_end_a_run(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other = NULL;
	int64_t run, key;
	char buf[32], sql[96];
	int n = -1;

	if (!store_on_pg)
		skip(); /* an SQLite lock file has no server to restart */
	bf_store_server_started_at(INT64_MAX); /* it has just restarted */
	run = add_run(f->store, "compare", 1000);
	key = ((int64_t)1 << 32) | run;
	assert_int_equal(lock_holders(f, key), 1);
	end_sessions(f, key);
	assert_int_equal(bf_store_open(&other, f->path, &err), 0); /* reaps */
	assert_string_equal(run_status(other, run, buf, sizeof(buf)),
	                    "running");
	/* the job's next statement (its heartbeat) locks it again */
	assert_int_equal(bf_store_alive(f->store, run, &err), 0);
	assert_int_equal(lock_holders(f, key), 1);
	snprintf(sql, sizeof(sql),
	         "UPDATE runs SET alive_at = alive_at - %d WHERE id = %lld",
	         BF_STORE_ALIVE_GRACE_S, (long long)run);
	raw_exec(f->path, sql);
	assert_int_equal(bf_store_runs_reap(other, &n, &err), 0);
	assert_int_equal(n, 0); /* silent, but its lock is held */
	/* lock gone and silent past the grace: it has ended */
	end_sessions(f, key);
	assert_int_equal(bf_store_runs_reap(other, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(run_status(other, run, buf, sizeof(buf)),
	                    "aborted");
	bf_store_close(other);
}

/*
 * PostgreSQL: the same for a lease. A holder whose lock a restart
 * dropped keeps its lease while it is within the grace; its next beat
 * (bf_store_alive) takes its lock again; only a holder with no lock
 * and silent past the grace loses its lease before it expires.
 */
static void test_live__restart_does_not_end_a_lease(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int go[2], back[2], st = -1;
	int64_t key;
	pid_t pid;
	char c = 0;

	if (!store_on_pg)
		skip();
	bf_store_server_started_at(INT64_MAX); /* it has just restarted */
	add_device(f->store, "dev");
	close_store(f);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(back), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *s = NULL;
		char k = 'k';

		close(go[1]);
		close(back[0]);
		if (bf_store_open(&s, f->path, &err) ||
		    bf_store_lease_acquire(s, "dev", "child", 600, 1000, &err))
			k = 'e';
		/* each byte from the parent: beat once, answer */
		while (write(back[1], &k, 1) == 1 && read(go[0], &c, 1) == 1)
			if (bf_store_alive(s, 0, &err))
				k = 'e';
		if (k == 'e')
			fprintf(stderr, "child: %s\n", err.msg);
		_exit(k == 'k' ? 0 : 1);
	}
	close(go[0]);
	close(back[1]);
	assert_int_equal(read(back[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	key = holder_lock_key(f, "child");
	assert_int_equal(lock_holders(f, key), 1);
	end_sessions(f, key);
	/* lock gone, but alive at 1000: within the grace */
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "dev", "me", 60, 1001, &err),
	        BF_EBUSY);
	assert_int_equal(write(go[1], "b", 1), 1);
	assert_int_equal(read(back[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	assert_int_equal(lock_holders(f, key), 1);
	raw_exec(f->path, "UPDATE leases SET alive_at = 0");
	/* silent, but its lock is held again */
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "dev", "me", 60, 1001, &err),
	        BF_EBUSY);
	/* no lock and silent past the grace */
	end_sessions(f, key);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "dev", "me", 60, 1001, &err),
	        0);
	close(go[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(back[0]);
}

/*
 * PostgreSQL: a holder that said it was alive since the server started
 * held its lock then (everything that writes alive_at takes the lock
 * first), so a free lock is its session's end, not a restart: its run
 * is aborted and its lease taken back at once, with no grace.
 */
static void test_live__ended_without_restart_owes_no_grace(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other = NULL;
	int64_t run, key, now;
	char buf[32];
	int n = -1, st = -1;
	pid_t pid;

	if (!store_on_pg)
		skip();
	run = add_run(f->store, "compare", 1000);
	key = ((int64_t)1 << 32) | run;
	end_sessions(f, key);
	assert_int_equal(bf_store_open(&other, f->path, &err), 0);
	assert_int_equal(bf_store_runs_reap(other, &n, &err), 0);
	assert_string_equal(run_status(other, run, buf, sizeof(buf)),
	                    "aborted");

	/* a lease whose holder process ends, alive by the server's clock */
	add_device(f->store, "dev");
	now = raw_int(f, "SELECT CAST(floor(extract(epoch FROM now()))"
	                 " AS BIGINT)");
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *s = NULL;

		_exit(bf_store_open(&s, f->path, &err) ||
		      bf_store_lease_acquire(s, "dev", "gone", 600, now, &err));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	wait_holder_gone(f, "gone");
	assert_int_equal(raw_int(f, "SELECT alive_at FROM leases"), now);
	/* within the grace by its alive_at, but no restart since */
	assert_int_equal(
	        bf_store_lease_acquire(other, "dev", "me", 60, now + 1, &err),
	        0);
	bf_store_close(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_live__same_pid_in_two_containers),
		T(test_live__leases_outlive_their_handles),
		T(test_live__lease_times_from_the_store_clock),
		T(test_live__restart_does_not_end_a_run),
		T(test_live__restart_does_not_end_a_lease),
		T(test_live__ended_without_restart_owes_no_grace),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
