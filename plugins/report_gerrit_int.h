#ifndef BF_REPORT_GERRIT_INT_H
#define BF_REPORT_GERRIT_INT_H

#include <stdbool.h>

#include "benchfarm/plugin.h"

/*
 * What the gerrit reporter's files share: report_gerrit.c renders the
 * review (comments and vote) and runs the plugin, report_gerrit_message.c
 * writes the review's message, report_gerrit_server.c talks to the
 * server over the host's SSH.
 */

#define BF_GERRIT_NAME_MAX 200 /* bytes of a name in the message */

/*
 * Plain text, at most max bytes of s: control characters (line breaks
 * included) become spaces, C1 controls and direction overrides
 * \u{NNNN} (bf_text_hidden_len).
 */
void bf_gerrit_plain(struct bf_buf *b, const char *s, size_t max);

/* Whether result r's verdict is verdict ("error" when it has none). */
bool bf_gerrit_is_verdict(const json_t *r, const char *verdict);

/*
 * The review's message for a compare result (the top of report_gerrit.c
 * says what it holds), check the check's name. Caller frees.
 */
char *bf_gerrit_message(const json_t *result, const json_t *results,
                        const struct bf_report_opts *o, const char *check);

/*
 * The change to review: the option, else $GERRIT_CHANGE_NUMBER,
 * $GERRIT_PATCHSET_NUMBER, else the patch commit; buf holds it when it
 * comes from the environment.
 */
const char *bf_gerrit_change_of(const json_t *result,
                                const struct bf_report_opts *o,
                                const struct bf_host *h, struct bf_buf *buf);

/* CHANGE,PATCHSET (digits) or a 40-digit lower-case commit hash. */
bool bf_gerrit_valid_change(const char *c);

/*
 * The files of change's patch set on the server o->gerrit, asked with
 * `gerrit query`, into *files (an empty array when they cannot be had:
 * then every comment goes to the patch set level; caller frees). An
 * error only when the server cannot be reached.
 */
int bf_gerrit_change_files(json_t **files, const char *change,
                           const struct bf_report_opts *o,
                           const struct bf_host *h, struct bf_err *err);

/* Post review (a ReviewInput) on change with `gerrit review --json`. */
int bf_gerrit_post(const char *review, const char *change,
                   const struct bf_report_opts *o, const struct bf_host *h,
                   struct bf_err *err);

#endif /* BF_REPORT_GERRIT_INT_H */
