#ifndef BF_REPORT_H
#define BF_REPORT_H

#include <jansson.h>

/*
 * Renderers of the compare result JSON. Each reads only the result
 * document, so that `benchfarm report` can re-render a stored result.
 */

/*
 * The markdown report: a summary line, a table with regressions first,
 * infrastructure failures in their own section. Caller frees.
 */
char *bf_report_markdown(const json_t *result);

/*
 * The same with the stable marker <!-- benchfarm:report name=CHECK_NAME -->
 * on its first line, so a pipeline finds and updates its earlier comment,
 * and a "Full results" line for link when it is an http(s) URL: with
 * the review options, byte for byte the markdown reporter's report.md.
 * check_name NULL: "benchfarm"; link NULL: no link. The github and
 * gitlab reporters reuse it.
 */
char *bf_report_markdown_named(const json_t *result, const char *check_name,
                               const char *link);

#endif /* BF_REPORT_H */
