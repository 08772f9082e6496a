/* Runs (see store_int.h for the store's files). */
#include "store/store_int.h"

#include <string.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"

static const char *const run_kinds[] = { "compare", "run", "bisect", NULL };
static const char *const run_statuses[] = { "running", "complete", "failed",
	                                    "aborted", NULL };

#define RUN_COLUMNS                                                          \
	"SELECT id, kind, status, config_digest, base_commit, patch_commit," \
	" device, seed, started_at, finished_at, info, build_id,"            \
	" base_build_id, measured_by FROM runs"

#define RUN_ABORTED_INFO                                                      \
	"{\"aborted\": \"the orchestrator stopped before finishing this run " \
	"(killed or crashed); its samples are kept, the run is not "          \
	"complete\"}"

int bf_store_run_create(int64_t *id_out, struct bf_store *store,
                        const struct bf_store_run *run, struct bf_err *err)
{
	int64_t started = run->started_at ? run->started_at : time(NULL);
	const struct bf_sql_val vals[] = {
		BF_SQL_V_TEXT(run->kind),
		BF_SQL_V_TEXT(run->status),
		BF_SQL_V_TEXT(run->config_digest),
		BF_SQL_V_TEXT(run->base_commit),
		BF_SQL_V_TEXT(run->patch_commit),
		BF_SQL_V_TEXT(run->device),
		BF_SQL_V_INT(run->seed),
		BF_SQL_V_INT(started),
		BF_SQL_V_TEXT(run->info),
		BF_SQL_V_TEXT(run->build_id),
		BF_SQL_V_TEXT(run->base_build_id),
		bf_store__opt_int(run->measured_by),
	};
	struct bf_sql_val alive[2];
	int64_t id = 0, now = 0;
	int token;
	int rc = 0;

	if (!bf_store__is_one_of(run->kind, run_kinds))
		rc = bf_err_set(err, BF_EINVAL, "unknown run kind '%s'",
		                run->kind ? run->kind : "");
	else if (run->status && !bf_store__is_one_of(run->status, run_statuses))
		rc = bf_err_set(err, BF_EINVAL, "unknown run status '%s'",
		                run->status);
	if (rc || (rc = bf_sql_write_begin(&token, store, err)))
		return rc;
	rc = bf_sql_exec(store,
	                 "INSERT INTO runs (kind, status, config_digest,"
	                 " base_commit, patch_commit, device, seed, started_at,"
	                 " info, build_id, base_build_id, measured_by)"
	                 " VALUES (?1, coalesce(?2, 'running'), ?3, ?4,"
	                 " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id",
	                 vals, BF_ARRAY_SIZE(vals), bf_store__read_int, &id,
	                 NULL, err, "cannot create a run");
	/* alive from its start on the store's clock (bf_store_alive) */
	if (!rc)
		rc = bf_store__clock(&now, store, err);
	alive[0] = BF_SQL_V_INT(id);
	alive[1] = BF_SQL_V_INT(now);
	if (!rc)
		rc = bf_sql_exec(store,
		                 "UPDATE runs SET alive_at = ?2"
		                 " WHERE id = ?1",
		                 alive, 2, NULL, NULL, NULL, err,
		                 "cannot create a run");
	/* locked before the row is committed: nobody sees it unlocked */
	if (!rc && (!run->status || !strcmp(run->status, "running")))
		rc = bf_store__run_lock(store, id, err);
	rc = bf_sql_write_end(store, token, rc, err);
	if (!rc)
		*id_out = id;
	return rc;
}

/* Copy a row of a RUN_COLUMNS query into the run at out. */
static void read_run(void *out, const struct bf_sql_row *row)
{
	struct bf_store_run *run = out;

	run->id = bf_sql_int(row, 0);
	run->kind = bf_sql_strdup(row, 1);
	run->status = bf_sql_strdup(row, 2);
	run->config_digest = bf_sql_strdup(row, 3);
	run->base_commit = bf_sql_strdup(row, 4);
	run->patch_commit = bf_sql_strdup(row, 5);
	run->device = bf_sql_strdup(row, 6);
	run->seed = bf_sql_int(row, 7);
	run->started_at = bf_sql_int(row, 8);
	run->finished_at = bf_sql_int(row, 9);
	run->info = bf_sql_strdup(row, 10);
	run->build_id = bf_sql_strdup(row, 11);
	run->base_build_id = bf_sql_strdup(row, 12);
	run->measured_by = bf_sql_int(row, 13);
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
	free(run->build_id);
	free(run->base_build_id);
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
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(id) };

	return bf_store__get(store, RUN_COLUMNS " WHERE id = ?1", vals,
	                     BF_ARRAY_SIZE(vals), read_run, out, err,
	                     "run %lld", (long long)id);
}

