/*
 * Raw samples, device check results and the postsubmit history read
 * from them (see store_int.h for the store's files).
 */
#include "store/store_int.h"

#include <math.h>
#include <time.h>

#include "benchfarm/err.h"

static const char *const sample_sides[] = { "base", "patch", "commit", NULL };
static const char *const check_statuses[] = { "pass", "warn", "fail", "skip",
	                                      NULL };

static int check_sample(const struct bf_store_sample *s, struct bf_err *err)
{
	if (!s->benchmark || !*s->benchmark || !s->metric || !*s->metric)
		return bf_err_set(
		        err, BF_EINVAL,
		        "sample of run %lld has no benchmark or metric",
		        (long long)s->run_id);
	if (!bf_store__is_one_of(s->side, sample_sides))
		return bf_err_set(err, BF_EINVAL,
		                  "sample of '%s': unknown side '%s'",
		                  s->benchmark, s->side ? s->side : "");
	if (!isfinite(s->value))
		return bf_err_set(err, BF_EINVAL,
		                  "sample of '%s' %s: value is not finite",
		                  s->benchmark, s->metric);
	return 0;
}

int bf_store_sample_add(struct bf_store *store, const struct bf_store_sample *s,
                        struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = check_sample(s, err);
	if (!rc)
		rc = bf_store__prepare(
		        &st, store, BF_STORE__SAMPLE_ADD,
		        "INSERT INTO samples (run_id, benchmark, metric, unit,"
		        " side, commit_id, device, repeat_idx, iter_idx,"
		        " value, suite) VALUES (?1, ?2, ?3, coalesce(?4, ''),"
		        " ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
		        err);
	if (rc)
		return rc;
	if (sqlite3_bind_int64(st, 1, s->run_id) ||
	    bf_store__bind_text(st, 2, s->benchmark) ||
	    bf_store__bind_text(st, 3, s->metric) ||
	    bf_store__bind_text(st, 4, s->unit) ||
	    bf_store__bind_text(st, 5, s->side) ||
	    bf_store__bind_text(st, 6, s->commit_id) ||
	    bf_store__bind_text(st, 7, s->device) ||
	    sqlite3_bind_int64(st, 8, s->repeat_idx) ||
	    sqlite3_bind_int64(st, 9, s->iter_idx) ||
	    sqlite3_bind_double(st, 10, s->value) ||
	    bf_store__bind_text(st, 11, s->suite))
		rc = sqlite3_errcode(store->db);
	else
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		rc = bf_err_set(err, BF_ENOTFOUND, "no run %lld for samples",
		                (long long)s->run_id);
	else
		rc = bf_store__err(store, rc, err,
		                   "cannot store a sample of '%s'",
		                   s->benchmark);
	sqlite3_reset(st);
	return rc;
}

int bf_store_sample_add_many(struct bf_store *store,
                             const struct bf_store_sample *samples, size_t n,
                             struct bf_err *err)
{
	size_t i;
	int token;
	int rc;

	rc = bf_store__write_begin(&token, store, err);
	if (rc)
		return rc;
	for (i = 0; i < n && !rc; i++) {
		rc = bf_store_sample_add(store, &samples[i], err);
		if (rc)
			bf_err_prefix(err, "sample %zu", i);
	}
	return bf_store__write_end(store, token, rc, err);
}

/* A caller's callback and payload, for the row functions below. */
struct each {
	union {
		bf_store_sample_fn *sample;
		bf_store_check_fn *check;
	} fn;
	void *payload;
	const char *device; /* history: the device asked for */
};

/* A row of bf_store_samples_foreach's query, to the caller's fn. */
static int sample_row(sqlite3_stmt *st, void *payload)
{
	struct each *e = payload;
	struct bf_store_sample s;

	s.run_id = sqlite3_column_int64(st, 0);
	s.benchmark = bf_store__col_text(st, 1);
	s.metric = bf_store__col_text(st, 2);
	s.unit = bf_store__col_text(st, 3);
	s.side = bf_store__col_text(st, 4);
	s.commit_id = bf_store__col_text(st, 5);
	s.device = bf_store__col_text(st, 6);
	s.repeat_idx = sqlite3_column_int64(st, 7);
	s.iter_idx = sqlite3_column_int64(st, 8);
	s.value = sqlite3_column_double(st, 9);
	s.suite = bf_store__col_text(st, 10);
	return e->fn.sample(&s, e->payload);
}

int bf_store_samples_foreach(struct bf_store *store, int64_t run_id,
                             bf_store_sample_fn *fn, void *payload,
                             struct bf_err *err)
{
	struct each e = { .fn.sample = fn, .payload = payload };
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(
	        &st, store, -1,
	        "SELECT run_id, benchmark, metric, unit, side,"
	        " commit_id, device, repeat_idx, iter_idx, value,"
	        " suite FROM samples WHERE run_id = ?1"
	        " ORDER BY id",
	        err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, run_id);
		rc = bf_store__each_row(store, st, sample_row, &e, err,
		                        "samples of run %lld",
		                        (long long)run_id);
	}
	sqlite3_finalize(st);
	return rc;
}

