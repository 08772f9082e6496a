/* Unit tests for the store's lease fencing tokens (store_lease.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

/* Store one sample of run on device under the lease with token. */
static int fenced_sample(struct bf_store *s, int64_t run, const char *device,
                         int64_t token, int64_t now, double value,
                         struct bf_err *err)
{
	struct bf_store_sample smp = { 0 };
	char bench[] = "BM_x", metric[] = "cpu_time", side[] = "patch";
	char dev[64];
	int txn, rc;

	snprintf(dev, sizeof(dev), "%s", device);
	smp.run_id = run;
	smp.benchmark = bench;
	smp.metric = metric;
	smp.side = side;
	smp.device = dev;
	smp.value = value;
	rc = bf_store_fence_begin(&txn, s, device, token, now, err);
	if (rc)
		return rc;
	rc = bf_store_sample_add_many(s, &smp, 1, err);
	return bf_store_fence_end(s, txn, rc, err);
}

/* Tokens only grow on a device, whoever takes its lease. */
static void test_lease__tokens_grow_per_device(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t t1 = 0, t2 = 0, t3 = 0, u1 = 0;

	add_device(f->store, "dev");
	add_device(f->store, "dev2");
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev", "A", 60, 1000, &t1, &err),
	        0);
	assert_int_equal(bf_store_lease_release(f->store, "dev", "A", &err), 0);
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev", "B", 60, 1001, &t2, &err),
	        0);
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev2", "B", 60, 1001, &u1, &err),
	        0);
	/* Expired, taken by C. */
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev", "C", 60, 1061, &t3, &err),
	        0);
	assert_true(t1 > 0);
	assert_true(t2 > t1);
	assert_true(t3 > t2);
	assert_true(u1 > 0);
	/* Only the last token passes the fence, and only before expiry. */
	assert_int_equal(bf_store_lease_fence(f->store, "dev", t3, 1062, &err),
	                 0);
	assert_int_equal(bf_store_lease_fence(f->store, "dev", t2, 1062, &err),
	                 BF_EBUSY);
	assert_non_null(strstr(err.msg, "its lease was taken by another job"));
	assert_int_equal(bf_store_lease_fence(f->store, "dev", t3, 1121, &err),
	                 BF_EBUSY);
	assert_non_null(strstr(err.msg, "expired"));
	assert_int_equal(bf_store_lease_fence(f->store, "dev2", u1, 1002, &err),
	                 0);
}

/*
 * A leases the device, its lease expires, B takes it: A's fenced write
 * is refused and stores nothing, B's is stored; A's write with its
 * lease still held was stored, and after A's lease expired with nobody
 * taking it, A's write is refused as well.
 */
static void test_lease__fenced_write_after_takeover_refused(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t run_a, run_b, ta = 0, tb = 0;
	char want[BF_ERR_SIZE];

	add_device(f->store, "dev");
	run_a = add_run(f->store, "compare", 1000);
	run_b = add_run(f->store, "compare", 1000);
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev", "A", 60, 1000, &ta, &err),
	        0);
	assert_int_equal(
	        fenced_sample(f->store, run_a, "dev", ta, 1010, 1.0, &err), 0);
	assert_int_equal(count(f->store, "samples"), 1);
	/* Expired, nobody took it yet: refused all the same. */
	assert_int_equal(
	        fenced_sample(f->store, run_a, "dev", ta, 1060, 2.0, &err),
	        BF_EBUSY);
	snprintf(want, sizeof(want),
	         "device 'dev': its lease (token %lld) expired 0 s ago; this "
	         "job's results for it are not stored",
	         (long long)ta);
	assert_string_equal(err.msg, want);
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev", "B", 60, 1061, &tb, &err),
	        0);
	assert_true(tb > ta);
	assert_int_equal(
	        fenced_sample(f->store, run_a, "dev", ta, 1062, 3.0, &err),
	        BF_EBUSY);
	snprintf(want, sizeof(want),
	         "device 'dev': its lease was taken by another job (token "
	         "%lld > %lld); this job's results for it are not stored",
	         (long long)tb, (long long)ta);
	assert_string_equal(err.msg, want);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(
	        fenced_sample(f->store, run_b, "dev", tb, 1063, 4.0, &err), 0);
	assert_int_equal(count(f->store, "samples"), 2);
	/* A renewal cannot bring A's lease back either. */
	assert_int_equal(
	        bf_store_lease_renew(f->store, "dev", "A", 60, 1064, &err),
	        BF_EBUSY);
	/* Released by B: B's token no longer writes. */
	assert_int_equal(bf_store_lease_release(f->store, "dev", "B", &err), 0);
	assert_int_equal(
	        fenced_sample(f->store, run_b, "dev", tb, 1065, 5.0, &err),
	        BF_EBUSY);
	assert_int_equal(count(f->store, "samples"), 2);
	assert_int_equal(bf_store_lease_fence(f->store, "nope", tb, 1065, &err),
	                 BF_EBUSY);
}

