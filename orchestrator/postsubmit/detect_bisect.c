#include "postsubmit/detect.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "postsubmit/bisect.h"
#include "store/store.h"

/*
 * detect --bisect: each alert this detect stored whose commit range has
 * unmeasured commits in it (the history skipped them) is bisected down
 * to its culprit, which is recorded with the alert.
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

/* Bisect one alert (JSON of the detect result); 0 or an error code. */
static int bisect_alert(json_t *a, const struct bf_cfg *cfg,
                        struct bf_store *store,
                        const struct bf_bisect_opts *base, struct bf_err *err)
{
	struct bf_bisect_opts o = *base;
	json_t *r = NULL, *culprit;
	json_int_t id = json_integer_value(json_object_get(a, "id"));
	int ret;

	o.good = bf_json_str_or(a, "commit_lo", "");
	o.bad = bf_json_str_or(a, "commit_hi", "");
	o.bench = bf_json_str_or(a, "suite", "");
	o.series = bf_json_str_or(a, "benchmark", "");
	o.metric = bf_json_str_or(a, "metric", "");
	ret = bf_bisect_run(&r, cfg, store, &o, err);
	if (ret) {
		json_object_set_new(a, "bisect",
		                    json_pack("{s:s}", "error", err->msg));
		return ret;
	}
	culprit = json_object_get(r, "culprit");
	json_object_set(a, "culprit", culprit);
	if (json_is_string(culprit) && id > 0)
		ret = bf_store_alert_set_culprit(
		        store, (int64_t)id, json_string_value(culprit), err);
	json_object_set_new(a, "bisect", r);
	return ret;
}

int bf_detect_bisect(json_t *result, const struct bf_cfg *cfg,
                     struct bf_store *store, const struct bf_bisect_opts *o,
                     struct bf_err *err)
{
	char *dir = bf_fs_dirname(cfg->path);
	char *path = bf_fs_join(dir, cfg->project.repo);
	struct bf_gitrepo *repo = NULL;
	struct bf_err one = BF_ERR_INIT;
	int ret = bf_gitrepo_open(&repo, path, err);
	size_t i, failed = 0;
	json_t *a;

	json_array_foreach(json_object_get(result, "alerts"), i, a)
	{
		if (ret || !json_is_true(json_object_get(a, "new")) ||
		    range_len(repo, bf_json_str_or(a, "commit_lo", ""),
		              bf_json_str_or(a, "commit_hi", "")) < 2)
			continue;
		if (bisect_alert(a, cfg, store, o, &one)) {
			if (o->log)
				fprintf(o->log, "bisect of %s %s failed: %s\n",
				        bf_json_str_or(a, "benchmark", "?"),
				        bf_json_str_or(a, "metric", "?"),
				        one.msg);
			if (!failed++)
				bf_err_set(err, BF_ERROR, "%s", one.msg);
		}
	}
	if (!ret && failed)
		ret = BF_ERROR;
	bf_gitrepo_free(repo);
	free(dir);
	free(path);
	return ret;
}
