/* Unit tests for the store's runs, samples and check results (store_run.c,
 * store_sample.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

struct collected {
	struct bf_store_sample s[16];
	size_t n;
	int stop_at; /* return 42 after this many calls; 0 = never */
};

static int collect_sample(const struct bf_store_sample *s, void *payload)
{
	struct collected *c = payload;
	struct bf_store_sample *dst = &c->s[c->n++];

	*dst = *s;
	dst->benchmark = bf_xstrdup(s->benchmark);
	dst->metric = bf_xstrdup(s->metric);
	dst->unit = bf_xstrdup(s->unit);
	dst->side = bf_xstrdup(s->side);
	dst->commit_id = s->commit_id ? bf_xstrdup(s->commit_id) : NULL;
	dst->device = s->device ? bf_xstrdup(s->device) : NULL;
	dst->suite = s->suite ? bf_xstrdup(s->suite) : NULL;
	return c->stop_at && (int)c->n == c->stop_at ? 42 : 0;
}

static void collected_release(struct collected *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->s[i].benchmark);
		free(c->s[i].metric);
		free(c->s[i].unit);
		free(c->s[i].side);
		free(c->s[i].commit_id);
		free(c->s[i].device);
		free(c->s[i].suite);
	}
	c->n = 0;
}

static void test_store__run_and_samples_round_trip(void **state)
{
	static const double values[] = { 1.5, 2.25, -3.0, 1e-9, 1e12, 0.0 };
	static const char *const sides[] = { "base",  "patch", "base",
		                             "patch", "base",  "commit" };
	struct fixture *f = *state;
	struct bf_store_sample in[6];
	struct collected got = { .n = 0 };
	struct bf_store_run run = { 0 }, back = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char kind[] = "compare", base[] = "abc123", patch[] = "def456";
	char bench[] = "BM_sort", metric[] = "real_time", unit[] = "ns";
	char side_buf[6][8], dev[] = "pixel", suite[] = "sort";
	int64_t id = 0, other;
	size_t i;

	run.kind = kind;
	run.base_commit = base;
	run.patch_commit = patch;
	run.seed = 77;
	run.started_at = 5000;
	assert_int_equal(bf_store_run_create(&id, f->store, &run, &err), 0);
	other = add_run(f->store, "run", 6000);
	for (i = 0; i < 6; i++) {
		memset(&in[i], 0, sizeof(in[i]));
		snprintf(side_buf[i], sizeof(side_buf[i]), "%s", sides[i]);
		in[i].run_id = id;
		in[i].benchmark = bench;
		in[i].metric = metric;
		in[i].unit = i == 5 ? NULL : unit;
		in[i].side = side_buf[i];
		in[i].commit_id = i % 2 ? patch : base;
		in[i].device = i == 5 ? NULL : dev;
		in[i].suite = i < 3 ? suite : NULL;
		in[i].repeat_idx = (int64_t)i / 2;
		in[i].iter_idx = (int64_t)i % 2;
		in[i].value = values[i];
	}
	assert_int_equal(bf_store_sample_add(f->store, &in[0], &err), 0);
	assert_int_equal(bf_store_sample_add(f->store, &in[1], &err), 0);
	assert_int_equal(bf_store_sample_add_many(f->store, &in[2], 4, &err),
	                 0);
	in[0].run_id = other;
	assert_int_equal(bf_store_sample_add(f->store, &in[0], &err), 0);
	in[0].run_id = id;

	assert_int_equal(bf_store_samples_foreach(f->store, id, collect_sample,
	                                          &got, &err),
	                 0);
	assert_int_equal(got.n, 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(got.s[i].run_id, id);
		assert_string_equal(got.s[i].side, sides[i]);
		assert_true(got.s[i].value == values[i]);
		assert_int_equal(got.s[i].repeat_idx, (int64_t)i / 2);
		assert_int_equal(got.s[i].iter_idx, (int64_t)i % 2);
		assert_string_equal(got.s[i].commit_id, i % 2 ? patch : base);
		assert_string_equal(got.s[i].benchmark, "BM_sort");
		assert_string_equal(got.s[i].metric, "real_time");
		if (i < 3)
			assert_string_equal(got.s[i].suite, "sort");
		else
			assert_null(got.s[i].suite);
	}
	assert_string_equal(got.s[0].unit, "ns");
	assert_string_equal(got.s[5].unit, "");
	assert_null(got.s[5].device);
	collected_release(&got);

	got.stop_at = 2;
	assert_int_equal(bf_store_samples_foreach(f->store, id, collect_sample,
	                                          &got, &err),
	                 42);
	assert_int_equal(got.n, 2);
	collected_release(&got);

	assert_int_equal(bf_store_run_get(&back, f->store, id, &err), 0);
	assert_string_equal(back.kind, "compare");
	assert_string_equal(back.status, "running");
	assert_string_equal(back.base_commit, "abc123");
	assert_int_equal(back.seed, 77);
	assert_int_equal(back.started_at, 5000);
	assert_int_equal(back.finished_at, 0);
	assert_null(back.info);
	bf_store_run_release(&back);

	assert_int_equal(bf_store_run_set_info(f->store, id, "{\"n\":6}", &err),
	                 0);
	assert_int_equal(
	        bf_store_run_finish(f->store, id, "running", 5100, &err),
	        BF_EINVAL);
	assert_int_equal(
	        bf_store_run_finish(f->store, id, "complete", 5100, &err), 0);
	assert_int_equal(
	        bf_store_run_finish(f->store, id, "failed", 5200, &err),
	        BF_EINVAL);
	assert_int_equal(
	        bf_store_run_finish(f->store, id, "running", 5200, &err),
	        BF_EINVAL);
	assert_int_equal(
	        bf_store_run_finish(f->store, 9999, "failed", 5200, &err),
	        BF_ENOTFOUND);
	assert_int_equal(bf_store_run_get(&back, f->store, id, &err), 0);
	assert_string_equal(back.status, "complete");
	assert_int_equal(back.finished_at, 5100);
	assert_string_equal(back.info, "{\"n\":6}");
	bf_store_run_release(&back);
	assert_int_equal(bf_store_run_get(&back, f->store, 9999, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(count(f->store, "samples"), 7);
}

static const char *run_status(struct bf_store *store, int64_t id, char *buf,
                              size_t len, char **info)
{
	struct bf_store_run back;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_store_run_get(&back, store, id, &err), 0);
	snprintf(buf, len, "%s", back.status);
	if (info)
		*info = back.info ? bf_xstrdup(back.info) : NULL;
	bf_store_run_release(&back);
	return buf;
}

/*
 * A run whose orchestrator was SIGKILLed (a child process here) is
 * "aborted" at the next open, with its samples and the reason; a run
 * whose orchestrator lives (another handle, here the fixture's) stays
 * "running", and finished runs are left alone.
 */
static void test_store__killed_runs_are_aborted(void **state)
{
	struct fixture *f = *state;
	struct bf_store_run run = { .kind = (char *)"run" };
	struct bf_store_sample smp = { .benchmark = (char *)"b",
		                       .metric = (char *)"m",
		                       .side = (char *)"commit",
		                       .value = 1 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other;
	int64_t live, done, dead = 0;
	int fds[2], status, n = -1;
	char buf[32], *info;
	pid_t pid;

	assert_int_equal(bf_store_run_create(&live, f->store, &run, &err), 0);
	assert_int_equal(bf_store_run_create(&done, f->store, &run, &err), 0);
	assert_int_equal(
	        bf_store_run_finish(f->store, done, "complete", 1, &err), 0);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *mine;

		if (bf_store_open(&mine, f->path, &err) ||
		    bf_store_run_create(&dead, mine, &run, &err))
			_exit(1);
		smp.run_id = dead;
		if (bf_store_sample_add(mine, &smp, &err) ||
		    write(fds[1], &dead, sizeof(dead)) != sizeof(dead))
			_exit(1);
		raise(SIGKILL); /* mid-run, store open */
		_exit(1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &dead, sizeof(dead)), sizeof(dead));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* PostgreSQL drops a dead client's locks a moment after it ends;
	 * its run said it was alive since the server started, so a free
	 * lock is its end (no restart since): no grace is owed */
	wait_run_gone(f, dead);
	assert_int_equal(bf_store_open(&other, f->path, &err), 0);
	assert_string_equal(run_status(other, dead, buf, sizeof(buf), &info),
	                    "aborted");
	assert_non_null(info);
	assert_non_null(strstr(info, "killed or crashed"));
	free(info);
	assert_string_equal(run_status(other, live, buf, sizeof(buf), NULL),
	                    "running");
	assert_string_equal(run_status(other, done, buf, sizeof(buf), NULL),
	                    "complete");
	assert_int_equal(count(other, "samples"), 1);
	assert_int_equal(bf_store_runs_reap(other, &n, &err), 0);
	assert_int_equal(n, 0);
	bf_store_close(other);

	/* the fixture's handle closing is its orchestrator ending */
	bf_store_close(f->store);
	f->store = NULL;
	wait_run_gone(f, live);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_string_equal(run_status(f->store, live, buf, sizeof(buf), NULL),
	                    "aborted");
}

static void test_store__run_list_by_kind(void **state)
{
	struct fixture *f = *state;
	struct bf_store_run *runs = NULL, bad = { 0 };
	struct bf_err err = BF_ERR_INIT;
	int64_t c1, c2, b1, id;
	size_t n = 0;
	char kind[] = "profile";

	c1 = add_run(f->store, "compare", 100);
	b1 = add_run(f->store, "bisect", 200);
	c2 = add_run(f->store, "compare", 300);
	assert_int_equal(
	        bf_store_run_list(&runs, &n, f->store, "compare", 0, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].id, c2);
	assert_int_equal(runs[1].id, c1);
	bf_store_runs_free(runs, n);
	assert_int_equal(bf_store_run_list(&runs, &n, f->store, NULL, 0, &err),
	                 0);
	assert_int_equal(n, 3);
	assert_int_equal(runs[1].id, b1);
	bf_store_runs_free(runs, n);
	assert_int_equal(bf_store_run_list(&runs, &n, f->store, NULL, 1, &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(runs[0].id, c2);
	bf_store_runs_free(runs, n);
	runs = NULL;
	assert_int_equal(bf_store_run_list(&runs, &n, f->store, "run", 0, &err),
	                 0);
	assert_int_equal(n, 0);
	assert_null(runs);
	assert_int_equal(bf_store_run_list(&runs, &n, f->store, "x", 0, &err),
	                 BF_EINVAL);
	bad.kind = kind;
	assert_int_equal(bf_store_run_create(&id, f->store, &bad, &err),
	                 BF_EINVAL);
	assert_int_equal(count(f->store, "runs"), 3);
}

static void test_store__foreign_keys_enforced(void **state)
{
	struct fixture *f = *state;
	struct bf_store_sample s[3];
	struct bf_err err = BF_ERR_INIT;
	char bench[] = "b", metric[] = "m", side[] = "base", bad[] = "left";
	int64_t id;
	size_t i;

	for (i = 0; i < 3; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].run_id = 424242;
		s[i].benchmark = bench;
		s[i].metric = metric;
		s[i].side = side;
		s[i].value = 1.0;
	}
	assert_int_equal(bf_store_sample_add(f->store, &s[0], &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "424242"));
	assert_int_equal(count(f->store, "samples"), 0);
	/* add_many is all or nothing: the bad third one undoes the rest. */
	id = add_run(f->store, "run", 1);
	for (i = 0; i < 3; i++)
		s[i].run_id = id;
	s[1].side = bad;
	assert_int_equal(bf_store_sample_add_many(f->store, s, 3, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "sample 1"));
	assert_int_equal(count(f->store, "samples"), 0);
	s[1].side = side;
	s[2].value = NAN;
	assert_int_equal(bf_store_sample_add(f->store, &s[2], &err), BF_EINVAL);
	s[2].value = INFINITY;
	assert_int_equal(bf_store_sample_add(f->store, &s[2], &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "not finite"));
	s[2].value = 3.0;
	s[2].run_id = id + 1;
	assert_int_equal(bf_store_sample_add_many(f->store, s, 3, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(count(f->store, "samples"), 0);
	assert_int_equal(bf_store_integrity_check(f->store, &err), 0);
}

static int count_check(const struct bf_store_check *c, void *payload)
{
	int *n = payload;

	if (*n == 0) {
		assert_string_equal(c->check_id, "battery");
		assert_true(isnan(c->value));
		assert_true(c->threshold == 20.0);
		assert_null(c->message);
	}
	(*n)++;
	return 0;
}

static void test_store__checks_round_trip(void **state)
{
	struct fixture *f = *state;
	struct bf_store_check c = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char dev[] = "dev", other[] = "other", id1[] = "battery";
	char id2[] = "thermal", pass[] = "pass", fail[] = "fail", bad[] = "ok";
	int64_t run;
	int n;

	run = add_run(f->store, "run", 1);
	c.device = dev;
	c.check_id = id1;
	c.status = pass;
	c.value = NAN;
	c.threshold = 20.0;
	c.at = 10;
	assert_int_equal(bf_store_check_add(f->store, &c, &err), 0);
	c.run_id = run;
	c.check_id = id2;
	c.status = fail;
	c.value = 81.5;
	c.at = 20;
	assert_int_equal(bf_store_check_add(f->store, &c, &err), 0);
	c.device = other;
	assert_int_equal(bf_store_check_add(f->store, &c, &err), 0);
	c.status = bad;
	assert_int_equal(bf_store_check_add(f->store, &c, &err), BF_EINVAL);
	c.status = pass;
	c.run_id = run + 100;
	assert_int_equal(bf_store_check_add(f->store, &c, &err), BF_ENOTFOUND);

	n = 0;
	assert_int_equal(bf_store_checks_foreach(f->store, 0, NULL, count_check,
	                                         &n, &err),
	                 0);
	assert_int_equal(n, 3);
	n = 0;
	assert_int_equal(bf_store_checks_foreach(f->store, 0, "dev",
	                                         count_check, &n, &err),
	                 0);
	assert_int_equal(n, 2);
	n = 1; /* skip the first-record assertions */
	assert_int_equal(bf_store_checks_foreach(f->store, run, NULL,
	                                         count_check, &n, &err),
	                 0);
	assert_int_equal(n, 3);
	assert_int_equal(count(f->store, "checks"), 3);
}

/* Finish run id as complete. */
static void complete(struct bf_store *s, int64_t id)
{
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_store_run_finish(s, id, "complete", 2, &err), 0);
}

/* Store one sample of run. */
static void add_sample(struct bf_store *s, int64_t run, const char *suite,
                       const char *bench, const char *side, int64_t repeat,
                       double value)
{
	struct bf_store_sample smp = { 0 };
	struct bf_err err = BF_ERR_INIT;

	smp.run_id = run;
	smp.suite = (char *)suite;
	smp.benchmark = (char *)bench;
	smp.metric = (char *)"real_time";
	smp.side = (char *)side;
	smp.repeat_idx = repeat;
	smp.iter_idx = 3;
	smp.value = value;
	assert_int_equal(bf_store_sample_add(s, &smp, &err), 0);
}

/* A postsubmit run (kind "run") of commit on device. */
static int64_t add_commit_run(struct bf_store *s, const char *device,
                              const char *commit)
{
	struct bf_store_run r = { 0 };
	struct bf_err err = BF_ERR_INIT;
	int64_t id = 0;

	r.kind = (char *)"run";
	r.device = (char *)device;
	r.patch_commit = (char *)commit;
	assert_int_equal(bf_store_run_create(&id, s, &r, &err), 0);
	return id;
}

/*
 * The history of a device class: the side "commit" samples of its
 * complete postsubmit runs only, ordered by run, suite (the benchmark
 * when none), benchmark, metric and repeat, each with its run's commit;
 * and whether a commit was measured there.
 */
static void test_store__history_of_a_device(void **state)
{
	struct fixture *f = *state;
	struct collected got = { .n = 0 };
	struct bf_store_run cmp = { 0 };
	struct bf_err err = BF_ERR_INIT;
	int64_t r1, r2, running, other, compare;
	bool measured = true;

	r1 = add_commit_run(f->store, "pool", "c1");
	add_sample(f->store, r1, "zz", "BM_b", "commit", 1, 4.0);
	add_sample(f->store, r1, "zz", "BM_b", "commit", 0, 3.0);
	add_sample(f->store, r1, NULL, "BM_a", "commit", 0, 2.0);
	add_sample(f->store, r1, NULL, "BM_a", "base", 0, 99.0);
	complete(f->store, r1);
	running = add_commit_run(f->store, "pool", "c2");
	add_sample(f->store, running, NULL, "BM_a", "commit", 0, 99.0);
	other = add_commit_run(f->store, "elsewhere", "c2");
	add_sample(f->store, other, NULL, "BM_a", "commit", 0, 99.0);
	complete(f->store, other);
	cmp.kind = (char *)"compare";
	cmp.device = (char *)"pool";
	cmp.patch_commit = (char *)"c2";
	assert_int_equal(bf_store_run_create(&compare, f->store, &cmp, &err),
	                 0);
	add_sample(f->store, compare, NULL, "BM_a", "commit", 0, 99.0);
	complete(f->store, compare);
	r2 = add_commit_run(f->store, "pool", "c3");
	add_sample(f->store, r2, "a", "BM_c", "commit", 0, 5.0);
	complete(f->store, r2);

	assert_int_equal(bf_store_history_foreach(f->store, "pool",
	                                          collect_sample, &got, &err),
	                 0);
	assert_int_equal(got.n, 4);
	assert_string_equal(got.s[0].suite, "BM_a"); /* no suite: its name */
	assert_true(got.s[0].value == 2.0);
	assert_string_equal(got.s[1].suite, "zz");
	assert_int_equal(got.s[1].repeat_idx, 0);
	assert_true(got.s[1].value == 3.0);
	assert_int_equal(got.s[2].repeat_idx, 1);
	assert_true(got.s[2].value == 4.0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(got.s[i].run_id, r1);
		assert_string_equal(got.s[i].commit_id, "c1");
		assert_string_equal(got.s[i].side, "commit");
		assert_string_equal(got.s[i].device, "pool");
		assert_string_equal(got.s[i].unit, "");
		assert_int_equal(got.s[i].iter_idx, 0);
	}
	assert_int_equal(got.s[3].run_id, r2);
	assert_string_equal(got.s[3].commit_id, "c3");
	assert_string_equal(got.s[3].suite, "a");
	collected_release(&got);
	got.stop_at = 1;
	assert_int_equal(bf_store_history_foreach(f->store, "pool",
	                                          collect_sample, &got, &err),
	                 42);
	assert_int_equal(got.n, 1);
	collected_release(&got);

	assert_int_equal(
	        bf_store_run_measured(&measured, f->store, "pool", "c1", &err),
	        0);
	assert_true(measured);
	assert_int_equal(
	        bf_store_run_measured(&measured, f->store, "pool", "c2", &err),
	        0);
	assert_false(measured); /* running, or a compare, or elsewhere */
	assert_int_equal(bf_store_run_measured(&measured, f->store, "elsewhere",
	                                       "c2", &err),
	                 0);
	assert_true(measured);
}

struct builds_seen {
	int64_t run[8], by[8];
	char build[8][16];
	size_t n;
};

static int collect_build(const struct bf_store_build *b, void *payload)
{
	struct builds_seen *s = payload;

	s->run[s->n] = b->run_id;
	s->by[s->n] = b->measured_by;
	snprintf(s->build[s->n], sizeof(s->build[0]), "%s",
	         b->build_id ? b->build_id : "-");
	s->n++;
	return 0;
}

/*
 * A commit recorded as the same build as a measured one: the history
 * gives it that run's samples under its own commit; only a complete
 * run of the device class and config, measured itself, is a match.
 */
static void test_store__same_build(void **state)
{
	struct fixture *f = *state;
	struct collected got = { .n = 0 };
	struct builds_seen seen = { .n = 0 };
	struct bf_store_run back = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char commit[41];
	int64_t r1, r2, r3, found = -1;

	r1 = add_commit_run(f->store, "pool", "c1");
	add_sample(f->store, r1, NULL, "BM_a", "commit", 0, 2.0);
	assert_int_equal(
	        bf_store_run_set_build(f->store, r1, NULL, "code:aa", &err), 0);
	/* running: not a match yet */
	assert_int_equal(bf_store_run_same_build(&found, commit, f->store,
	                                         "pool", NULL, "code:aa", &err),
	                 0);
	assert_int_equal(found, 0);
	complete(f->store, r1);
	assert_int_equal(bf_store_run_same_build(&found, commit, f->store,
	                                         "pool", NULL, "code:aa", &err),
	                 0);
	assert_int_equal(found, r1);
	assert_string_equal(commit, "c1");
	/* another class, config or build: none */
	assert_int_equal(bf_store_run_same_build(&found, commit, f->store,
	                                         "elsewhere", NULL, "code:aa",
	                                         &err),
	                 0);
	assert_int_equal(found, 0);
	assert_int_equal(bf_store_run_same_build(&found, commit, f->store,
	                                         "pool", "fnv1a64:1", "code:aa",
	                                         &err),
	                 0);
	assert_int_equal(found, 0);
	assert_int_equal(bf_store_run_same_build(&found, commit, f->store,
	                                         "pool", NULL, "code:bb", &err),
	                 0);
	assert_int_equal(found, 0);

	r2 = add_commit_run(f->store, "pool", "c2");
	assert_int_equal(
	        bf_store_run_set_build(f->store, r2, NULL, "code:aa", &err), 0);
	assert_int_equal(bf_store_run_set_measured_by(f->store, r2, r1, &err),
	                 0);
	/* only a complete run that measured itself stands for another */
	assert_int_equal(bf_store_run_set_measured_by(f->store, r1, r2, &err),
	                 BF_EINVAL);
	complete(f->store, r2);
	r3 = add_commit_run(f->store, "pool", "c3");
	add_sample(f->store, r3, NULL, "BM_a", "commit", 0, 7.0);
	assert_int_equal(
	        bf_store_run_set_build(f->store, r3, NULL, "code:cc", &err), 0);
	complete(f->store, r3);
	/* a run recorded as another is never itself a match */
	assert_int_equal(bf_store_run_same_build(&found, commit, f->store,
	                                         "pool", NULL, "code:aa", &err),
	                 0);
	assert_int_equal(found, r1);

	assert_int_equal(bf_store_history_foreach(f->store, "pool",
	                                          collect_sample, &got, &err),
	                 0);
	assert_int_equal(got.n, 3);
	assert_string_equal(got.s[0].commit_id, "c1");
	assert_string_equal(got.s[1].commit_id, "c2");
	assert_int_equal(got.s[1].run_id, r2);
	assert_true(got.s[1].value == 2.0); /* c1's sample, c2's point */
	assert_string_equal(got.s[2].commit_id, "c3");
	assert_true(got.s[2].value == 7.0);
	collected_release(&got);

	assert_int_equal(bf_store_builds_foreach(f->store, "pool",
	                                         collect_build, &seen, &err),
	                 0);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.run[1], r2);
	assert_int_equal(seen.by[0], 0);
	assert_int_equal(seen.by[1], r1);
	assert_string_equal(seen.build[1], "code:aa");
	assert_string_equal(seen.build[2], "code:cc");

	assert_int_equal(bf_store_run_get(&back, f->store, r2, &err), 0);
	assert_string_equal(back.build_id, "code:aa");
	assert_null(back.base_build_id);
	assert_int_equal(back.measured_by, r1);
	bf_store_run_release(&back);
	assert_int_equal(bf_store_run_set_build(f->store, 999, NULL, "x", &err),
	                 BF_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__run_and_samples_round_trip),
		T(test_store__run_list_by_kind),
		T(test_store__killed_runs_are_aborted),
		T(test_store__foreign_keys_enforced),
		T(test_store__checks_round_trip),
		T(test_store__history_of_a_device),
		T(test_store__same_build),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
