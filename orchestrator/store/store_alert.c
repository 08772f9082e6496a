/* Alerts (see store_int.h for the store's files). */
#include "store/store_int.h"

#include <math.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

static const char *const alert_directions[] = { "regressed", "improved", NULL };
static const char *const alert_statuses[] = { "open", "ack", "ignored", NULL };

static int check_alert(const struct bf_store_alert *a, struct bf_err *err)
{
	if (!a->benchmark || !*a->benchmark || !a->metric || !*a->metric)
		return bf_err_set(err, BF_EINVAL,
		                  "alert has no benchmark or metric");
	if (!a->commit_lo || !*a->commit_lo || !a->commit_hi || !*a->commit_hi)
		return bf_err_set(err, BF_EINVAL,
		                  "alert on '%s' %s has no commit range",
		                  a->benchmark, a->metric);
	if (!bf_store__is_one_of(a->direction, alert_directions))
		return bf_err_set(err, BF_EINVAL,
		                  "alert on '%s' %s: unknown direction '%s'",
		                  a->benchmark, a->metric,
		                  a->direction ? a->direction : "");
	if (a->status && !bf_store__is_one_of(a->status, alert_statuses))
		return bf_err_set(err, BF_EINVAL,
		                  "alert on '%s' %s: unknown status '%s'",
		                  a->benchmark, a->metric, a->status);
	if (!isfinite(a->size) || !isfinite(a->score))
		return bf_err_set(err, BF_EINVAL,
		                  "alert on '%s' %s: size or score not finite",
		                  a->benchmark, a->metric);
	return 0;
}

int bf_store_alert_add(int64_t *id_out, struct bf_store *store,
                       const struct bf_store_alert *a, struct bf_err *err)
{
	int64_t created = a->created_at ? a->created_at : time(NULL);
	sqlite3_stmt *st = NULL;
	int rc;

	rc = check_alert(a, err);
	if (!rc)
		rc = bf_store__prepare(
		        &st, store, -1,
		        "INSERT INTO alerts (benchmark, metric, device_class,"
		        " commit_lo, commit_hi, direction, size, score, status,"
		        " created_at, group_id, suite, detail, culprit)"
		        " VALUES (?1, ?2, coalesce(?3, ''), ?4, ?5, ?6, ?7, ?8,"
		        " coalesce(?9, 'open'), ?10, ?11, ?12, ?13, ?14)",
		        err);
	if (rc)
		goto out;
	if (bf_store__bind_text(st, 1, a->benchmark) ||
	    bf_store__bind_text(st, 2, a->metric) ||
	    bf_store__bind_text(st, 3, a->device_class) ||
	    bf_store__bind_text(st, 4, a->commit_lo) ||
	    bf_store__bind_text(st, 5, a->commit_hi) ||
	    bf_store__bind_text(st, 6, a->direction) ||
	    sqlite3_bind_double(st, 7, a->size) ||
	    sqlite3_bind_double(st, 8, a->score) ||
	    bf_store__bind_text(st, 9, a->status) ||
	    sqlite3_bind_int64(st, 10, created) ||
	    bf_store__bind_opt_int(st, 11, a->group_id) ||
	    bf_store__bind_text(st, 12, a->suite) ||
	    bf_store__bind_text(st, 13, a->detail) ||
	    bf_store__bind_text(st, 14, a->culprit))
		rc = sqlite3_errcode(store->db);
	else
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		if (id_out)
			*id_out = sqlite3_last_insert_rowid(store->db);
		rc = 0;
	} else if (rc == SQLITE_CONSTRAINT_UNIQUE) {
		rc = bf_err_set(err, BF_EEXISTS,
		                "alert on '%s' %s for %s..%s already exists",
		                a->benchmark, a->metric, a->commit_lo,
		                a->commit_hi);
	} else {
		rc = bf_store__err(store, rc, err,
		                   "cannot store alert on '%s' %s",
		                   a->benchmark, a->metric);
	}
out:
	sqlite3_finalize(st);
	return rc;
}

