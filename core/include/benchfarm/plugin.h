#ifndef BENCHFARM_PLUGIN_H
#define BENCHFARM_PLUGIN_H

/*
 * The reporter plugin ABI. A reporter (plugins/) includes this, core's
 * other public headers ("benchfarm/NAME.h") and its own folder's, nothing
 * of the orchestrator's or the agent's (ci/include-check.py).
 *
 * A reporter turns a result document (the JSON of `benchfarm compare
 * --json`, or of `benchfarm detect --json`) into one or more outputs: a
 * review comment, a check-run payload, JUnit XML, an exporter's file.
 * It never opens the store, parses YAML or talks to the network itself:
 * what it needs from the outside comes through struct bf_host.
 *
 * Each plugin exports exactly one constant descriptor (struct
 * bf_plugin); orchestrator/report/plugins.c lists the built-in ones. The
 * host checks abi first and refuses a mismatch.
 */

#include <jansson.h>

#include "benchfarm/buf.h"
#include "benchfarm/common.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"

#define BF_PLUGIN_ABI 1

/* Where a review goes over SSH (Gerrit): the device transport's fields. */
struct bf_host_ssh {
	int version; /* 1 */
	const char *host;
	int port; /* 0: 22 (Gerrit's own is 29418) */
	const char *user;
	const char *key_path; /* NULL: ~/.ssh/id_ed25519 */
	const char *known_hosts; /* NULL: benchfarm's */
};

/* What the host (the benchfarm program, or a test's mock) provides. */
struct bf_host {
	int version; /* BF_HOST_VERSION */
	/* log a message at level (BF_LOG_*), prefixed by the program */
	void (*log)(int level, const char *fmt, ...) BF_PRINTF(2, 3);
	/* the environment; NULL when unset (a mock controls it) */
	const char *(*getenv)(const char *name);
	/*
	 * Run argv on target over SSH with input on stdin; its stdout into
	 * out (may be NULL), its exit status into *status. Returns 0 or an
	 * error code with err set (connect, host key, timeout).
	 */
	int (*ssh_run)(const struct bf_host_ssh *target,
	               const char *const *argv, const char *input,
	               size_t input_len, struct bf_buf *out, int *status,
	               struct bf_err *err);
	/*
	 * Run argv locally (found on PATH when argv[0] has no '/'), input on
	 * stdin, stdout into out (may be NULL), stderr passed through; exit
	 * status into *status. Never through a shell.
	 */
	int (*spawn)(const char *const *argv, const char *input,
	             size_t input_len, struct bf_buf *out, int *status,
	             struct bf_err *err);
};

#define BF_HOST_VERSION 1

/* The review settings of the config's `review` mapping, all optional. */
struct bf_report_opts {
	int version; /* BF_REPORT_OPTS_VERSION */
	const char *check_name; /* stable check / marker name: "benchfarm" */
	const char *gerrit_label; /* "Performance-Verified"; NULL: no vote */
	int gerrit_vote_fail; /* the vote on a regression: -1 */
	int gerrit_vote_pass; /* the vote without one: +1 */
	const struct bf_host_ssh *gerrit; /* NULL: do not post */
	const char *gerrit_change; /* "CHANGE,PATCHSET" or a commit */
	const char *link; /* a URL to the full results, or NULL */
	const char *exec_name; /* the exec reporter's NAME */
};

#define BF_REPORT_OPTS_VERSION 1
#define BF_REPORT_OPTS_INIT                                                   \
	{                                                                     \
		BF_REPORT_OPTS_VERSION, "benchfarm", NULL, -1, 1, NULL, NULL, \
		        NULL, NULL                                            \
	}

struct bf_report;

/*
 * One output of a report run. The first a reporter adds is its primary
 * output (what `benchfarm report --output FILE` or stdout gets); every
 * output has a file name (such as "junit.xml") under which `--output-dir
 * DIR` writes it. The buffer belongs to the report; the reporter appends
 * to it.
 */
struct bf_buf *bf_report_add_output(struct bf_report *r, const char *file_name);

/* The result document, borrowed: "kind" is "compare" or "detect". */
const json_t *bf_report_result(const struct bf_report *r);
const struct bf_report_opts *bf_report_opts(const struct bf_report *r);
const struct bf_host *bf_report_host(const struct bf_report *r);

struct bf_plugin {
	int abi; /* BF_PLUGIN_ABI */
	const char *name; /* the --format word */
	const char *summary; /* one line for `benchfarm report --list` */
	const char *kinds; /* result kinds it renders: "compare,detect" */
	/* may be NULL; state is passed back to run and shutdown */
	int (*init)(void **state, const struct bf_host *host,
	            const struct bf_report_opts *opts, struct bf_err *err);
	/* renders r's result; returns 0 or an error code with err set */
	int (*run)(struct bf_report *r, struct bf_err *err, void *payload);
	void (*shutdown)(void *state); /* may be NULL */
};

#endif /* BENCHFARM_PLUGIN_H */
