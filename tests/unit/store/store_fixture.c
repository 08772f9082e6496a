/* The store tests' fixture and helpers (store_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

/* snprintf into a PATH_MAX buffer; fails the test on truncation. */
void pathf(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && n < PATH_MAX);
}

void rm_rf(const char *path)
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

#ifdef BF_STORE_FIXTURE_PG
const bool store_on_pg = true;
#else
const bool store_on_pg = false;
#endif

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* Run sql on the server of conninfo through libpq; fails the test on an
 * error. The text of the first row's first column, or NULL. */
static char *pg_run(const char *conninfo, const char *sql)
{
	PGconn *c = PQconnectdb(conninfo);
	PGresult *r;
	char *res = NULL;

	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("cannot connect to %s: %s", conninfo,
		         PQerrorMessage(c));
	PQsetNoticeProcessor(c, quiet, NULL);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK &&
	    PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		res = bf_xstrdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(c);
	return res;
}

const char *pg_server(void)
{
	const char *pg = getenv("BENCHFARM_TEST_PG");

	return pg && *pg ? pg : NULL;
}

int store_run_group_tests(const char *name, const struct CMUnitTest *tests,
                          size_t n, CMFixtureFunction setup_all,
                          CMFixtureFunction teardown_all)
{
	if (store_on_pg && !pg_server()) {
		printf("skip: no PostgreSQL: BENCHFARM_TEST_PG is not set (run "
		       "through ci/run-tests.sh, or start a server with "
		       "ci/pg.sh start DIR)\n");
		return 0;
	}
	return _cmocka_run_group_tests(name, tests, n, setup_all, teardown_all);
}

/*
 * The PostgreSQL fixture: a new schema test_PID_N on the server of
 * BENCHFARM_TEST_PG, the store's location that server with search_path
 * set to it (so that each test starts from an empty database).
 */
static void pg_location(struct fixture *f)
{
	static int n;
	char sql[128];

	pathf(f->schema, "test_%ld_%d", (long)getpid(), ++n);
	snprintf(sql, sizeof(sql), "CREATE SCHEMA %s", f->schema);
	free(pg_run(pg_server(), sql));
	pathf(f->path, "%s options='-csearch_path=%s'", pg_server(), f->schema);
}

int setup(void **state)
{
	struct fixture *f = bf_xcalloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	struct bf_err err = BF_ERR_INIT;

	*state = f;
	pathf(f->dir, "%s/bf-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	/* the tests play out time with made-up values (now = 1000, ...),
	 * which PostgreSQL would otherwise replace by its own clock; the
	 * tests of the server's clock turn this off */
	bf_store_clock_from_caller(true);
	bf_store_server_started_at(0);
	if (store_on_pg)
		pg_location(f);
	else
		pathf(f->path, "%s/sub/benchfarm.db", f->dir);
	if (bf_store_open(&f->store, f->path, &err) != 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		teardown(state);
		return -1;
	}
	if (store_on_pg) {
		/*
		 * A run's liveness lock is an advisory lock of the whole
		 * database, keyed by its id: tests running at once in
		 * schemas of one database must not share run ids (a lab's
		 * one schema never does). Each process starts its runs
		 * far from the others'.
		 */
		char sql[160];

		snprintf(sql, sizeof(sql),
		         "SELECT setval(pg_get_serial_sequence('%s.runs',"
		         " 'id'), %lld)",
		         f->schema, (long long)(getpid() % 4000000) * 1000 + 1);
		free(pg_run(pg_server(), sql));
	}
	return 0;
}

int teardown(void **state)
{
	struct fixture *f = *state;

	char sql[128];

	bf_store_close(f->store);
	if (f->schema[0]) {
		snprintf(sql, sizeof(sql), "DROP SCHEMA %s CASCADE", f->schema);
		free(pg_run(pg_server(), sql));
	}
	rm_rf(f->dir);
	free(f);
	return 0;
}

/* Close the fixture's store so that a test can reopen or poke the file. */
void close_store(struct fixture *f)
{
	bf_store_close(f->store);
	f->store = NULL;
}

void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	if (store_on_pg) {
		free(pg_run(path, sql));
		return;
	}

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

char *raw_text(const char *path, const char *sql)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	char *res;

	if (store_on_pg) {
		res = pg_run(path, sql);
		assert_non_null(res);
		return res;
	}
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	res = bf_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return res;
}

/* The whole file at path; *len_out its size. Caller frees. */
char *slurp(const char *path, size_t *len_out)
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
void assert_unchanged(const char *path, char *before, size_t nb)
{
	size_t na;
	char *after = slurp(path, &na);

	assert_int_equal(na, nb);
	assert_memory_equal(before, after, nb);
	free(before);
	free(after);
}

bool sidecar_exists(const char *path, const char *suffix)
{
	struct stat st;
	char p[PATH_MAX];

	pathf(p, "%s%s", path, suffix);
	return stat(p, &st) == 0;
}

int64_t count(struct bf_store *s, const char *table)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t n = -1;

	assert_int_equal(bf_store_count(&n, s, table, &err), 0);
	return n;
}

/* Poll sql (a count) every 10 ms for at most 60 s until it is 0. */
static void wait_zero(struct fixture *f, const char *sql)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	bool gone = false;
	char *n;

	for (int i = 0; i < 6000 && !gone; i++) {
		n = raw_text(f->path, sql);
		gone = !strcmp(n, "0");
		free(n);
		if (!gone)
			nanosleep(&tick, NULL);
	}
	assert_true(gone);
}

void wait_holder_gone(struct fixture *f, const char *holder)
{
	char sql[512];

	if (!store_on_pg)
		return;
	/* the holder lock's key: bit 62 | holder_key (store_int.h) */
	snprintf(sql, sizeof(sql),
	         "SELECT count(*) FROM pg_locks l, leases s"
	         " WHERE s.holder = '%s' AND l.locktype = 'advisory'"
	         " AND l.granted AND l.objsubid = 1"
	         " AND l.classid::bigint = ((s.holder_key | (1::bigint << 62))"
	         " >> 32) AND l.objid::bigint = (s.holder_key & 4294967295)",
	         holder);
	wait_zero(f, sql);
}

void wait_run_gone(struct fixture *f, int64_t id)
{
	char sql[256];

	if (!store_on_pg)
		return;
	snprintf(sql, sizeof(sql),
	         "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
	         " AND granted AND objsubid = 1 AND classid = 1"
	         " AND objid::bigint = %lld",
	         (long long)id);
	wait_zero(f, sql);
}

void add_device(struct bf_store *s, const char *name)
{
	struct bf_store_device d = { 0 };
	struct bf_err err = BF_ERR_INIT;
	char type[] = "linux";

	d.name = bf_xstrdup(name);
	d.type = type;
	assert_int_equal(bf_store_device_add(s, &d, &err), 0);
	free(d.name);
}

int64_t add_run(struct bf_store *s, const char *kind, int64_t at)
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

void add_commit_sample(struct bf_store *s, int64_t run, const char *bench,
                       double v)
{
	struct bf_store_sample x = { 0 };
	struct bf_err err = BF_ERR_INIT;

	x.run_id = run;
	x.benchmark = (char *)bench;
	x.metric = (char *)"real_time";
	x.side = (char *)"commit";
	x.value = v;
	assert_int_equal(bf_store_sample_add(s, &x, &err), 0);
}

void add_alert(struct bf_store *s, int64_t *id, const char *suite,
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
