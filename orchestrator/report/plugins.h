#ifndef BF_PLUGINS_H
#define BF_PLUGINS_H

#include "benchfarm/plugin.h"
#include "benchfarm/report.h"

/*
 * The reporter plugins built into benchfarm and the host they run in
 * (running one over a result is benchfarm/report.h, in core).
 */

extern const struct bf_plugin *const bf_plugins[];
extern const size_t bf_nplugins;

/*
 * The plugin for a --format word: "markdown", "junit", ..., or
 * "exec:NAME" (the exec plugin; *exec_name points at NAME). NULL when
 * unknown.
 */
const struct bf_plugin *bf_plugin_find(const char *format,
                                       const char **exec_name);

/* The real host: benchfarm's log, getenv, libssh2 and spawn. */
const struct bf_host *bf_host_default(void);

/*
 * The markdown of result as the markdown reporter renders it, with the
 * marker's check_name and the link to the full results (NULL: none):
 * the one renderer of every markdown benchfarm writes, reached through
 * the plugin interface. NULL with err set when the reporter refuses the
 * result or the words. Caller frees.
 */
char *bf_report_markdown_text(const json_t *result, const char *check_name,
                              const char *link, struct bf_err *err);

#endif /* BF_PLUGINS_H */
