#ifndef BF_AGENT_PARSE_H
#define BF_AGENT_PARSE_H

#include <jansson.h>

#include "benchfarm/common.h"
#include "benchfarm/sample.h"

struct bf_err;

/*
 * Benchmark output parsers: turn what a benchmark printed (or wrote to
 * a file) into samples. One parser per output format, looked up by name
 * in a table. Parsers never trust the text: it is length-bounded (NUL
 * bytes are rejected, never read past), capped in size, and every
 * problem is a BF_EINVAL whose message names the input ("what").
 */

/* Inputs larger than this are rejected with BF_ETOOBIG. */
#define BF_PARSE_INPUT_MAX ((size_t)64 * 1024 * 1024)
/* Benchmark and metric names longer than this are rejected. */
#define BF_PARSE_NAME_MAX 1024

/*
 * A parser appends the samples found in text[0..len) to out; samples
 * already in out are kept. Iteration indexes count from 0 per benchmark
 * and metric within this text. what names the input in messages (a
 * path, or "benchmark 'x' output"). Returns 0, or BF_EINVAL/BF_ETOOBIG
 * with err set; on failure out holds exactly what it held before.
 */
typedef int bf_parse_fn(struct bf_samples *out, const char *text, size_t len,
                        const char *what, struct bf_err *err);

struct bf_parser {
	const char *name; /* the format name used in configs: "gbench" */
	bf_parse_fn *parse;
};

/*
 * The parser for format name, or NULL when unknown (or name is NULL).
 * The returned pointer is borrowed from a static table. Cannot fail.
 */
const struct bf_parser *bf_parser_find(const char *name);

/*
 * Writes the known format names, separated by ", ", into buf of size
 * len (for messages and --help). Cannot fail; truncates to fit.
 */
void bf_parser_list(char *buf, size_t len);

/*
 * Parses text[0..len) in the named format, appending to out as the
 * parser does. what may be NULL ("output"). Returns BF_EINVAL for an
 * unknown or NULL format (the message lists the known ones),
 * BF_ETOOBIG when len exceeds BF_PARSE_INPUT_MAX, else what the parser
 * returns.
 */
int bf_parse_output(struct bf_samples *out, const char *format,
                    const char *text, size_t len, const char *what,
                    struct bf_err *err);

/*
 * Google Benchmark JSON (--benchmark_format=json or --benchmark_out).
 * Keeps the per-repetition rows (run_type "iteration", or rows without
 * run_type from versions before 1.5) and ignores aggregates (mean,
 * median, stddev, cv, BigO, RMS). Each row gives one sample per metric:
 * "real_time" and "cpu_time" in nanoseconds (unit "ns") whatever the
 * row's time_unit, then each user counter (any other numeric field,
 * e.g. items_per_second) with unit "/s" for names ending in
 * "_per_second", else "". The iteration is the row's repetition_index,
 * or the count of earlier rows of the same name. Rows with
 * error_occurred or skipped produce no samples; when no row is left
 * that is BF_EINVAL naming the first error message. The bare NaN and
 * Infinity tokens Google Benchmark prints for non-finite counters are
 * accepted: such counters are left out (a non-finite time is an error).
 */
int bf_parse_gbench(struct bf_samples *out, const char *text, size_t len,
                    const char *what, struct bf_err *err);

/*
 * Plain text, one sample per line: "name value [unit]" separated by
 * spaces or tabs. Blank lines and lines whose first non-blank character
 * is '#' are skipped; CRLF line ends are accepted. The metric is
 * "value". Values in ns, us (or µs), ms or s are converted to ns (unit
 * "ns"); other units are kept as given. Repeated names count
 * iterations 0, 1, 2, ... Errors name the line: "WHAT:LINE: expected
 * 'name value [unit]': ..."; text without any sample is an error too.
 */
int bf_parse_lines(struct bf_samples *out, const char *text, size_t len,
                   const char *what, struct bf_err *err);

