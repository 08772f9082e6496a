/*
 * Unit tests for copying a store into another (store_copy.c). Built
 * twice (tests/unit/files.mk): test_store_copy copies an SQLite store,
 * test_store_copy_pg one on PostgreSQL; the destination is an SQLite
 * file in both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/sql.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

enum { DEVICES, RUNS, SAMPLES, CHECKS, ALERTS };

/* A second store beside the fixture's: dir/dst.db. */
static struct bf_store *open_dst(struct fixture *f, char *path)
{
	struct bf_store *s = NULL;
	struct bf_err err = BF_ERR_INIT;

	pathf(path, "%s/dst.db", f->dir);
	assert_int_equal(bf_store_open(&s, path, &err), 0);
	return s;
}

static void copy_ok(struct bf_store_copy_result *r, struct bf_store *dst,
                    struct bf_store *src)
{
	struct bf_err err = BF_ERR_INIT;
	int rc = bf_store_copy(r, dst, src, NULL, NULL, &err);

	if (rc)
		fail_msg("copy: %s", err.msg);
	for (int i = 0; i < BF_STORE_COPY_TABLES; i++)
		assert_true(bf_store_copy_matches(&r->t[i]));
}

static int sum_values(const struct bf_store_sample *s, void *payload)
{
	*(double *)payload += s->value;
	return 0;
}

/* The sum of the values of run id's samples. */
static double run_sum(struct bf_store *s, int64_t id)
{
	struct bf_err err = BF_ERR_INIT;
	double sum = 0;

	assert_int_equal(
	        bf_store_samples_foreach(s, id, sum_values, &sum, &err), 0);
	return sum;
}

/*
 * Two runs with one natural key (same kind and start, no device,
 * commits or digest): each keeps its own samples, and the copy matches
 * them one to one, also against a destination that had the first.
 */
static void test_store__copy_runs_with_one_key(void **state)
{
	struct fixture *f = *state;
	struct bf_store_copy_result r;
	struct bf_store_run *runs = NULL;
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];
	struct bf_store *dst = open_dst(f, path);
	int64_t a = add_run(f->store, "run", 1000);
	int64_t b = add_run(f->store, "run", 1000);
	int64_t d;
	size_t n = 0;

	add_commit_sample(f->store, a, "BM_a", 1);
	add_commit_sample(f->store, b, "BM_b", 10);
	add_commit_sample(f->store, b, "BM_b", 20);
	/* 12 in all: two batches of five and two alone */
	for (int i = 1; i <= 10; i++)
		add_commit_sample(f->store, b, "BM_c", i);
	/* dst already has the first of them, with its sample */
	d = add_run(dst, "run", 1000);
	add_commit_sample(dst, d, "BM_a", 1);
	copy_ok(&r, dst, f->store);
	assert_int_equal(r.t[RUNS].present, 1);
	assert_int_equal(r.t[RUNS].copied, 1);
	assert_int_equal(r.t[SAMPLES].present, 1);
	assert_int_equal(r.t[SAMPLES].copied, 12);
	assert_int_equal(bf_store_run_list(&runs, &n, dst, "run", 0, &err), 0);
	assert_int_equal(n, 2);
	assert_true(run_sum(dst, runs[0].id) + run_sum(dst, runs[1].id) == 86);
	assert_true(run_sum(dst, d) == 1);
	bf_store_runs_free(runs, n);

	copy_ok(&r, dst, f->store);
	for (int i = 0; i < BF_STORE_COPY_TABLES; i++)
		assert_int_equal(r.t[i].copied, 0);
	assert_int_equal(r.t[RUNS].present, 2);
	assert_int_equal(count(dst, "runs"), 2);
	assert_int_equal(count(dst, "samples"), 13);
	bf_store_close(dst);
}

/*
 * A run's build identities come along, and a run recorded as the same
 * build as another points at that run's copy (its id in the
 * destination, which a destination that had other runs first makes
 * another number): the copied history gives its commit that run's
 * samples.
 */
