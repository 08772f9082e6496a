/* Runs (see store_int.h for the store's files). */
#include "store/store_int.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

static const char *const run_kinds[] = { "compare", "run", "bisect", NULL };
static const char *const run_statuses[] = { "running", "complete", "failed",
	                                    "aborted", NULL };

#define RUN_COLUMNS                                                          \
	"SELECT id, kind, status, config_digest, base_commit, patch_commit," \
	" device, seed, started_at, finished_at, info FROM runs"

#define RUN_ABORTED_INFO                                                      \
	"{\"aborted\": \"the orchestrator stopped before finishing this run " \
	"(killed or crashed); its samples are kept, the run is not "          \
	"complete\"}"

/* Open the store's lock file for its runs' liveness locks, once. */
static int run_lock_open(struct bf_store *store, struct bf_err *err)
{
	if (store->lock_fd >= 0)
		return 0;
	store->lock_fd = bf_store__lock_file_open(store->path);
	if (store->lock_fd < 0)
		return bf_err_sys(err,
		                  "cannot open the run lock file '%s.lock'",
		                  store->path);
	return 0;
}

int bf_store_run_create(int64_t *id_out, struct bf_store *store,
                        const struct bf_store_run *run, struct bf_err *err)
{
	int64_t started = run->started_at ? run->started_at : time(NULL);
	sqlite3_stmt *st = NULL;
	int token;
	int rc = 0;

	if (!bf_store__is_one_of(run->kind, run_kinds))
		rc = bf_err_set(err, BF_EINVAL, "unknown run kind '%s'",
		                run->kind ? run->kind : "");
	else if (run->status && !bf_store__is_one_of(run->status, run_statuses))
		rc = bf_err_set(err, BF_EINVAL, "unknown run status '%s'",
		                run->status);
	if (!rc && (!run->status || !strcmp(run->status, "running")))
		rc = run_lock_open(store, err);
	if (rc || (rc = bf_store__write_begin(&token, store, err)))
		return rc;
	rc = bf_store__prepare(
	        &st, store, -1,
	        "INSERT INTO runs (kind, status, config_digest,"
	        " base_commit, patch_commit, device, seed, started_at,"
	        " info) VALUES (?1, coalesce(?2, 'running'), ?3, ?4,"
	        " ?5, ?6, ?7, ?8, ?9)",
	        err);
	if (rc)
		goto out;
	if (bf_store__bind_text(st, 1, run->kind) ||
	    bf_store__bind_text(st, 2, run->status) ||
	    bf_store__bind_text(st, 3, run->config_digest) ||
	    bf_store__bind_text(st, 4, run->base_commit) ||
	    bf_store__bind_text(st, 5, run->patch_commit) ||
	    bf_store__bind_text(st, 6, run->device) ||
	    sqlite3_bind_int64(st, 7, run->seed) ||
	    sqlite3_bind_int64(st, 8, started) ||
	    bf_store__bind_text(st, 9, run->info)) {
		rc = bf_store__err(store, sqlite3_errcode(store->db), err,
		                   "cannot create a run");
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE) {
		rc = bf_store__err(store, rc, err, "cannot create a run");
		goto out;
	}
	*id_out = sqlite3_last_insert_rowid(store->db);
	rc = 0;
	/* locked before the row is committed: nobody sees it unlocked */
	if ((!run->status || !strcmp(run->status, "running")) &&
	    bf_store__lock_byte(store->lock_fd, *id_out, F_OFD_SETLK, F_WRLCK))
		rc = bf_err_sys(err, "cannot lock run %lld in '%s.lock'",
		                (long long)*id_out, store->path);
out:
	sqlite3_finalize(st);
	return bf_store__write_end(store, token, rc, err);
}