int bf_store_check_add(struct bf_store *store, const struct bf_store_check *c,
                       struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (!c->device || !*c->device || !c->check_id || !*c->check_id)
		rc = bf_err_set(err, BF_EINVAL,
		                "check result has no device or check id");
	else if (!bf_store__is_one_of(c->status, check_statuses))
		rc = bf_err_set(err, BF_EINVAL,
		                "check '%s': unknown status '%s'", c->check_id,
		                c->status ? c->status : "");
	if (!rc)
		rc = bf_store__prepare(
		        &st, store, BF_STORE__CHECK_ADD,
		        "INSERT INTO checks (run_id, device, check_id, status,"
		        " value, threshold, message, at) VALUES (?1, ?2, ?3,"
		        " ?4, ?5, ?6, ?7, ?8)",
		        err);
	if (rc)
		return rc;
	if (bf_store__bind_opt_int(st, 1, c->run_id) ||
	    bf_store__bind_text(st, 2, c->device) ||
	    bf_store__bind_text(st, 3, c->check_id) ||
	    bf_store__bind_text(st, 4, c->status) ||
	    bf_store__bind_real(st, 5, c->value) ||
	    bf_store__bind_real(st, 6, c->threshold) ||
	    bf_store__bind_text(st, 7, c->message) ||
	    sqlite3_bind_int64(st, 8, c->at ? c->at : time(NULL)))
		rc = sqlite3_errcode(store->db);
	else
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		rc = bf_err_set(err, BF_ENOTFOUND, "check '%s': no run %lld",
		                c->check_id, (long long)c->run_id);
	else
		rc = bf_store__err(store, rc, err, "cannot store check '%s'",
		                   c->check_id);
	sqlite3_reset(st);
	return rc;
}

/* A row of bf_store_checks_foreach's query, to the caller's fn. */
static int check_row(sqlite3_stmt *st, void *payload)
{
	struct each *e = payload;
	struct bf_store_check c;

	c.id = sqlite3_column_int64(st, 0);
	c.run_id = sqlite3_column_int64(st, 1);
	c.device = bf_store__col_text(st, 2);
	c.check_id = bf_store__col_text(st, 3);
	c.status = bf_store__col_text(st, 4);
	c.value = bf_store__col_real(st, 5);
	c.threshold = bf_store__col_real(st, 6);
	c.message = bf_store__col_text(st, 7);
	c.at = sqlite3_column_int64(st, 8);
	return e->fn.check(&c, e->payload);
}

int bf_store_checks_foreach(struct bf_store *store, int64_t run_id,
                            const char *device, bf_store_check_fn *fn,
                            void *payload, struct bf_err *err)
{
	struct each e = { .fn.check = fn, .payload = payload };
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(&st, store, -1,
	                       "SELECT id, run_id, device, check_id, status,"
	                       " value, threshold, message, at FROM checks"
	                       " WHERE (?1 = 0 OR run_id = ?1)"
	                       " AND (?2 IS NULL OR device = ?2)"
	                       " ORDER BY at, id",
	                       err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, run_id);
		bf_store__bind_text(st, 2, device);
		rc = bf_store__each_row(store, st, check_row, &e, err,
		                        "check results");
	}
	sqlite3_finalize(st);
	return rc;
}

/* A text column, "" for NULL (history's strings are never NULL). */
static char *col_or_empty(sqlite3_stmt *st, int col)
{
	char *t = bf_store__col_text(st, col);

	return t ? t : (char *)"";
}

/* A row of bf_store_history_foreach's query, to the caller's fn. */
static int history_row(sqlite3_stmt *st, void *payload)
{
	struct each *e = payload;
	struct bf_store_sample s = { 0 };
	char side[] = "commit";

	s.run_id = sqlite3_column_int64(st, 0);
	s.commit_id = col_or_empty(st, 1);
	s.suite = col_or_empty(st, 2);
	s.benchmark = col_or_empty(st, 3);
	s.metric = col_or_empty(st, 4);
	s.unit = col_or_empty(st, 5);
	s.side = side;
	s.device = (char *)(e->device ? e->device : "");
	s.repeat_idx = sqlite3_column_int64(st, 6);
	s.value = sqlite3_column_double(st, 7);
	return e->fn.sample(&s, e->payload);
}

int bf_store_history_foreach(struct bf_store *store, const char *device,
                             bf_store_sample_fn *fn, void *payload,
                             struct bf_err *err)
{
	struct each e = { .fn.sample = fn,
		          .payload = payload,
		          .device = device };
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(
	        &st, store, -1,
	        "SELECT r.id, r.patch_commit, coalesce(s.suite, s.benchmark),"
	        " s.benchmark, s.metric, s.unit, s.repeat_idx, s.value"
	        " FROM samples s JOIN runs r ON r.id = s.run_id"
	        " WHERE r.kind = 'run' AND r.status = 'complete'"
	        " AND r.device = ?1 AND s.side = 'commit'"
	        " ORDER BY r.id, 3, s.benchmark, s.metric, s.repeat_idx",
	        err);
	if (!rc) {
		bf_store__bind_text(st, 1, device);
		rc = bf_store__each_row(store, st, history_row, &e, err,
		                        "the history");
	}
	sqlite3_finalize(st);
	return rc;
}
