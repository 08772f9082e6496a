#include "postsubmit/detect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "postsubmit/bisect.h"
#include "store/store.h"

/*
 * detect --bisect: each alert this detect stored whose commit range has
 * unmeasured commits in it (the history skipped them) is bisected down
 * to its culprit, which is recorded with the alert. The alerts of one
 * suite over the same range are one step: it is bisected once, on the
 * alert whose change the detector is surest of (the largest |score|,
 * when they share a detector: scores of different detectors are on
 * different scales, and then the bisect follows the clearest change of
 * the suite between the range's ends, as a stand-alone bisect does).
 * The culprit is recorded with each alert of the step whose series
 * moved in the alert's direction between the ends (bf_bisect_explains).
 */

/* The number of first-parent commits in lo..hi, or 0 on error. */
static size_t range_len(struct bf_gitrepo *repo, const char *lo, const char *hi)
{
	char *range = bf_xasprintf("%s..%s", lo, hi);
	char(*oids)[41] = NULL;
	size_t n = 0;

	if (bf_gitrepo_first_parent_range(repo, range, &oids, &n, NULL))
		n = 0;
	free(oids);
	free(range);
	return n;
}

/* Stored by this detect, with unmeasured commits in its range. */
static bool needs_bisect(struct bf_gitrepo *repo, const json_t *a)
{
	return json_is_true(json_object_get(a, "new")) &&
	       range_len(repo, bf_json_str_or(a, "commit_lo", ""),
	                 bf_json_str_or(a, "commit_hi", "")) >= 2;
}

static bool same_str(const json_t *a, const json_t *b, const char *key)
{
	return !strcmp(bf_json_str_or(a, key, ""), bf_json_str_or(b, key, ""));
}

/* One step of one suite: the same suite and commit range. */
static bool same_step(const json_t *a, const json_t *b)
{
	return same_str(a, b, "suite") && same_str(a, b, "commit_lo") &&
	       same_str(a, b, "commit_hi");
}

static const char *detector_of(const json_t *a)
{
	return bf_json_str_or(json_object_get(a, "detail"), "detector", "");
}

static double abs_score(const json_t *a)
{
	return fabs(json_number_value(json_object_get(a, "score")));
}

/*
 * The alert of step (the alerts of one step) the bisect follows, and
 * in *choice_out why (a new reference: rule "score", the detector,
 * the alert's series, metric and score, and the runner-up's, or null
 * for a step of one alert); NULL, with *choice_out NULL, when the
 * step's alerts come from different detectors.
 */
static json_t *leader_of(json_t **choice_out, json_t *step)
{
	json_t *best = NULL, *second = NULL, *a;
	size_t i;

	*choice_out = NULL;
	json_array_foreach(step, i, a)
	{
		if (strcmp(detector_of(a),
		           detector_of(json_array_get(step, 0))))
			return NULL;
		if (!best || abs_score(a) > abs_score(best)) {
			second = best;
			best = a;
		} else if (!second || abs_score(a) > abs_score(second)) {
			second = a;
		}
	}
	*choice_out = json_pack(
	        "{s:s, s:s, s:s, s:s, s:f, s:o}", "rule", "score", "detector",
	        detector_of(best), "series",
	        bf_json_str_or(best, "benchmark", ""), "metric",
	        bf_json_str_or(best, "metric", ""), "score",
	        json_number_value(json_object_get(best, "score")), "runner_up",
	        second ? json_pack("{s:s, s:s, s:f}", "series",
	                           bf_json_str_or(second, "benchmark", ""),
	                           "metric",
	                           bf_json_str_or(second, "metric", ""),
	                           "score",
	                           json_number_value(
	                                   json_object_get(second, "score")))
	               : json_null());
	return best;
}

/* The bisect's culprit with one alert of its step; 0 or an error code. */
static int take_culprit(json_t *a, json_t *r, struct bf_store *store,
                        struct bf_err *err)
{
	json_int_t id = json_integer_value(json_object_get(a, "id"));
	const char *culprit = bf_json_str_or(r, "culprit", NULL);

	if (culprit &&
	    !bf_bisect_explains(r, bf_json_str_or(a, "benchmark", ""),
	                        bf_json_str_or(a, "metric", ""),
	                        bf_json_str_or(a, "direction", "")))
		culprit = NULL;
	json_object_set_new(a, "culprit", bf_json_str_or_null(culprit));
	json_object_set(a, "bisect", r);
	if (culprit && id > 0)
		return bf_store_alert_set_culprit(store, (int64_t)id, culprit,
		                                  err);
	return 0;
}

/* Bisect one step (its alerts, JSON of the detect result); 0 or an error. */
static int bisect_step(json_t *step, const struct bf_cfg *cfg,
                       struct bf_store *store,
                       const struct bf_bisect_opts *base, struct bf_err *err)
{
	struct bf_bisect_opts o = *base;
	json_t *choice, *lead = leader_of(&choice, step);
	json_t *first = json_array_get(step, 0), *r = NULL, *a;
	size_t i;
	int ret;

	o.good = bf_json_str_or(first, "commit_lo", "");
	o.bad = bf_json_str_or(first, "commit_hi", "");
	o.bench = bf_json_str_or(first, "suite", "");
	o.series = lead ? bf_json_str_or(lead, "benchmark", "") : NULL;
	o.metric = lead ? bf_json_str_or(lead, "metric", "") : NULL;
	o.choice = choice;
	ret = bf_bisect_run(&r, cfg, store, &o, err);
	json_array_foreach(step, i, a)
	{
		if (ret)
			json_object_set_new(
			        a, "bisect",
			        json_pack("{s:s}", "error", err->msg));
		else if ((ret = take_culprit(a, r, store, err)))
			break;
	}
	json_decref(choice);
	json_decref(r);
	return ret;
}

int bf_detect_bisect(json_t *result, const struct bf_cfg *cfg,
                     struct bf_store *store, const struct bf_bisect_opts *o,
                     struct bf_err *err)
{
	char *dir = bf_fs_dirname(cfg->path);
	char *path = bf_fs_join(dir, cfg->project.repo);
	json_t *alerts = json_object_get(result, "alerts"), *a, *step;
	struct bf_gitrepo *repo = NULL;
	struct bf_err one = BF_ERR_INIT;
	int ret = bf_gitrepo_open(&repo, path, err);
	bool *done = bf_xcalloc(json_array_size(alerts) + 1, sizeof(*done));
	size_t i, failed = 0;

	json_array_foreach(alerts, i, a)
	{
		if (ret || done[i] || !needs_bisect(repo, a))
			continue;
		step = json_array();
		for (size_t j = i; j < json_array_size(alerts); j++) {
			json_t *b = json_array_get(alerts, j);

			if (!done[j] && same_step(a, b) &&
			    needs_bisect(repo, b)) {
				done[j] = true;
				json_array_append(step, b);
			}
		}
		if (bisect_step(step, cfg, store, o, &one)) {
			if (o->log)
				bf_text_printf(
				        o->log, "bisect of %s %s failed: %s\n",
				        bf_json_str_or(a, "benchmark", "?"),
				        bf_json_str_or(a, "metric", "?"),
				        one.msg);
			if (!failed++)
				bf_err_set(err, BF_ERROR, "%s", one.msg);
		}
		json_decref(step);
	}
	if (!ret && failed)
		ret = BF_ERROR;
	bf_gitrepo_free(repo);
	free(done);
	free(dir);
	free(path);
	return ret;
}