static void test_store__copy_same_build(void **state)
{
	struct fixture *f = *state;
	struct bf_store_copy_result r;
	struct bf_store_run got = { 0 };
	struct bf_store_run *runs = NULL;
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];
	struct bf_store *dst = open_dst(f, path);
	int64_t a = add_run(f->store, "run", 1000);
	int64_t b = add_run(f->store, "run", 2000);
	size_t n = 0;

	add_run(dst, "compare", 5); /* ids in dst are not src's */
	add_run(dst, "compare", 6);
	add_commit_sample(f->store, a, "BM_a", 7);
	assert_int_equal(
	        bf_store_run_finish(f->store, a, "complete", 1001, &err), 0);
	assert_int_equal(bf_store_run_set_build(f->store, a, "code:base",
	                                        "code:aa", &err),
	                 0);
	assert_int_equal(
	        bf_store_run_set_build(f->store, b, NULL, "code:aa", &err), 0);
	assert_int_equal(bf_store_run_set_measured_by(f->store, b, a, &err), 0);
	copy_ok(&r, dst, f->store);
	assert_int_equal(bf_store_run_list(&runs, &n, dst, "run", 0, &err), 0);
	assert_int_equal(n, 2); /* newest first: b's copy, then a's */
	assert_int_equal(bf_store_run_get(&got, dst, runs[0].id, &err), 0);
	assert_string_equal(got.build_id, "code:aa");
	assert_null(got.base_build_id);
	assert_int_equal(got.measured_by, runs[1].id);
	assert_true(runs[1].id != a || runs[0].id != b);
	bf_store_run_release(&got);
	assert_int_equal(bf_store_run_get(&got, dst, runs[1].id, &err), 0);
	assert_string_equal(got.base_build_id, "code:base");
	assert_int_equal(got.measured_by, 0);
	bf_store_run_release(&got);
	bf_store_runs_free(runs, n);
	bf_store_close(dst);
}

/* A device comes with its settings and pinned key, idle, no lease. */
static void test_store__copy_device_without_lease(void **state)
{
	struct fixture *f = *state;
	struct bf_store_copy_result r;
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];
	struct bf_store *dst = open_dst(f, path);

	add_device(f->store, "d1");
	assert_int_equal(bf_store_device_set_host_key(f->store, "d1",
	                                              "SHA256:abc", &err),
	                 0);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "d1", "ci-1", 600, 100, &err),
	        0);
	assert_int_equal(bf_store_device_set_health(f->store, "d1",
	                                            "maintenance", "rack 2", 77,
	                                            &err),
	                 0);
	copy_ok(&r, dst, f->store);
	assert_int_equal(r.t[DEVICES].copied, 1);
	assert_int_equal(bf_store_device_get(&d, dst, "d1", &err), 0);
	assert_string_equal(d.host_key_fp, "SHA256:abc");
	assert_string_equal(d.health, "maintenance");
	assert_string_equal(d.health_reason, "rack 2");
	assert_int_equal(d.last_check_at, 77);
	assert_string_equal(d.state, "idle");
	assert_null(d.lease_holder);
	assert_int_equal(count(f->store, "leases"), 1);
	assert_int_equal(count(dst, "leases"), 0);
	bf_store_device_release(&d);
	/* a device dst has keeps dst's settings */
	assert_int_equal(bf_store_device_set_health(f->store, "d1", "good",
	                                            NULL, 88, &err),
	                 0);
	copy_ok(&r, dst, f->store);
	assert_int_equal(r.t[DEVICES].present, 1);
	assert_int_equal(bf_store_device_get(&d, dst, "d1", &err), 0);
	assert_string_equal(d.health, "maintenance");
	bf_store_device_release(&d);
	bf_store_close(dst);
}

static int check_value(const struct bf_store_check *c, void *payload)
{
	*(double *)payload = c->value;
	return 0;
}

/*
 * Checks of no run (a NULL value stays NULL) and alerts without a
 * suite are matched too: a second copy adds neither.
 */
static void test_store__copy_lone_checks_and_alerts(void **state)
{
	struct fixture *f = *state;
	struct bf_store_copy_result r;
	struct bf_store_check c = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char path[PATH_MAX];
	struct bf_store *dst = open_dst(f, path);
	double v = 0;

	c.device = (char *)"d1";
	c.check_id = (char *)"battery";
	c.status = (char *)"pass";
	c.value = NAN;
	c.threshold = NAN;
	c.at = 500;
	assert_int_equal(bf_store_check_add(f->store, &c, &err), 0);
	add_alert(f->store, NULL, NULL, "c2", 0);
	add_alert(f->store, NULL, "s", "c2", 0);
	copy_ok(&r, dst, f->store);
	assert_int_equal(r.t[CHECKS].copied, 1);
	assert_int_equal(r.t[ALERTS].copied, 2);
	assert_int_equal(
	        bf_store_checks_foreach(dst, 0, "d1", check_value, &v, &err),
	        0);
	assert_true(isnan(v));
	copy_ok(&r, dst, f->store);
	assert_int_equal(r.t[CHECKS].present, 1);
	assert_int_equal(r.t[ALERTS].present, 2);
	assert_int_equal(count(dst, "checks"), 1);
	assert_int_equal(count(dst, "alerts"), 2);
	bf_store_close(dst);
}

struct seen {
	char last[16]; /* the table of the last call */
	int64_t done, total, calls;
};

static void on_progress(const char *table, int64_t done, int64_t total,
                        void *payload)
{
	struct seen *s = payload;

	s->calls++;
	s->done = done;
	s->total = total;
	snprintf(s->last, sizeof(s->last), "%s", table);
}

