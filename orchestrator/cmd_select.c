#include "cmd.h"

#include <fnmatch.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/exitcode.h"

/*
 * The options of the commands that read the postsubmit history (detect,
 * history, dashboard): which config, which device classes, which series
 * and which commits. One table and one getopt loop serve them all; each
 * command adds its own options and handles them in its take function.
 */

enum {
	OPT_DEVICE = BF_CMD_SELECT_OPT_FIRST,
	OPT_SUITE,
	OPT_BENCH,
	OPT_METRIC,
	OPT_RANGE,
};

static const struct option class_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "pool", required_argument, NULL, OPT_DEVICE },
	{ "help", no_argument, NULL, 'h' },
};

static const struct option series_opts[] = {
	{ "suite", required_argument, NULL, OPT_SUITE },
	{ "benchmark", required_argument, NULL, OPT_BENCH },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "range", required_argument, NULL, OPT_RANGE },
};

static size_t count_opts(const struct option *o)
{
	size_t n = 0;

	while (o && o[n].name)
		n++;
	return n;
}

/* The command's whole table: ours, then its own, then the zero row. */
static struct option *all_opts(const struct bf_cmd_select_cmd *cmd)
{
	size_t n_own = count_opts(cmd->opts), k = 0;
	struct option *t =
	        bf_xcalloc(BF_ARRAY_SIZE(class_opts) +
	                           BF_ARRAY_SIZE(series_opts) + n_own + 1,
	                   sizeof(*t));

	for (size_t i = 0; i < BF_ARRAY_SIZE(class_opts); i++)
		t[k++] = class_opts[i];
	for (size_t i = 0; cmd->series && i < BF_ARRAY_SIZE(series_opts); i++)
		t[k++] = series_opts[i];
	for (size_t i = 0; i < n_own; i++)
		t[k++] = cmd->opts[i];
	return t;
}

/* 0 when c is one of ours and taken, -1 when it is not ours, else exit. */
static int take_ours(struct bf_cmd_select *s, int c, const char *arg,
                     const struct bf_cmd_select_cmd *cmd)
{
	if (c == 'c') {
		s->config = arg;
	} else if (c == OPT_DEVICE && cmd->max_classes <= 1) {
		s->klass[0] = arg; /* one class: the last one given */
		s->nklass = 1;
	} else if (c == OPT_DEVICE) {
		if (s->nklass == cmd->max_classes)
			return bf_cmd_fail(
			        BF_EXIT_USAGE, cmd->name,
			        "--device/--pool: at most %zu device "
			        "classes",
			        cmd->max_classes);
		s->klass[s->nklass++] = arg;
	} else if (c == OPT_SUITE) {
		s->suite = arg;
	} else if (c == OPT_BENCH) {
		s->bench = arg;
	} else if (c == OPT_METRIC) {
		s->metric = arg;
	} else if (c == OPT_RANGE) {
		s->range = arg;
	} else {
		return -1;
	}
	return 0;
}

int bf_cmd_select_parse(struct bf_cmd_select *s, int argc, char **argv,
                        const struct bf_cmd_select_cmd *cmd)
{
	struct option *opts = all_opts(cmd);
	char *shortopts = bf_xasprintf("c:h%s", cmd->shortopts);
	int c, ret = 0;

	if (cmd->max_classes > BF_CMD_MAX_CLASSES)
		BF_BUG("%s: %zu device classes, more than %d", cmd->name,
		       cmd->max_classes, BF_CMD_MAX_CLASSES);
	optind = 1;
	while (!ret &&
	       (c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cmd->usage, stdout);
			ret = -1;
		} else if (c == '?') {
			fputs(cmd->usage, stderr);
			ret = BF_EXIT_USAGE;
		} else if ((ret = take_ours(s, c, optarg, cmd)) < 0) {
			ret = cmd->take(cmd->arg, c, optarg);
		}
	}
	if (!ret && optind != argc)
		ret = bf_cmd_fail(BF_EXIT_USAGE, cmd->name,
		                  "unexpected argument '%s'", argv[optind]);
	free(shortopts);
	free(opts);
	return ret;
}

static bool matches(const char *glob, const char *s)
{
	return !glob || !fnmatch(glob, s, 0);
}

bool bf_cmd_select_matches(const struct bf_cmd_select *s, const char *suite,
                           const char *bench, const char *metric)
{
	return matches(s->suite, suite) && matches(s->bench, bench) &&
	       matches(s->metric, metric);
}
