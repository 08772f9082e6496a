#include "cmd.h"

#include <stdio.h>

#include "benchfarm/exitcode.h"
#include "config/cfg.h"

static const char usage_text[] =
        "usage: benchfarm config check -c CONFIG\n"
        "\n"
        "Validates CONFIG and prints the effective config (every key, with\n"
        "defaults filled in) as JSON on stdout. Errors name FILE:LINE:COL\n"
        "and exit 2.\n"
        "\n"
        "    -c, --config FILE   the config to check\n";

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
