#include "cmd.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "benchfarm/exitcode.h"
#include "benchfarm/text.h"
#include "config/cfg.h"

static const char usage_text[] =
        "usage: benchfarm config check -c CONFIG\n"
        "\n"
        "Validates CONFIG and prints the effective config (every key, with\n"
        "defaults filled in) as JSON on stdout. Errors name FILE:LINE:COL\n"
        "and exit 2. A benchmark whose repeats are too few for a verdict\n"
        "(no change can reach p < presubmit.alpha with that many runs a\n"
        "side, or none in one of several gating series after correction)\n"
        "is warned of on stderr, with the runs that would do.\n"
        "\n"
        "    -c, --config FILE   the config to check\n";

/*
 * Warn of a benchmark whose runs a side cannot give a verdict: the U
 * test's least p with that many runs (the sign test's, in duet) is not
 * below alpha; or below it only for a lone series, where Google
 * Benchmark reports one gating series for each of its benchmarks and
 * the correction multiplies a lone change's p by their number.
 */
static void warn_power(const struct bf_cfg *cfg)
{
	double alpha = cfg->presubmit.alpha;
	const char *unit = cfg->runs.duet ? "rounds" : "runs";

	for (size_t i = 0; !cfg->runs.adaptive && i < cfg->nbenchmarks; i++) {
		const struct bf_cfg_benchmark *b = &cfg->benchmarks[i];
		size_t n = (size_t)b->repeats, most;
		double p, ratio;

		if (b->measure == BF_MEASURE_INSTRUCTIONS)
			continue;
		p = bf_stats_min_p(n, n, cfg->runs.duet);
		/* p underflows to 0 from some 460 runs a side: then no bound */
		ratio = alpha / p;
		most = ratio < 1e6 ? (size_t)ceil(ratio) - 1 : SIZE_MAX;
		if (p < alpha && (b->format != BF_FORMAT_GBENCH || most >= 4))
			continue;
		/* the config's own names and path, printed inert */
		bf_text_printf(stderr,
		               "benchfarm: config: warning: %s:%d: benchmark "
		               "'%s': with %zu %s a side",
		               cfg->path, b->line, b->name, n, unit);
		if (p >= alpha)
			fprintf(stderr,
			        " no change can reach p < %g (the least p is "
			        "%.3g): use at least %zu\n",
			        alpha, p,
			        bf_stats_min_runs(alpha, 1, cfg->runs.duet));
		else
			fprintf(stderr,
			        ", a change in one of more than %zu gating "
			        "series (one per Google Benchmark benchmark) "
			        "cannot reach p < %g after correction: use at "
			        "least %zu runs for up to 4\n",
			        most, alpha,
			        bf_stats_min_runs(alpha, 4, cfg->runs.duet));
	}
}

static int config_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	struct bf_cfg cfg;
	char *json;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		if (c == 'c') {
			path = optarg;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return BF_EXIT_OK;
		} else {
			fputs(usage_text, stderr);
			return BF_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "config",
		                   "unexpected argument '%s'", argv[optind]);
	ret = bf_cmd_load_cfg(&cfg, "config", path);
	if (ret)
		return ret;
	warn_power(&cfg);
	json = bf_cfg_to_json(&cfg);
	printf("%s\n", json);
	free(json);
	bf_cfg_release(&cfg);
	return BF_EXIT_OK;
}

int cmd_config(int argc, char **argv, struct bf_ctx *ctx)
{
	(void)ctx;
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return config_check(argc - 1, argv + 1);
	if (bf_cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return BF_EXIT_OK;
	}
	fputs(usage_text, stderr);
	return BF_EXIT_USAGE;
}
