#ifndef BF_REPORT_MARKDOWN_H
#define BF_REPORT_MARKDOWN_H

#include <jansson.h>

/*
 * Renderers of the compare result JSON. Each reads only the result
 * document, so that `benchfarm report` can re-render a stored result.
 */

/*
 * The markdown report: the stable marker
 * <!-- benchfarm:report name=CHECK_NAME --> on its first line, so a
 * pipeline finds and updates its earlier comment, a summary line, a
 * "Full results" line for link when it is an http(s) URL, a table with
 * regressions first, infrastructure failures in their own section.
 * check_name NULL: "benchfarm"; link NULL: no link. The one renderer of
 * every markdown benchfarm writes: the markdown reporter's report.md,
 * compare --markdown and stdout (given the config's review.check_name
 * and review.link, so both are byte for byte the same), and the github
 * and gitlab reporters. Caller frees.
 */
char *bf_report_markdown_named(const json_t *result, const char *check_name,
                               const char *link);

#endif /* BF_REPORT_MARKDOWN_H */