/* Copy the row of a RUN_COLUMNS query into the run at out. */
static void read_run(void *out, sqlite3_stmt *st)
{
	struct bf_store_run *run = out;

	run->id = sqlite3_column_int64(st, 0);
	run->kind = bf_store__col_strdup(st, 1);
	run->status = bf_store__col_strdup(st, 2);
	run->config_digest = bf_store__col_strdup(st, 3);
	run->base_commit = bf_store__col_strdup(st, 4);
	run->patch_commit = bf_store__col_strdup(st, 5);
	run->device = bf_store__col_strdup(st, 6);
	run->seed = sqlite3_column_int64(st, 7);
	run->started_at = sqlite3_column_int64(st, 8);
	run->finished_at = sqlite3_column_int64(st, 9);
	run->info = bf_store__col_strdup(st, 10);
}

void bf_store_run_release(struct bf_store_run *run)
{
	if (!run)
		return;
	free(run->kind);
	free(run->status);
	free(run->config_digest);
	free(run->base_commit);
	free(run->patch_commit);
	free(run->device);
	free(run->info);
	memset(run, 0, sizeof(*run));
}

static void release_run(void *run)
{
	bf_store_run_release(run);
}

void bf_store_runs_free(struct bf_store_run *runs, size_t n)
{
	size_t i;

	for (i = 0; runs && i < n; i++)
		bf_store_run_release(&runs[i]);
	free(runs);
}

int bf_store_run_get(struct bf_store_run *out, struct bf_store *store,
                     int64_t id, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(&st, store, -1, RUN_COLUMNS " WHERE id = ?1",
	                       err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, id);
		rc = bf_store__one_row(store, st, read_run, out, err,
		                       "run %lld", (long long)id);
	}
	sqlite3_finalize(st);
	return rc;
}

int bf_store_run_list(struct bf_store_run **out, size_t *n_out,
                      struct bf_store *store, const char *kind, size_t limit,
                      struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	void *runs = NULL;
	int rc = 0;

	if (kind && !bf_store__is_one_of(kind, run_kinds))
		rc = bf_err_set(err, BF_EINVAL, "unknown run kind '%s'", kind);
	if (!rc)
		rc = bf_store__prepare(&st, store, -1,
		                       RUN_COLUMNS
		                       " WHERE ?1 IS NULL OR kind = ?1"
		                       " ORDER BY started_at DESC, id DESC"
		                       " LIMIT ?2",
		                       err);
	if (rc)
		return rc;
	bf_store__bind_text(st, 1, kind);
	/* A negative LIMIT means none in SQLite. */
	sqlite3_bind_int64(st, 2,
	                   limit && limit <= INT64_MAX ? (int64_t)limit : -1);
	rc = bf_store__list_rows(&runs, n_out, store, st, sizeof(**out),
	                         read_run, release_run, "runs", err);
	if (!rc)
		*out = runs;
	sqlite3_finalize(st);
	return rc;
}

/* Current status of run id into *out (borrowed static string). */
static int run_status(const char **out, struct bf_store *store, int64_t id,
                      struct bf_err *err)
{
	struct bf_store_run run = { 0 };
	size_t i;
	int rc;

	rc = bf_store_run_get(&run, store, id, err);
	if (rc)
		return rc;
	*out = "unknown";
	for (i = 0; run_statuses[i]; i++)
		if (!strcmp(run.status, run_statuses[i]))
			*out = run_statuses[i];
	bf_store_run_release(&run);
	return 0;
}

int bf_store_run_finish(struct bf_store *store, int64_t id, const char *status,
                        int64_t finished_at, struct bf_err *err)
{
	const char *cur = NULL;
	int token;
	int rc;

	if (!bf_store__is_one_of(status, run_statuses) ||
	    !strcmp(status, "running"))
		return bf_err_set(err, BF_EINVAL,
		                  "run %lld: cannot finish as '%s'",
		                  (long long)id, status ? status : "");
	rc = bf_store__write_begin(&token, store, err);
	if (rc)
		return rc;
	rc = run_status(&cur, store, id, err);
	if (!rc && strcmp(cur, "running"))
		rc = bf_err_set(err, BF_EINVAL, "run %lld is already '%s'",
		                (long long)id, cur);
	if (!rc)
		rc = bf_store__update_row(
		        store, "run",
		        "UPDATE runs SET status = ?2, finished_at = ?3"
		        " WHERE id = ?1",
		        id, status, finished_at, err);
	rc = bf_store__write_end(store, token, rc, err);
	if (!rc && store->lock_fd >= 0)
		bf_store__lock_byte(store->lock_fd, id, F_OFD_SETLK, F_UNLCK);
	return rc;
}

