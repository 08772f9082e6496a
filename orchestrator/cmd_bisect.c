#include "cmd.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "cfg.h"
#include "gitrepo.h"
#include "presubmit.h"
#include "store.h"

/*
 * benchfarm bisect: narrow a step between a good and a bad commit to
 * the one commit that caused it. Every probe is a full presubmit
 * compare of the good commit against a midpoint of the first-parent
 * range, on one benchmark, with the configured repeats interleaved on
 * one device; the midpoint is bad when the same series moves the same
 * way as between good and bad. Assumes one cause in the range, as git
 * bisect does.
 */

static const char usage[] =
        "usage: benchfarm bisect -c CONFIG --good REV --bad REV --benchmark "
        "NAME\n"
        "                        [--series NAME] [--metric M] [--repeats "
        "N]\n"
        "                        [--device NAME | --pool LABEL] [--json "
        "FILE]\n"
        "\n"
        "Find the commit of the first-parent range GOOD..BAD that changed\n"
        "benchmark NAME (a config benchmark entry). First confirms the "
        "change:\n"
        "GOOD against BAD must give a regressed or improved verdict; then\n"
        "compares GOOD with midpoints until one commit is left, printing "
        "the\n"
        "evidence (verdict, change and its interval, p) of every probe.\n"
        "\n"
        "    -c, --config FILE     the config\n"
        "        --good REV        a commit without the change\n"
        "        --bad REV         a later commit with it\n"
        "        --benchmark NAME  the config benchmark entry to run\n"
        "        --series NAME     which series it prints (default: the "
        "one that\n"
        "                          changed most between GOOD and BAD)\n"
        "        --metric M        which metric (default: likewise)\n"
        "    -n, --repeats N       runs per side and probe (default: "
        "runs.repeats)\n"
        "        --device NAME     run on this device (or 'local')\n"
        "        --pool LABEL      run on this pool (default: "
        "devices.pool)\n"
        "        --json FILE       write the culprit and every probe as "
        "JSON\n"
        "\n"
        "Exit: 0 culprit found, or no change between GOOD and BAD (said "
        "so);\n"
        "2 usage or config error; 3 infrastructure failure.\n";

struct bisect {
	struct bf_presubmit_opts o;
	const char *good, *bad, *bench, *series, *metric, *json_path;
	struct bf_cfg cfg;
	struct bf_store *store;
	char (*range)[41]; /* good..bad, oldest first; last = bad */
	size_t n;
	char good_id[41];
	const char *verdict; /* what good..bad showed: regressed|improved */
	json_t *probes;
};

enum {
	OPT_GOOD = 256,
	OPT_BAD,
	OPT_BENCH,
	OPT_SERIES,
	OPT_METRIC,
	OPT_DEVICE,
	OPT_POOL,
	OPT_JSON
};

static int parse(struct bisect *b, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "benchmark", required_argument, NULL, OPT_BENCH },
		{ "series", required_argument, NULL, OPT_SERIES },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "repeats", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "pool", required_argument, NULL, OPT_POOL },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_err err = BF_ERR_INIT;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			b->o.config = optarg;
			break;
		case OPT_GOOD:
			b->good = optarg;
			break;
		case OPT_BAD:
			b->bad = optarg;
			break;
		case OPT_BENCH:
			b->bench = optarg;
			break;
		case OPT_SERIES:
			b->series = optarg;
			break;
		case OPT_METRIC:
			b->metric = optarg;
			break;
		case OPT_DEVICE:
			b->o.device = optarg;
			break;
		case OPT_POOL:
			b->o.pool = optarg;
			break;
		case OPT_JSON:
			b->json_path = optarg;
			break;
		case 'n':
			if (bf_parse_int_range(&b->o.repeats, optarg, 2, 100000,
			                       &err))
				return bf_cmd_fail(BF_EXIT_USAGE, "bisect",
				                   "--repeats: %s", err.msg);
			break;
		case 'h':
			fputs(usage, stdout);
			return BF_EXIT_OK;
		default:
			fputs(usage, stderr);
			return BF_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "bisect",
		                   "unexpected argument '%s'", argv[optind]);
	if (!b->good || !b->bad || !b->bench)
		return bf_cmd_fail(BF_EXIT_USAGE, "bisect",
		                   "--good, --bad and --benchmark are required "
		                   "(see --help)");
	return -1;
}

