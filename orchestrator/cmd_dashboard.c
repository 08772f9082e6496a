#include "cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/parse.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "postsubmit/detect.h"
#include "postsubmit/history.h"
#include "report/plugins.h"
#include "store/store.h"

/*
 * benchfarm dashboard: the postsubmit history as one self-contained HTML
 * page (the html reporter): each series over the commits of
 * project.target_branch with the spread of its runs, the alerts on it
 * with their state, a link per commit from project.commit_url.
 */

static const char dashboard_usage[] =
        "usage: benchfarm dashboard -c CONFIG [--device NAME | --pool "
        "LABEL]...\n"
        "                           [--suite GLOB] [--benchmark GLOB] "
        "[--metric GLOB]\n"
        "                           [--range A..B] [-o FILE] [--json "
        "FILE]\n"
        "\n"
        "Write the recorded history as one HTML page that needs no "
        "network: for\n"
        "each series (config benchmark entry, benchmark, metric, device "
        "class)\n"
        "one point per measured commit of project.target_branch (the "
        "median\n"
        "over its runs, as 'benchfarm detect' fits it) with the least and\n"
        "greatest run, the alerts on it with their state, zoom and pan, "
        "filters,\n"
        "and a link per commit when the config sets project.commit_url.\n"
        "\n"
        "    -c, --config FILE      the config\n"
        "        --device NAME      a device class to show; repeat for "
        "more\n"
        "        --pool LABEL       (default: devices.pool)\n"
        "        --suite GLOB       only config benchmark entries matching "
        "GLOB\n"
        "        --benchmark GLOB   only benchmarks matching GLOB\n"
        "        --metric GLOB      only metrics matching GLOB\n"
        "        --range A..B       only the first-parent commits of A..B\n"
        "    -o, --output FILE      the page (default: dashboard.html; "
        "'-': stdout)\n"
        "        --json FILE        also the page's data as JSON\n"
        "\n"
        "Exit: 0 written (also with no series: the page says so), 2 usage "
        "or\n"
        "config error, 3 the store, repository or file failed.\n";

enum { OPT_JSON = 256 };

struct dash_opts {
	struct bf_cmd_args sel;
	const char *output, *json;
};

/* dashboard's own options: -o FILE, --json FILE. */
static int take(void *arg, int c, const char *val)
{
	struct dash_opts *o = arg;

	if (c == 'o')
		o->output = val;
	else if (c == OPT_JSON)
		o->json = val;
	return 0;
}

static int parse(struct dash_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const struct bf_cmd_parser cmd = {
		.name = "dashboard",
		.usage = dashboard_usage,
		.groups = BF_CMD_OPTS_CLASSES | BF_CMD_OPTS_SERIES,
		.max_classes = BF_CMD_MAX_CLASSES,
		.opts = opts,
		.shortopts = "o:",
		.take = take,
		.arg = o,
	};

	return bf_cmd_parse(&o->sel, argc, argv, &cmd);
}

/* project.commit_url: an http(s) URL with "{commit}" in it. */
static int check_commit_url(const struct bf_cfg *cfg)
{
	const char *u = cfg->project.commit_url;

	if (!u || ((!strncmp(u, "https://", 8) || !strncmp(u, "http://", 7)) &&
	           strstr(u, "{commit}")))
		return 0;
	return bf_cmd_fail(BF_EXIT_USAGE, "dashboard",
	                   "%s: project.commit_url: '%s' is not an http(s) "
	                   "URL with {commit} in it (for example "
	                   "https://github.com/OWNER/REPO/commit/{commit})",
	                   cfg->path, u);
}

static json_t *commits_json(struct bf_gitrepo *repo, char (*ids)[41], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		struct bf_gitcommit c = BF_GITCOMMIT_INIT;
		struct bf_err err = BF_ERR_INIT;
		bool ok = !bf_gitrepo_commit_info(repo, ids[i], &c, &err);

		json_array_append_new(
		        a,
		        json_pack("{s:s, s:I, s:s}", "id", ids[i], "time",
		                  (json_int_t)(ok ? c.author_time : 0),
		                  "subject", ok && c.subject ? c.subject : ""));
		bf_gitcommit_release(&c);
		bf_err_clear(&err);
	}
	return a;
}

