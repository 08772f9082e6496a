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
        "Exit: 0 culprit found (or the few commits it is one of, when "
        "others\n"
        "do not build), or no change between GOOD and BAD (said so);\n"
        "2 usage or config error; 3 infrastructure failure.\n";

struct bisect {
	struct bf_bisect_opts o;
	const char *config, *json_path;
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
			b->config = optarg;
			break;
		case OPT_GOOD:
			b->o.good = optarg;
			break;
		case OPT_BAD:
			b->o.bad = optarg;
			break;
		case OPT_BENCH:
			b->o.bench = optarg;
			break;
		case OPT_SERIES:
			b->o.series = optarg;
			break;
		case OPT_METRIC:
			b->o.metric = optarg;
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
			if (bf_cfg_parse_setting(&b->o.repeats, "runs.repeats",
			                         optarg, &err))
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
	if (!b->o.good || !b->o.bad || !b->o.bench)
		return bf_cmd_fail(BF_EXIT_USAGE, "bisect",
		                   "--good, --bad and --benchmark are required "
		                   "(see --help)");
	return -1;
}

int cmd_bisect(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bisect b = { BF_BISECT_OPTS_INIT, NULL, NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_cmd_notes notes;
	json_t *result = NULL;
	struct bf_cfg cfg;
	int ret;

	if ((ret = parse(&b, argc, argv)) >= 0)
		return ret;
	if ((ret = bf_cmd_load_cfg(&cfg, "bisect", b.config)))
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
	else if (b.json_path &&
	         bf_json_write_file(result, b.json_path, true, true, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "bisect", "%s", err.msg);
	json_decref(result);
	bf_cfg_release(&cfg);
	return ret;
}
