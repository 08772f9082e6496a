#include "git/sandbox.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/spawn.h"

/* Seconds the probe may take: bwrap starts in milliseconds. */
#define PROBE_TIMEOUT_S 30

const char *bf_sandbox_program(void)
{
	const char *p = getenv("BENCHFARM_BWRAP");

	return p && *p ? p : "bwrap";
}

void bf_sandbox_argv(struct bf_argv *out, const char *dir, bool network,
                     const struct bf_argv *cmd)
{
	static const char *const head[] = {
		"--die-with-parent",
		"--new-session",
		"--unshare-all",
		"--cap-drop",
		"ALL",
		"--ro-bind",
		"/",
		"/",
		"--dev",
		"/dev",
		"--proc",
		"/proc",
		"--setenv",
		"TMPDIR",
		"/dev/shm",
		NULL,
	};

	bf_argv_push(out, bf_sandbox_program());
	bf_argv_pushv(out, head);
	if (network)
		bf_argv_push(out, "--share-net");
	bf_argv_push(out, "--bind");
	bf_argv_push(out, dir);
	bf_argv_push(out, dir);
	bf_argv_push(out, "--chdir");
	bf_argv_push(out, dir);
	bf_argv_push(out, "--");
	for (size_t i = 0; i < cmd->argc; i++)
		bf_argv_push(out, cmd->argv[i]);
}

/* What the probe said: its first line of output, or how it ended. */
static void probe_failure(char *why, size_t len,
                          const struct bf_spawn_result *res)
{
	struct bf_buf first = BF_BUF_INIT;
	char how[64];

	bf_spawn_describe(res, PROBE_TIMEOUT_S, how, sizeof(how));
	bf_buf_add(&first, res->out.buf, strcspn(res->out.buf, "\n"));
	snprintf(why, len, "'%s' cannot run here: %s%s%s", bf_sandbox_program(),
	         how, first.len ? ": " : "", first.buf);
	bf_buf_release(&first);
}

/*
 * Whether bwrap can run its sandbox in dir, tried once per process and
 * program (every build of one benchfarm runs on this machine under one
 * kernel); *why says why not.
 */
static bool can_run(const char *dir, bool network, const char **why)
{
	static int known = -1; /* -1 not tried, 0 cannot, 1 can */
	static char reason[BF_ERR_SIZE], tried[PATH_MAX];
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	struct bf_argv argv = BF_ARGV_INIT, cmd = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;

	*why = reason;
	if (known >= 0 && !strcmp(tried, bf_sandbox_program()))
		return known;
	known = -1;
	reason[0] = '\0';
	bf_strlcpy(tried, bf_sandbox_program(), sizeof(tried));
	bf_argv_push(&cmd, "true");
	bf_sandbox_argv(&argv, dir, network, &cmd);
	opts.argv = (const char *const *)argv.argv;
	opts.timeout_s = PROBE_TIMEOUT_S;
	opts.merge_stderr = true;
	if (bf_spawn_run(&res, &opts, &err)) {
		bf_err_prefix(&err, "'%s' cannot run here",
		              bf_sandbox_program());
		bf_strlcpy(reason, err.msg, sizeof(reason));
	} else if (!bf_spawn_is_success(&res))
		probe_failure(reason, sizeof(reason), &res);
	else
		known = 1;
	if (known < 0)
		known = 0;
	bf_spawn_result_release(&res);
	bf_argv_release(&argv);
	bf_argv_release(&cmd);
	return known;
}

int bf_sandbox_choose(struct bf_sandbox *out, enum bf_build_sandbox mode,
                      const char *dir, bool network, struct bf_err *err)
{
	const char *why;

	memset(out, 0, sizeof(*out));
	if (mode == BF_BUILD_SANDBOX_OFF) {
		bf_strlcpy(out->why, "project.build_sandbox is off",
		           sizeof(out->why));
		return 0;
	}
	if (can_run(dir, network, &why)) {
		out->on = true;
		return 0;
	}
	if (mode == BF_BUILD_SANDBOX_REQUIRE)
		return bf_err_set(
		        err, BF_ENOTFOUND,
		        "project.build_sandbox is require, but %s "
		        "(install bubblewrap, allow unprivileged user "
		        "namespaces, or set build_sandbox: auto)",
		        why);
	bf_strlcpy(out->why, why, sizeof(out->why));
	return 0;
}
