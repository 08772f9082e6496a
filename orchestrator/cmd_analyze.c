#include "cmd.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/numfile.h"
#include "benchfarm/parse.h"
#include "benchfarm/stats.h"
#include "config/cfg.h"
#include "job/compare.h"

static const char usage_text[] =
        "usage: benchfarm analyze compare --base FILE --patch FILE [--alpha "
        "A]\n"
        "                                 [--min-effect F] [--higher-is-better]"
        "\n"
        "                                 [--seed S] [--fail-on-regression] "
        "[--json]\n"
        "   or: benchfarm analyze step --algorithm NAME [--window] FILE\n"
        "\n"
        "compare: the presubmit statistics on two samples, one number a line\n"
        "('#' comments and blank lines skipped): two-sided Mann-Whitney U,\n"
        "bootstrap confidence interval of the relative change of the median\n"
        "(patch/base - 1), and the verdict, the rule and defaults of compare:\n"
        "regressed or improved when p < alpha (default 0.01) and the change\n"
        "lies beyond the minimum effect (default 0.01, 1%), same when the\n"
        "whole interval lies inside it, unknown otherwise. Exit 0, or 1 with\n"
        "--fail-on-regression when regressed, 2 on bad input.\n"
        "\n"
        "step: a step detector on a series; 'benchfarm analyze step -h'.\n";

struct analyze_opts {
	const char *base, *patch;
	struct bf_compare_opts cmp;
	bool json, fail;
};

enum {
	OPT_BASE = 256,
	OPT_PATCH,
	OPT_ALPHA,
	OPT_MIN_EFFECT,
	OPT_HIGHER,
	OPT_SEED,
	OPT_JSON,
	OPT_FAIL,
};

static int number_opt(struct analyze_opts *o, int c, const char *arg)
{
	struct bf_err err = BF_ERR_INIT;
	int ret = 0;

	/* the config settings' ranges, as compare's options */
	if (c == OPT_ALPHA)
		ret = bf_cfg_parse_setting(&o->cmp.alpha, "presubmit.alpha",
		                           arg, &err);
	else if (c == OPT_MIN_EFFECT)
		ret = bf_cfg_parse_setting(&o->cmp.min_effect,
		                           "presubmit.min_effect", arg, &err);
	else if (c == OPT_SEED)
		ret = bf_parse_u64(&o->cmp.seed, arg, &err);
	if (ret)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze", "%s: %s",
		                   c == OPT_ALPHA        ? "--alpha"
		                   : c == OPT_MIN_EFFECT ? "--min-effect"
		                                         : "--seed",
		                   err.msg);
	return -1;
}

static int parse_opts(struct analyze_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "patch", required_argument, NULL, OPT_PATCH },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
		{ "higher-is-better", no_argument, NULL, OPT_HIGHER },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "fail-on-regression", no_argument, NULL, OPT_FAIL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return BF_EXIT_OK;
		} else if (c == '?') {
			fputs(usage_text, stderr);
			return BF_EXIT_USAGE;
		} else if (c == OPT_BASE) {
			o->base = optarg;
		} else if (c == OPT_PATCH) {
			o->patch = optarg;
		} else if (c == OPT_HIGHER) {
			o->cmp.higher_is_better = true;
		} else if (c == OPT_JSON) {
			o->json = true;
		} else if (c == OPT_FAIL) {
			o->fail = true;
		} else if ((ret = number_opt(o, c, optarg)) >= 0) {
			return ret;
		}
	}
	if (!o->base || !o->patch || optind != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze compare",
		                   "need --base FILE and --patch FILE");
	return -1;
}

static void print_text(const struct bf_compare_result *r)
{
	printf("base:    n=%zu median=%.6g mad=%.6g cv=%.2f%%\n", r->base.n,
	       r->base.median, r->base.mad, 100 * r->base.cv);
	printf("patch:   n=%zu median=%.6g mad=%.6g cv=%.2f%%\n", r->patch.n,
	       r->patch.median, r->patch.mad, 100 * r->patch.cv);
	printf("change:  %+.2f%% [%+.2f%%, %+.2f%%]\n", 100 * r->effect,
	       100 * r->ci_low, 100 * r->ci_high);
	printf("p-value: %.6g (Mann-Whitney U = %g)\n", r->p_value, r->u);
	printf("verdict: %s\n", bf_verdict_name(r->verdict));
}

static void print_json(const struct bf_compare_result *r)
{
	json_t *o = json_object();
	char *text;

	json_object_set_new(o, "verdict",
	                    json_string(bf_verdict_name(r->verdict)));
	json_object_set_new(o, "p_value", bf_json_real_or_null(r->p_value));
	json_object_set_new(o, "effect", bf_json_real_or_null(r->effect));
	json_object_set_new(o, "ci_low", bf_json_real_or_null(r->ci_low));
	json_object_set_new(o, "ci_high", bf_json_real_or_null(r->ci_high));
	json_object_set_new(o, "u", bf_json_real_or_null(r->u));
	json_object_set_new(o, "n_base", json_integer((json_int_t)r->base.n));
	json_object_set_new(o, "n_patch", json_integer((json_int_t)r->patch.n));
	json_object_set_new(o, "median_base",
	                    bf_json_real_or_null(r->base.median));
	json_object_set_new(o, "median_patch",
	                    bf_json_real_or_null(r->patch.median));
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	printf("%s\n", text);
	free(text);
	json_decref(o);
}

static int analyze_compare(int argc, char **argv)
{
	struct analyze_opts o = { NULL, NULL, BF_COMPARE_OPTS_INIT, false,
		                  false };
	struct bf_err err = BF_ERR_INIT;
	struct bf_compare_result r;
	double *base = NULL, *patch = NULL;
	size_t nb = 0, np = 0;
	int ret = parse_opts(&o, argc, argv);

	if (ret >= 0)
		return ret;
	ret = BF_EXIT_USAGE;
	if (bf_numfile_read(&base, &nb, o.base, &err) ||
	    bf_numfile_read(&patch, &np, o.patch, &err) ||
	    (!nb && bf_err_set(&err, BF_EINVAL, "%s: no numbers", o.base)) ||
	    (!np && bf_err_set(&err, BF_EINVAL, "%s: no numbers", o.patch)) ||
	    bf_compare_samples(&r, base, nb, patch, np, &o.cmp, &err)) {
		bf_cmd_fail(BF_EXIT_USAGE, "analyze compare", "%s", err.msg);
		goto out;
	}
	if (o.json)
		print_json(&r);
	else
		print_text(&r);
	ret = o.fail && r.verdict == BF_VERDICT_REGRESSED ? BF_EXIT_REGRESSION
	                                                  : BF_EXIT_OK;
out:
	free(base);
	free(patch);
	return ret;
}

int cmd_analyze(int argc, char **argv, struct bf_ctx *ctx)
{
	(void)ctx;
	if (argc >= 2 && !strcmp(argv[1], "compare"))
		return analyze_compare(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "step"))
		return cmd_analyze_step(argc - 1, argv + 1);
	if (bf_cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return BF_EXIT_OK;
	}
	fputs(usage_text, stderr);
	return BF_EXIT_USAGE;
}
