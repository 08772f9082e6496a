#ifndef BENCHFARM_REPORT_H
#define BENCHFARM_REPORT_H

#include <jansson.h>

#include "benchfarm/err.h"
#include "benchfarm/plugin.h"

/*
 * Running a reporter plugin over a result document: the reporter host
 * interface of benchfarm/plugin.h (bf_report_add_output, _result,
 * _opts, _host) and the caller's side. A report holds the outputs a
 * plugin produced until they are written. Core, so that plugins and
 * their tests link against core only.
 */

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

#endif /* BENCHFARM_REPORT_H */
