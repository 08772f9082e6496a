#ifndef BF_CMD_H
#define BF_CMD_H

#include <getopt.h>
#include <jansson.h>

#include "benchfarm/common.h"

struct bf_store;
struct bf_cfg;

/* What main() prepares for a command, once, before calling it. */
enum bf_cmd_flags {
	BF_CMD_NEEDS_DB = 1 << 0, /* open the store before the command */
	BF_CMD_STUB = 1 << 1, /* not implemented yet: says which issue */
};

/* State main() hands each command. */
struct bf_ctx {
	const char *db_flag; /* --db, or NULL */
	struct bf_store *store; /* open when BF_CMD_NEEDS_DB; owned by main */
	int verbosity; /* 0 quiet .. 4 debug */
};

typedef int bf_cmd_fn(int argc, char **argv, struct bf_ctx *ctx);

struct bf_cmd {
	const char *name;
	bf_cmd_fn *fn;
	unsigned flags;
	const char *help; /* one line, for `benchfarm -h` */
};

/* The command table, in the order `benchfarm -h` lists it. */
extern const struct bf_cmd bf_commands[];
extern const size_t bf_ncommands;

/* Linear scan; NULL when unknown. */
const struct bf_cmd *bf_cmd_find(const char *name);

/* The whole program: global options, dispatch, exit code. */
int bf_main(int argc, char **argv);

/*
 * Helpers for cmd_*.c: print "benchfarm: CMD: MSG" to stderr and return
 * the exit code given, so commands can `return bf_cmd_fail(...)`.
 */
int bf_cmd_fail(int exit_code, const char *cmd, const char *fmt, ...)
        BF_PRINTF(3, 4);

/*
 * Flush stdout. 0 when everything reached it, or when its reader has
 * gone (EPIPE: `benchfarm trace fold T | head -1` is not a failure;
 * SIGPIPE is ignored, so the write fails instead), else -1.
 */
int bf_cmd_flush_stdout(void);

/* True when argv (after the command name) asks for -h/--help. */
bool bf_cmd_wants_help(int argc, char **argv);

/*
 * Load the config named by path into cfg; on error prints the message
 * and returns BF_EXIT_USAGE, else 0.
 */
int bf_cmd_load_cfg(struct bf_cfg *cfg, const char *cmd, const char *path);

/*
 * `run --detect` and `backfill --detect`: the configured detectors over
 * the history of device class klass (NULL: devices.pool), alerts stored
 * and printed as `benchfarm detect` prints them. Returns an exit code.
 */
int bf_cmd_detect_after(const struct bf_cfg *cfg, struct bf_store *store,
                        const char *klass, const char *cmd);

struct bf_argv;
struct bf_host_ssh;
struct bf_report_opts;

/*
 * The review settings of cfg (NULL: none) into o; gerrit is filled and
 * linked from o when the config names a Gerrit host.
 */
void bf_report_opts_from_cfg(struct bf_report_opts *o,
                             struct bf_host_ssh *gerrit,
                             const struct bf_cfg *cfg);

/*
 * Render result with every format of formats and write the outputs
 * (bf_report_write: output for the main one, dir for all). Every format
 * is checked against the result (known, renders its kind, reads its
 * version) before any is rendered, and all are rendered before any is
 * written: a usage error (exit 2, naming the formats that render the
 * kind when that is what failed) writes nothing. Errors are printed
 * under cmd's name. Returns an exit code.
 */
int bf_cmd_report_formats(const json_t *result, const struct bf_argv *formats,
                          const struct bf_report_opts *base, const char *output,
                          const char *dir, const char *cmd);

/* "a,b,,c" -> a b c appended to out (empty items dropped). */
void bf_cmd_split_formats(struct bf_argv *out, const char *list);

/*
 * Before any work: every format is a known reporter, and the program of
 * an exec:NAME is on PATH. Errors are printed under cmd's name; returns
 * 0 or BF_EXIT_USAGE.
 */
int bf_cmd_check_formats(const struct bf_argv *formats, const char *cmd);

/* The commands. */
int cmd_config(int argc, char **argv, struct bf_ctx *ctx);
int cmd_stub(int argc, char **argv, struct bf_ctx *ctx);
int cmd_report(int argc, char **argv, struct bf_ctx *ctx);
int cmd_trace(int argc, char **argv, struct bf_ctx *ctx);
int cmd_compare(int argc, char **argv, struct bf_ctx *ctx);
int cmd_run(int argc, char **argv, struct bf_ctx *ctx);
int cmd_backfill(int argc, char **argv, struct bf_ctx *ctx);
int cmd_detect(int argc, char **argv, struct bf_ctx *ctx);
int cmd_history(int argc, char **argv, struct bf_ctx *ctx);
int cmd_dashboard(int argc, char **argv, struct bf_ctx *ctx);
int cmd_alert(int argc, char **argv, struct bf_ctx *ctx);
int cmd_bisect(int argc, char **argv, struct bf_ctx *ctx);
int cmd_analyze_step(int argc, char **argv);
int cmd_analyze(int argc, char **argv, struct bf_ctx *ctx);
int cmd_device(int argc, char **argv, struct bf_ctx *ctx);
int cmd_cache(int argc, char **argv, struct bf_ctx *ctx);
int cmd_store(int argc, char **argv, struct bf_ctx *ctx);

#endif /* BF_CMD_H */
