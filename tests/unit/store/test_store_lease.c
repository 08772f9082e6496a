/* Unit tests for the store's lease fencing tokens (store_lease.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_lease__tokens_grow_per_device),
		T(test_lease__fenced_write_after_takeover_refused),
		T(test_lease__fence_rolls_back_failed_write),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