static int check_bench(const struct bisect *b)
{
	for (size_t i = 0; i < b->cfg.nbenchmarks; i++)
		if (!strcmp(b->cfg.benchmarks[i].name, b->bench))
			return -1;
	return bf_cmd_fail(BF_EXIT_USAGE, "bisect",
	                   "%s: no benchmark '%s' in 'benchmarks'", b->cfg.path,
	                   b->bench);
}

static int resolve_range(struct bisect *b)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_gitrepo *repo = NULL;
	char *dir = bf_fs_dirname(b->cfg.path);
	char *path = bf_fs_join(dir, b->cfg.project.repo);
	char *range = bf_xasprintf("%s..%s", b->good, b->bad);
	int ret = bf_gitrepo_open(&repo, path, &err);

	if (!ret)
		ret = bf_gitrepo_resolve(b->good_id, repo, b->good, &err);
	if (!ret)
		ret = bf_gitrepo_first_parent_range(repo, range, &b->range,
		                                    &b->n, &err);
	if (ret)
		ret = bf_cmd_fail(BF_EXIT_USAGE, "bisect", "%s", err.msg);
	else if (!b->n)
		ret = bf_cmd_fail(BF_EXIT_USAGE, "bisect",
		                  "%s has no commit: is %s an ancestor of %s?",
		                  range, b->good, b->bad);
	else
		ret = -1;
	bf_gitrepo_free(repo);
	free(range);
	free(dir);
	free(path);
	return ret;
}

/* The result's series this bisect follows; NULL when none fits. */
static json_t *pick_series(const struct bisect *b, json_t *result,
                           bool need_change)
{
	json_t *best = NULL, *r;
	double best_effect = -1;
	size_t i;

	json_array_foreach(json_object_get(result, "results"), i, r)
	{
		const char *v = bf_json_str_or(r, "verdict", "");
		double e =
		        fabs(json_number_value(json_object_get(r, "effect")));

		if ((b->series &&
		     strcmp(bf_json_str_or(r, "name", ""), b->series)) ||
		    (b->metric &&
		     strcmp(bf_json_str_or(r, "metric", ""), b->metric)))
			continue;
		if (need_change && strcmp(v, "regressed") &&
		    strcmp(v, "improved"))
			continue;
		if (e > best_effect) {
			best = r;
			best_effect = e;
		}
	}
	return best;
}

/* Compare good with commit; *out the followed series. Exit code or -1. */
static int probe(json_t **out, struct bisect *b, const char *commit, bool first)
{
	json_t *result = NULL, *s;
	int ret;

	b->o.base = b->good_id;
	b->o.patch = commit;
	b->o.result_out = &result;
	ret = bf_presubmit_run(&b->o, &b->cfg, b->store);
	if (ret == BF_EXIT_INFRA || ret == BF_EXIT_USAGE || !result) {
		json_decref(result);
		return bf_cmd_fail(ret ? ret : BF_EXIT_INFRA, "bisect",
		                   "the probe of %.12s failed (see above)",
		                   commit);
	}
	s = pick_series(b, result, first);
	if (s && first) {
		b->series = bf_xstrdup(bf_json_str_or(s, "name", ""));
		b->metric = bf_xstrdup(bf_json_str_or(s, "metric", ""));
		b->verdict = bf_xstrdup(bf_json_str_or(s, "verdict", ""));
	}
	*out = s ? json_incref(s) : NULL;
	json_decref(result);
	return -1;
}

