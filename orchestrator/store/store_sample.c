/*
 * Raw samples, device check results and the postsubmit history read
 * from them (see store_int.h for the store's files).
 */
#include "store/sql_pg_copy.h"
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
	const struct bf_sql_val vals[] = {
		BF_SQL_V_INT(s->run_id),   BF_SQL_V_TEXT(s->benchmark),
		BF_SQL_V_TEXT(s->metric),  BF_SQL_V_TEXT(s->unit),
		BF_SQL_V_TEXT(s->side),    BF_SQL_V_TEXT(s->commit_id),
		BF_SQL_V_TEXT(s->device),  BF_SQL_V_INT(s->repeat_idx),
		BF_SQL_V_INT(s->iter_idx), BF_SQL_V_REAL(s->value),
		BF_SQL_V_TEXT(s->suite),
	};
	int rc;

	rc = check_sample(s, err);
	if (rc)
		return rc;
	/* one text: the backend prepares it once and keeps it */
	rc = bf_sql_exec(store,
	                 "INSERT INTO samples (run_id, benchmark, metric, unit,"
	                 " side, commit_id, device, repeat_idx, iter_idx,"
	                 " value, suite) VALUES (?1, ?2, ?3, coalesce(?4, ''),"
	                 " ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	                 vals, BF_ARRAY_SIZE(vals), NULL, NULL, NULL, err,
	                 "cannot store a sample of '%s'", s->benchmark);
	if (rc == BF_ENOTFOUND)
		rc = bf_err_set(err, BF_ENOTFOUND, "no run %lld for samples",
		                (long long)s->run_id);
	return rc;
}

/* Sample i as the values of SAMPLE_COLS (a bf_sql_copy_row_fn). */
static void sample_vals(struct bf_sql_val *v, size_t i, void *payload)
{
	const struct bf_store_sample *s =
	        &((const struct bf_store_sample *)payload)[i];

	v[0] = BF_SQL_V_INT(s->run_id);
	v[1] = BF_SQL_V_TEXT(s->benchmark);
	v[2] = BF_SQL_V_TEXT(s->metric);
	v[3] = BF_SQL_V_TEXT(s->unit ? s->unit : "");
	v[4] = BF_SQL_V_TEXT(s->side);
	v[5] = BF_SQL_V_TEXT(s->commit_id);
	v[6] = BF_SQL_V_TEXT(s->device);
	v[7] = BF_SQL_V_INT(s->repeat_idx);
	v[8] = BF_SQL_V_INT(s->iter_idx);
	v[9] = BF_SQL_V_REAL(s->value);
	v[10] = BF_SQL_V_TEXT(s->suite);
}

#define SAMPLE_COLS                                                             \
	"run_id, benchmark, metric, unit, side, commit_id, device, repeat_idx," \
	" iter_idx, value, suite"

/*
 * PostgreSQL: every sample checked, then all of them in one COPY, which
 * stores them in order as bf_store_sample_add one by one would, at a
 * fraction of the cost (one statement for the batch, not a round trip,
 * a parse and a plan per sample).
 */
static int sample_copy(struct bf_store *store,
                       const struct bf_store_sample *samples, size_t n,
                       struct bf_err *err)
{
	int64_t lo = n ? samples[0].run_id : 0, hi = lo;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if ((rc = check_sample(&samples[i], err))) {
			bf_err_prefix(err, "sample %zu", i);
			return rc;
		}
		lo = samples[i].run_id < lo ? samples[i].run_id : lo;
		hi = samples[i].run_id > hi ? samples[i].run_id : hi;
	}
	rc = bf_sql_pg_copy(store, "samples", SAMPLE_COLS, 11, n, sample_vals,
	                    (void *)samples, err, "cannot store %zu samples",
	                    n);
	if (rc == BF_ENOTFOUND && lo == hi)
		rc = bf_err_set(err, BF_ENOTFOUND, "no run %lld for samples",
		                (long long)lo);
	else if (rc == BF_ENOTFOUND)
		rc = bf_err_set(err, BF_ENOTFOUND,
		                "no run for some of the samples of runs %lld "
		                "to %lld",
		                (long long)lo, (long long)hi);
	return rc;
}

int bf_store_sample_add_many(struct bf_store *store,
                             const struct bf_store_sample *samples, size_t n,
                             struct bf_err *err)
{
	size_t i;
	int token;
	int rc;

	rc = bf_sql_write_begin(&token, store, err);
	if (rc)
		return rc;
	if (bf_sql_backend(store) == BF_SQL_PG)
		rc = sample_copy(store, samples, n, err);
	else
		for (i = 0; i < n && !rc; i++) {
			rc = bf_store_sample_add(store, &samples[i], err);
			if (rc)
				bf_err_prefix(err, "sample %zu", i);
		}
	return bf_sql_write_end(store, token, rc, err);
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
static int sample_row(const struct bf_sql_row *row, void *payload)
{
	struct each *e = payload;
	struct bf_store_sample s;

	s.run_id = bf_sql_int(row, 0);
	s.benchmark = (char *)bf_sql_text(row, 1);
	s.metric = (char *)bf_sql_text(row, 2);
	s.unit = (char *)bf_sql_text(row, 3);
	s.side = (char *)bf_sql_text(row, 4);
	s.commit_id = (char *)bf_sql_text(row, 5);
	s.device = (char *)bf_sql_text(row, 6);
	s.repeat_idx = bf_sql_int(row, 7);
	s.iter_idx = bf_sql_int(row, 8);
	s.value = bf_sql_real(row, 9);
	s.suite = (char *)bf_sql_text(row, 10);
	return e->fn.sample(&s, e->payload);
}

int bf_store_samples_foreach(struct bf_store *store, int64_t run_id,
                             bf_store_sample_fn *fn, void *payload,
                             struct bf_err *err)
{
	struct each e = { .fn.sample = fn, .payload = payload };
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(run_id) };

