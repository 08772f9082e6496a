#ifndef BF_REPORT_GITHUB_INT_H
#define BF_REPORT_GITHUB_INT_H

#include <stdbool.h>

#include "benchfarm/plugin.h"

/*
 * What the github reporter's files share: report_github.c writes the
 * outputs, report_github_check.c the check-run bodies (and what one
 * result says in an annotation), report_github_commands.c the workflow
 * commands, which say it with the same level and words.
 */

#define GH_TITLE_MAX         255 /* annotation and output title */
#define GH_SUMMARY_MAX       65535 /* output.summary, in characters */
#define GH_COMMENT_MAX       65536 /* an issue or PR comment, in characters */
#define GH_MESSAGE_MAX       4096 /* ours, per annotation */
#define GH_ANNOTATIONS_MAX   50 /* per request */
#define GH_ANNOTATIONS_TOTAL 1000 /* in all: 20 requests */
/* bytes; a bigger step summary is not shown at all */
#define GH_STEP_SUMMARY_MAX (1024 * 1024)

/* Verdicts in the order they are reported: the reviewer's first. */
extern const char *const bf_gh_order[4];

/*
 * The annotation level ("failure", "warning", "notice") of a result with
 * verdict v in result (whose fail_on decides a regression's); NULL: the
 * verdict gets no annotation.
 */
const char *bf_gh_level(const json_t *result, const char *v);

/*
 * What result r with verdict v says, raw (the caller escapes):
 * "regressed: +12.3% [+8.0%, +17.0%], p 0.002 (base median 48200, ...)".
 */
void bf_gh_describe(struct bf_buf *b, const json_t *r, const char *v);

/* A control character other than tab and line feed (those kept). */
bool bf_gh_is_ctl(unsigned char c);

/* An alert raised by this detect and not ignored. */
bool bf_gh_fresh(const json_t *a);

/*
 * The body of "create a check run" for a compare result, into *check,
 * and the bodies of its updates with the annotations past the first 50,
 * into *updates; md is the summary, cut to GitHub's limit. False when a
 * text in them is not UTF-8 (then either may be NULL; the caller frees
 * both).
 */
bool bf_gh_compare_check(json_t **check, json_t **updates, const json_t *result,
                         const json_t *results, const struct bf_report_opts *o,
                         const char *md);

/*
 * The check-run body of a detect result on commit sha, md its summary;
 * of a bisect result likewise. No annotations. NULL when a text in it is
 * not UTF-8.
 */
json_t *bf_gh_detect_check(const json_t *result, const char *sha,
                           const struct bf_report_opts *o, const char *md);
json_t *bf_gh_bisect_check(const json_t *result, const char *sha,
                           const struct bf_report_opts *o, const char *md);

/*
 * The workflow commands of a compare, a detect and a bisect result, one
 * a line, appended to b (see report_github.c's top for what each has).
 */
void bf_gh_compare_commands(struct bf_buf *b, const json_t *result,
                            const json_t *results);
void bf_gh_detect_commands(struct bf_buf *b, const json_t *result);
void bf_gh_bisect_commands(struct bf_buf *b, const json_t *result);

#endif /* BF_REPORT_GITHUB_INT_H */