/* Progress counts each table's rows up to its total. */
static void test_store__copy_progress(void **state)
{
	struct fixture *f = *state;
	struct bf_store_copy_result r;
	struct bf_err err = BF_ERR_INIT;
	struct seen s = { 0 };
	char path[PATH_MAX];
	struct bf_store *dst = open_dst(f, path);
	int64_t a = add_run(f->store, "compare", 10);

	add_commit_sample(f->store, a, "BM_a", 1);
	add_commit_sample(f->store, a, "BM_a", 2);
	add_alert(f->store, NULL, NULL, "c2", 0);
	assert_int_equal(
	        bf_store_copy(&r, dst, f->store, on_progress, &s, &err), 0);
	assert_int_equal(s.calls, 4); /* a run, two samples, an alert */
	assert_string_equal(s.last, "alerts");
	assert_int_equal(s.done, 1);
	assert_int_equal(s.total, 1);
	bf_store_close(dst);
}

/* Another connection to the source, writing while the copy reads it. */
struct writer {
	struct bf_store *other;
	int64_t run; /* a run of the source's the copy has counted */
	bool wrote;
};

/*
 * The copy's progress callback as the hook between its reads: at the
 * first row (a device), the lab goes on working through another
 * connection: a new run with two samples, a third sample of a run the
 * copy has counted, a check of no run and an alert.
 */
static void write_meanwhile(const char *table, int64_t done, int64_t total,
                            void *payload)
{
	struct writer *w = payload;
	struct bf_store_check c = { 0 };
	struct bf_err err = BF_ERR_INIT;
	int64_t r;

	(void)table;
	(void)done;
	(void)total;
	if (w->wrote)
		return;
	w->wrote = true;
	r = add_run(w->other, "run", 2000);
	add_commit_sample(w->other, r, "BM_new", 1);
	add_commit_sample(w->other, r, "BM_new", 2);
	add_commit_sample(w->other, w->run, "BM_a", 3);
	c.device = (char *)"d1";
	c.check_id = (char *)"battery";
	c.status = (char *)"pass";
	c.value = 1;
	c.threshold = 2;
	c.at = 600;
	assert_int_equal(bf_store_check_add(w->other, &c, &err), 0);
	add_alert(w->other, NULL, NULL, "c9", 0);
}

static int get_count(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

/*
 * A source written to while it is copied is copied as it was when the
 * copy began (one read snapshot): every count adds up, the destination
 * has the runs and samples the source had then, and no sample lacks
 * its run.
 */
static void test_store__copy_is_one_snapshot(void **state)
{
	struct fixture *f = *state;
	struct bf_store_copy_result r;
	struct bf_err err = BF_ERR_INIT;
	struct writer w = { NULL, 0, false };
	char path[PATH_MAX];
	struct bf_store *dst = open_dst(f, path);
	int64_t dangling = -1;
	int rc;

	add_device(f->store, "d1");
	w.run = add_run(f->store, "compare", 1000);
	add_commit_sample(f->store, w.run, "BM_a", 1);
	add_commit_sample(f->store, w.run, "BM_a", 2);
	assert_int_equal(bf_store_open(&w.other, f->path, &err), 0);
	rc = bf_store_copy(&r, dst, f->store, write_meanwhile, &w, &err);
	if (rc)
		fail_msg("copy: %s", err.msg);
	assert_true(w.wrote);
	for (int i = 0; i < BF_STORE_COPY_TABLES; i++)
		if (!bf_store_copy_matches(&r.t[i]))
			fail_msg("%s: source %lld, copied %lld, present %lld",
			         r.t[i].name, (long long)r.t[i].source,
			         (long long)r.t[i].copied,
			         (long long)r.t[i].present);
	assert_int_equal(r.t[RUNS].copied, 1);
	assert_int_equal(r.t[SAMPLES].copied, 2);
	assert_int_equal(r.t[CHECKS].copied, 0);
	assert_int_equal(r.t[ALERTS].copied, 0);
	assert_int_equal(count(dst, "runs"), 1);
	assert_int_equal(count(dst, "samples"), 2);
	assert_true(run_sum(dst, 1) == 3);
	assert_int_equal(
	        bf_sql_exec(dst,
	                    "SELECT count(*) FROM samples WHERE run_id NOT IN"
	                    " (SELECT id FROM runs)",
	                    NULL, 0, get_count, &dangling, NULL, &err, "count"),
	        0);
	assert_int_equal(dangling, 0);
	/* the writes happened: the source has them */
	assert_int_equal(count(f->store, "runs"), 2);
	assert_int_equal(count(f->store, "samples"), 5);
	assert_int_equal(count(f->store, "checks"), 1);
	assert_int_equal(count(f->store, "alerts"), 1);
	bf_store_close(w.other);
	bf_store_close(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__copy_runs_with_one_key),
		T(test_store__copy_same_build),
		T(test_store__copy_device_without_lease),
		T(test_store__copy_lone_checks_and_alerts),
		T(test_store__copy_progress),
		T(test_store__copy_is_one_snapshot),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
