/* Unit tests for the store's devices and leases (store_device.c,
 * store_lease.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

static void test_store__device_add_dup_get_list_remove(void **state)
{
	struct fixture *f = *state;
	struct bf_store_device d = { 0 }, got = { 0 }, *list = NULL;
	struct bf_err err = BF_ERR_INIT;
	char name[] = "rpi-2", type[] = "android", host[] = "10.0.0.2";
	char labels[] = "arm64,lab1", bad[] = "windows";
	size_t n = 99;

	d.name = name;
	d.type = type;
	d.host = host;
	d.port = 2222;
	d.labels = labels;
	d.created_at = 1700000000;
	assert_int_equal(bf_store_device_add(f->store, &d, &err), 0);
	add_device(f->store, "a-first");
	assert_int_equal(bf_store_device_add(f->store, &d, &err), BF_EEXISTS);
	assert_string_equal(err.msg, "device 'rpi-2' already exists");
	d.type = bad;
	assert_int_equal(bf_store_device_add(f->store, &d, &err), BF_EINVAL);
	assert_int_equal(bf_store_device_get(&got, f->store, "rpi-2", &err), 0);
	assert_string_equal(got.name, "rpi-2");
	assert_string_equal(got.type, "android");
	assert_string_equal(got.host, "10.0.0.2");
	assert_int_equal(got.port, 2222);
	assert_string_equal(got.labels, "arm64,lab1");
	assert_int_equal(got.created_at, 1700000000);
	assert_null(got.lease_holder);
	bf_store_device_release(&got);
	assert_int_equal(bf_store_device_get(&got, f->store, "nope", &err),
	                 BF_ENOTFOUND);
	assert_string_equal(err.msg, "no device 'nope'");

	assert_int_equal(bf_store_device_set_health(f->store, "rpi-2", "bad",
	                                            "too hot", 1700000100,
	                                            &err),
	                 0);
	assert_int_equal(bf_store_device_set_health(f->store, "rpi-2", "ill",
	                                            NULL, 0, &err),
	                 BF_EINVAL);
	assert_int_equal(bf_store_device_set_health(f->store, "nope", "good",
	                                            NULL, 0, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(
	        bf_store_device_set_state(f->store, "rpi-2", "running", &err),
	        0);
	assert_int_equal(
	        bf_store_device_set_state(f->store, "rpi-2", "gone", &err),
	        BF_EINVAL);

	assert_int_equal(bf_store_device_list(&list, &n, f->store, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].name, "a-first");
	assert_string_equal(list[1].name, "rpi-2");
	assert_string_equal(list[1].health, "bad");
	assert_string_equal(list[1].health_reason, "too hot");
	assert_int_equal(list[1].last_check_at, 1700000100);
	assert_string_equal(list[1].state, "running");
	bf_store_devices_free(list, n);

	assert_int_equal(bf_store_device_remove(f->store, "rpi-2", &err), 0);
	assert_int_equal(bf_store_device_remove(f->store, "rpi-2", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(count(f->store, "devices"), 1);
	assert_int_equal(bf_store_device_list(&list, &n, f->store, &err), 0);
	assert_int_equal(n, 1);
	bf_store_devices_free(list, n);
}

static void expect_device(struct bf_store *s, const char *state,
                          const char *holder, int64_t expires)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_store_device_get(&d, s, "dev", &err), 0);
	assert_string_equal(d.state, state);
	if (holder)
		assert_string_equal(d.lease_holder, holder);
	else
		assert_null(d.lease_holder);
	assert_int_equal(d.lease_expires_at, expires);
	bf_store_device_release(&d);
}

static void test_store__lease_exclusive_until_expiry(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *other = NULL;
	struct bf_store *s = f->store;

	add_device(s, "dev");
	assert_int_equal(bf_store_lease_acquire(s, "dev", "A", 60, 1000, &err),
	                 0);
	expect_device(s, "leased", "A", 1060);
	assert_int_equal(bf_store_lease_acquire(s, "dev", "B", 60, 1030, &err),
	                 BF_EBUSY);
	assert_string_equal(err.msg,
	                    "device 'dev' is leased by 'A' for another 30 s");
	/* The same from a second connection to the same file. */
	assert_int_equal(bf_store_open(&other, f->path, &err), 0);
	assert_int_equal(
	        bf_store_lease_acquire(other, "dev", "B", 60, 1059, &err),
	        BF_EBUSY);
	assert_int_equal(bf_store_lease_acquire(s, "dev", "A", 60, 1040, &err),
	                 0);
	expect_device(s, "leased", "A", 1100);
	assert_int_equal(bf_store_lease_renew(s, "dev", "A", 60, 1050, &err),
	                 0);
	expect_device(s, "leased", "A", 1110);
	assert_int_equal(
	        bf_store_lease_acquire(other, "dev", "B", 60, 1109, &err),
	        BF_EBUSY);
	/* Expired: B takes it; A can neither renew nor release it now. */
	assert_int_equal(
	        bf_store_lease_acquire(other, "dev", "B", 60, 1110, &err), 0);
	bf_store_close(other);
	expect_device(s, "leased", "B", 1170);
	assert_int_equal(bf_store_lease_renew(s, "dev", "A", 60, 1111, &err),
	                 BF_EBUSY);
	assert_int_equal(bf_store_lease_release(s, "dev", "A", &err), BF_EBUSY);
	assert_int_equal(count(s, "leases"), 1);
	assert_int_equal(bf_store_lease_release(s, "dev", "B", &err), 0);
	expect_device(s, "idle", NULL, 0);
	assert_int_equal(count(s, "leases"), 0);
	assert_int_equal(bf_store_lease_release(s, "dev", "B", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_lease_renew(s, "dev", "B", 60, 1200, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_lease_acquire(s, "nope", "A", 60, 1, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_lease_acquire(s, "dev", "A", 0, 1, &err),
	                 BF_EINVAL);
	assert_int_equal(bf_store_lease_acquire(s, "dev", "", 60, 1, &err),
	                 BF_EINVAL);
	/* Removing a leased device drops its lease (cascade). */
	assert_int_equal(bf_store_lease_acquire(s, "dev", "A", 60, 1, &err), 0);
	assert_int_equal(bf_store_device_remove(s, "dev", &err), 0);
	assert_int_equal(count(s, "leases"), 0);
}

/*
 * Several orchestrator processes leasing from one store. Each child opens
 * its own connection (the parent closes its own before fork(): SQLite
 * state must not cross a fork). The race runs in rounds; in each, every
 * child waits on a pipe barrier and then tries to lease all the devices in
 * the same order, so that they collide. Round r uses a fixed now of
 * RACE_NOW + r * RACE_TTL, when the leases of round r - 1 have just
 * expired, so every round every device must go to exactly one child.
 *
 * This fails if bf_store_lease_acquire() lets the check and the write
 * race. Check and write in separate transactions (or none): two children
 * both see the device free, both write (INSERT OR REPLACE), both report a
 * win, so a device has two winners and the holder in the table disagrees
 * with one. A deferred BEGIN: both read under a shared snapshot, and the
 * second to write cannot upgrade its stale snapshot; SQLite fails it at
 * once with SQLITE_BUSY (no busy wait), which the store reports as
 * BF_EBUSY "cannot update a lease: database is locked", not as "leased by
 * 'child-N'", so the child fails (and a device may go to no one). Only
 * BEGIN IMMEDIATE, which serialises the whole check-then-write and waits
 * on the busy timeout, passes. One round caught either mistake in only
 * 65 to 78 runs of 100 on two CPUs; with the rounds, 100 of 100.
 */
enum { RACE_DEVICES = 8, RACE_CHILDREN = 6, RACE_ROUNDS = 10 };
#define RACE_NOW INT64_C(1700000000)
#define RACE_TTL INT64_C(600)

/* snprintf into a small buffer; fails the test on truncation. */
static void race_name(char *out, size_t size, const char *fmt, ...)
        BF_PRINTF(3, 4);
static void race_name(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(out, size, fmt, ap);
	va_end(ap);
	assert_true(len > 0 && (size_t)len < size);
}

/* Read until EOF; 0 when the write ends are all closed. */
static int wait_eof(int fd)
{
	ssize_t r;
	char c;

	do
		r = read(fd, &c, 1);
	while (r < 0 && errno == EINTR);
	return r == 0 ? 0 : -1;
}

/* One round of one child; 0 when every attempt won or lost cleanly. */
static int race_round(struct bf_store *s, int id, int round, FILE *fp)
{
	struct bf_err err = BF_ERR_INIT;
	char holder[32], dev[32], lost[96];
	int64_t now = RACE_NOW + round * RACE_TTL;
	int d, rc;

	snprintf(holder, sizeof(holder), "child-%d", id);
	for (d = 0; d < RACE_DEVICES; d++) {
		snprintf(dev, sizeof(dev), "race-%d", d);
		rc = bf_store_lease_acquire(s, dev, holder, RACE_TTL, now,
		                            &err);
		if (rc == 0) {
			if (fprintf(fp, "%d %s\n", round, dev) < 0)
				return -1;
			continue;
		}
		/* Losing is fine, but only to another child's lease. */
		snprintf(lost, sizeof(lost), "device '%s' is leased by 'child-",
		         dev);
		if (rc != BF_EBUSY || strncmp(err.msg, lost, strlen(lost))) {
			fprintf(stderr, "%s: round %d: %s: %s\n", holder, round,
			        dev, err.msg);
			return -1;
		}
	}
	return fflush(fp) == 0 ? 0 : -1;
}

/*
 * One racing orchestrator process; never returns. It exits 1 on any
 * failure but keeps taking part (and saying when each round is done), so
 * that the parent never waits on it for nothing. No cmocka asserts here:
 * they would longjmp into the parent's test runner inside this process.
 */
/*
 * A lease whose holder process ended (SIGKILL: nothing released it) is
 * taken back by the next acquire, not after its TTL: at once on this
 * host with SQLite; on PostgreSQL once the holder has also not said it
 * is alive for BF_STORE_ALIVE_GRACE_S. One whose holder lives is not.
 * bf_store_leases_release_own drops this process's leases only.
 */
static void test_store__lease_of_dead_holder_taken_back(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int go[2], ready[2], status = 0, n = -1;
	/* when the holder, alive at 1000, is provably dead */
	int64_t back = store_on_pg ? 1000 + BF_STORE_ALIVE_GRACE_S : 1001;
	pid_t pid;
	char c;

	add_device(f->store, "dev");
	add_device(f->store, "dev2");
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct bf_store *s = NULL;
		int rc = 1;

		close(go[1]);
		close(ready[0]);
		if (!bf_store_open(&s, f->path, &err) &&
		    !bf_store_lease_acquire(s, "dev", "child", 600, 1000, &err))
			rc = 0;
		if (write(ready[1], rc ? "e" : "k", 1) != 1)
			rc = 1;
		wait_eof(go[0]); /* until the parent has seen it alive */
		kill(getpid(), SIGKILL); /* ends holding the lease */
		_exit(rc);
	}
	close(go[0]);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'k');
	/* alive: its lease stands */
	assert_int_equal(bf_store_lease_acquire(f->store, "dev", "parent", 60,
	                                        1001, &err),
	                 BF_EBUSY);
	close(go[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(ready[0]);
	wait_holder_gone(f, "child");
	if (store_on_pg) {
		/* a free lock alone proves nothing on PostgreSQL (a server
		 * restart frees them all): the holder said it was alive at
		 * 1000, so it is given the grace */
		assert_int_equal(bf_store_lease_acquire(f->store, "dev",
		                                        "parent", 60, back - 1,
		                                        &err),
		                 BF_EBUSY);
		assert_string_equal(
		        err.msg,
		        "device 'dev' is leased by 'child' for another "
		        "541 s");
	}
	/* dead: taken back long before the lease would expire */
	assert_int_equal(bf_store_lease_acquire(f->store, "dev", "parent", 60,
	                                        back, &err),
	                 0);
	expect_device(f->store, "leased", "parent", back + 60);
	assert_int_equal(bf_store_lease_acquire(f->store, "dev2", "other", 60,
	                                        back, &err),
	                 0);
	assert_int_equal(bf_store_leases_release_own(f->store, &n, &err), 0);
	assert_int_equal(n, 2);
	expect_device(f->store, "idle", NULL, 0);
	assert_int_equal(count(f->store, "leases"), 0);
}

static int race_quit[2]; /* closed by the parent after the last round */

static void race_child(const struct fixture *f, int id,
                       int start[RACE_ROUNDS][2], int done[RACE_CHILDREN][2])
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char out[PATH_MAX];
	FILE *fp = NULL;
	int status = 0;
	int i, r;

	close(race_quit[1]);
	for (r = 0; r < RACE_ROUNDS; r++)
		close(start[r][1]);
	for (i = 0; i < RACE_CHILDREN; i++) {
		close(done[i][0]);
		if (i != id)
			close(done[i][1]);
	}
	if (snprintf(out, sizeof(out), "%s/won-%d", f->dir, id) >=
	            (int)sizeof(out) ||
	    !(fp = fopen(out, "w")))
		status = 1;
	if (bf_store_open(&s, f->path, &err) != 0) {
		fprintf(stderr, "child-%d: %s\n", id, err.msg);
		status = 1;
	}
	for (r = 0; r < RACE_ROUNDS; r++) {
		if (wait_eof(start[r][0]) != 0)
			status = 1;
		if (!status && race_round(s, id, r, fp) != 0)
			status = 1;
		if (write(done[id][1], "", 1) != 1)
			status = 1;
	}
	if (fp && fclose(fp) != 0)
		status = 1;
	/*
	 * Live until every child is done: a process that ends drops its
	 * leases' liveness lock, and its leases may be taken back at once.
	 */
	if (wait_eof(race_quit[0]) != 0)
		status = 1;
	bf_store_close(s);
	_exit(status);
}

static void test_store__lease_race_between_processes(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_device got = { 0 };
	int start[RACE_ROUNDS][2], done[RACE_CHILDREN][2];
	int winner[RACE_ROUNDS][RACE_DEVICES];
	pid_t pids[RACE_CHILDREN];
	int status[RACE_CHILDREN];
	char name[32], line[64], path[PATH_MAX];
	int forked, i, r, d, wins = 0;
	ssize_t n;
	pid_t w;
	FILE *fp;
	char c;

	for (d = 0; d < RACE_DEVICES; d++) {
		race_name(name, sizeof(name), "race-%d", d);
		add_device(f->store, name);
		for (r = 0; r < RACE_ROUNDS; r++)
			winner[r][d] = -1;
	}
	close_store(f);
	for (r = 0; r < RACE_ROUNDS; r++)
		assert_int_equal(pipe(start[r]), 0);
	for (i = 0; i < RACE_CHILDREN; i++)
		assert_int_equal(pipe(done[i]), 0);
	assert_int_equal(pipe(race_quit), 0);
	fflush(NULL);
	for (forked = 0; forked < RACE_CHILDREN; forked++) {
		pids[forked] = fork();
		if (pids[forked] < 0)
			break;
		if (pids[forked] == 0)
			race_child(f, forked, start, done);
	}
	for (r = 0; r < RACE_ROUNDS; r++)
		close(start[r][0]);
	for (i = 0; i < RACE_CHILDREN; i++)
		close(done[i][1]);
	/*
	 * Start a round by closing its barrier, then wait until every child
	 * has finished it; a child that died gives EOF, not a hang.
	 */
	for (r = 0; r < RACE_ROUNDS; r++) {
		close(start[r][1]);
		for (i = 0; i < forked; i++) {
			do
				n = read(done[i][0], &c, 1);
			while (n < 0 && errno == EINTR);
		}
	}
	for (i = 0; i < RACE_CHILDREN; i++)
		close(done[i][0]);
	close(race_quit[0]);
	close(race_quit[1]);
	for (i = 0; i < forked; i++) {
		do
			w = waitpid(pids[i], &status[i], 0);
		while (w < 0 && errno == EINTR);
		if (w != pids[i])
			status[i] = -1;
	}
	assert_int_equal(forked, RACE_CHILDREN);
	for (i = 0; i < RACE_CHILDREN; i++) {
		assert_true(status[i] != -1 && WIFEXITED(status[i]));
		assert_int_equal(WEXITSTATUS(status[i]), 0);
	}

	/* Every round, each device went to exactly one child. */
	for (i = 0; i < RACE_CHILDREN; i++) {
		pathf(path, "%s/won-%d", f->dir, i);
		fp = fopen(path, "r");
		assert_non_null(fp);
		while (fgets(line, sizeof(line), fp)) {
			line[strcspn(line, "\n")] = '\0';
			for (r = 0; r < RACE_ROUNDS; r++) {
				for (d = 0; d < RACE_DEVICES; d++) {
					race_name(name, sizeof(name),
					          "%d race-%d", r, d);
					if (!strcmp(line, name))
						break;
				}
				if (d < RACE_DEVICES)
					break;
			}
			assert_in_range(r, 0, RACE_ROUNDS - 1);
			assert_int_equal(winner[r][d], -1);
			winner[r][d] = i;
			wins++;
		}
		assert_false(ferror(fp));
		fclose(fp);
	}
	assert_int_equal(wins, RACE_ROUNDS * RACE_DEVICES);

	/* And the store agrees: one lease per device, the last winner's. */
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(count(f->store, "leases"), RACE_DEVICES);
	for (d = 0; d < RACE_DEVICES; d++) {
		race_name(name, sizeof(name), "race-%d", d);
		assert_int_equal(
		        bf_store_device_get(&got, f->store, name, &err), 0);
		race_name(line, sizeof(line), "child-%d",
		          winner[RACE_ROUNDS - 1][d]);
		assert_string_equal(got.state, "leased");
		assert_non_null(got.lease_holder);
		assert_string_equal(got.lease_holder, line);
		assert_int_equal(got.lease_expires_at,
		                 RACE_NOW + RACE_ROUNDS * RACE_TTL);
		bf_store_device_release(&got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__device_add_dup_get_list_remove),
		T(test_store__lease_exclusive_until_expiry),
		T(test_store__lease_of_dead_holder_taken_back),
		T(test_store__lease_race_between_processes),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
