#include "cmd.h"

#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/parse.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "git/gitrepo.h"
#include "job/compare.h"
#include "job/presubmit.h"
#include "report/plugins.h"
#include "store/store.h"

static const char usage_text[] =
        "usage: benchfarm compare -c CONFIG [--base REV] [--patch REV] "
        "[--allow-same]\n"
        "                         [--repeats N|auto] "
        "[--mode interleaved|duet]\n"
        "                         [--device NAME | --pool LABEL] [--wait "
        "SECONDS]\n"
        "                         [--json FILE]"
        "\n"
        "                         [--markdown FILE] [--seed S]\n"
        "                         [--report FORMAT[,FORMAT...]] "
        "[--report-dir DIR]\n"
        "                         [--trace BENCHMARK]\n"
        "\n"
        "Presubmit: builds the base and the patch, runs every benchmark on "
        "both\n"
        "sides interleaved on one device, and judges each metric "
        "(regressed,\n"
        "improved, same, unknown). The markdown report goes to stdout "
        "unless\n"
        "--markdown names a file.\n"
        "\n"
        "    -c, --config FILE    the config\n"
        "        --base REV       baseline (default: merge-base of the patch "
        "with\n"
        "                         project.target_branch)\n"
        "        --patch REV      the change (default: HEAD)\n"
        "        --allow-same     run even when base and patch are one "
        "commit (an\n"
        "                         A/A run); without it, a patch already "
        "on\n"
        "                         project.target_branch is refused (exit "
        "2)\n"
        "                         unless --base is given\n"
        "    -n, --repeats N      measured runs per side of every "
        "benchmark, 2 to\n"
        "                         10000, or auto: stop when every metric "
        "is\n"
        "                         decided, between runs.min_repeats and\n"
        "                         runs.max_repeats (default: each "
        "benchmark's\n"
        "                         repeats, else runs.repeats)\n"
        "        --mode MODE      interleaved: one run at a time; duet: "
        "base and\n"
        "                         patch at the same time on two cores, "
        "judged on\n"
        "                         their per-round ratios (default: "
        "runs.mode)\n"
        "        --warmup N       discarded runs per side of every "
        "benchmark\n"
        "                         (default: each benchmark's warmup, "
        "else\n"
        "                         runs.warmup)\n"
        "        --device NAME    run on this registered device (or "
        "'local')\n"
        "        --pool LABEL     run on the registered devices with this "
        "label,\n"
        "                         one benchmark per device in parallel\n"
        "                         (default: devices.pool)\n"
        "        --wait SECONDS   while every device of the pool is "
        "leased, wait\n"
        "                         this long for one in the pool's queue, "
        "first\n"
        "                         come first served (default: "
        "devices.wait,\n"
        "                         300; 0: do not wait)\n"
        "        --json FILE      write the complete result JSON\n"
        "        --markdown FILE  write the markdown report to FILE\n"
        "        --report LIST    also write these reports (see 'benchfarm "
        "report\n"
        "                         --list'; default: the config's 'report' "
        "list\n"
        "                         when --report-dir is given)\n"
        "        --report-dir DIR where the reports go (default: "
        "benchfarm-report)\n"
        "        --trace BENCH    after the measured runs, run BENCH once "
        "per side\n"
        "                         on this machine with BENCHFARM_TRACE "
        "set, and\n"
        "                         write trace-base.bftrace, "
        "trace-patch.bftrace\n"
        "                         and trace-diff.svg to the report "
        "directory\n"
        "                         (its build must link libbenchfarm_trace; "
        "see\n"
        "                         'benchfarm trace --help')\n"
        "        --seed S         seed of the run order and bootstrap "
        "(recorded)\n"
        "        --alpha A        override presubmit.alpha\n"
        "        --min-effect F   override presubmit.min_effect\n"
        "\n"
        "Exit: 0 no regression, 1 regression, or a series one side does "
        "not\n"
        "report (presubmit.fail_on: regression, missing_series: fail),\n"
        "2 usage or config error, 3 infrastructure failure.\n";

enum {
	OPT_BASE = 256,
	OPT_PATCH,
	OPT_DEVICE,
	OPT_POOL,
	OPT_JSON,
	OPT_MARKDOWN,
	OPT_REPORT,
	OPT_REPORT_DIR,
	OPT_TRACE,
	OPT_SEED,
	OPT_ALPHA,
	OPT_MIN_EFFECT,
	OPT_WARMUP,
	OPT_ALLOW_SAME,
	OPT_MODE,
	OPT_WAIT,
};

/* The option's name, for its error. */
static const char *number_opt_name(int c)
{
	return c == 'n'          ? "--repeats"
	       : c == OPT_WARMUP ? "--warmup"
	       : c == OPT_SEED   ? "--seed"
	       : c == OPT_ALPHA  ? "--alpha"
	       : c == OPT_WAIT   ? "--wait"
	                         : "--min-effect";
}