/*
 * One series: its values (null where a commit has no point) and its
 * spread in pairs: how far the least run is below the value and the
 * greatest above it, in whole per mille of the value (small numbers
 * without a sign keep 100 series of 1,000 points small).
 */
static json_t *series_json(const struct bf_cfg *cfg, const char *klass,
                           const struct bf_history *h,
                           const struct bf_hist_series *s, size_t n)
{
	bool higher, judged = bf_cfg_metric_wanted(
	                     bf_cfg_find_benchmark(cfg, s->suite), s->metric,
	                     s->unit, &higher);
	json_t *v = json_array(), *sp = json_array(), *same = json_array();
	long prev = -1;

	for (size_t k = 0; k < n; k++) {
		double x = s->v[k];
		bool rel = !isnan(x) && x != 0;

		/* 1 where the point's build is the previous point's */
		json_array_append_new(
		        same, json_integer(!isnan(x) && prev >= 0 &&
		                           bf_history_same_build(
		                                   h, (size_t)prev, k)));
		if (!isnan(x))
			prev = (long)k;

		json_array_append_new(v, isnan(x) ? json_null() : json_real(x));
		json_array_append_new(
		        sp,
		        json_integer(rel ? (json_int_t)lround(
		                                   1000 * (1 - s->lo[k] / x))
		                         : 0));
		json_array_append_new(
		        sp,
		        json_integer(rel ? (json_int_t)lround(
		                                   1000 * (s->hi[k] / x - 1))
		                         : 0));
	}
	return json_pack(
	        "{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "device_class",
	        klass, "suite", s->suite, "benchmark", s->benchmark, "metric",
	        s->metric, "unit", s->unit, "better",
	        judged ? json_string(higher ? "higher" : "lower") : json_null(),
	        "values", v, "spread", sp, "same_build", same);
}

static json_t *alert_json(const struct bf_store_alert *a)
{
	return json_pack(
	        "{s:I, s:s, s:s?, s:s, s:s, s:s, s:s, s:s, s:f, "
	        "s:s, s:s?}",
	        "id", (json_int_t)a->id, "device_class",
	        a->device_class ? a->device_class : "", "suite", a->suite,
	        "benchmark", a->benchmark, "metric", a->metric, "commit_lo",
	        a->commit_lo, "commit_hi", a->commit_hi, "direction",
	        a->direction ? a->direction : "", "size", a->size, "status",
	        a->status ? a->status : "open", "culprit", a->culprit);
}

/*
 * The environment shifts detect finds on class (without storing
 * anything), each with its device class, appended to out. A detection
 * that fails leaves them out: the page still shows the history.
 */
static void add_env_shifts(json_t *out, const struct bf_cfg *cfg,
                           struct bf_store *store, const char *klass)
{
	struct bf_detect_opts d = BF_DETECT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *det = NULL, *e;
	size_t i;

	d.device_class = klass;
	d.store_alerts = false;
	if (bf_postsubmit_detect(&det, cfg, store, &d, &err)) {
		BF_LOG_WARN("dashboard: no environment shifts of '%s': %s",
		            klass, err.msg);
		return;
	}
	json_array_foreach(json_object_get(det, "environment_shifts"), i, e)
	{
		json_t *c = json_deep_copy(e);

		json_object_set_new(c, "device_class", json_string(klass));
		json_array_append_new(out, c);
	}
	json_decref(det);
}

