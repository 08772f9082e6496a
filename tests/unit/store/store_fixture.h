#ifndef BF_TEST_STORE_FIXTURE_H
#define BF_TEST_STORE_FIXTURE_H

/*
 * The store tests' fixture (a new store in a temporary directory, open
 * in setup, closed and removed in teardown) and the helpers the test
 * files share. The helpers fail the running test on any error.
 */
#include <limits.h>

#include "benchfarm/common.h"

struct bf_store;

/*
 * The store's backend: the same test source builds a SQLite binary and,
 * with $(call store_on_pg,NAME) in tests/unit/files.mk, a NAME_pg one
 * whose fixture (store_fixture_pg.o, BF_STORE_FIXTURE_PG) puts the
 * store in a fresh schema on the PostgreSQL server of
 * $BENCHFARM_TEST_PG (ci/run-tests.sh starts one); without it each
 * test is skipped, saying "skip: no PostgreSQL".
 */
extern const bool store_on_pg;

struct fixture {
	char dir[PATH_MAX]; /* the temporary directory */
	/* SQLite: dir/sub/benchfarm.db; PostgreSQL: the server's
	 * connection string with search_path set to schema */
	char path[PATH_MAX];
	char schema[64]; /* PostgreSQL: the test's own schema */
	struct bf_store *store;
};

/* $BENCHFARM_TEST_PG (the PostgreSQL fixture runs only when it is set). */
const char *pg_server(void);

/*
 * cmocka_run_group_tests, except that a PostgreSQL binary without a
 * server says "skip: no PostgreSQL" and runs nothing.
 */
int store_run_group_tests(const char *name, const struct CMUnitTest *tests,
                          size_t n, CMFixtureFunction setup_all,
                          CMFixtureFunction teardown_all);
#undef cmocka_run_group_tests
#define cmocka_run_group_tests(group, setup_all, teardown_all)                \
	store_run_group_tests(#group, group, BF_ARRAY_SIZE(group), setup_all, \
	                      teardown_all)

/* snprintf into a PATH_MAX buffer; fails the test on truncation. */
void pathf(char *out, const char *fmt, ...) BF_PRINTF(2, 3);

/* Remove path and, when it is a directory, all below it. */
void rm_rf(const char *path);

/* cmocka set-up and tear-down: *state is a struct fixture. */
int setup(void **state);
int teardown(void **state);

/* Close the fixture's store so that a test can reopen or poke the file. */
void close_store(struct fixture *f);

/* Run sql on the database at path through SQLite (libpq on
 * PostgreSQL), not the store. */
void raw_exec(const char *path, const char *sql);

/* The text of the first row of sql on the database at path. */
char *raw_text(const char *path, const char *sql);

/* The whole file at path; *len_out its size. Caller frees. */
char *slurp(const char *path, size_t *len_out);

/* Fails unless path still holds exactly before[0..nb); frees before. */
void assert_unchanged(const char *path, char *before, size_t nb);

/* Whether path + suffix ("-wal", "-shm") exists. */
bool sidecar_exists(const char *path, const char *suffix);

/*
 * Wait until no session holds the liveness lock of the holder of the
 * lease of holder. A process's locks on SQLite are gone once waitpid
 * has seen it end; a PostgreSQL backend drops them only when it has
 * noticed its client's socket close, a moment later. Polls every 10 ms
 * for at most 60 s; fails the test if the lock is still held.
 */
void wait_holder_gone(struct fixture *f, const char *holder);
/* The same for run id's liveness lock (key 1 << 32 | id). */
void wait_run_gone(struct fixture *f, int64_t id);

/* The number of rows in table. */
int64_t count(struct bf_store *s, const char *table);

/* Register a linux device called name. */
void add_device(struct bf_store *s, const char *name);

/* Create a run of kind started at at; its id. */
int64_t add_run(struct bf_store *s, const char *kind, int64_t at);

/* Add a real_time sample of value v for bench to run, side "commit". */
void add_commit_sample(struct bf_store *s, int64_t run, const char *bench,
                       double v);

/*
 * Add a regression of BM_x cpu_time in suite over c1..hi, expecting
 * bf_store_alert_add to return want; *id (may be NULL) gets its id.
 */
void add_alert(struct bf_store *s, int64_t *id, const char *suite,
               const char *hi, int want);

#endif /* BF_TEST_STORE_FIXTURE_H */
