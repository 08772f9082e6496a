#ifndef BF_REPORT_UTIL_H
#define BF_REPORT_UTIL_H

/*
 * What every reporter reads from a compare result the same way: the
 * counts of verdicts, whether infrastructure failed, a result's display
 * name and source location. Only jansson and the plugin ABI.
 */
#include <stdbool.h>

#include "benchfarm/plugin.h"

/* The results array, or an error naming it when it is missing. */
int bf_rep_results(const json_t **out, const json_t *result,
                   struct bf_err *err);

/*
 * A result's verdict as the gate reads it: its "verdict", except that a
 * regressed or improved series that does not gate ("gated": false, the
 * benchmark's gate:) is "ungated": reported with the other results,
 * never counted as a regression or an improvement.
 */
const char *bf_rep_verdict(const json_t *r);

/* How many of results have the verdict (bf_rep_verdict) verdict. */
size_t bf_rep_count(const json_t *results, const char *verdict);

/*
 * Whether anything was not measured: status other than "ok", an entry in
 * errors[], the summary's errors or failed runs, a result whose verdict
 * is "error". Such a result must never read as "no regressions".
 */
bool bf_rep_has_infra(const json_t *result);

/*
 * The pool's devices that did not measure for the run (the result's
 * "devices_out": {name, health, skipped, why}), borrowed; NULL when
 * none. Every reporter lists them beside the infrastructure failures,
 * whether or not the other devices finished the work: a pool that lost
 * devices is said to have lost them.
 */
const json_t *bf_rep_devices_out(const json_t *result);
/*
 * One of them as text: "NAME (HEALTH, skipped for this run): WHY" or
 * "NAME (HEALTH): WHY"; plain text, for each reporter to escape.
 */
void bf_rep_add_device_out(struct bf_buf *b, const json_t *dev);

/*
 * Whether nothing was compared: results is empty (or not an array). Like
 * infrastructure failures, this never reads as "no regressions", passes
 * no check and earns no vote.
 */
bool bf_rep_compared_nothing(const json_t *results);

/*
 * Whether a result may pass (a "success" check, Gerrit's pass vote):
 * no infrastructure failure, something compared, nothing regressed,
 * nothing "unknown" (too few or too noisy samples to say either way),
 * and nothing "missing" that fails (bf_rep_missing_fails).
 */
bool bf_rep_all_clear(const json_t *result, const json_t *results);

/*
 * The headline's verdict when nothing regressed, nothing failed and
 * something was compared: "no regressions", "no regressions, N not
 * conclusive", or, when every result is "unknown", "not conclusive: too
 * few or too noisy samples". Capitalised when cap (a title).
 */
void bf_rep_add_no_regressions(struct bf_buf *b, const json_t *results,
                               bool cap);

/* The config says fail on a regression (the default). */
bool bf_rep_fail_on_regression(const json_t *result);

/*
 * Whether a result whose verdict is "missing" (a series one side
 * reported and the other did not) fails the gate as a regression does:
 * fail_on is regression and settings.missing_series is not "ignore"
 * (absent: "fail").
 */
bool bf_rep_missing_fails(const json_t *result);
/* settings.missing_series is not "ignore": missing series count. */
bool bf_rep_missing_counts(const json_t *result);

/*
 * The results that fail the gate when fail_on is regression: those
 * regressed, and those missing when bf_rep_missing_fails.
 */
size_t bf_rep_count_failing(const json_t *result, const json_t *results);

/*
 * "missing on the patch side" (or base) for a result whose verdict is
 * "missing", raw (the caller escapes).
 */
void bf_rep_add_missing(struct bf_buf *b, const json_t *r);

/* r's number at key, NAN when absent or not a number. */
double bf_rep_num(const json_t *r, const char *key);

/*
 * "suite/name metric" of a result into b, raw (the caller escapes).
 */
void bf_rep_title(struct bf_buf *b, const json_t *r);

