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
	const struct bf_sql_val vals[] = {
		BF_SQL_V_TEXT(a->benchmark),    BF_SQL_V_TEXT(a->metric),
		BF_SQL_V_TEXT(a->device_class), BF_SQL_V_TEXT(a->commit_lo),
		BF_SQL_V_TEXT(a->commit_hi),    BF_SQL_V_TEXT(a->direction),
		BF_SQL_V_REAL(a->size),         BF_SQL_V_REAL(a->score),
		BF_SQL_V_TEXT(a->status),       BF_SQL_V_INT(created),
		bf_store__opt_int(a->group_id), BF_SQL_V_TEXT(a->suite),
		BF_SQL_V_TEXT(a->detail),       BF_SQL_V_TEXT(a->culprit),
	};
	int64_t id = 0;
	int rc;

	rc = check_alert(a, err);
	if (rc)
		return rc;
	rc = bf_sql_exec(
	        store,
	        "INSERT INTO alerts (benchmark, metric, device_class,"
	        " commit_lo, commit_hi, direction, size, score, status,"
	        " created_at, group_id, suite, detail, culprit)"
	        " VALUES (?1, ?2, coalesce(?3, ''), ?4, ?5, ?6, ?7, ?8,"
	        " coalesce(?9, 'open'), ?10, ?11, ?12, ?13, ?14)"
	        " RETURNING id",
	        vals, BF_ARRAY_SIZE(vals), bf_store__read_int, &id, NULL, err,
	        "cannot store alert on '%s' %s", a->benchmark, a->metric);
	if (rc == BF_EEXISTS)
		return bf_err_set(err, BF_EEXISTS,
		                  "alert on '%s' %s for %s..%s already exists",
		                  a->benchmark, a->metric, a->commit_lo,
		                  a->commit_hi);
	if (!rc && id_out)
		*id_out = id;
	return rc;
}

/* Copy a row of bf_store_alert_list's query into the alert at out. */
static void read_alert(void *out, const struct bf_sql_row *row)
{
	struct bf_store_alert *a = out;

	a->id = bf_sql_int(row, 0);
	a->benchmark = bf_sql_strdup(row, 1);
	a->metric = bf_sql_strdup(row, 2);
	a->device_class = bf_sql_strdup(row, 3);
	a->commit_lo = bf_sql_strdup(row, 4);
	a->commit_hi = bf_sql_strdup(row, 5);
	a->direction = bf_sql_strdup(row, 6);
	a->size = bf_sql_real(row, 7);
	a->score = bf_sql_real(row, 8);
	a->status = bf_sql_strdup(row, 9);
	a->created_at = bf_sql_int(row, 10);
	a->group_id = bf_sql_int(row, 11);
	a->suite = bf_sql_strdup(row, 12);
	a->detail = bf_sql_strdup(row, 13);
	a->culprit = bf_sql_strdup(row, 14);
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
	const struct bf_sql_val vals[] = { BF_SQL_V_TEXT(status) };
	void *alerts = NULL;
	int rc;

	if (status && !bf_store__is_one_of(status, alert_statuses))
		return bf_err_set(err, BF_EINVAL, "unknown alert status '%s'",
		                  status);
	rc = bf_store__get_all(
	        &alerts, n_out, store,
	        "SELECT id, benchmark, metric, device_class, commit_lo,"
	        " commit_hi, direction, size, score, status,"
	        " created_at, group_id, suite, detail, culprit FROM alerts"
	        " WHERE CAST(?1 AS TEXT) IS NULL OR status = ?1"
	        " ORDER BY created_at DESC, id DESC",
	        vals, BF_ARRAY_SIZE(vals), sizeof(**out), read_alert,
	        release_alert, "alerts", err);
	if (!rc)
		*out = alerts;
	return rc;
}

int bf_store_alert_set_status(struct bf_store *store, int64_t id,
                              const char *status, struct bf_err *err)
{
	if (!bf_store__is_one_of(status, alert_statuses))
		return bf_err_set(err, BF_EINVAL, "unknown alert status '%s'",
		                  status ? status : "");
	return bf_store__change_row(
	        store, "alert", "UPDATE alerts SET status = ?2 WHERE id = ?1",
	        id, status, err);
}

int bf_store_alert_set_culprit(struct bf_store *store, int64_t id,
                               const char *culprit, struct bf_err *err)
{
	return bf_store__change_row(
	        store, "alert", "UPDATE alerts SET culprit = ?2 WHERE id = ?1",
	        id, culprit, err);
}

int bf_store_alert_narrow(struct bf_store *store, int64_t id,
                          const struct bf_store_alert *a, const char *culprit,
                          struct bf_err *err)
{
	const struct bf_sql_val vals[] = {
		BF_SQL_V_INT(id),
		BF_SQL_V_TEXT(a->commit_lo),
		BF_SQL_V_TEXT(a->commit_hi),
		bf_store__opt_int(a->group_id),
		BF_SQL_V_REAL(a->size),
		BF_SQL_V_REAL(a->score),
		BF_SQL_V_TEXT(a->detail),
		BF_SQL_V_TEXT(culprit),
	};
	int rc;

	rc = bf_store__change(
	        store,
	        "UPDATE alerts SET commit_lo = ?2, commit_hi = ?3,"
	        " group_id = ?4, size = ?5, score = ?6,"
	        " detail = ?7, culprit = ?8 WHERE id = ?1",
	        vals, BF_ARRAY_SIZE(vals), true, err, "alert %lld",
	        (long long)id);
	if (rc == BF_EEXISTS)
		rc = bf_err_set(err, BF_EEXISTS,
		                "an alert for %s..%s already exists",
		                a->commit_lo, a->commit_hi);
	return rc;
}
