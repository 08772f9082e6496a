#ifndef BF_AGENT_H
#define BF_AGENT_H

#include <getopt.h>

#include "benchfarm/common.h"

struct bf_fence;

/* Options every agent command accepts. */
struct bf_agent_ctx {
	const char *root; /* sysroot standing for "/", default "/" */
	const char *adb; /* adb serial, or NULL */
	/*
	 * The lease fence of the request being served (fence.h), NULL
	 * when it has none; borrowed, set by serve for one request.
	 */
	const struct bf_fence *fence;
};

typedef int bf_agent_cmd_fn(int argc, char **argv, struct bf_agent_ctx *ctx);

struct bf_agent_cmd {
	const char *name;
	bf_agent_cmd_fn *fn;
	const char *help; /* one line, for the list of commands */
};

extern const struct bf_agent_cmd bf_agent_commands[];
extern const size_t bf_agent_ncommands;

/* Commands: cmd_oneshot.c */
int bf_agent_cmd_serve(int argc, char **argv, struct bf_agent_ctx *ctx);
int bf_agent_cmd_run(int argc, char **argv, struct bf_agent_ctx *ctx);
int bf_agent_cmd_parse(int argc, char **argv, struct bf_agent_ctx *ctx);
/* cmd_device.c */
int bf_agent_cmd_info(int argc, char **argv, struct bf_agent_ctx *ctx);
int bf_agent_cmd_check(int argc, char **argv, struct bf_agent_ctx *ctx);
/* cmd_clocks.c */
int bf_agent_cmd_lock_clocks(int argc, char **argv, struct bf_agent_ctx *ctx);
int bf_agent_cmd_unlock_clocks(int argc, char **argv, struct bf_agent_ctx *ctx);

/*
 * Parses the options every command accepts (-h/--help, -R/--root DIR,
 * -A/--adb SERIAL) plus the command's own: short ones in extra (getopt
 * syntax), long ones in longopts (ended by a NULL name; NULL for none),
 * each handed to cb with its argument (cb NULL: no options of its own).
 * cb returns -1 to go on or an exit code to stop with. Prints the usage
 * for -h (exit 0) and for an unknown option (BF_EXIT_USAGE). Returns -1
 * when the command should go on (its operands from optind), else the
 * exit code. Implemented in options.c.
 */
typedef int bf_agent_opt_fn(int opt, const char *arg, void *payload);
int bf_agent_getopt(int argc, char **argv, struct bf_agent_ctx *ctx,
                    const char *usage, const char *extra,
                    const struct option *longopts, bf_agent_opt_fn *cb,
                    void *payload);

const struct bf_agent_cmd *bf_agent_cmd_find(const char *name);
int bf_agent_main(int argc, char **argv);

#endif /* BF_AGENT_H */