/* A number option takes its config setting's type and range. */
static int parse_number_opt(struct bf_presubmit_opts *o, int c, const char *arg)
{
	struct bf_err err = BF_ERR_INIT;
	int ret = 0;

	if (c == 'n' && !strcmp(arg, "auto"))
		o->repeats = BF_REPEATS_AUTO;
	else if (c == 'n')
		ret = bf_cfg_parse_setting(&o->repeats, "runs.repeats", arg,
		                           &err);
	else if (c == OPT_WARMUP)
		ret = bf_cfg_parse_setting(&o->warmup, "runs.warmup", arg,
		                           &err);
	else if (c == OPT_SEED)
		ret = bf_cfg_parse_setting(&o->seed, "runs.seed", arg, &err);
	else if (c == OPT_ALPHA)
		ret = bf_cfg_parse_setting(&o->alpha, "presubmit.alpha", arg,
		                           &err);
	else if (c == OPT_WAIT)
		ret = bf_cfg_parse_setting(&o->wait_s, "devices.wait", arg,
		                           &err);
	else if (c == OPT_MIN_EFFECT)
		ret = bf_cfg_parse_setting(&o->min_effect,
		                           "presubmit.min_effect", arg, &err);
	if (c == OPT_SEED)
		o->seed_set = true;
	if (ret)
		return bf_cmd_fail(BF_EXIT_USAGE, "compare", "%s: %s",
		                   number_opt_name(c), err.msg);
	return 0;
}

static int parse_opts(struct bf_presubmit_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "patch", required_argument, NULL, OPT_PATCH },
		{ "allow-same", no_argument, NULL, OPT_ALLOW_SAME },
		{ "repeats", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "pool", required_argument, NULL, OPT_POOL },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "markdown", required_argument, NULL, OPT_MARKDOWN },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "report-dir", required_argument, NULL, OPT_REPORT_DIR },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case OPT_BASE:
			o->base = optarg;
			break;
		case OPT_PATCH:
			o->patch = optarg;
			break;
		case OPT_ALLOW_SAME:
			o->allow_same = true;
			break;
		case OPT_DEVICE:
			o->device = optarg;
			break;
		case OPT_POOL:
			o->pool = optarg;
			break;
		case OPT_JSON:
			o->json_path = optarg;
			break;
		case OPT_MARKDOWN:
			o->markdown_path = optarg;
			break;
		case OPT_REPORT:
			o->report = optarg;
			break;
		case OPT_REPORT_DIR:
			o->report_dir = optarg;
			break;
		case OPT_TRACE:
			o->trace_bench = optarg;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "interleaved") &&
			    strcmp(optarg, "duet"))
				return bf_cmd_fail(
				        BF_EXIT_USAGE, "compare",
				        "--mode: '%s' is not a mode: "
				        "use 'interleaved' or 'duet'",
				        optarg);
			o->mode = strcmp(optarg, "duet") ? BF_MODE_INTERLEAVED
			                                 : BF_MODE_DUET;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return BF_EXIT_OK;
		case '?':
			fputs(usage_text, stderr);
			return BF_EXIT_USAGE;
		default:
			if ((ret = parse_number_opt(o, c, optarg)))
				return ret;
		}
	}
	if (optind != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "compare",
		                   "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* compare --report: the formats asked for, else the config's. */
static void report_formats(struct bf_argv *formats,
                           const struct bf_presubmit_opts *o,
                           const struct bf_cfg *cfg)
{
	if (o->report)
		bf_cmd_split_formats(formats, o->report);
	else
		bf_argv_copy(formats, &cfg->report);
}

/* The formats, into the report directory. */
static int write_reports(const json_t *result, const struct bf_argv *formats,
                         const struct bf_presubmit_opts *o,
                         const struct bf_cfg *cfg)
{
	struct bf_report_opts ro = BF_REPORT_OPTS_INIT;
	struct bf_host_ssh gerrit;

	bf_report_opts_from_cfg(&ro, &gerrit, cfg);
	return bf_cmd_report_formats(
	        result, formats, &ro, NULL,
	        o->report_dir ? o->report_dir : "benchfarm-report", "compare");
}

int cmd_compare(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_presubmit_opts o = BF_PRESUBMIT_OPTS_INIT;
	struct bf_argv formats = BF_ARGV_INIT;
	struct bf_cmd_notes notes;
	json_t *result = NULL;
	char *md = NULL;
	struct bf_cfg cfg;
	int ret = parse_opts(&o, argc, argv);

	if (ret >= 0)
		return ret;
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "compare", o.config)))
		return ret;
	bf_cmd_notes_init(&notes, "compare");
	o.note = bf_cmd_job_note;
	o.note_arg = &notes;
	o.result_out = &result;
	if (!o.markdown_path)
		o.markdown_out = &md; /* for stdout */
	if (o.report || o.report_dir) {
		report_formats(&formats, &o, &cfg);
		/* a misspelt format is found before hours of measuring */
		if ((ret = bf_cmd_check_formats(&formats, "compare")))
			goto out;
	}
	ret = bf_presubmit_run(&o, &cfg, ctx->store, NULL);
	if (md)
		fputs(md, stdout);
	bf_cmd_say_stopped(result, "compare");
	if (result && (o.report || o.report_dir)) {
		int rc = write_reports(result, &formats, &o, &cfg);

		if (rc && ret != BF_EXIT_INFRA)
			ret = rc;
	}
out:
	free(md);
	json_decref(result);
	bf_argv_release(&formats);
	bf_cfg_release(&cfg);
	return ret;
}
