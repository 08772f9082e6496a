#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "store/store.h"

const struct bf_cmd bf_commands[] = {
	{ "compare", cmd_compare, BF_CMD_CFG_DB,
	  "presubmit: compare a patch with its baseline" },
	{ "run", cmd_run, BF_CMD_CFG_DB,
	  "postsubmit: record one commit's results" },
	{ "backfill", cmd_backfill, BF_CMD_CFG_DB,
	  "measure every first-parent commit of a range" },
	{ "detect", cmd_detect, BF_CMD_CFG_DB,
	  "find steps in the recorded history" },
	{ "history", cmd_history, BF_CMD_CFG_DB,
	  "print the recorded series of the history" },
	{ "dashboard", cmd_dashboard, BF_CMD_CFG_DB,
	  "the history as a self-contained HTML page" },
	{ "bisect", cmd_bisect, BF_CMD_CFG_DB,
	  "narrow a step to the commit that caused it" },
	{ "alert", cmd_alert, BF_CMD_NEEDS_DB, "list and triage alerts" },
	{ "analyze", cmd_analyze, 0,
	  "statistics on files of numbers (compare, step)" },
	{ "device", cmd_device, BF_CMD_NEEDS_DB, "the device registry" },
	{ "report", cmd_report, 0, "render a result JSON in a review format" },
	{ "trace", cmd_trace, 0, "convert and render function traces" },
	{ "config", cmd_config, 0, "validate a config and print it as JSON" },
	{ "cache", cmd_cache, 0, "list and prune the build cache" },
	{ "store", cmd_store, 0,
	  "copy a store into another (SQLite, PostgreSQL)" },
};
const size_t bf_ncommands = BF_ARRAY_SIZE(bf_commands);

const struct bf_cmd *bf_cmd_find(const char *name)
{
	for (size_t i = 0; i < bf_ncommands; i++)
		if (!strcmp(bf_commands[i].name, name))
			return &bf_commands[i];
	return NULL;
}

/*
 * The message is inert text (bf_text_add_inert; its own line breaks
 * kept): it often quotes what an agent, a device or a benchmark said.
 */
int bf_cmd_fail(int exit_code, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg, *text;

	va_start(ap, fmt);
	msg = bf_xvasprintf(fmt, ap);
	va_end(ap);
	text = bf_text_inert(msg, BF_TEXT_LINES);
	fprintf(stderr, "benchfarm: %s: %s\n", cmd, text);
	free(text);
	free(msg);
	return exit_code;
}

void bf_cmd_notes_init(struct bf_cmd_notes *n, const char *cmd)
{
	n->cmd = cmd;
	n->progress = isatty(2);
	n->line_open = false;
}

/* A step line on the terminal ends before anything else is printed. */
static void end_step_line(struct bf_cmd_notes *n)
{
	if (n->line_open)
		fputc('\n', stderr);
	n->line_open = false;
}

void bf_cmd_job_note(void *arg, enum bf_job_note kind, const char *text)
{
	struct bf_cmd_notes *n = arg;
	char *inert;

	if (!n->progress && (kind == BF_JOB_PREPARING || kind == BF_JOB_STEP))
		return;
	if (kind != BF_JOB_STEP && kind != BF_JOB_WAITING)
		end_step_line(n);
	inert = bf_text_inert(text, BF_TEXT_LINES);
	switch (kind) {
	case BF_JOB_PREPARING:
		fprintf(stderr, "benchfarm: preparing %s\n", inert);
		break;
	case BF_JOB_STEP:
		fprintf(stderr, "\r\033[K%s", inert);
		n->line_open = true;
		break;
	case BF_JOB_WAITING:
		if (n->progress) {
			fprintf(stderr, "\r\033[Kbenchfarm: %s", inert);
			n->line_open = true;
		} else {
			fprintf(stderr, "benchfarm: %s: %s\n", n->cmd, inert);
		}
		break;
	case BF_JOB_STEPS_END:
		break;
	case BF_JOB_WARNING:
		fprintf(stderr, "benchfarm: %s: warning: %s\n", n->cmd, inert);
		break;
	case BF_JOB_ERROR:
		fprintf(stderr, "benchfarm: %s: %s\n", n->cmd, inert);
		break;
	case BF_JOB_BUILD_LOG:
		/*
		 * as the build wrote it: a CI step shows it between
		 * ::stop-commands:: lines, where its commands are inert
		 */
		fprintf(stderr, "--- last lines of the build log ---\n%s\n",
		        text);
		break;
	}
	free(inert);
}