int bf_store_runs_reap(struct bf_store *store, int *n_out, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t *stale = NULL;
	size_t n = 0, cap = 0;
	int token, step, rc;

	if (n_out)
		*n_out = 0;
	if ((rc = run_lock_open(store, err)) ||
	    (rc = bf_store__prepare(&st, store, -1,
	                            "SELECT id FROM runs WHERE status ="
	                            " 'running' ORDER BY id",
	                            err)))
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		/* a lock nobody holds is never taken again */
		if (bf_store__lock_byte(store->lock_fd, id, F_OFD_GETLK,
		                        F_WRLCK) != F_UNLCK)
			continue; /* held: its orchestrator lives */
		if (n == cap)
			stale = bf_xreallocarray(stale, cap = cap ? 2 * cap : 8,
			                         sizeof(*stale));
		stale[n++] = id;
	}
	if (step != SQLITE_DONE)
		rc = bf_store__err(store, step, err,
		                   "cannot list running runs");
	sqlite3_finalize(st);
	st = NULL;
	if (!rc && n)
		rc = bf_store__write_begin(&token, store, err);
	if (rc || !n)
		goto out;
	rc = bf_store__prepare(
	        &st, store, -1,
	        "UPDATE runs SET status = 'aborted',"
	        " finished_at = ?2, info = coalesce(info, '" RUN_ABORTED_INFO
	        "') WHERE id = ?1 AND status = 'running'",
	        err);
	for (size_t i = 0; !rc && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, stale[i]);
		sqlite3_bind_int64(st, 2, (int64_t)time(NULL));
		if ((step = sqlite3_step(st)) != SQLITE_DONE)
			rc = bf_store__err(store, step, err,
			                   "cannot mark run %lld aborted",
			                   (long long)stale[i]);
	}
	sqlite3_finalize(st);
	rc = bf_store__write_end(store, token, rc, err);
	if (!rc && n_out)
		*n_out = (int)n;
out:
	free(stale);
	return rc;
}

/*
 * Run sql, a query of the runs binding t1 and t2 and returning one
 * integer, into *out (0 when it returns no row).
 */
static int runs_query_i64(int64_t *out, struct bf_store *store, const char *sql,
                          const char *t1, const char *t2, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = bf_store__prepare(&st, store, -1, sql, err);

	if (rc)
		return rc;
	bf_store__bind_text(st, 1, t1);
	bf_store__bind_text(st, 2, t2);
	rc = bf_store__step_i64(out, st);
	if (rc != SQLITE_OK)
		rc = bf_store__err(store, rc, err, "cannot read the runs");
	sqlite3_finalize(st);
	return rc;
}

int bf_store_run_failed_build(int64_t *id_out, struct bf_store *store,
                              const char *commit, const char *build_key,
                              struct bf_err *err)
{
	return runs_query_i64(
	        id_out, store,
	        "SELECT id FROM runs WHERE kind = 'run' AND status = 'failed'"
	        " AND patch_commit = ?1 AND json_valid(info)"
	        " AND json_extract(info, '$.stage') = 'build'"
	        " AND json_extract(info, '$.build_key') = ?2"
	        " ORDER BY id DESC LIMIT 1",
	        commit, build_key, err);
}

int bf_store_run_measured(bool *out, struct bf_store *store, const char *device,
                          const char *commit, struct bf_err *err)
{
	int64_t n = 0;
	int rc = runs_query_i64(&n, store,
	                        "SELECT count(*) FROM runs WHERE kind = 'run'"
	                        " AND status = 'complete' AND device = ?1"
	                        " AND patch_commit = ?2",
	                        device, commit, err);

	if (!rc)
		*out = n > 0;
	return rc;
}

int bf_store_run_set_info(struct bf_store *store, int64_t id, const char *info,
                          struct bf_err *err)
{
	return bf_store__update_row(store, "run",
	                            "UPDATE runs SET info = ?2 WHERE id = ?1",
	                            id, info, 0, err);
}