/*
 * path as a path inside the repository, "./" in front dropped; NULL when
 * it is not one: empty, absolute, with a ".." component, with a control
 * character, or longer than 4096 bytes. Review systems are given only
 * such paths (a comment or annotation on "../../etc/passwd" points
 * outside the change, or is refused with the whole review).
 */
const char *bf_rep_repo_path(const char *path);

/*
 * A result's .source.file when it is a path inside the repository
 * (bf_rep_repo_path), with *line its .source.line (0 when unknown); else
 * NULL with *line 0.
 */
const char *bf_rep_source_file(const json_t *r, long *line);

/*
 * Where a result's benchmark is: bf_rep_source_file; else the result's
 * config path when it is a path inside the repository, line 0; else
 * NULL.
 */
const char *bf_rep_source(const json_t *result, const json_t *r, long *line);

/*
 * Which run an errors[] entry e is, as people count: "run 1" for its
 * repeat 0, "warmup" for a warmup (repeat -1), "run ?" without one.
 */
void bf_rep_add_run(struct bf_buf *b, const json_t *e);

/*
 * A result's change and its 95% interval: "+12.3% [+8.0%, +17.0%]", r's
 * "effect", then "ci_low" and "ci_high" when both are numbers; missing
 * in place of a change that is not one.
 */
void bf_rep_add_effect(struct bf_buf *b, const json_t *r, const char *missing);

/*
 * A one-line description of a result: "+12.3% [+8.0%, +17.0%], p 0.002"
 * (bf_rep_add_effect with "?", then the adjusted p when there is one).
 */
void bf_rep_change(struct bf_buf *b, const json_t *r);

/*
 * Append doc as JSON (indented by 2, keys in order) and a line feed to
 * out; takes over the reference to doc. doc NULL (a json_pack or
 * json_object_set_new that failed) or a document json_dumps cannot
 * encode (a string that is not UTF-8) is BF_EINVAL naming what, and out
 * is left as it was: an error, never a crash or a document with a
 * member missing.
 */
int bf_rep_add_json(struct bf_buf *out, json_t *doc, const char *what,
                    struct bf_err *err);

/* Append s cut to at most max bytes at a UTF-8 boundary, "…" if cut. */
void bf_rep_add_cut(struct bf_buf *b, const char *s, size_t max);

/*
 * md cut to at most max characters (code points when chars, else bytes)
 * with note appended: at a line's end, so that no table row or escape is
 * split, and with every <details> the renderer opened closed again
 * before the note; md whole when it fits. Caller frees.
 */
char *bf_rep_cut_markdown(const char *md, size_t max, bool chars,
                          const char *note);

/*
 * A bisect result (kind "bisect", `benchfarm bisect --json`): its verdict
 * in one line, raw (the caller escapes): "culprit 0123456789ab: micro
 * alpha value regressed", "culprit among 3 commits: ...", or "no
 * culprit: ..." when the change between good and bad was not confirmed.
 * Caller frees.
 */
char *bf_rep_bisect_title(const json_t *result);

/*
 * The check's conclusion for a bisect: "failure" when it found the
 * commit (or commits) of a regression, "success" for an improvement's,
 * "neutral" when it found none.
 */
const char *bf_rep_bisect_conclusion(const json_t *result);

/*
 * The runs per side of a comparison (duet: rounds), from its settings'
 * "benchmarks" (each benchmark's "repeats": they differ when the config
 * gives them per benchmark): most, the count the most benchmarks have
 * (on a tie settings.repeats, the runs' count, when it is one of them,
 * else the earliest), and the least and the largest.
 * All are settings.repeats for a result without the list.
 */
struct bf_rep_repeats {
	long long most, lo, hi;
};
void bf_rep_repeats(struct bf_rep_repeats *r, const json_t *settings);

/*
 * A detect result's "over N commits" words: the commits that have
 * measurements ("measured"), which is what the detectors saw, else the
 * branch's length ("commits") for results that predate "measured".
 */
void bf_rep_detect_over(struct bf_buf *b, const json_t *result);

#endif /* BF_REPORT_UTIL_H */