/* A failed write inside the fence stores nothing of it. */
static void test_lease__fence_rolls_back_failed_write(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t t = 0;

	add_device(f->store, "dev");
	assert_int_equal(
	        bf_store_lease_take(f->store, "dev", "A", 60, 1000, &t, &err),
	        0);
	/* No run 999: the sample's foreign key fails. */
	assert_int_not_equal(
	        fenced_sample(f->store, 999, "dev", t, 1001, 1.0, &err), 0);
	assert_int_equal(count(f->store, "samples"), 0);
	/* The transaction ended: the lease is still usable. */
	assert_int_equal(
	        bf_store_lease_renew(f->store, "dev", "A", 60, 1002, &err), 0);
}

static int64_t turn(struct bf_store *s, int64_t ticket, int64_t now)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t ahead = -1;

	assert_int_equal(bf_store_wait_turn(&ahead, s, ticket, 60, now, &err),
	                 0);
	return ahead;
}

/*
 * First come, first served per pool: each waiter's place counts the
 * live ones ahead; one that leaves, one past its expiry and one whose
 * process ended hold nobody back; another pool's waiters do not count.
 */
static void test_queue__fair_order_skipping_dead(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t a, b, c, other, dead = 0, ahead;
	struct bf_store_waiter *w = NULL;
	size_t n = 0;
	int fds[2], status;
	pid_t pid;

	/* A waiter whose process ends while it waits. */
	close_store(f);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *mine;

		close(fds[0]);
		if (bf_store_open(&mine, f->path, &err) ||
		    bf_store_wait_join(&dead, mine, "lab", "dead", 600, 1000,
		                       &err))
			_exit(1);
		bf_store_close(mine);
		_exit(write(fds[1], &dead, sizeof(dead)) == sizeof(dead) ? 0
		                                                         : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &dead, sizeof(dead)), sizeof(dead));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);

	assert_int_equal(
	        bf_store_wait_join(&a, f->store, "lab", "A", 60, 1000, &err),
	        0);
	assert_int_equal(
	        bf_store_wait_join(&b, f->store, "lab", "B", 60, 1001, &err),
	        0);
	assert_int_equal(bf_store_wait_join(&other, f->store, "device:x", "O",
	                                    60, 1001, &err),
	                 0);
	assert_int_equal(
	        bf_store_wait_join(&c, f->store, "lab", "C", 60, 1002, &err),
	        0);
	assert_true(dead < a && a < b && b < other && other < c);
	assert_int_equal(bf_store_waiter_list(&w, &n, f->store, &err), 0);
	assert_int_equal(n, 5);
	assert_string_equal(w[1].holder, "A");
	assert_string_equal(w[1].pool, "lab");
	assert_int_equal(w[1].since, 1000);
	assert_int_equal(w[1].pid, (int64_t)getpid());
	bf_store_waiters_free(w, n);
	if (store_on_pg) {
		/* PostgreSQL: its lock is free, but it said it was alive at
		 * 1000 (a server restart frees every lock): it counts until
		 * it has been silent for the grace */
		assert_int_equal(turn(f->store, a, 1003), 1);
		raw_exec(f->path, "UPDATE waiters SET alive_at = 1003 - 60"
		                  " WHERE holder = 'dead'");
	}
	/* The dead process's ticket is removed by the first that looks. */
	assert_int_equal(turn(f->store, a, 1003), 0);
	assert_int_equal(turn(f->store, b, 1003), 1);
	assert_int_equal(turn(f->store, c, 1003), 2);
	assert_int_equal(turn(f->store, other, 1003), 0);
	/* A leaves: B's turn. */
	assert_int_equal(bf_store_wait_leave(f->store, a, &err), 0);
	assert_int_equal(turn(f->store, b, 1004), 0);
	assert_int_equal(turn(f->store, c, 1004), 1);
	/* B stops renewing: past its expiry C is next and B is gone. */
	assert_int_equal(turn(f->store, c, 1064), 0);
	assert_int_equal(
	        bf_store_wait_turn(&ahead, f->store, b, 60, 1065, &err),
	        BF_ENOTFOUND);
	assert_int_equal(bf_store_waiter_list(&w, &n, f->store, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(w[0].ticket, other);
	assert_int_equal(w[1].ticket, c);
	bf_store_waiters_free(w, n);
	/* A new waiter comes after C. */
	assert_int_equal(
	        bf_store_wait_join(&a, f->store, "lab", "A", 60, 1066, &err),
	        0);
	assert_true(a > c);
	assert_int_equal(turn(f->store, a, 1066), 1);
	/* Giving back this process's leases leaves the queue too. */
	assert_int_equal(bf_store_leases_release_own(f->store, NULL, &err), 0);
	assert_int_equal(bf_store_waiter_list(&w, &n, f->store, &err), 0);
	assert_int_equal(n, 0);
	bf_store_waiters_free(w, n);
}

/* The lease list says who holds each device, since when, until when. */
/*
 * A ticket is never handed out twice: after the newest waiter leaves, the
 * next one gets a new ticket (SQLite reuses the highest INTEGER PRIMARY
 * KEY), so the one who left, renewing its old ticket, finds it gone and
 * cannot renew the newcomer's.
 */
static void test_queue__tickets_not_reused(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int64_t a = 0, b = 0, c = 0, ahead = -1;

	assert_int_equal(
	        bf_store_wait_join(&a, f->store, "lab", "A", 60, 1000, &err),
	        0);
	assert_int_equal(
	        bf_store_wait_join(&b, f->store, "lab", "B", 60, 1001, &err),
	        0);
	assert_int_equal(bf_store_wait_leave(f->store, b, &err), 0);
	assert_int_equal(
	        bf_store_wait_join(&c, f->store, "lab", "C", 60, 1002, &err),
	        0);
	assert_true(a < b && b < c);
	assert_int_equal(
	        bf_store_wait_turn(&ahead, f->store, b, 60, 1003, &err),
	        BF_ENOTFOUND);
	assert_int_equal(
	        bf_store_wait_turn(&ahead, f->store, c, 60, 1003, &err), 0);
	assert_int_equal(ahead, 1);
}

static void test_lease__list(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_lease *l = NULL;
	size_t n = 9;
	int64_t t = 0;

	add_device(f->store, "b");
	add_device(f->store, "a");
	add_device(f->store, "c");
	assert_int_equal(bf_store_lease_list(&l, &n, f->store, &err), 0);
	assert_int_equal(n, 0);
	bf_store_leases_free(l, n);
	assert_int_equal(
	        bf_store_lease_take(f->store, "b", "job-b", 60, 1000, &t, &err),
	        0);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "a", "job-a", 30, 1001, &err),
	        0);
	assert_int_equal(bf_store_lease_list(&l, &n, f->store, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(l[0].device, "a");
	assert_string_equal(l[0].holder, "job-a");
	assert_int_equal(l[0].acquired_at, 1001);
	assert_int_equal(l[0].expires_at, 1031);
	assert_int_equal(l[0].pid, (int64_t)getpid());
	assert_non_null(l[0].host);
	assert_string_equal(l[1].device, "b");
	assert_int_equal(l[1].token, t);
	bf_store_leases_free(l, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_lease__tokens_grow_per_device),
		T(test_lease__fenced_write_after_takeover_refused),
		T(test_lease__fence_rolls_back_failed_write),
		T(test_queue__fair_order_skipping_dead),
		T(test_queue__tickets_not_reused),
		T(test_lease__list),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
