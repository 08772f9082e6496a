#ifndef BF_REPORT_MARKDOWN_INT_H
#define BF_REPORT_MARKDOWN_INT_H

#include <jansson.h>

#include "benchfarm/buf.h"

/*
 * What the markdown reporter's files share: the escaping of every string
 * that comes from a result document (report_markdown_text.c) and the
 * tables (report_markdown_table.c) that report_markdown.c places in the
 * document. Every function appends to b and cannot fail.
 */

/*
 * s as markdown-safe text: no string from a document can close a table,
 * open a link, mention a user or inject HTML (the rules are above the
 * definition).
 */
void bf_md_text(struct bf_buf *b, const char *s);
/* bf_md_text of a name: at most 160 bytes of s, "…" when cut. */
void bf_md_name(struct bf_buf *b, const char *s);
/* A commit as `0123456789ab`; anything but hex is a name. */
void bf_md_commit(struct bf_buf *b, const char *c);
/* v in unit: ns shown as µs or ms from 1e3 or 1e6 ns; "–" when not finite. */
void bf_md_value(struct bf_buf *b, double v, const char *unit);
/* A fraction as "+12.3%"; "–" when not finite. */
void bf_md_percent(struct bf_buf *b, double f);
/* o's string at key as a name, "?" when absent, then " | ": one cell. */
void bf_md_cell(struct bf_buf *b, const json_t *o, const char *key);
/*
 * A comparison's runs per side: "10 runs per side" (unit "runs per
 * side" or "rounds"), the count most benchmarks have, then the others'
 * by benchmark when its settings' "benchmarks" differ: " (3 for loop, 5
 * for parse)".
 */
void bf_md_repeats(struct bf_buf *b, const json_t *settings, const char *unit);

/*
 * The compare results whose verdict ranks within [lo, hi] (0 regressed,
 * 1 error, 2 improved, 3 unknown, 4 same, 5 any other) as a table, in
 * rank order, with a suite column when the results come from several
 * suites. The number of rows; nothing at all when none.
 */
size_t bf_md_results_table(struct bf_buf *b, const json_t *results, int lo,
                           int hi);
/* A detect result's alerts[] as a table; nothing when there are none. */
void bf_md_alerts_table(struct bf_buf *b, const json_t *alerts);
/*
 * The duet series whose rounds show one core slower than the other
 * ("duet_cores": "differ"), as a list with what it usually means;
 * nothing when there are none.
 */
void bf_md_duet_cores(struct bf_buf *b, const json_t *results);

/*
 * Duet: a line saying that the sides were not isolated (settings'
 * "duet_isolation": what was not and why, the agent's words escaped)
 * and one saying how many rounds were left out as a side was stopped;
 * nothing when they were isolated and none was.
 */
void bf_md_duet_isolation(struct bf_buf *b, const json_t *settings);
/*
 * The result's "underpowered" benchmarks: too few runs for a change in
 * one gating series to reach p < alpha after correction, and the runs
 * that would.
 */
void bf_md_underpowered(struct bf_buf *b, const json_t *result);
/* A bisect result's probes[] as a table; nothing when there are none. */
void bf_md_probes_table(struct bf_buf *b, const json_t *probes);

#endif /* BF_REPORT_MARKDOWN_INT_H */