/*
 * Jetpack Microbenchmark JSON (benchmarkData.json; every generation of
 * the writer, old integer and new Moshi field sets). The benchmark is
 * "className.name", where name already carries Jetpack's parameter
 * suffix ("parseJson[size=1024]") and any error prefix. Each value of
 * metrics.M.runs is one sample of metric M with iteration = its index;
 * each value of sampledMetrics.M.runs[i] is one sample with iteration
 * i. Metrics named ...Ns, ...Us or ...Ms are times, converted to ns
 * (unit "ns"); others keep their value with unit "". context, params,
 * minimum/maximum/median and the other fields give no samples. A
 * metric without a runs array, or a document without any run value,
 * is BF_EINVAL; so is a negative time in metrics (sampledMetrics allow
 * them: frame overruns). Iterations continue when a benchmark name
 * repeats. docs/formats.md describes the mapping.
 */
int bf_parse_jetpack(struct bf_samples *out, const char *text, size_t len,
                     const char *what, struct bf_err *err);

/*
 * hyperfine --export-json: for each of results[], the benchmark is the
 * command (or its --command-name) and each entry of times (seconds)
 * gives one "wall_time" sample in ns, iteration = its index (counting
 * on when a command repeats). The user
 * and system means, when present, give one "user_time_mean" and one
 * "system_time_mean" sample (ns). exit_codes are checked for shape
 * only. An empty file (hyperfine leaves one when a run fails) is
 * BF_EINVAL.
 */
int bf_parse_hyperfine(struct bf_samples *out, const char *text, size_t len,
                       const char *what, struct bf_err *err);

/*
 * benchfarm's own format, specified in docs/formats.md:
 * {"format": "benchfarm-native", "version": 1, "samples": [{"benchmark":
 * "x", "metric": "time", "unit": "ms", "value": 1.5, "iteration": 0}]}.
 * Time units (s, ms, us, µs, ns) become ns. A newer version, an
 * unknown key, a non-finite value or a document without samples is
 * BF_EINVAL.
 */
int bf_parse_native(struct bf_samples *out, const char *text, size_t len,
                    const char *what, struct bf_err *err);

/*
 * Helpers shared by the format modules (not for other callers).
 *
 * A counter of occurrences per name, for iteration numbering. Names are
 * borrowed and must outlive the counter.
 */
struct bf_parse__counter {
	size_t alloc; /* slots in v, a power of two or 0 */
	size_t n; /* slots in use */
	struct bf_parse__slot *v;
};

#define BF_PARSE__COUNTER_INIT \
	{                      \
		0, 0, NULL     \
	}

/* Frees the table; NULL is ok. */
void bf_parse__counter_release(struct bf_parse__counter *c);
/* Occurrences of name so far. Cannot fail. */
int bf_parse__counter_get(const struct bf_parse__counter *c, const char *name);
/* Counts one more occurrence; returns the count before. Cannot fail. */
int bf_parse__counter_next(struct bf_parse__counter *c, const char *name);

/* Frees the samples beyond the first n, restoring an earlier state. */
void bf_parse__samples_truncate(struct bf_samples *s, size_t n);

/* Rewrites a text before it is parsed as JSON; NULL when unchanged. */
typedef char *bf_parse__fix_fn(const char *text, size_t len);
/* Reads a parsed document into samples; state is the parser's own. */
typedef int bf_parse__doc_fn(void *state, const json_t *root,
                             struct bf_err *err);

/* A JSON format, for bf_parse__json. */
struct bf_parse__json_format {
	const char *expected; /* "Google Benchmark JSON", for empty input */
	bf_parse__fix_fn *fix; /* NULL, or a rewrite of the text first */
	bf_parse__doc_fn *doc; /* appends the document's samples to out */
};

/*
 * What every JSON format's parser does around its own reading: BF_ETOOBIG
 * over BF_PARSE_INPUT_MAX, BF_EINVAL "WHAT: empty output, expected
 * EXPECTED" for empty or all-whitespace input, then the text (as
 * format->fix rewrites it: a copy of the same length, freed here) parsed
 * with bf_json_parse's messages naming what, then format->doc(state,
 * root) appending to out. On any failure out is truncated back to what
 * it held before (bf_parse_fn's rule). Returns 0 or the first error.
 */
int bf_parse__json(struct bf_samples *out, const char *text, size_t len,
                   const char *what, const struct bf_parse__json_format *format,
                   void *state, struct bf_err *err);

/*
 * Nanoseconds per time unit ("ns", "us", "µs", "ms", "s"); 0 when unit
 * is not a time unit. Cannot fail.
 */
double bf_parse__ns_per_unit(const char *unit);

#endif /* BF_AGENT_PARSE_H */
