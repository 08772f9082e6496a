#include "cmd.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/log.h"
#include "cfg.h"
#include "store.h"

const struct bf_cmd bf_commands[] = {
	{ "compare", cmd_compare, BF_CMD_NEEDS_DB,
	  "presubmit: compare a patch with its baseline" },
	{ "run", cmd_run, BF_CMD_NEEDS_DB,
	  "postsubmit: record one commit's results" },
	{ "backfill", cmd_backfill, BF_CMD_NEEDS_DB,
	  "measure every first-parent commit of a range" },
	{ "detect", cmd_detect, BF_CMD_NEEDS_DB,
	  "find steps in the recorded history" },
	{ "history", cmd_history, BF_CMD_NEEDS_DB,
	  "print the recorded series of the history" },
	{ "dashboard", cmd_dashboard, BF_CMD_NEEDS_DB,
	  "the history as a self-contained HTML page" },
	{ "bisect", cmd_bisect, BF_CMD_NEEDS_DB,
	  "narrow a step to the commit that caused it" },
	{ "alert", cmd_alert, BF_CMD_NEEDS_DB, "list and triage alerts" },
	{ "analyze", cmd_analyze, 0,
	  "statistics on files of numbers (compare, step)" },
	{ "device", cmd_device, BF_CMD_NEEDS_DB, "the device registry" },
	{ "report", cmd_report, 0, "render a result JSON in a review format" },
	{ "trace", cmd_trace, 0, "convert and render function traces" },
	{ "config", cmd_config, 0, "validate a config and print it as JSON" },
};
const size_t bf_ncommands = BF_ARRAY_SIZE(bf_commands);

const struct bf_cmd *bf_cmd_find(const char *name)
{
	for (size_t i = 0; i < bf_ncommands; i++)
		if (!strcmp(bf_commands[i].name, name))
			return &bf_commands[i];
	return NULL;
}

int bf_cmd_fail(int exit_code, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "benchfarm: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return exit_code;
}

bool bf_cmd_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}

int bf_cmd_load_cfg(struct bf_cfg *cfg, const char *cmd, const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	if (!path)
		return bf_cmd_fail(BF_EXIT_USAGE, cmd,
		                   "no config given; pass -c CONFIG");
	if (bf_cfg_load(cfg, path, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, cmd, "%s", err.msg);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: benchfarm [--db PATH] [-v] [-q] [--version] "
	           "COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < bf_ncommands; i++)
		fprintf(f, "  %-10s %s%s\n", bf_commands[i].name,
		        bf_commands[i].help,
		        bf_commands[i].flags & BF_CMD_STUB ? " (planned)" : "");
	fprintf(f, "\n'benchfarm COMMAND -h' shows a command's options.\n"
	           "Exit codes: 0 ok, 1 regression, 2 usage or config error, "
	           "3 infrastructure failure.\n");
}

/* Parses global options up to the command; returns its index or -1. */
static int parse_globals(int argc, char **argv, struct bf_ctx *ctx, int *exit)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--db") && i + 1 < argc) {
			ctx->db_flag = argv[++i];
		} else if (!strncmp(a, "--db=", 5)) {
			ctx->db_flag = a + 5;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			ctx->verbosity++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			ctx->verbosity = BF_LOG_QUIET;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			*exit = BF_EXIT_OK;
			return -1;
		} else if (!strcmp(a, "--version")) {
			printf("benchfarm %s\n", BF_VERSION);
			*exit = BF_EXIT_OK;
			return -1;
		} else {
			fprintf(stderr, "benchfarm: unknown option '%s'\n", a);
			usage(stderr);
			*exit = BF_EXIT_USAGE;
			return -1;
		}
	}
	if (i >= argc) {
		usage(stderr);
		*exit = BF_EXIT_USAGE;
		return -1;
	}
	return i;
}

static int open_store(struct bf_ctx *ctx, const char *cmd)
{
	struct bf_err err = BF_ERR_INIT;
	char *path = NULL;
	int ret = 0;

	if (bf_store_default_path(&path, ctx->db_flag, &err) ||
	    bf_store_open(&ctx->store, path, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, cmd, "%s", err.msg);
	free(path);
	return ret;
}

static int finish(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "benchfarm: cannot write standard output\n");
		return ret ? ret : BF_EXIT_INFRA;
	}
	return ret;
}

int bf_main(int argc, char **argv)
{
	struct bf_ctx ctx = { NULL, NULL, BF_LOG_WARN };
	const struct bf_cmd *cmd;
	int exit = 0, i, ret;

	signal(SIGPIPE, SIG_IGN);
	i = parse_globals(argc, argv, &ctx, &exit);
	if (i < 0)
		return finish(exit);
	bf_log_set_level(ctx.verbosity);
	cmd = bf_cmd_find(argv[i]);
	if (!cmd) {
		fprintf(stderr,
		        "benchfarm: '%s' is not a command; see "
		        "'benchfarm -h'\n",
		        argv[i]);
		return BF_EXIT_USAGE;
	}
	if ((cmd->flags & BF_CMD_NEEDS_DB) &&
	    !bf_cmd_wants_help(argc - i, argv + i)) {
		ret = open_store(&ctx, cmd->name);
		if (ret)
			return ret;
	}
	ret = cmd->fn(argc - i, argv + i, &ctx);
	bf_store_close(ctx.store);
	return finish(ret);
}