int bf_store_run_list(struct bf_store_run **out, size_t *n_out,
                      struct bf_store *store, const char *kind, size_t limit,
                      struct bf_err *err)
{
	/* no limit: the largest one both servers take (not SQLite's -1) */
	const struct bf_sql_val vals[] = {
		BF_SQL_V_TEXT(kind),
		BF_SQL_V_INT(limit && limit <= INT64_MAX ? (int64_t)limit
		                                         : INT64_MAX),
	};
	void *runs = NULL;
	int rc;

	if (kind && !bf_store__is_one_of(kind, run_kinds))
		return bf_err_set(err, BF_EINVAL, "unknown run kind '%s'",
		                  kind);
	rc = bf_store__get_all(&runs, n_out, store,
	                       RUN_COLUMNS
	                       " WHERE CAST(?1 AS TEXT) IS NULL OR kind = ?1"
	                       " ORDER BY started_at DESC, id DESC"
	                       " LIMIT ?2",
	                       vals, BF_ARRAY_SIZE(vals), sizeof(**out),
	                       read_run, release_run, "runs", err);
	if (!rc)
		*out = runs;
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
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(id),
		                           BF_SQL_V_TEXT(status),
		                           BF_SQL_V_INT(finished_at) };
	const char *cur = NULL;
	int token;
	int rc;

	if (!bf_store__is_one_of(status, run_statuses) ||
	    !strcmp(status, "running"))
		return bf_err_set(err, BF_EINVAL,
		                  "run %lld: cannot finish as '%s'",
		                  (long long)id, status ? status : "");
	rc = bf_sql_write_begin(&token, store, err);
	if (rc)
		return rc;
	rc = run_status(&cur, store, id, err);
	if (!rc && strcmp(cur, "running"))
		rc = bf_err_set(err, BF_EINVAL, "run %lld is already '%s'",
		                (long long)id, cur);
	if (!rc)
		rc = bf_store__change(store,
		                      "UPDATE runs SET status = ?2,"
		                      " finished_at = ?3 WHERE id = ?1",
		                      vals, BF_ARRAY_SIZE(vals), true, err,
		                      "run %lld", (long long)id);
	rc = bf_sql_write_end(store, token, rc, err);
	if (!rc)
		bf_store__run_unlock(store, id);
	return rc;
}

/* The running runs (id, alive_at), for bf_store_runs_reap. */
struct ids {
	int64_t *id, *alive_at;
	size_t n, cap;
};

static int add_id(const struct bf_sql_row *row, void *payload)
{
	struct ids *ids = payload;

	if (ids->n == ids->cap) {
		ids->cap = ids->cap ? 2 * ids->cap : 8;
		ids->id = bf_xreallocarray(ids->id, ids->cap, sizeof(*ids->id));
		ids->alive_at = bf_xreallocarray(ids->alive_at, ids->cap,
		                                 sizeof(*ids->alive_at));
	}
	ids->id[ids->n] = bf_sql_int(row, 0);
	ids->alive_at[ids->n++] = bf_sql_int(row, 1);
	return 0;
}

/*
 * Whether a running run that said it was alive at alive_at has ended:
 * nobody holds its liveness lock and, on PostgreSQL (where a server
 * restart drops every lock until its holder's next statement), either
 * it said so since the server started (its lock was then taken again
 * first, so a free lock is its session's end) or it has not said so
 * for BF_STORE_ALIVE_GRACE_S (now: the store's clock).
 */
static int run_ended(bool *ended, struct bf_store *store, int64_t id,
                     int64_t alive_at, int64_t now, struct bf_err *err)
{
	bool alive = false;
	int rc;

	*ended = false;
	if (bf_sql_backend(store) == BF_SQL_PG &&
	    alive_at > now - BF_STORE_ALIVE_GRACE_S &&
	    !bf_store__alive_since_start(store, alive_at))
		return 0;
	rc = bf_store__run_alive(&alive, store, id, err);
	*ended = !rc && !alive;
	return rc;
}

