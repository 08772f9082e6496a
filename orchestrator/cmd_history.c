#include "cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "postsubmit/history.h"

/*
 * benchfarm history: the stored series of the postsubmit history as
 * detect reads them (one point per commit: the median over its runs of
 * each run's median), without opening the database by hand.
 */

static const char history_usage[] =
        "usage: benchfarm history -c CONFIG [--device NAME | --pool LABEL]\n"
        "                         [--suite GLOB] [--benchmark GLOB] "
        "[--metric GLOB]\n"
        "                         [--range A..B] [--last N] [--json]\n"
        "\n"
        "Print the recorded history of each series (config benchmark "
        "entry,\n"
        "benchmark, metric) on the first-parent history of\n"
        "project.target_branch: one point per measured commit, the "
        "median over\n"
        "its runs of each run's median, as 'benchfarm detect' fits it. "
        "Series\n"
        "of metrics the config no longer measures are shown, marked as "
        "not\n"
        "judged.\n"
        "\n"
        "BUILD says 'same' where the point's build is the previous "
        "point's (a\n"
        "change between them is the machine's) and '=' where the commit "
        "was not\n"
        "measured: it is the same build as the commit whose point it "
        "shows.\n"
        "\n"
        "    -c, --config FILE      the config\n"
        "        --device NAME      the history of this device (default:\n"
        "        --pool LABEL       devices.pool)\n"
        "        --suite GLOB       only config benchmark entries matching "
        "GLOB\n"
        "        --benchmark GLOB   only benchmarks matching GLOB (as the\n"
        "                           program names them; '*' and '?' as in "
        "a\n"
        "                           shell)\n"
        "        --metric GLOB      only metrics matching GLOB\n"
        "        --range A..B       only the first-parent commits of A..B\n"
        "                           (default: all of "
        "project.target_branch)\n"
        "        --last N           only each series' newest N points\n"
        "        --json             the series as JSON, for machines\n"
        "\n"
        "Exit: 0 (also when nothing matches: it says so on stderr), 2 "
        "usage\n"
        "or config error, 3 the store or repository failed.\n";

enum { OPT_LAST = 256 };

struct hist_opts {
	struct bf_cmd_args sel;
	int last; /* 0: every point */
	bool json;
};

/* The first index of s's newest o->last points (0: all of them). */
static size_t first_shown(const struct hist_opts *o,
                          const struct bf_hist_series *s, size_t ncommits)
{
	size_t seen = 0;

	if (!o->last)
		return 0;
	for (size_t k = ncommits; k-- > 0;)
		if (!isnan(s->v[k]) && ++seen == (size_t)o->last)
			return k;
	return 0;
}

/*
 * A point: its commit and value, the build it measured ("build", null
 * when not known) and "same_build" when that build is the previous
 * point's (any change between them is the machine's), and the commit
 * whose measurement it is when it was not measured itself.
 */
static json_t *point_json(const struct bf_history *h,
                          const struct bf_hist_series *s, char (*commits)[41],
                          size_t k, long prev)
{
	const struct bf_hist_commit *c = &h->commit[k];
	/* a value JSON cannot hold is null, never a point left out */
	json_t *p = json_pack(
	        "{s:s, s:o, s:s?, s:b}", "commit", commits[k], "value",
	        isfinite(s->v[k]) ? json_real(s->v[k]) : json_null(), "build",
	        c->build_id, "same_build",
	        prev >= 0 && bf_history_same_build(h, (size_t)prev, k));

	if (c->measured_by && c->measured_by != c->run_id) {
		for (size_t i = 0; i < h->ncommits; i++)
			if (h->commit[i].run_id == c->measured_by)
				json_object_set_new(p, "measured_as",
				                    json_string(commits[i]));
	}
	return p;
}

static json_t *series_json(const struct hist_opts *o, const struct bf_cfg *cfg,
                           const struct bf_history *h,
                           const struct bf_hist_series *s, char (*commits)[41],
                           size_t ncommits)
{
	bool higher, judged = bf_cfg_metric_wanted(
	                     bf_cfg_find_benchmark(cfg, s->suite), s->metric,
	                     s->unit, &higher);
	json_t *pts = json_array();
	size_t first = first_shown(o, s, ncommits);
	long prev = -1;

	for (size_t k = 0; k < ncommits; k++) {
		if (isnan(s->v[k]))
			continue;
		if (k >= first)
			json_array_append_new(
			        pts, point_json(h, s, commits, k, prev));
		prev = (long)k;
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:o}", "suite",
	                 s->suite, "benchmark", s->benchmark, "metric",
	                 s->metric, "unit", s->unit, "better",
	                 judged ? json_string(higher ? "higher" : "lower")
	                        : json_null(),
	                 "judged", judged, "points", pts);
}

