/*
 * Unit tests of the lease heartbeat (job/heartbeat.c) on a real SQLite
 * store: a renewal that fails for a passing reason is tried again, a
 * refused one is given up, and each beat says the job's run is alive.
 *
 * The heartbeat renews under job->lock, so the test sees a renewal in
 * progress (the lock held) and finished (free again) without a hook
 * into the thread. The lease time is 3 s: one beat a second.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "job/heartbeat.h"
#include "job/presubmit_int.h"
#include "job/worker.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

#define TTL 3

/* A job of one leased worker on device "dev", with run run_id. */
struct hb_job {
	struct bf_job job;
	struct bf_worker w;
	struct bf_worker *workers[1];
};

static void hb_job_init(struct hb_job *j, struct bf_store *s, int64_t run_id,
                        int64_t token)
{
	memset(j, 0, sizeof(*j));
	pthread_mutex_init(&j->job.lock, NULL);
	j->job.store = s;
	j->job.run_id = run_id;
	j->w.job = &j->job;
	j->w.name = (char *)"dev";
	j->w.leased = true;
	j->w.lease_token = token;
	j->workers[0] = &j->w;
	j->job.workers = j->workers;
	j->job.nworkers = 1;
}

static bool lease_lost(struct hb_job *j)
{
	bool lost;

	pthread_mutex_lock(&j->job.lock);
	lost = j->w.lease_lost;
	pthread_mutex_unlock(&j->job.lock);
	return lost;
}

/*
 * Poll cond(f, arg) every 10 ms until it holds or 60 s have passed (a
 * bound far above the few beats it waits for, never reached when the
 * heartbeat works): whether it held.
 */
static bool poll_until(bool (*cond)(struct fixture *, void *),
                       struct fixture *f, void *arg)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 6000; i++) {
		if (cond(f, arg))
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* The heartbeat is in the store (it holds job->lock). */
static bool renewing(struct fixture *f, void *arg)
{
	struct hb_job *j = arg;

	(void)f;
	if (pthread_mutex_trylock(&j->job.lock))
		return true;
	pthread_mutex_unlock(&j->job.lock);
	return false;
}

static bool not_renewing(struct fixture *f, void *arg)
{
	return !renewing(f, arg);
}

static int64_t lease_expiry(struct fixture *f)
{
	char *v = raw_text(f->path, "SELECT expires_at FROM leases");
	int64_t at = strtoll(v, NULL, 10);

	free(v);
	return at;
}

/* The lease's expiry is later than *(int64_t *)arg. */
static bool renewed_past(struct fixture *f, void *arg)
{
	return lease_expiry(f) > *(int64_t *)arg;
}

/* The run (id *arg) said it was alive (alive_at > 0). */
static bool run_alive(struct fixture *f, void *arg)
{
	char sql[96], *v;
	bool alive;

	snprintf(sql, sizeof(sql),
	         "SELECT coalesce(alive_at, 0) FROM runs WHERE id = %lld",
	         (long long)*(int64_t *)arg);
	v = raw_text(f->path, sql);
	alive = strtoll(v, NULL, 10) > 0;
	free(v);
	return alive;
}

static bool lost(struct fixture *f, void *arg)
{
	(void)f;
	return lease_lost(arg);
}

/*
 * The store is busy (another connection holds its write lock) through
 * the first beat: the renewal fails after the busy timeout with
 * BF_ETIMEOUT, and the lease is not given up; once the store is free
 * the next beat renews it, and says the run is alive.
 */
static void test_heartbeat__busy_store_retried(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_heartbeat *hb;
	struct hb_job j;
	int64_t run, token = 0, first;
	sqlite3 *db = NULL;

	add_device(f->store, "dev");
	run = add_run(f->store, "compare", 1000);
	assert_int_equal(bf_store_lease_take(f->store, "dev", "hb", TTL,
	                                     (int64_t)time(NULL), &token, &err),
	                 0);
	first = lease_expiry(f);
	raw_exec(f->path, "UPDATE runs SET alive_at = NULL");
	hb_job_init(&j, f->store, run, token);

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	                 SQLITE_OK);
	hb = bf_heartbeat_start(&j.job, "hb", TTL);
	assert_non_null(hb);
	/* the first beat tries, and fails on the busy store */
	assert_true(poll_until(renewing, f, &j));
	assert_true(poll_until(not_renewing, f, &j));
	assert_int_equal(lease_expiry(f), first);
	assert_false(lease_lost(&j));
	assert_int_equal(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	/* the next one renews */
	assert_true(poll_until(renewed_past, f, &first));
	assert_true(poll_until(run_alive, f, &run));
	bf_heartbeat_stop(hb);
	assert_false(j.w.lease_lost);
	pthread_mutex_destroy(&j.job.lock);
}

/*
 * A renewal the store refuses (the lease expired and another holder
 * took the device) is given up: the worker's lease is lost, and the
 * other holder's lease is left alone.
 */
static void test_heartbeat__refused_renewal_given_up(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_heartbeat *hb;
	struct hb_job j;
	int64_t now = (int64_t)time(NULL), token = 0, theirs;

	add_device(f->store, "dev");
	assert_int_equal(bf_store_lease_take(f->store, "dev", "hb", TTL,
	                                     now - 2 * TTL, &token, &err),
	                 0);
	assert_int_equal(bf_store_lease_acquire(f->store, "dev", "other", 600,
	                                        now, &err),
	                 0);
	theirs = lease_expiry(f);
	hb_job_init(&j, f->store, 0, token);
	hb = bf_heartbeat_start(&j.job, "hb", TTL);
	assert_non_null(hb);
	assert_true(poll_until(lost, f, &j));
	bf_heartbeat_stop(hb);
	assert_int_equal(lease_expiry(f), theirs);
	pthread_mutex_destroy(&j.job.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		        test_heartbeat__busy_store_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_heartbeat__refused_renewal_given_up, setup,
		        teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
