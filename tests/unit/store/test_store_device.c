/* Unit tests for the SQLite store (orchestrator/store/store*.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/store.h"

struct fixture {
	char dir[PATH_MAX]; /* the temporary directory */
	char path[PATH_MAX]; /* dir/sub/benchfarm.db */
	struct bf_store *store;
};

/* snprintf into a PATH_MAX buffer; fails the test on truncation. */
static void pathf(char *out, const char *fmt, ...) BF_PRINTF(2, 3);
static void pathf(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && n < PATH_MAX);
}

static void rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	char child[PATH_MAX];
	DIR *d;

	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", path, de->d_name) <
		    (int)sizeof(child))
			rm_rf(child);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static int setup(void **state)
{
	struct fixture *f = bf_xcalloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	struct bf_err err = BF_ERR_INIT;

	pathf(f->dir, "%s/bf-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	pathf(f->path, "%s/sub/benchfarm.db", f->dir);
	if (bf_store_open(&f->store, f->path, &err) != 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		rm_rf(f->dir);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	bf_store_close(f->store);
	rm_rf(f->dir);
	free(f);
	return 0;
}

/* Close the fixture's store so that a test can reopen or poke the file. */
static void close_store(struct fixture *f)
{
	bf_store_close(f->store);
	f->store = NULL;
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static char *raw_text(const char *path, const char *sql)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	char *res;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	res = bf_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return res;
}

/* The whole file at path; *len_out its size. Caller frees. */
static char *slurp(const char *path, size_t *len_out)
{
	FILE *fp = fopen(path, "rb");
	struct stat st;
	char *data;

	assert_non_null(fp);
	assert_int_equal(fstat(fileno(fp), &st), 0);
	data = bf_xmalloc((size_t)st.st_size + 1);
	*len_out = fread(data, 1, (size_t)st.st_size + 1, fp);
	assert_int_equal(*len_out, st.st_size);
	fclose(fp);
	return data;
}

/* Fails unless path still holds exactly before[0..nb); frees before. */
static void assert_unchanged(const char *path, char *before, size_t nb)
{
	size_t na;
	char *after = slurp(path, &na);

	assert_int_equal(na, nb);
	assert_memory_equal(before, after, nb);
	free(before);
	free(after);
}

static bool sidecar_exists(const char *path, const char *suffix)
{
	struct stat st;
	char p[PATH_MAX];

	pathf(p, "%s%s", path, suffix);
	return stat(p, &st) == 0;
}

static int64_t count(struct bf_store *s, const char *table)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t n = -1;

	assert_int_equal(bf_store_count(&n, s, table, &err), 0);
	return n;
}

static void add_device(struct bf_store *s, const char *name)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char type[] = "linux";

	d.name = bf_xstrdup(name);
	d.type = type;
	assert_int_equal(bf_store_device_add(s, &d, &err), 0);
	free(d.name);
}

static int64_t add_run(struct bf_store *s, const char *kind, int64_t at)
{
	struct bf_store_run r = { 0 };
	struct bf_err err = BF_ERR_INIT;
	int64_t id = 0;

	r.kind = bf_xstrdup(kind);
	r.started_at = at;
	assert_int_equal(bf_store_run_create(&id, s, &r, &err), 0);
	free(r.kind);
	assert_true(id > 0);
	return id;
}

static void test_store__create_and_reopen_keeps_data(void **state)
{
	struct fixture *f = *state;
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char want[16];
	char *s;

	add_device(f->store, "pixel-1");
	assert_string_equal(bf_store_path(f->store), f->path);
	close_store(f);
	s = raw_text(f->path, "PRAGMA user_version");
	snprintf(want, sizeof(want), "%d", BF_STORE_SCHEMA_VERSION);
	assert_string_equal(s, want);
	free(s);
	s = raw_text(f->path, "PRAGMA journal_mode");
	assert_string_equal(s, "wal");
	free(s);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(count(f->store, "devices"), 1);
	assert_int_equal(bf_store_device_get(&d, f->store, "pixel-1", &err), 0);
	assert_string_equal(d.type, "linux");
	assert_string_equal(d.state, "idle");
	assert_string_equal(d.health, "unknown");
	assert_string_equal(d.labels, "");
	assert_null(d.host);
	assert_true(d.created_at > 0);
	bf_store_device_release(&d);
	assert_int_equal(bf_store_integrity_check(f->store, &err), 0);
}

