#include "cmd.h"

#include <fnmatch.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "config/cfg.h"

/*
 * The options that several commands share, in groups, and the one
 * getopt loop that reads them: each command adds its own options and
 * handles them in its take function.
 */

enum {
	OPT_CLASS = BF_CMD_OPT_FIRST,
	OPT_SUITE,
	OPT_BENCH,
	OPT_METRIC,
	OPT_RANGE,
	OPT_DEVICE,
	OPT_POOL,
	OPT_JSON,
};

static const struct option always[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
};

static const struct option classes[] = {
	{ "device", required_argument, NULL, OPT_CLASS },
	{ "pool", required_argument, NULL, OPT_CLASS },
};

static const struct option series[] = {
	{ "suite", required_argument, NULL, OPT_SUITE },
	{ "benchmark", required_argument, NULL, OPT_BENCH },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "range", required_argument, NULL, OPT_RANGE },
};

static const struct option job[] = {
	{ "repeats", required_argument, NULL, 'n' },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "pool", required_argument, NULL, OPT_POOL },
	{ "json", required_argument, NULL, OPT_JSON },
};

static size_t count_opts(const struct option *o)
{
	size_t n = 0;

	while (o && o[n].name)
		n++;
	return n;
}

static void add(struct option *t, size_t *k, const struct option *o, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t[(*k)++] = o[i];
}

/* The command's whole table: its groups, its own, then the zero row. */
static struct option *all_opts(const struct bf_cmd_parser *p)
{
	size_t own = count_opts(p->opts), k = 0;
	struct option *t = bf_xcalloc(
	        BF_ARRAY_SIZE(always) + BF_ARRAY_SIZE(classes) +
	                BF_ARRAY_SIZE(series) + BF_ARRAY_SIZE(job) + own + 1,
	        sizeof(*t));

	add(t, &k, always, BF_ARRAY_SIZE(always));
	if (p->groups & BF_CMD_OPTS_CLASSES)
		add(t, &k, classes, BF_ARRAY_SIZE(classes));
	if (p->groups & BF_CMD_OPTS_SERIES)
		add(t, &k, series, BF_ARRAY_SIZE(series));
	if (p->groups & BF_CMD_OPTS_JOB)
		add(t, &k, job, BF_ARRAY_SIZE(job));
	add(t, &k, p->opts, own);
	return t;
}

/* --device/--pool as device classes: up to p->max_classes of them. */
static int take_class(struct bf_cmd_args *a, const char *arg,
                      const struct bf_cmd_parser *p)
{
	if (p->max_classes <= 1) {
		a->klass[0] = arg; /* one class: the last one given */
		a->nklass = 1;
	} else if (a->nklass == p->max_classes) {
		return bf_cmd_fail(
		        BF_EXIT_USAGE, p->name,
		        "--device/--pool: at most %zu device classes",
		        p->max_classes);
	} else {
		a->klass[a->nklass++] = arg;
	}
	return 0;
}

/* 0 when c is a shared option and taken, -1 when it is not, else exit. */
static int take_shared(struct bf_cmd_args *a, int c, const char *arg,
                       const struct bf_cmd_parser *p)
{
	struct bf_err err = BF_ERR_INIT;

	if (c == 'c')
		a->config = arg;
	else if (c == OPT_CLASS)
		return take_class(a, arg, p);
	else if (c == OPT_SUITE)
		a->suite = arg;
	else if (c == OPT_BENCH)
		a->bench = arg;
	else if (c == OPT_METRIC)
		a->metric = arg;
	else if (c == OPT_RANGE)
		a->range = arg;
	else if (c == OPT_DEVICE)
		a->device = arg;
	else if (c == OPT_POOL)
		a->pool = arg;
	else if (c == OPT_JSON)
		a->json = arg;
	else if (c == 'n' && (p->groups & BF_CMD_OPTS_JOB))
		return bf_cfg_parse_setting(&a->repeats, "runs.repeats", arg,
		                            &err)
		               ? bf_cmd_fail(BF_EXIT_USAGE, p->name,
		                             "--repeats: %s", err.msg)
		               : 0;
	else
		return -1;
	return 0;
}

int bf_cmd_parse(struct bf_cmd_args *a, int argc, char **argv,
                 const struct bf_cmd_parser *p)
{
	struct option *opts = all_opts(p);
	char *shortopts =
	        bf_xasprintf("c:h%s%s", p->groups & BF_CMD_OPTS_JOB ? "n:" : "",
	                     p->shortopts ? p->shortopts : "");
	int c, ret = 0;

	if (p->max_classes > BF_CMD_MAX_CLASSES)
		BF_BUG("%s: %zu device classes, more than %d", p->name,
		       p->max_classes, BF_CMD_MAX_CLASSES);
	optind = 1;
	while (!ret &&
	       (c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(p->usage, stdout);
			ret = -1;
		} else if (c == '?') {
			fputs(p->usage, stderr);
			ret = BF_EXIT_USAGE;
		} else if ((ret = take_shared(a, c, optarg, p)) < 0) {
			ret = p->take(p->arg, c, optarg);
		}
	}
	if (!ret && p->operands)
		*p->operands = optind;
	else if (!ret && optind != argc)
		ret = bf_cmd_fail(BF_EXIT_USAGE, p->name,
		                  "unexpected argument '%s'", argv[optind]);
	free(shortopts);
	free(opts);
	return ret;
}

static bool matches(const char *glob, const char *s)
{
	return !glob || !fnmatch(glob, s, 0);
}

bool bf_cmd_series_matches(const struct bf_cmd_args *a, const char *suite,
                           const char *bench, const char *metric)
{
	return matches(a->suite, suite) && matches(a->bench, bench) &&
	       matches(a->metric, metric);
}
