#include "agent.h"

#include <signal.h>
#include <stdio.h>

#include "benchfarm/exitcode.h"
#include "benchfarm/log.h"

const struct bf_agent_cmd bf_agent_commands[] = {
	{ "serve", bf_agent_cmd_serve,
	  "speak the JSON-lines protocol on stdin/stdout" },
	{ "info", bf_agent_cmd_info, "describe the device as JSON" },
	{ "check", bf_agent_cmd_check, "check the device is fit to measure" },
	{ "run", bf_agent_cmd_run,
	  "run a benchmark command and report samples" },
	{ "parse", bf_agent_cmd_parse,
	  "parse a benchmark output file into samples" },
	{ "lock-clocks", bf_agent_cmd_lock_clocks,
	  "pin CPU clocks for stable numbers (root)" },
	{ "unlock-clocks", bf_agent_cmd_unlock_clocks,
	  "restore CPU clocks saved by lock-clocks" },
};
const size_t bf_agent_ncommands = BF_ARRAY_SIZE(bf_agent_commands);

const struct bf_agent_cmd *bf_agent_cmd_find(const char *name)
{
	for (size_t i = 0; i < bf_agent_ncommands; i++)
		if (!strcmp(bf_agent_commands[i].name, name))
			return &bf_agent_commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: benchfarm-agent [--version] COMMAND [--root DIR] "
	           "[--adb SERIAL] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < bf_agent_ncommands; i++)
		fprintf(f, "  %-14s %s\n", bf_agent_commands[i].name,
		        bf_agent_commands[i].help);
}

int bf_agent_main(int argc, char **argv)
{
	const char *root = getenv("BENCHFARM_SYSROOT");
	struct bf_agent_ctx ctx = { root && *root ? root : "/", NULL, NULL };
	const struct bf_agent_cmd *cmd;

	signal(SIGPIPE, SIG_IGN);
	bf_log_set_prog("benchfarm-agent");
	if (argc < 2) {
		usage(stderr);
		return BF_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return BF_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("benchfarm-agent %s\n", BF_VERSION);
		return BF_EXIT_OK;
	}
	cmd = bf_agent_cmd_find(argv[1]);
	if (!cmd) {
		fprintf(stderr,
		        "benchfarm-agent: '%s' is not a command; see "
		        "'benchfarm-agent -h'\n",
		        argv[1]);
		return BF_EXIT_USAGE;
	}
	return cmd->fn(argc - 1, argv + 1, &ctx);
}
