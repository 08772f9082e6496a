#include "postsubmit/bisect.h"

#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "store/store.h"

/*
 * A stand-alone bisect's culprit with the open alerts it answers: an
 * alert blames its commit_hi (the first measured commit after the step)
 * until a bisect names the commit inside its range that made the step.
 */

/*
 * Whether good..bad lies within the alert's lo..hi on the first-parent
 * history: good is lo or after it, bad is hi or before it (bad after
 * good is the bisect's own check).
 */
static bool within(struct bf_gitrepo *repo, const struct bf_store_alert *a,
                   const char *good, const char *bad)
{
	char *range = bf_xasprintf("%s..%s", a->commit_lo, a->commit_hi);
	char(*oids)[41] = NULL;
	bool good_in = !strcmp(good, a->commit_lo), bad_in = false;
	size_t n = 0;

	if (!bf_gitrepo_first_parent_range(repo, range, &oids, &n, NULL)) {
		for (size_t i = 0; i < n; i++) {
			good_in = good_in || !strcmp(oids[i], good);
			bad_in = bad_in || !strcmp(oids[i], bad);
		}
	}
	free(oids);
	free(range);
	return good_in && bad_in;
}

/* Whether the bisect result answers stored alert a (not yet its range). */
static bool answers(const json_t *result, const struct bf_store_alert *a,
                    const char *klass)
{
	return !strcmp(a->status ? a->status : "open", "open") &&
	       !strcmp(a->suite ? a->suite : "",
	               bf_json_str_or(result, "benchmark", "")) &&
	       !strcmp(a->device_class ? a->device_class : "", klass) &&
	       bf_bisect_explains(result, a->benchmark, a->metric,
	                          a->direction);
}

/* Store the culprit with a, say so, and add it to the result's list. */
static int record(json_t *list, struct bf_store *store,
                  const struct bf_store_alert *a, const char *culprit,
                  FILE *log, struct bf_err *err)
{
	bool same = !strcmp(culprit, a->commit_hi);
	int ret = bf_store_alert_set_culprit(store, a->id, culprit, err);

	if (ret)
		return ret;
	if (log && same)
		bf_text_printf(
		        log,
		        "alert %lld (%s %s, %.12s..%.12s): culprit %.12s "
		        "recorded, the alert's commit_hi\n",
		        (long long)a->id, a->benchmark, a->metric, a->commit_lo,
		        a->commit_hi, culprit);
	else if (log)
		bf_text_printf(
		        log,
		        "alert %lld (%s %s, %.12s..%.12s): culprit %.12s "
		        "recorded; it is not %.12s, the alert's commit_hi, "
		        "which the alert blamed until now\n",
		        (long long)a->id, a->benchmark, a->metric, a->commit_lo,
		        a->commit_hi, culprit, a->commit_hi);
	json_array_append_new(
	        list, json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:b}", "id",
	                        (json_int_t)a->id, "benchmark", a->benchmark,
	                        "metric", a->metric, "commit_lo", a->commit_lo,
	                        "commit_hi", a->commit_hi, "culprit", culprit,
	                        "culprit_is_commit_hi", same));
	return 0;
}

int bf_bisect_record_alerts(json_t *result, const struct bf_cfg *cfg,
                            struct bf_store *store, const char *klass,
                            FILE *log, struct bf_err *err)
{
	const char *culprit = bf_json_str_or(result, "culprit", NULL);
	const char *good = bf_json_str_or(result, "good", "");
	const char *bad = bf_json_str_or(result, "bad", "");
	struct bf_store_alert *alerts = NULL;
	struct bf_gitrepo *repo = NULL;
	char *dir = NULL, *path = NULL;
	json_t *list = json_array();
	size_t n = 0;
	int ret = 0;

	json_object_set_new(result, "alerts", list);
	if (!culprit)
		return 0;
	dir = bf_fs_dirname(cfg->path);
	path = bf_fs_join(dir, cfg->project.repo);
	ret = bf_store_alert_list(&alerts, &n, store, "open", err);
	if (!ret && n)
		ret = bf_gitrepo_open(&repo, path, err);
	for (size_t i = 0; !ret && i < n; i++) {
		if (answers(result, &alerts[i], klass) &&
		    within(repo, &alerts[i], good, bad))
			ret = record(list, store, &alerts[i], culprit, log,
			             err);
	}
	if (!ret && log && !json_array_size(list))
		bf_text_printf(log,
		               "no open alert of %s over %.12s..%.12s on %s "
		               "to record the culprit with\n",
		               bf_json_str_or(result, "benchmark", "?"), good,
		               bad, klass);
	bf_gitrepo_free(repo);
	bf_store_alerts_free(alerts, n);
	free(dir);
	free(path);
	return ret;
}
