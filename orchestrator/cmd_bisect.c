#include "cmd.h"

#include <stdio.h>

#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "config/cfg.h"
#include "postsubmit/bisect.h"

/*
 * benchfarm bisect: narrow a step between a good and a bad commit to
 * the one commit that caused it (the bisect module, bisect.h).
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
        "A commit that does not build is skipped, as git bisect skip "
        "does.\n"
        "It follows the series whose change between GOOD and BAD is the\n"
        "clearest: the largest |log change| over its interval's "
        "half-width.\n"
        "The culprit is recorded with every open alert of NAME on the "
        "device\n"
        "class whose commit range holds GOOD..BAD and whose series "
        "moved so.\n"
        "\n"
        "    -c, --config FILE     the config\n"
        "        --good REV        a commit without the change\n"
        "        --bad REV         a later commit with it\n"
        "        --benchmark NAME  the config benchmark entry to run\n"
        "        --series NAME     which series it prints (default: the "
        "one whose\n"
        "                          change between GOOD and BAD is the "
        "clearest)\n"
        "        --metric M        which metric (default: likewise)\n"
        "    -n, --repeats N       runs per side and probe (default: the "
        "benchmark's\n"
        "                          repeats, else runs.repeats)\n"
        "        --device NAME     run on this device (or 'local')\n"
        "        --pool LABEL      run on this pool (default: "
        "devices.pool)\n"
        "        --json FILE       write the culprit and every probe as "
        "JSON\n"
        "\n"
        "Exit: 0 culprit found (or the few commits it is one of, when "
        "others\n"
        "do not build), or no change between GOOD and BAD (said so);\n"
        "2 usage or config error; 3 infrastructure failure.\n";

struct bisect {
	struct bf_bisect_opts o;
	struct bf_cmd_args args; /* -c, -n, --device, --pool, --json */
};

enum { OPT_GOOD = 256, OPT_BAD, OPT_BENCH, OPT_SERIES, OPT_METRIC };

/* bisect's own options. */
static int take(void *arg, int c, const char *val)
{
	struct bisect *b = arg;

	if (c == OPT_GOOD)
		b->o.good = val;
	else if (c == OPT_BAD)
		b->o.bad = val;
	else if (c == OPT_BENCH)
		b->o.bench = val;
	else if (c == OPT_SERIES)
		b->o.series = val;
	else if (c == OPT_METRIC)
		b->o.metric = val;
	return 0;
}

static int parse(struct bisect *b, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "benchmark", required_argument, NULL, OPT_BENCH },
		{ "series", required_argument, NULL, OPT_SERIES },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ NULL, 0, NULL, 0 },
	};
	const struct bf_cmd_parser cmd = {
		.name = "bisect",
		.usage = usage,
		.groups = BF_CMD_OPTS_JOB,
		.opts = opts,
		.take = take,
		.arg = b,
	};
	int ret = bf_cmd_parse(&b->args, argc, argv, &cmd);

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	b->o.repeats = b->args.repeats;
	b->o.device = b->args.device;
	b->o.pool = b->args.pool;
	if (!b->o.good || !b->o.bad || !b->o.bench)
		return bf_cmd_fail(BF_EXIT_USAGE, "bisect",
		                   "--good, --bad and --benchmark are required "
		                   "(see --help)");
	return -1;
}

/*
 * The device class the bisect measured on, as run and backfill record
 * it: the device named, else the pool, else devices.pool.
 */
static const char *klass_of(const struct bisect *b, const struct bf_cfg *cfg)
{
	return b->o.device ? b->o.device
	       : b->o.pool ? b->o.pool
	                   : cfg->devices.pool;
}

int cmd_bisect(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bisect b = { .o = BF_BISECT_OPTS_INIT };
	struct bf_err err = BF_ERR_INIT;
	struct bf_cmd_notes notes;
	json_t *result = NULL;
	struct bf_cfg cfg;
	int ret;

	if ((ret = parse(&b, argc, argv)) >= 0)
		return ret;
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "bisect", b.args.config)))
		return ret;
	b.o.log = stdout;
	bf_cmd_notes_init(&notes, "bisect");
	b.o.note = bf_cmd_job_note;
	b.o.note_arg = &notes;
	ret = bf_bisect_run(&result, &cfg, ctx->store, &b.o, &err);
	if (ret)
		ret = bf_cmd_fail(ret == BF_EINVAL ? BF_EXIT_USAGE
		                                   : BF_EXIT_INFRA,
		                  "bisect", "%s", err.msg);
	else if (bf_bisect_record_alerts(result, &cfg, ctx->store,
	                                 klass_of(&b, &cfg), stdout, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "bisect",
		                  "recording the culprit with its alerts: %s",
		                  err.msg);
	if (!ret && b.args.json &&
	    bf_json_write_file(result, b.args.json, true, true, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "bisect", "%s", err.msg);
	json_decref(result);
	bf_cfg_release(&cfg);
	return ret;
}