	return bf_sql_exec(store,
	                   "SELECT run_id, benchmark, metric, unit, side,"
	                   " commit_id, device, repeat_idx, iter_idx, value,"
	                   " suite FROM samples WHERE run_id = ?1"
	                   " ORDER BY id",
	                   vals, BF_ARRAY_SIZE(vals), sample_row, &e, NULL, err,
	                   "cannot read samples of run %lld",
	                   (long long)run_id);
}

int bf_store_check_add(struct bf_store *store, const struct bf_store_check *c,
                       struct bf_err *err)
{
	const struct bf_sql_val vals[] = {
		bf_store__opt_int(c->run_id),
		BF_SQL_V_TEXT(c->device),
		BF_SQL_V_TEXT(c->check_id),
		BF_SQL_V_TEXT(c->status),
		bf_store__opt_real(c->value),
		bf_store__opt_real(c->threshold),
		BF_SQL_V_TEXT(c->message),
		BF_SQL_V_INT(c->at ? c->at : time(NULL)),
	};
	int rc = 0;

	if (!c->device || !*c->device || !c->check_id || !*c->check_id)
		rc = bf_err_set(err, BF_EINVAL,
		                "check result has no device or check id");
	else if (!bf_store__is_one_of(c->status, check_statuses))
		rc = bf_err_set(err, BF_EINVAL,
		                "check '%s': unknown status '%s'", c->check_id,
		                c->status ? c->status : "");
	if (rc)
		return rc;
	rc = bf_sql_exec(store,
	                 "INSERT INTO checks (run_id, device, check_id, status,"
	                 " value, threshold, message, at) VALUES (?1, ?2, ?3,"
	                 " ?4, ?5, ?6, ?7, ?8)",
	                 vals, BF_ARRAY_SIZE(vals), NULL, NULL, NULL, err,
	                 "cannot store check '%s'", c->check_id);
	if (rc == BF_ENOTFOUND)
		rc = bf_err_set(err, BF_ENOTFOUND, "check '%s': no run %lld",
		                c->check_id, (long long)c->run_id);
	return rc;
}

/* A row of bf_store_checks_foreach's query, to the caller's fn. */
static int check_row(const struct bf_sql_row *row, void *payload)
{
	struct each *e = payload;
	struct bf_store_check c;

	c.id = bf_sql_int(row, 0);
	c.run_id = bf_sql_int(row, 1);
	c.device = (char *)bf_sql_text(row, 2);
	c.check_id = (char *)bf_sql_text(row, 3);
	c.status = (char *)bf_sql_text(row, 4);
	c.value = bf_sql_real(row, 5);
	c.threshold = bf_sql_real(row, 6);
	c.message = (char *)bf_sql_text(row, 7);
	c.at = bf_sql_int(row, 8);
	return e->fn.check(&c, e->payload);
}

int bf_store_checks_foreach(struct bf_store *store, int64_t run_id,
                            const char *device, bf_store_check_fn *fn,
                            void *payload, struct bf_err *err)
{
	struct each e = { .fn.check = fn, .payload = payload };
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(run_id),
		                           BF_SQL_V_TEXT(device) };

	return bf_sql_exec(store,
	                   "SELECT id, run_id, device, check_id, status,"
	                   " value, threshold, message, at FROM checks"
	                   " WHERE (CAST(?1 AS BIGINT) = 0 OR run_id = ?1)"
	                   " AND (CAST(?2 AS TEXT) IS NULL OR device = ?2)"
	                   " ORDER BY at, id",
	                   vals, BF_ARRAY_SIZE(vals), check_row, &e, NULL, err,
	                   "cannot read check results");
}

/* A text column, "" for NULL (history's strings are never NULL). */
static char *col_or_empty(const struct bf_sql_row *row, int col)
{
	const char *t = bf_sql_text(row, col);

	return (char *)(t ? t : "");
}

/* A row of bf_store_history_foreach's query, to the caller's fn. */
static int history_row(const struct bf_sql_row *row, void *payload)
{
	struct each *e = payload;
	struct bf_store_sample s = { 0 };
	char side[] = "commit";

	s.run_id = bf_sql_int(row, 0);
	s.commit_id = col_or_empty(row, 1);
	s.suite = col_or_empty(row, 2);
	s.benchmark = col_or_empty(row, 3);
	s.metric = col_or_empty(row, 4);
	s.unit = col_or_empty(row, 5);
	s.side = side;
	s.device = (char *)(e->device ? e->device : "");
	s.repeat_idx = bf_sql_int(row, 6);
	s.value = bf_sql_real(row, 7);
	return e->fn.sample(&s, e->payload);
}

int bf_store_history_foreach(struct bf_store *store, const char *device,
                             bf_store_sample_fn *fn, void *payload,
                             struct bf_err *err)
{
	struct each e = { .fn.sample = fn,
		          .payload = payload,
		          .device = device };
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(device) };

	return bf_sql_exec(
	        store,
	        "SELECT r.id, r.patch_commit, coalesce(s.suite, s.benchmark),"
	        " s.benchmark, s.metric, s.unit, s.repeat_idx, s.value"
	        " FROM runs r"
	        " JOIN samples s ON s.run_id = coalesce(r.measured_by, r.id)"
	        " WHERE r.kind = 'run' AND r.status = 'complete'"
	        " AND r.device = ?1 AND s.side = 'commit'"
	        " ORDER BY r.id, 3, s.benchmark, s.metric, s.repeat_idx",
	        vals, BF_ARRAY_SIZE(vals), history_row, &e, NULL, err,
	        "cannot read the history");
}