int bf_store_runs_reap(struct bf_store *store, int *n_out, struct bf_err *err)
{
	struct ids running = { 0 };
	int64_t now = 0;
	size_t n = 0;
	bool ended;
	int token, rc;

	if (n_out)
		*n_out = 0;
	rc = bf_store__clock(&now, store, err);
	if (!rc)
		rc = bf_sql_exec(store,
		                 "SELECT id, alive_at FROM runs"
		                 " WHERE status = 'running' ORDER BY id",
		                 NULL, 0, add_id, &running, NULL, err,
		                 "cannot list running runs");
	/* keep the ended ones at the front */
	for (size_t i = 0; !rc && i < running.n; i++) {
		rc = run_ended(&ended, store, running.id[i],
		               running.alive_at[i], now, err);
		if (!rc && ended)
			running.id[n++] = running.id[i];
	}
	if (!rc && n)
		rc = bf_sql_write_begin(&token, store, err);
	if (rc || !n)
		goto out;
	for (size_t i = 0; !rc && i < n; i++) {
		const struct bf_sql_val vals[] = {
			BF_SQL_V_INT(running.id[i]),
			BF_SQL_V_INT(now),
		};

		rc = bf_sql_exec(store,
		                 "UPDATE runs SET status = 'aborted',"
		                 " finished_at = ?2, info = coalesce(info,"
		                 " '" RUN_ABORTED_INFO "') WHERE id = ?1 AND"
		                 " status = 'running'",
		                 vals, BF_ARRAY_SIZE(vals), NULL, NULL, NULL,
		                 err, "cannot mark run %lld aborted",
		                 (long long)running.id[i]);
	}
	rc = bf_sql_write_end(store, token, rc, err);
	if (!rc && n_out)
		*n_out = (int)n;
out:
	free(running.id);
	free(running.alive_at);
	return rc;
}

/* The first failed build's id among the candidates, for its row. */
struct failed_build {
	const char *build_key;
	int64_t id;
};

/*
 * A row (id, info) of a failed run of the commit: its id when info is
 * a JSON object whose "stage" is "build" and whose "build_key" is the
 * one asked for (1: found, stop). Read here rather than in SQL: the
 * servers' JSON functions differ.
 */
static int failed_build_row(const struct bf_sql_row *row, void *payload)
{
	struct failed_build *fb = payload;
	const char *info = bf_sql_text(row, 1);
	json_t *j, *stage, *key;
	bool match;

	if (!info || !fb->build_key)
		return 0;
	j = json_loads(info, 0, NULL);
	if (!j)
		return 0;
	stage = json_object_get(j, "stage");
	key = json_object_get(j, "build_key");
	match = json_is_string(stage) && json_is_string(key) &&
	        !strcmp(json_string_value(stage), "build") &&
	        !strcmp(json_string_value(key), fb->build_key);
	json_decref(j);
	if (!match)
		return 0;
	fb->id = bf_sql_int(row, 0);
	return 1;
}

int bf_store_run_failed_build(int64_t *id_out, struct bf_store *store,
                              const char *commit, const char *build_key,
                              struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(commit) };
	struct failed_build fb = { build_key, 0 };
	int rc;

	rc = bf_sql_exec(store,
	                 "SELECT id, info FROM runs WHERE kind = 'run'"
	                 " AND status = 'failed' AND patch_commit = ?1"
	                 " ORDER BY id DESC",
	                 vals, BF_ARRAY_SIZE(vals), failed_build_row, &fb, NULL,
	                 err, "cannot read the runs");
	if (rc < 0)
		return rc;
	*id_out = fb.id;
	return 0;
}

int bf_store_run_measured(bool *out, struct bf_store *store, const char *device,
                          const char *commit, struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(device),
		                           BF_SQL_V_TEXT(commit) };
	int64_t n = 0;
	int rc;

	rc = bf_sql_exec(store,
	                 "SELECT count(*) FROM runs WHERE kind = 'run'"
	                 " AND status = 'complete' AND device = ?1"
	                 " AND patch_commit = ?2",
	                 vals, BF_ARRAY_SIZE(vals), bf_store__read_int, &n,
	                 NULL, err, "cannot read the runs");
	if (!rc)
		*out = n > 0;
	return rc;
}

int bf_store_run_set_build(struct bf_store *store, int64_t id,
                           const char *base_build_id, const char *build_id,
                           struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(id),
		                           BF_SQL_V_TEXT(base_build_id),
		                           BF_SQL_V_TEXT(build_id) };
	int64_t n = 0;
	int token, rc;

	if ((rc = bf_sql_write_begin(&token, store, err)))
		return rc;
	rc = bf_sql_exec(store,
	                 "UPDATE runs SET base_build_id ="
	                 " coalesce(?2, base_build_id),"
	                 " build_id = coalesce(?3, build_id) WHERE id = ?1"
	                 " RETURNING id",
	                 vals, BF_ARRAY_SIZE(vals), bf_store__read_int, &n,
	                 NULL, err, "cannot record run %lld's build",
	                 (long long)id);
	if (!rc && !n)
		rc = bf_err_set(err, BF_ENOTFOUND, "no run %lld",
		                (long long)id);
	return bf_sql_write_end(store, token, rc, err);
}

