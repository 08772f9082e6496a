#ifndef BF_CMD_H
#define BF_CMD_H

#include <getopt.h>
#include <jansson.h>

#include "benchfarm/common.h"
#include "job/presubmit.h"

struct bf_store;
struct bf_cfg;

/* What main() prepares for a command, once, before calling it. */
enum bf_cmd_flags {
	BF_CMD_NEEDS_DB = 1 << 0, /* open the store before the command */
	/*
	 * The command reads a config whose store: names the store: it
	 * opens the store itself, with bf_cmd_load_cfg_store.
	 */
	BF_CMD_CFG_DB = 1 << 1,
};

/* State main() hands each command. */
struct bf_ctx {
	const char *db_flag; /* --db, or NULL */
	/* open when BF_CMD_NEEDS_DB, or once bf_cmd_load_cfg_store
	 * succeeded; owned by main */
	struct bf_store *store;
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
 * bf_cmd_load_cfg, then open the store into ctx->store: --db, else
 * $BENCHFARM_DB, else the config's store:, else the default file. On a
 * store error prints it and returns BF_EXIT_INFRA, the config released.
 */
int bf_cmd_load_cfg_store(struct bf_cfg *cfg, struct bf_ctx *ctx,
                          const char *cmd, const char *path);

/*
 * `run --detect` and `backfill --detect`: the configured detectors over
 * the history of device class klass (NULL: devices.pool), alerts stored
 * and printed as `benchfarm detect` prints them. Returns an exit code.
 */
int bf_cmd_detect_after(const struct bf_cfg *cfg, struct bf_store *store,
                        const char *klass, const char *cmd);

/*
 * A command's view of its job's notes (bf_cmd_job_note's arg): errors
 * and warnings are printed as "benchfarm: CMD: ...", a failed build's
 * log tail after its error; when stderr is a terminal (progress), also
 * the preparing lines and one step line, rewritten at each step.
 */
struct bf_cmd_notes {
	const char *cmd;
	bool progress;
	bool line_open; /* a step line is on the terminal, not ended */
};

/* For cmd: progress when stderr is a terminal. */
void bf_cmd_notes_init(struct bf_cmd_notes *n, const char *cmd);

/* A bf_job_note_fn that prints for arg, a struct bf_cmd_notes. */
void bf_cmd_job_note(void *arg, enum bf_job_note kind, const char *text);

/*
 * After a job: "benchfarm: CMD: stopped: WHY" when result (NULL: none)
 * says its runs were stopped (status "infra_failure").
 */
void bf_cmd_say_stopped(const json_t *result, const char *cmd);

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

/*
 * The options several commands share (cmd_opts.c), in groups: -c CONFIG
 * and -h always, and with
 * - BF_CMD_OPTS_CLASSES, --device and --pool naming device classes of
 *   the history (detect, history, dashboard);
 * - BF_CMD_OPTS_SERIES, --suite, --benchmark and --metric GLOB and
 *   --range A..B (history, dashboard);
 * - BF_CMD_OPTS_JOB, -n/--repeats N, --device NAME, --pool LABEL and
 *   --json FILE of a measuring job (run, backfill, bisect).
 */
enum bf_cmd_opt_groups {
	BF_CMD_OPTS_CLASSES = 1 << 0,
	BF_CMD_OPTS_SERIES = 1 << 1,
	BF_CMD_OPTS_JOB = 1 << 2,
};

#define BF_CMD_MAX_CLASSES 16

/* What the shared options were given; NULL, 0: not given. */
struct bf_cmd_args {
	const char *config;
	const char *klass[BF_CMD_MAX_CLASSES]; /* BF_CMD_OPTS_CLASSES */
	size_t nklass;
	const char *suite, *bench, *metric; /* globs */
	const char *range;
	int repeats; /* BF_CMD_OPTS_JOB, checked as runs.repeats */
	const char *device, *pool, *json;
};

/* The option codes of cmd_opts.c start here; a command's own are less. */
#define BF_CMD_OPT_FIRST 0x1000

struct bf_cmd_parser {
	const char *name, *usage;
	unsigned groups; /* enum bf_cmd_opt_groups */
	size_t max_classes; /* 1: a later --device/--pool replaces one */
	const struct option *opts; /* the command's own; a zero row ends */
	const char *shortopts; /* theirs, besides the groups' */
	/* takes one of its own options, c with val: 0 or an exit code */
	int (*take)(void *arg, int c, const char *val);
	void *arg;
	/* NULL: no operands; else gets the index of the first one */
	int *operands;
};

/*
 * Parse argv (from the command name) into a and, through p->take, the
 * command's own options. Returns 0, -1 when -h printed the usage, or an
 * exit code after printing why.
 */
int bf_cmd_parse(struct bf_cmd_args *a, int argc, char **argv,
                 const struct bf_cmd_parser *p);

/* A series is selected when each glob of a matches its name. */
bool bf_cmd_series_matches(const struct bf_cmd_args *a, const char *suite,
                           const char *bench, const char *metric);

/* The commands. */
int cmd_config(int argc, char **argv, struct bf_ctx *ctx);
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