/* Copy a row of bf_store_alert_list's query into the alert at out. */
static void read_alert(void *out, sqlite3_stmt *st)
{
	struct bf_store_alert *a = out;

	a->id = sqlite3_column_int64(st, 0);
	a->benchmark = bf_store__col_strdup(st, 1);
	a->metric = bf_store__col_strdup(st, 2);
	a->device_class = bf_store__col_strdup(st, 3);
	a->commit_lo = bf_store__col_strdup(st, 4);
	a->commit_hi = bf_store__col_strdup(st, 5);
	a->direction = bf_store__col_strdup(st, 6);
	a->size = sqlite3_column_double(st, 7);
	a->score = sqlite3_column_double(st, 8);
	a->status = bf_store__col_strdup(st, 9);
	a->created_at = sqlite3_column_int64(st, 10);
	a->group_id = sqlite3_column_int64(st, 11);
	a->suite = bf_store__col_strdup(st, 12);
	a->detail = bf_store__col_strdup(st, 13);
	a->culprit = bf_store__col_strdup(st, 14);
}

void bf_store_alert_release(struct bf_store_alert *a)
{
	if (!a)
		return;
	free(a->benchmark);
	free(a->metric);
	free(a->device_class);
	free(a->commit_lo);
	free(a->commit_hi);
	free(a->direction);
	free(a->status);
	free(a->suite);
	free(a->detail);
	free(a->culprit);
	memset(a, 0, sizeof(*a));
}

static void release_alert(void *a)
{
	bf_store_alert_release(a);
}

void bf_store_alerts_free(struct bf_store_alert *alerts, size_t n)
{
	size_t i;

	for (i = 0; alerts && i < n; i++)
		bf_store_alert_release(&alerts[i]);
	free(alerts);
}

int bf_store_alert_list(struct bf_store_alert **out, size_t *n_out,
                        struct bf_store *store, const char *status,
                        struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	void *alerts = NULL;
	int rc = 0;

	if (status && !bf_store__is_one_of(status, alert_statuses))
		rc = bf_err_set(err, BF_EINVAL, "unknown alert status '%s'",
		                status);
	if (!rc)
		rc = bf_store__prepare(
		        &st, store, -1,
		        "SELECT id, benchmark, metric, device_class, commit_lo,"
		        " commit_hi, direction, size, score, status,"
		        " created_at, group_id, suite, detail, culprit FROM alerts"
		        " WHERE ?1 IS NULL OR status = ?1"
		        " ORDER BY created_at DESC, id DESC",
		        err);
	if (rc)
		return rc;
	bf_store__bind_text(st, 1, status);
	rc = bf_store__list_rows(&alerts, n_out, store, st, sizeof(**out),
	                         read_alert, release_alert, "alerts", err);
	if (!rc)
		*out = alerts;
	sqlite3_finalize(st);
	return rc;
}

int bf_store_alert_set_status(struct bf_store *store, int64_t id,
                              const char *status, struct bf_err *err)
{
	if (!bf_store__is_one_of(status, alert_statuses))
		return bf_err_set(err, BF_EINVAL, "unknown alert status '%s'",
		                  status ? status : "");
	return bf_store__update_row(
	        store, "alert", "UPDATE alerts SET status = ?2 WHERE id = ?1",
	        id, status, 0, err);
}

int bf_store_alert_set_culprit(struct bf_store *store, int64_t id,
                               const char *culprit, struct bf_err *err)
{
	return bf_store__update_row(
	        store, "alert", "UPDATE alerts SET culprit = ?2 WHERE id = ?1",
	        id, culprit, 0, err);
}

int bf_store_alert_narrow(struct bf_store *store, int64_t id,
                          const struct bf_store_alert *a, const char *culprit,
                          struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(
	        &st, store, -1,
	        "UPDATE alerts SET commit_lo = ?2, commit_hi = ?3,"
	        " group_id = ?4, size = ?5, score = ?6, detail = ?7,"
	        " culprit = ?8 WHERE id = ?1",
	        err);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	bf_store__bind_text(st, 2, a->commit_lo);
	bf_store__bind_text(st, 3, a->commit_hi);
	bf_store__bind_opt_int(st, 4, a->group_id);
	sqlite3_bind_double(st, 5, a->size);
	sqlite3_bind_double(st, 6, a->score);
	bf_store__bind_text(st, 7, a->detail);
	bf_store__bind_text(st, 8, culprit);
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		rc = bf_err_set(err, BF_EEXISTS,
		                "an alert for %s..%s already exists",
		                a->commit_lo, a->commit_hi);
	else
		rc = bf_store__changed(store, rc, err, "alert %lld",
		                       (long long)id);
out:
	sqlite3_finalize(st);
	return rc;
}
