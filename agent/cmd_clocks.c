#include "agent.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "check/clocks.h"
#include "check/throttle.h"
#include "probe/devfs.h"
#include "probe/probe.h"

/* `lock-clocks` and `unlock-clocks`: options, the device, the state file. */

static int state_dir_opt(int opt, const char *arg, void *payload)
{
	if (opt != 'S')
		return BF_EXIT_USAGE;
	*(const char **)payload = arg;
	return -1;
}

typedef int clocks_fn(json_t **report, struct bf_devfs *fs,
                      const char *state_path, struct bf_err *err);

/* Both commands: options, the device, the state file, the report. */
static int clocks_cmd(int argc, char **argv, struct bf_agent_ctx *ctx,
                      const char *usage, clocks_fn *fn)
{
	static const struct option longopts[] = {
		{ "state-dir", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;
	const char *dir_opt = NULL;
	char *dir = NULL, *key = NULL, *path = NULL;
	json_t *report = NULL;
	unsigned flags;
	int ret = bf_agent_getopt(argc, argv, ctx, usage, "S:", longopts,
	                          state_dir_opt, &dir_opt);

	if (ret >= 0)
		return ret;
	if (optind != argc) {
		fprintf(stderr, "usage: %s\n", usage);
		return BF_EXIT_USAGE;
	}
	if (!dir_opt && bf_throttle_state_dir(&dir, &err))
		goto out;
	if (bf_probe_open(&fs, &flags, &key, ctx->root, ctx->adb, &err) ||
	    bf_fs_mkdirs(dir_opt ? dir_opt : dir, 0700, &err))
		goto out;
	path = bf_xasprintf("%s/clocks-%s.json", dir_opt ? dir_opt : dir, key);
	fn(&report, fs, path, &err);
	json_dumpf(report, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
out:
	if (err.code)
		fprintf(stderr, "benchfarm-agent: %s: %s\n", argv[0], err.msg);
	json_decref(report);
	bf_devfs_free(fs);
	free(path);
	free(key);
	free(dir);
	return err.code ? BF_EXIT_INFRA : BF_EXIT_OK;
}

int bf_agent_cmd_lock_clocks(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	return clocks_cmd(
	        argc, argv, ctx,
	        "benchfarm-agent lock-clocks [--root DIR] [--adb SERIAL] "
	        "[--state-dir DIR]\n\n"
	        "As root: brings every core online, sets the userspace "
	        "governor and pins\neach core to the lowest available "
	        "frequency at or above 50% of its\nmaximum (Jetpack's rule). "
	        "The previous settings go to\nDIR/clocks-DEVICE.json first "
	        "(default DIR: $XDG_STATE_HOME/benchfarm-agent\nor "
	        "~/.local/state/benchfarm-agent); locking again keeps them. "
	        "Prints\nwhat was done as JSON.",
	        bf_clocks_lock);
}

int bf_agent_cmd_unlock_clocks(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	return clocks_cmd(argc, argv, ctx,
	                  "benchfarm-agent unlock-clocks [--root DIR] "
	                  "[--adb SERIAL] [--state-dir DIR]\n\n"
	                  "Restores the settings lock-clocks saved, exactly, "
	                  "and removes its\nstate file. Prints what was done "
	                  "as JSON.",
	                  bf_clocks_unlock);
}
