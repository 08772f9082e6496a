#ifndef BF_PLUGINS_H
#define BF_PLUGINS_H

#include "benchfarm/plugin.h"

/*
 * The reporter plugins built into benchfarm, and running one over a
 * result document. A report holds the outputs a plugin produced until
 * they are written.
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

/* Whether p renders results of kind (kind NULL: false). */
bool bf_plugin_renders(const struct bf_plugin *p, const char *kind);

/*
 * Whether plugin p can render result with opts, as bf_report_render
 * checks it before rendering: the ABI, the words in opts (UTF-8 text
 * without control characters; BF_EINVAL naming the option), the
 * result's kind (one p renders) and version. 0 or BF_EINVAL with err set.
 */
int bf_report_check(const struct bf_plugin *p, const json_t *result,
                    const struct bf_report_opts *opts, struct bf_err *err);

/*
 * Render result with plugin p: checks the ABI, that the words in opts
 * are UTF-8 text without control characters (BF_EINVAL naming the
 * option), and the result's kind; calls init, run and shutdown. On success *out
 * holds the outputs (free with bf_report_free).
 */
int bf_report_render(struct bf_report **out, const struct bf_plugin *p,
                     const json_t *result, const struct bf_report_opts *opts,
                     const struct bf_host *host, struct bf_err *err);
void bf_report_free(struct bf_report *r);

size_t bf_report_noutputs(const struct bf_report *r);
/* Output i: its file name and its bytes (borrowed). */
const char *bf_report_output_name(const struct bf_report *r, size_t i);
const struct bf_buf *bf_report_output(const struct bf_report *r, size_t i);

/*
 * Write the outputs: the primary one to output (a path, or "-" for
 * stdout) when output is not NULL, and every one to DIR/NAME when dir is
 * not NULL. Files are replaced atomically, mode 0644.
 */
int bf_report_write(const struct bf_report *r, const char *output,
                    const char *dir, struct bf_err *err);

#endif /* BF_PLUGINS_H */