/* The page's data: commits, the selected series and their alerts. */
static int build(json_t **out, const struct dash_opts *o,
                 const struct bf_cfg *cfg, struct bf_store *store,
                 struct bf_gitrepo *repo, char (*ids)[41], size_t n,
                 struct bf_err *err)
{
	json_t *series = json_array(), *alerts = json_array(), *classes;
	json_t *shifts = json_array();
	char **idv = bf_xcalloc(n + 1, sizeof(*idv));
	struct bf_store_alert *al = NULL;
	size_t nal = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		idv[i] = ids[i];
	classes = json_array();
	for (size_t c = 0; !rc && c < o->sel.nklass; c++) {
		struct bf_history h = { 0 };

		json_array_append_new(classes, json_string(o->sel.klass[c]));
		rc = bf_history_load(&h, store, o->sel.klass[c], idv, n, err);
		for (size_t i = 0; !rc && i < h.n; i++) {
			const struct bf_hist_series *s = &h.series[i];

			if (s->npoints &&
			    bf_cmd_series_matches(&o->sel, s->suite,
			                          s->benchmark, s->metric))
				json_array_append_new(
				        series,
				        series_json(cfg, o->sel.klass[c], &h, s,
				                    n));
		}
		bf_history_release(&h);
		if (!rc)
			add_env_shifts(shifts, cfg, store, o->sel.klass[c]);
	}
	if (!rc)
		rc = bf_store_alert_list(&al, &nal, store, NULL, err);
	for (size_t i = 0; !rc && i < nal; i++)
		for (size_t c = 0; c < o->sel.nklass; c++)
			if (!strcmp(al[i].device_class ? al[i].device_class
			                               : "",
			            o->sel.klass[c]))
				json_array_append_new(alerts,
				                      alert_json(&al[i]));
	bf_store_alerts_free(al, nal);
	free(idv);
	if (rc) {
		json_decref(series);
		json_decref(alerts);
		json_decref(classes);
		json_decref(shifts);
		return rc;
	}
	*out = json_pack("{s:s, s:s, s:s, s:s?, s:o, s:o, s:o, s:o, s:o}",
	                 "benchfarm", BF_VERSION, "kind", "dashboard", "branch",
	                 cfg->project.target_branch ? cfg->project.target_branch
	                                            : "HEAD",
	                 "commit_url", cfg->project.commit_url,
	                 "device_classes", classes, "commits",
	                 commits_json(repo, ids, n), "series", series, "alerts",
	                 alerts, "environment_shifts", shifts);
	return 0;
}

static int write_page(const json_t *doc, const struct dash_opts *o,
                      const struct bf_cfg *cfg)
{
	struct bf_report_opts ro = BF_REPORT_OPTS_INIT;
	struct bf_host_ssh gerrit;
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	int rc;

	bf_report_opts_from_cfg(&ro, &gerrit, cfg);
	rc = bf_report_render(&r, bf_plugin_find("html", NULL), doc, &ro,
	                      bf_host_default(), &err);
	if (!rc)
		rc = bf_report_write(r,
		                     o->output ? o->output : "dashboard.html",
		                     NULL, &err);
	if (!rc && o->json) {
		char *text = json_dumps(doc, JSON_INDENT(1));

		rc = bf_fs_write_atomic(o->json, text, strlen(text), 0644,
		                        &err);
		if (rc)
			bf_err_prefix(&err, "--json");
		free(text);
	}
	if (rc)
		rc = bf_cmd_fail(BF_EXIT_INFRA, "dashboard", "%s", err.msg);
	bf_report_free(r);
	bf_err_clear(&err);
	return rc;
}

int cmd_dashboard(int argc, char **argv, struct bf_ctx *ctx)
{
	struct dash_opts o = { 0 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_gitrepo *repo = NULL;
	char(*ids)[41] = NULL;
	size_t n = 0;
	json_t *doc = NULL;
	struct bf_cfg cfg;
	int ret = parse(&o, argc, argv), rc;

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "dashboard", o.sel.config)))
		return ret;
	if ((ret = check_commit_url(&cfg)))
		goto out;
	if (!o.sel.nklass)
		o.sel.klass[o.sel.nklass++] = cfg.devices.pool;
	rc = bf_history_commits(&ids, &n, &repo, &cfg, o.sel.range, &err);
	if (!rc)
		rc = build(&doc, &o, &cfg, ctx->store, repo, ids, n, &err);
	if (rc) {
		ret = bf_cmd_fail(err.code == BF_EINVAL ||
		                                  err.code == BF_ENOTFOUND
		                          ? BF_EXIT_USAGE
		                          : BF_EXIT_INFRA,
		                  "dashboard", "%s", err.msg);
		goto out;
	}
	if (!json_array_size(json_object_get(doc, "series")))
		fprintf(stderr,
		        "benchfarm: dashboard: no series recorded over these "
		        "%zu commit%s matches; the page says so\n",
		        n, n == 1 ? "" : "s");
	ret = write_page(doc, &o, &cfg);
out:
	bf_err_clear(&err);
	json_decref(doc);
	free(ids);
	bf_gitrepo_free(repo);
	bf_cfg_release(&cfg);
	return ret;
}
