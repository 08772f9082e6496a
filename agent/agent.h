#ifndef BF_AGENT_H
#define BF_AGENT_H

#include <getopt.h>

#include "benchfarm/common.h"

/* Options every agent command accepts. */
struct bf_agent_ctx {
	const char *root; /* sysroot standing for "/", default "/" */
	const char *adb; /* adb serial, or NULL */
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
 * Parses the options every command accepts (--root, --adb, -h) plus
 * the command's own short options in extra (getopt syntax) through cb.
 * Returns -1 to go on, or an exit code.
 */
typedef int bf_agent_opt_fn(int opt, const char *arg, void *payload);
int bf_agent_getopt(int argc, char **argv, struct bf_agent_ctx *ctx,
                    const char *usage, const char *extra,
                    const struct option *longopts, bf_agent_opt_fn *cb,
                    void *payload);

const struct bf_agent_cmd *bf_agent_cmd_find(const char *name);
int bf_agent_main(int argc, char **argv);

#endif /* BF_AGENT_H */