static void test_store__file_and_dir_modes(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char path[PATH_MAX], wal[PATH_MAX];
	struct stat st;
	mode_t old;

	/* umask 0, so only the modes the store asks for can protect. */
	pathf(path, "%s/a/b/new.db", f->dir);
	old = umask(0);
	assert_int_equal(bf_store_open(&s, path, &err), 0);
	add_device(s, "d");
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	pathf(wal, "%s-wal", path);
	assert_int_equal(stat(wal, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	pathf(path, "%s/a/b", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	pathf(path, "%s/a", f->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	bf_store_close(s);
}

static void test_store__refuses_newer_schema(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char want[PATH_MAX];
	char *before;
	size_t nb;

	close_store(f);
	raw_exec(f->path, "PRAGMA user_version = 99");
	before = slurp(f->path, &nb);
	assert_int_equal(bf_store_open(&s, f->path, &err), BF_EVERSION);
	assert_null(s);
	assert_int_equal(err.code, BF_EVERSION);
	pathf(want,
	      "'%s' has schema version 99, newer than this benchfarm (%d); upgrade benchfarm",
	      f->path, BF_STORE_SCHEMA_VERSION);
	assert_string_equal(err.msg, want);
	assert_unchanged(f->path, before, nb);
}

static void test_store__refuses_garbage_file_unchanged(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char path[PATH_MAX], want[PATH_MAX];
	char *before;
	size_t nb;
	FILE *fp;
	int i;

	pathf(path, "%s/notes.txt", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (i = 0; i < 100; i++)
		fprintf(fp, "line %d: these are my notes, not a database\n", i);
	fclose(fp);
	before = slurp(path, &nb);
	assert_int_equal(bf_store_open(&s, path, &err), BF_ECORRUPT);
	assert_null(s);
	pathf(want, "'%s' is not a benchfarm database (file is not a database)",
	      path);
	assert_string_equal(err.msg, want);
	assert_unchanged(path, before, nb);
	assert_false(sidecar_exists(path, "-wal"));
	assert_false(sidecar_exists(path, "-shm"));
	assert_false(sidecar_exists(path, "-journal"));
}

static void test_store__refuses_other_sqlite_database(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char path[PATH_MAX];
	char *before;
	size_t nb;

	pathf(path, "%s/other.db", f->dir);
	raw_exec(path, "CREATE TABLE foo (x); INSERT INTO foo VALUES (1)");
	before = slurp(path, &nb);
	assert_int_equal(bf_store_open(&s, path, &err), BF_ECORRUPT);
	assert_null(s);
	assert_non_null(strstr(
	        err.msg,
	        "is not a benchfarm database (it holds another program's tables)"));
	assert_unchanged(path, before, nb);
	/* A user_version alone does not make it ours either. */
	raw_exec(path, "PRAGMA user_version = 1");
	before = slurp(path, &nb);
	assert_int_equal(bf_store_open(&s, path, &err), BF_ECORRUPT);
	assert_null(s);
	assert_unchanged(path, before, nb);
}

/* An environment variable saved for restoring (NULL: was unset). */
static char *save_env(const char *name)
{
	const char *v = getenv(name);

	return v ? bf_xstrdup(v) : NULL;
}

static void restore_env(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

static void expect_path(const char *db_flag, const char *want)
{
	struct bf_err err = BF_ERR_INIT;
	char *out = NULL;

	assert_int_equal(bf_store_default_path(&out, db_flag, &err), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_store__default_path_resolution(void **state)
{
	char *db = save_env("BENCHFARM_DB");
	char *xdg = save_env("XDG_DATA_HOME");
	char *home = save_env("HOME");
	struct bf_err err = BF_ERR_INIT;
	char *out = NULL;

	(void)state;
	setenv("BENCHFARM_DB", "/env/bf.db", 1);
	setenv("XDG_DATA_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	expect_path("flag.db", "flag.db");
	assert_int_equal(bf_store_default_path(&out, "", &err), BF_EINVAL);
	assert_null(out);
	expect_path(NULL, "/env/bf.db");
	setenv("BENCHFARM_DB", "", 1);
	expect_path(NULL, "/xdg/benchfarm/benchfarm.db");
	unsetenv("BENCHFARM_DB");
	expect_path(NULL, "/xdg/benchfarm/benchfarm.db");
	setenv("XDG_DATA_HOME", "relative/dir", 1);
	expect_path(NULL, "/home/u/.local/share/benchfarm/benchfarm.db");
	unsetenv("XDG_DATA_HOME");
	expect_path(NULL, "/home/u/.local/share/benchfarm/benchfarm.db");
	unsetenv("HOME");
	assert_int_equal(bf_store_default_path(&out, NULL, &err), BF_ENOTFOUND);
	assert_null(out);
	assert_non_null(strstr(err.msg, "HOME"));
	expect_path("/x.db", "/x.db");
	restore_env("BENCHFARM_DB", db);
	restore_env("XDG_DATA_HOME", xdg);
	restore_env("HOME", home);
}

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
 * taken back at once by the next acquire on this host, not after its
 * TTL; one whose holder lives is not. bf_store_leases_release_own drops
 * this process's leases only.
 */
static void test_store__lease_of_dead_holder_taken_back(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	int go[2], ready[2], status = 0, n = -1;
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
	/* dead: taken back 599 s before the lease would expire */
	assert_int_equal(bf_store_lease_acquire(f->store, "dev", "parent", 60,
	                                        1001, &err),
	                 0);
	expect_device(f->store, "leased", "parent", 1061);
	assert_int_equal(bf_store_lease_acquire(f->store, "dev2", "other", 60,
	                                        1001, &err),
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
	char side_buf[6][8], dev[] = "pixel";
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

static void test_store__alerts(void **state)
{
	struct fixture *f = *state;
	struct bf_store_alert a = { 0 }, *list = NULL;
	struct bf_err err = BF_ERR_INIT;
	char bench[] = "BM_x", metric[] = "cpu_time", lo[] = "c1", hi[] = "c2";
	char hi2[] = "c3", dir[] = "regressed", bad[] = "sideways";
	int64_t id1 = 0, id2 = 0;
	size_t n = 0;

	a.benchmark = bench;
	a.metric = metric;
	a.commit_lo = lo;
	a.commit_hi = hi;
	a.direction = dir;
	a.size = 0.12;
	a.score = 31.5;
	a.created_at = 100;
	a.group_id = 7;
	assert_int_equal(bf_store_alert_add(&id1, f->store, &a, &err), 0);
	assert_int_equal(bf_store_alert_add(NULL, f->store, &a, &err),
	                 BF_EEXISTS);
	a.commit_hi = hi2;
	a.created_at = 200;
	a.group_id = 0;
	assert_int_equal(bf_store_alert_add(&id2, f->store, &a, &err), 0);
	assert_true(id2 > id1);
	a.direction = bad;
	assert_int_equal(bf_store_alert_add(NULL, f->store, &a, &err),
	                 BF_EINVAL);

	assert_int_equal(bf_store_alert_list(&list, &n, f->store, NULL, &err),
	                 0);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].id, id2);
	assert_int_equal(list[1].id, id1);
	assert_string_equal(list[1].status, "open");
	assert_string_equal(list[1].device_class, "");
	assert_string_equal(list[1].commit_hi, "c2");
	assert_true(list[1].size == 0.12);
	assert_true(list[1].score == 31.5);
	assert_int_equal(list[1].group_id, 7);
	assert_int_equal(list[0].group_id, 0);
	bf_store_alerts_free(list, n);

	assert_int_equal(bf_store_alert_set_status(f->store, id1, "ack", &err),
	                 0);
	assert_int_equal(bf_store_alert_set_status(f->store, id1, "x", &err),
	                 BF_EINVAL);
	assert_int_equal(bf_store_alert_set_status(f->store, 999, "ack", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "open", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, id2);
	bf_store_alerts_free(list, n);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "ack", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, id1);
	bf_store_alerts_free(list, n);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "bad", &err),
	                 BF_EINVAL);

	/* a bisect's culprit is kept with the alert */
	assert_int_equal(bf_store_alert_set_culprit(f->store, id2, "c2b", &err),
	                 0);
	assert_int_equal(bf_store_alert_set_culprit(f->store, 999, "c2b", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, NULL, &err),
	                 0);
	assert_string_equal(list[0].culprit, "c2b");
	assert_null(list[1].culprit);
	bf_store_alerts_free(list, n);
}

static void add_alert(struct bf_store *s, int64_t *id, const char *suite,
                      const char *hi, int want)
{
	struct bf_store_alert a = { 0 };
	struct bf_err err = BF_ERR_INIT;

	a.benchmark = (char *)"BM_x";
	a.metric = (char *)"cpu_time";
	a.suite = (char *)suite;
	a.commit_lo = (char *)"c1";
	a.commit_hi = (char *)hi;
	a.direction = (char *)"regressed";
	a.size = 0.1;
	a.score = 30;
	assert_int_equal(bf_store_alert_add(id, s, &a, &err), want);
}

/*
 * A series is (suite, benchmark, metric): two config entries that print
 * the same benchmark name each get their alert for one range; the same
 * suite (or none, twice) is a duplicate.
 */
static void test_store__alert_key_has_suite(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_alert narrow = { 0 }, *list = NULL;
	int64_t id1 = 0, id2 = 0, id3 = 0;
	size_t n = 0;

	add_alert(f->store, &id1, "s1", "c2", 0);
	add_alert(f->store, &id2, "s2", "c2", 0);
	add_alert(f->store, NULL, "s1", "c2", BF_EEXISTS);
	add_alert(f->store, NULL, NULL, "c2", 0);
	add_alert(f->store, NULL, NULL, "c2", BF_EEXISTS);
	assert_int_equal(count(f->store, "alerts"), 3);
	/*
	 * narrowing a step's range: to a free range, not onto another; the
	 * fit's size, score, detail and group replace the stored ones, the
	 * status stays, the culprit is what the caller keeps
	 */
	add_alert(f->store, &id3, "s1", "c5", 0);
	assert_int_equal(bf_store_alert_set_status(f->store, id3, "ack", &err),
	                 0);
	assert_int_equal(bf_store_alert_set_culprit(f->store, id3, "c4", &err),
	                 0);
	narrow.commit_lo = (char *)"c1";
	narrow.commit_hi = (char *)"c3";
	narrow.group_id = 42;
	narrow.size = 0.25;
	narrow.score = 61;
	narrow.detail = (char *)"{\"detector\":\"jetpack\"}";
	assert_int_equal(
	        bf_store_alert_narrow(f->store, id3, &narrow, "c3", &err), 0);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "ack", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, id3);
	assert_string_equal(list[0].commit_lo, "c1");
	assert_string_equal(list[0].commit_hi, "c3");
	assert_int_equal(list[0].group_id, 42);
	assert_true(list[0].size == 0.25 && list[0].score == 61);
	assert_string_equal(list[0].detail, narrow.detail);
	assert_string_equal(list[0].culprit, "c3");
	bf_store_alerts_free(list, n);
	narrow.commit_hi = (char *)"c2"; /* s1's alert over c1..c2 exists */
	assert_int_equal(
	        bf_store_alert_narrow(f->store, id3, &narrow, NULL, &err),
	        BF_EEXISTS);
	narrow.commit_hi = (char *)"c4";
	assert_int_equal(
	        bf_store_alert_narrow(f->store, 999, &narrow, NULL, &err),
	        BF_ENOTFOUND);
	assert_int_equal(
	        bf_store_alert_narrow(f->store, id3, &narrow, NULL, &err), 0);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "ack", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_null(list[0].culprit);
	bf_store_alerts_free(list, n);
}

/*
 * A schema-5 store (the alerts key without the suite, as a table
 * constraint) is migrated: its alerts are kept, and the suite is now
 * part of the key.
 */
static void test_store__migrates_alert_key(void **state)
{
	struct fixture *f = *state;
	struct bf_store_alert *list = NULL;
	struct bf_err err = BF_ERR_INIT;
	size_t n = 0;

	close_store(f);
	raw_exec(f->path,
	         "DROP TABLE alerts;"
	         "CREATE TABLE alerts ("
	         " id INTEGER PRIMARY KEY,"
	         " benchmark TEXT NOT NULL, metric TEXT NOT NULL,"
	         " device_class TEXT NOT NULL DEFAULT '',"
	         " commit_lo TEXT NOT NULL, commit_hi TEXT NOT NULL,"
	         " direction TEXT NOT NULL"
	         "  CHECK (direction IN ('regressed', 'improved')),"
	         " size REAL NOT NULL, score REAL NOT NULL,"
	         " status TEXT NOT NULL DEFAULT 'open'"
	         "  CHECK (status IN ('open', 'ack', 'ignored')),"
	         " created_at INTEGER NOT NULL, group_id INTEGER,"
	         " UNIQUE (benchmark, metric, device_class, commit_lo,"
	         " commit_hi));"
	         "CREATE INDEX alerts_status ON alerts (status, created_at);"
	         "ALTER TABLE alerts ADD COLUMN suite TEXT;"
	         "ALTER TABLE alerts ADD COLUMN detail TEXT;"
	         "ALTER TABLE alerts ADD COLUMN culprit TEXT;"
	         "INSERT INTO alerts (id, benchmark, metric, commit_lo,"
	         " commit_hi, direction, size, score, status, created_at,"
	         " group_id, suite, detail, culprit) VALUES (7, 'BM_x',"
	         " 'cpu_time', 'c1', 'c2', 'regressed', 0.1, 30, 'ack', 5, 9,"
	         " 's1', '{}', 'c2');"
	         "ALTER TABLE leases DROP COLUMN host;"
	         "ALTER TABLE leases DROP COLUMN pid;"
	         "PRAGMA user_version = 5;");
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, NULL, &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, 7);
	assert_string_equal(list[0].status, "ack");
	assert_string_equal(list[0].suite, "s1");
	assert_string_equal(list[0].culprit, "c2");
	assert_int_equal(list[0].group_id, 9);
	bf_store_alerts_free(list, n);
	add_alert(f->store, NULL, "s2", "c2", 0);
	add_alert(f->store, NULL, "s1", "c2", BF_EEXISTS);
	assert_int_equal(bf_store_integrity_check(f->store, &err), 0);
}

static void test_store__rollback_leaves_nothing(void **state)
{
	struct fixture *f = *state;
	struct bf_store_sample s = { 0 }, many[2];
	struct bf_err err = BF_ERR_INIT;
	char bench[] = "b", metric[] = "m", side[] = "patch";

	assert_int_equal(bf_store_commit(f->store, &err), BF_EINVAL);
	assert_int_equal(bf_store_rollback(f->store, &err), 0);
	assert_int_equal(bf_store_begin(f->store, &err), 0);
	assert_int_equal(bf_store_begin(f->store, &err), BF_EINVAL);
	add_device(f->store, "dev");
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "dev", "A", 60, 1, &err), 0);
	s.run_id = add_run(f->store, "compare", 1);
	s.benchmark = bench;
	s.metric = metric;
	s.side = side;
	s.value = 2.0;
	assert_int_equal(bf_store_sample_add(f->store, &s, &err), 0);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(bf_store_rollback(f->store, &err), 0);
	assert_int_equal(count(f->store, "devices"), 0);
	assert_int_equal(count(f->store, "leases"), 0);
	assert_int_equal(count(f->store, "runs"), 0);
	assert_int_equal(count(f->store, "samples"), 0);

	/* A failed call inside a transaction undoes only itself. */
	assert_int_equal(bf_store_begin(f->store, &err), 0);
	s.run_id = add_run(f->store, "run", 2);
	assert_int_equal(
	        bf_store_lease_acquire(f->store, "nope", "A", 60, 1, &err),
	        BF_ENOTFOUND);
	assert_int_equal(bf_store_sample_add(f->store, &s, &err), 0);
	many[0] = s;
	many[1] = s;
	many[1].run_id = s.run_id + 1;
	assert_int_equal(bf_store_sample_add_many(f->store, many, 2, &err),
	                 BF_ENOTFOUND);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(bf_store_commit(f->store, &err), 0);
	assert_int_equal(count(f->store, "runs"), 1);
	assert_int_equal(count(f->store, "samples"), 1);
	assert_int_equal(bf_store_count(NULL, f->store, "sqlite_master", &err),
	                 BF_EINVAL);
}

/* BEGIN IMMEDIATE: the write lock is taken at begin, not at first write. */
static void test_store__begin_takes_write_lock(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(bf_store_begin(f->store, &err), 0);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	                 SQLITE_BUSY);
	assert_int_equal(bf_store_commit(f->store, &err), 0);
	assert_int_equal(
	        sqlite3_exec(db, "BEGIN IMMEDIATE; ROLLBACK", NULL, NULL, NULL),
	        SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* A transaction left open at close is rolled back, not committed. */
static void test_store__close_rolls_back_open_transaction(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_store_begin(f->store, &err), 0);
	add_device(f->store, "dev");
	close_store(f);
	assert_int_equal(bf_store_open(&f->store, f->path, &err), 0);
	assert_int_equal(count(f->store, "devices"), 0);
	assert_int_equal(count(f->store, "meta"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__create_and_reopen_keeps_data),
		T(test_store__file_and_dir_modes),
		T(test_store__refuses_newer_schema),
		T(test_store__refuses_garbage_file_unchanged),
		T(test_store__refuses_other_sqlite_database),
		cmocka_unit_test(test_store__default_path_resolution),
		T(test_store__device_add_dup_get_list_remove),
		T(test_store__lease_exclusive_until_expiry),
		T(test_store__lease_of_dead_holder_taken_back),
		T(test_store__lease_race_between_processes),
		T(test_store__run_and_samples_round_trip),
		T(test_store__run_list_by_kind),
		T(test_store__killed_runs_are_aborted),
		T(test_store__foreign_keys_enforced),
		T(test_store__checks_round_trip),
		T(test_store__alerts),
		T(test_store__alert_key_has_suite),
		T(test_store__migrates_alert_key),
		T(test_store__rollback_leaves_nothing),
		T(test_store__begin_takes_write_lock),
		T(test_store__close_rolls_back_open_transaction),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
