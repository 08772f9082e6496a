#ifndef BF_CMD_DEVICE_INT_H
#define BF_CMD_DEVICE_INT_H

#include <jansson.h>
#include <stdio.h>

#include "benchfarm/argv.h"
#include "cmd.h"

struct bf_store_device;

/*
 * Shared by the cmd_device*.c files (`benchfarm device ...`), and by
 * nothing else. Each subcommand gets argv starting at its own name and
 * returns an exit code; errors are printed once, as
 * "benchfarm: device SUB: MSG".
 */
int cmd_device__add(int argc, char **argv, struct bf_ctx *ctx);
int cmd_device__rekey(int argc, char **argv, struct bf_ctx *ctx);
int cmd_device__list(int argc, char **argv, struct bf_ctx *ctx);
int cmd_device__show(int argc, char **argv, struct bf_ctx *ctx);
int cmd_device__check(int argc, char **argv, struct bf_ctx *ctx);

/*
 * Print the usage of subcommand sub ("add", ...) to f: its usage line,
 * which starts "usage: benchfarm device", and its option help.
 */
void cmd_device__usage(FILE *f, const char *sub);

/*
 * Common handling of getopt_long's answer c for subcommand sub: -h
 * prints the usage and gives BF_EXIT_OK, '?' prints it to stderr and
 * gives BF_EXIT_USAGE, anything else -1 (not handled here).
 */
int cmd_device__std_opt(int c, const char *sub);

/* Whether s is a valid device name or label: [A-Za-z0-9._-]{1,64}. */
bool cmd_device__is_name(const char *s, size_t len);

/*
 * "never" when then is 0, else how long before now: "12s ago", "3m
 * ago", "5h ago", "2d ago". Cannot fail.
 */
void cmd_device__age(char *buf, size_t len, int64_t then, int64_t now);

/*
 * The device as JSON (every field; no secret is ever in the record): a
 * new object the caller json_decref()s. Cannot fail.
 */
json_t *cmd_device__json(const struct bf_store_device *d, int64_t now);

/* Print json (borrowed) indented on stdout, then a newline. */
void cmd_device__print_json(const json_t *json);

/*
 * Print rows of ncols cells (row-major, nrows * ncols strings, NULL
 * printed as "-") under the header head, in columns aligned with two
 * spaces between them; the last column is not padded.
 */
void cmd_device__table(FILE *f, const char *const *head, size_t ncols,
                       const char *const *cells, size_t nrows);

/*
 * Devices that are one machine (cmd_device_machine.c; the rule is
 * farm/machine.h's), found pool by pool (each label): siblings[i] names
 * the other devices of a pool of devs[i] that are its machine, lines
 * says each such group once ("pool 'lab': 'd1', 'd2' are one machine
 * (the same machine-id and boot id)").
 */
struct cmd_device__machines {
	struct bf_argv *siblings; /* n of them */
	size_t n;
	struct bf_argv lines;
};

/* Find them among devs[0..n) (borrowed). Cannot fail. */
void cmd_device__machines_find(struct cmd_device__machines *out,
                               const struct bf_store_device *devs, size_t n);
void cmd_device__machines_release(struct cmd_device__machines *m);

/*
 * {"record": the device's machine record or null, "same_as": the names
 * in siblings (NULL: none)}: a new object. Cannot fail.
 */
json_t *cmd_device__machine_json(const struct bf_store_device *d,
                                 const struct bf_argv *siblings);

/*
 * Connect to device d (SSH with its pin, known_hosts NULL: the
 * default), ask its agent's info and make it a machine record: *out a
 * new string (NULL when the agent named no machine). Errors name the
 * device where the layer that found them did.
 */
int cmd_device__ask_machine(char **out, const struct bf_store_device *d,
                            const char *known_hosts, struct bf_err *err);

/* Whether d holds an unexpired lease at now. */
bool cmd_device__is_leased(const struct bf_store_device *d, int64_t now);

#endif /* BF_CMD_DEVICE_INT_H */