/* One series as a table: commit, value, change from the point before. */
static void print_series(const json_t *j, struct bf_gitrepo *repo)
{
	const json_t *pts = json_object_get(j, "points");
	const char *unit = bf_json_str_or(j, "unit", "");
	double prev = NAN;
	size_t i;
	json_t *p;

	const char *better = bf_json_str_or(j, "better", NULL);

	bf_text_printf(
	        stdout, "%s %s %s (%s%s%s%s): %zu point%s\n",
	        bf_json_str_or(j, "suite", "?"),
	        bf_json_str_or(j, "benchmark", "?"),
	        bf_json_str_or(j, "metric", "?"), unit, *unit ? ", " : "",
	        better ? better : "not judged: not in its benchmark's metrics:",
	        better ? " is better" : "", json_array_size(pts),
	        json_array_size(pts) == 1 ? "" : "s");
	bf_text_printf(stdout, "  %-12s %14s %8s %-5s %s\n", "COMMIT", "VALUE",
	               "CHANGE", "BUILD", "SUBJECT");
	json_array_foreach(pts, i, p)
	{
		double v = json_number_value(json_object_get(p, "value"));
		const char *id = bf_json_str_or(p, "commit", "?");
		struct bf_gitcommit info = BF_GITCOMMIT_INIT;
		struct bf_err err = BF_ERR_INIT;
		char change[32] = "";

		if (!json_is_number(json_object_get(p, "value")))
			v = NAN; /* printed "nan": shown, not dropped */
		if (isfinite(prev) && prev != 0 && isfinite(v))
			snprintf(change, sizeof(change), "%+.1f%%",
			         100 * (v - prev) / prev);
		if (bf_gitrepo_commit_info(repo, id, &info, &err))
			info.subject = NULL;
		/* "same": the previous point's build, "=": measured as it */
		bf_text_printf(stdout, "  %.12s %14.6g %8s %-5s %.60s\n", id, v,
		               change,
		               json_object_get(p, "measured_as") ? "="
		               : json_is_true(json_object_get(p, "same_build"))
		                       ? "same"
		                       : "",
		               info.subject ? info.subject : "");
		bf_gitcommit_release(&info);
		prev = v;
	}
}

/* history's own options: --last N, --json. */
static int take(void *arg, int c, const char *val)
{
	struct hist_opts *o = arg;
	struct bf_err err = BF_ERR_INIT;

	if (c == 'j')
		o->json = true;
	else if (c == OPT_LAST &&
	         bf_parse_int_range(&o->last, val, 1, 1000000000, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "history", "--last: %s",
		                   err.msg);
	return 0;
}

static int parse(struct hist_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "last", required_argument, NULL, OPT_LAST },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bf_cmd_parser cmd = {
		.name = "history",
		.usage = history_usage,
		.groups = BF_CMD_OPTS_CLASSES | BF_CMD_OPTS_SERIES,
		.max_classes = 1,
		.opts = opts,
		.shortopts = "",
		.take = take,
		.arg = o,
	};

	return bf_cmd_parse(&o->sel, argc, argv, &cmd);
}

int cmd_history(int argc, char **argv, struct bf_ctx *ctx)
{
	struct hist_opts o = { 0 };
	struct bf_err err = BF_ERR_INIT;
	const char *klass;
	struct bf_gitrepo *repo = NULL;
	struct bf_history h = { 0 };
	char(*commits)[41] = NULL;
	char **ids = NULL;
	size_t n = 0;
	json_t *series, *doc = NULL;
	struct bf_cfg cfg;
	int ret = parse(&o, argc, argv), rc;

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "history", o.sel.config)))
		return ret;
	klass = o.sel.nklass ? o.sel.klass[0] : cfg.devices.pool;
	rc = bf_history_commits(&commits, &n, &repo, &cfg, o.sel.range, &err);
	if (!rc) {
		ids = bf_xcalloc(n + 1, sizeof(*ids));
		for (size_t i = 0; i < n; i++)
			ids[i] = commits[i];
		rc = bf_history_load(&h, ctx->store, klass, ids, n, &err);
	}
	if (rc) {
		ret = bf_cmd_fail(err.code == BF_EINVAL ||
		                                  err.code == BF_ENOTFOUND
		                          ? BF_EXIT_USAGE
		                          : BF_EXIT_INFRA,
		                  "history", "%s", err.msg);
		goto out;
	}
	series = json_array();
	for (size_t i = 0; i < h.n; i++)
		if (bf_cmd_series_matches(&o.sel, h.series[i].suite,
		                          h.series[i].benchmark,
		                          h.series[i].metric))
			json_array_append_new(series, series_json(&o, &cfg, &h,
			                                          &h.series[i],
			                                          commits, n));
	doc = json_pack("{s:s, s:s, s:s, s:I, s:o}", "benchfarm", BF_VERSION,
	                "kind", "history", "device_class", klass, "commits",
	                (json_int_t)n, "series", series);
	if (!json_array_size(series))
		fprintf(stderr,
		        "benchfarm: history: none of the %zu series stored on "
		        "device class '%s' over these %zu commits matches\n",
		        h.n, klass, n);
	if (o.json) {
		bf_json_print(doc, stdout);
	} else {
		size_t i;
		json_t *s;

		json_array_foreach(series, i, s)
		{
			if (i)
				putchar('\n');
			print_series(s, repo);
		}
	}
out:
	json_decref(doc);
	bf_history_release(&h);
	free(ids);
	free(commits);
	bf_gitrepo_free(repo);
	bf_cfg_release(&cfg);
	return ret;
}