struct same_build {
	int64_t id;
	char *commit;
};

static int read_same_build(const struct bf_sql_row *row, void *payload)
{
	struct same_build *sb = payload;

	sb->id = bf_sql_int(row, 0);
	free(sb->commit);
	sb->commit = bf_sql_strdup(row, 1);
	return 0;
}

int bf_store_run_same_build(int64_t *id_out, char commit_out[41],
                            struct bf_store *store, const char *device,
                            const char *config_digest, const char *build_id,
                            struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(device),
		                           BF_SQL_V_TEXT(build_id),
		                           BF_SQL_V_TEXT(config_digest) };
	struct same_build sb = { 0, NULL };
	int rc;

	*id_out = 0;
	commit_out[0] = '\0';
	if (!build_id)
		return 0;
	rc = bf_sql_exec(store,
	                 "SELECT r.id, r.patch_commit FROM runs r"
	                 " WHERE r.kind = 'run' AND r.status = 'complete'"
	                 " AND r.device = ?1 AND r.build_id = ?2"
	                 " AND r.config_digest IS NOT DISTINCT FROM ?3"
	                 " AND r.measured_by IS NULL AND EXISTS"
	                 " (SELECT 1 FROM samples s WHERE s.run_id = r.id)"
	                 " ORDER BY r.id DESC LIMIT 1",
	                 vals, BF_ARRAY_SIZE(vals), read_same_build, &sb, NULL,
	                 err, "cannot read the runs");
	if (!rc && sb.id && sb.commit) {
		*id_out = sb.id;
		bf_strlcpy(commit_out, sb.commit, 41);
	}
	free(sb.commit);
	return rc;
}

int bf_store_run_set_measured_by(struct bf_store *store, int64_t id, int64_t by,
                                 struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(id), BF_SQL_V_INT(by) };
	int64_t n = 0;
	int token, rc;

	if ((rc = bf_sql_write_begin(&token, store, err)))
		return rc;
	rc = bf_sql_exec(store,
	                 "UPDATE runs SET measured_by = ?2 WHERE id = ?1"
	                 " AND EXISTS (SELECT 1 FROM runs m WHERE m.id = ?2"
	                 " AND m.status = 'complete' AND m.measured_by IS NULL)"
	                 " RETURNING id",
	                 vals, BF_ARRAY_SIZE(vals), bf_store__read_int, &n,
	                 NULL, err,
	                 "cannot record run %lld as measured by %lld",
	                 (long long)id, (long long)by);
	if (!rc && !n)
		rc = bf_err_set(
		        err, BF_EINVAL,
		        "run %lld cannot stand for run %lld: it is not a "
		        "complete measured run, or run %lld is missing",
		        (long long)by, (long long)id, (long long)id);
	return bf_sql_write_end(store, token, rc, err);
}

struct builds_each {
	bf_store_build_fn *fn;
	void *payload;
};

static int build_row(const struct bf_sql_row *row, void *payload)
{
	struct builds_each *e = payload;
	struct bf_store_build b;

	b.run_id = bf_sql_int(row, 0);
	b.commit = bf_sql_is_null(row, 1) ? "" : bf_sql_text(row, 1);
	b.build_id = bf_sql_is_null(row, 2) ? NULL : bf_sql_text(row, 2);
	b.measured_by = bf_sql_int(row, 3);
	b.started_at = bf_sql_int(row, 4);
	return e->fn(&b, e->payload);
}

int bf_store_builds_foreach(struct bf_store *store, const char *device,
                            bf_store_build_fn *fn, void *payload,
                            struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(device) };
	struct builds_each e = { fn, payload };

	return bf_sql_exec(store,
	                   "SELECT id, patch_commit, build_id, measured_by,"
	                   " started_at FROM runs WHERE kind = 'run'"
	                   " AND status = 'complete' AND device = ?1"
	                   " ORDER BY id",
	                   vals, BF_ARRAY_SIZE(vals), build_row, &e, NULL, err,
	                   "cannot read the history's builds");
}

int bf_store_run_set_info(struct bf_store *store, int64_t id, const char *info,
                          struct bf_err *err)
{
	return bf_store__change_row(store, "run",
	                            "UPDATE runs SET info = ?2 WHERE id = ?1",
	                            id, info, err);
}