static void add_probe(struct bisect *b, const char *commit, const json_t *s,
                      bool bad)
{
	const char *verdict = s ? bf_json_str_or(s, "verdict", "?") : "missing";
	double effect =
	        s ? json_number_value(json_object_get(s, "effect")) : NAN;

	printf("  %.12s  %-9s %+6.1f%% [%+.1f%%, %+.1f%%] p=%.3g  -> %s\n",
	       commit, verdict, 100 * effect,
	       s ? 100 * json_number_value(json_object_get(s, "ci_low")) : NAN,
	       s ? 100 * json_number_value(json_object_get(s, "ci_high")) : NAN,
	       s ? json_number_value(json_object_get(s, "p_adjusted")) : NAN,
	       bad ? "bad" : "good");
	fflush(stdout);
	json_array_append_new(b->probes,
	                      json_pack("{s:s, s:s, s:b, s:O}", "commit",
	                                commit, "verdict", verdict, "bad", bad,
	                                "series", s ? s : json_null()));
}

static int run_bisect(struct bisect *b)
{
	json_t *s = NULL, *out;
	size_t lo = 0, hi = b->n; /* [0] = good, [k] = range[k - 1] */
	struct bf_err err = BF_ERR_INIT;
	int ret;

	printf("bisect %s over %zu commits of %.12s..%.12s\n", b->bench, b->n,
	       b->good_id, b->range[b->n - 1]);
	if ((ret = probe(&s, b, b->range[b->n - 1], true)) >= 0)
		return ret;
	if (!s) {
		printf("no change between %.12s and %.12s reproduces for %s: "
		       "nothing to bisect\n",
		       b->good_id, b->range[b->n - 1], b->bench);
		out = json_pack("{s:s, s:n, s:O}", "kind", "bisect", "culprit",
		                "probes", b->probes);
		goto write;
	}
	printf("  following %s %s: %s between good and bad\n", b->series,
	       b->metric, b->verdict);
	add_probe(b, b->range[b->n - 1], s, true);
	json_decref(s);
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		const char *c = b->range[mid - 1];
		bool bad;

		if ((ret = probe(&s, b, c, false)) >= 0)
			return ret;
		bad = s &&
		      !strcmp(bf_json_str_or(s, "verdict", ""), b->verdict);
		add_probe(b, c, s, bad);
		json_decref(s);
		if (bad)
			hi = mid;
		else
			lo = mid;
	}
	printf("culprit: %s\n", b->range[hi - 1]);
	out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:O}", "kind", "bisect",
	                "benchmark", b->bench, "series", b->series, "metric",
	                b->metric, "direction", b->verdict, "culprit",
	                b->range[hi - 1], "probes", b->probes);
write:
	ret = BF_EXIT_OK;
	if (b->json_path &&
	    bf_json_write_file(out, b->json_path, true, true, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "bisect", "%s", err.msg);
	json_decref(out);
	return ret;
}

int cmd_bisect(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bisect b;
	const char *series0, *metric0;
	int ret;

	memset(&b, 0, sizeof(b));
	b.o = (struct bf_presubmit_opts)BF_PRESUBMIT_OPTS_INIT;
	if ((ret = parse(&b, argc, argv)) >= 0)
		return ret;
	series0 = b.series;
	metric0 = b.metric;
	if ((ret = bf_cmd_load_cfg(&b.cfg, "bisect", b.o.config)))
		return ret;
	b.store = ctx->store;
	b.o.only_bench = b.bench;
	b.o.quiet = true;
	b.o.progress = isatty(2);
	b.probes = json_array();
	if ((ret = check_bench(&b)) < 0 && (ret = resolve_range(&b)) < 0)
		ret = run_bisect(&b);
	if (b.series != series0)
		free((char *)b.series);
	if (b.metric != metric0)
		free((char *)b.metric);
	free((char *)b.verdict);
	free(b.range);
	json_decref(b.probes);
	bf_cfg_release(&b.cfg);
	return ret;
}