void bf_cmd_say_stopped(const json_t *result, const char *cmd)
{
	if (!strcmp(bf_json_str_or(result, "status", ""), "infra_failure"))
		bf_cmd_fail(0, cmd, "stopped: %s",
		            bf_json_str_or(result, "infra_error", "?"));
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
	struct bf_argv all = BF_ARGV_INIT;
	struct bf_err err = BF_ERR_INIT;
	int ret = 0;

	if (!path)
		return bf_cmd_fail(BF_EXIT_USAGE, cmd,
		                   "no config given; pass -c CONFIG");
	/* every error of the file, one a line, not only the first */
	if (bf_cfg_load_all(cfg, path, &all, &err)) {
		for (size_t i = 0; i < all.argc; i++)
			bf_cmd_fail(BF_EXIT_USAGE, cmd, "%s", all.argv[i]);
		if (!all.argc)
			bf_cmd_fail(BF_EXIT_USAGE, cmd, "%s", err.msg);
		if (all.argc > 1)
			bf_cmd_fail(BF_EXIT_USAGE, cmd, "%zu errors in %s",
			            all.argc, path);
		ret = BF_EXIT_USAGE;
	}
	bf_argv_release(&all);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: benchfarm [--db PATH] [-v] [-q] [--version] "
	           "COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < bf_ncommands; i++)
		fprintf(f, "  %-10s %s\n", bf_commands[i].name,
		        bf_commands[i].help);
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

static void watch_stop_signals(struct bf_store *store);

static int open_store(struct bf_ctx *ctx, const char *cmd, const char *cfg_loc)
{
	struct bf_err err = BF_ERR_INIT;
	char *path = NULL;
	int ret = 0;

	if (bf_store_choose(&path, ctx->db_flag, cfg_loc, &err) ||
	    bf_store_open(&ctx->store, path, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, cmd, "%s", err.msg);
	else
		watch_stop_signals(ctx->store);
	free(path);
	return ret;
}

int bf_cmd_load_cfg_store(struct bf_cfg *cfg, struct bf_ctx *ctx,
                          const char *cmd, const char *path)
{
	int ret = bf_cmd_load_cfg(cfg, cmd, path);

	if (ret)
		return ret;
	if ((ret = open_store(ctx, cmd, cfg->store)))
		bf_cfg_release(cfg);
	return ret;
}

/* A pipe whose reader has closed it: poll says POLLERR. */
static bool stdout_reader_gone(void)
{
	struct pollfd p = { 1, POLLOUT, 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int bf_cmd_flush_stdout(void)
{
	int ret = fflush(stdout);

	if (!ret && !ferror(stdout))
		return 0;
	/* an earlier write may have failed and errno moved on since */
	if ((ret && errno == EPIPE) || stdout_reader_gone())
		return 0;
	return -1;
}

static int finish(int ret)
{
	if (bf_cmd_flush_stdout()) {
		fprintf(stderr, "benchfarm: cannot write standard output\n");
		return ret ? ret : BF_EXIT_INFRA;
	}
	return ret;
}

/*
 * SIGTERM, SIGINT and SIGHUP end a command that holds the store, after
 * its leases are given back: killed without that, a compare kept its
 * devices for the lease's TTL. The handler only writes the signal's
 * number to a pipe (async-signal-safe); a thread waiting on the pipe
 * opens its own connection, releases this process's leases, and ends
 * the process by the same signal, default action restored. What the
 * command was doing stops there: its run is marked aborted by the next
 * command (the run's liveness lock is gone), as after SIGKILL.
 */
static int stop_pipe[2] = { -1, -1 };
static pid_t stop_pid; /* a child between fork and exec is not us */

static void on_stop_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	int saved = errno;

	if (getpid() == stop_pid && write(stop_pipe[1], &c, 1) < 0) {
		/* nothing to do: the pipe cannot be full or closed */
	}
	errno = saved;
}

static void *stop_main(void *arg)
{
	char *path = arg;
	struct bf_store *s = NULL;
	struct bf_err err = BF_ERR_INIT;
	unsigned char c = 0;
	sigset_t set;
	int n = 0;

	while (read(stop_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	if (!bf_store_open(&s, path, &err) &&
	    !bf_store_leases_release_own(s, &n, &err) && n)
		fprintf(stderr,
		        "benchfarm: stopped by signal %d: %d device "
		        "lease%s released\n",
		        c, n, n == 1 ? "" : "s");
	else if (err.code)
		fprintf(stderr,
		        "benchfarm: stopped by signal %d: cannot release "
		        "the leases: %s\n",
		        c, err.msg);
	bf_store_close(s);
	signal(c, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, c);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(c);
	_exit(128 + c); /* not reached: the default action ends us */
}

/* Start the thread that gives the leases back on a stop signal. */
static void watch_stop_signals(struct bf_store *store)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;
	pthread_t t;

	if (pipe(stop_pipe) < 0)
		return;
	fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
	if (pthread_create(&t, NULL, stop_main,
	                   bf_xstrdup(bf_store_path(store)))) {
		close(stop_pipe[0]);
		close(stop_pipe[1]);
		return;
	}
	pthread_detach(t);
	stop_pid = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < BF_ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
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
		ret = open_store(&ctx, cmd->name, NULL);
		if (ret)
			return ret;
	}
	ret = cmd->fn(argc - i, argv + i, &ctx);
	bf_store_close(ctx.store);
	return finish(ret);
}
