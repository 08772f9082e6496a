#ifndef BF_TEST_PARSE_HELPERS_H
#define BF_TEST_PARSE_HELPERS_H

#include <jansson.h>

#include "benchfarm/buf.h"
#include "benchfarm/common.h"
#include "benchfarm/sample.h"
#include "benchfarm/spawn.h"

/*
 * Helpers of the parser tests (tests/unit/parse/test_parse*.c). Each
 * fails the running cmocka test, naming what was wrong, instead of
 * returning an error. Fixture paths are relative to the repository root
 * (the tests run from there).
 */

/* A fixture document and the format that reads it. */
struct parse_fixture {
	const char *format;
	const char *path;
};
/* Every fixture document of tests/fixtures/{jetpack,hyperfine,...}. */
extern const struct parse_fixture fixtures[];
extern const size_t nfixtures;

/* Read a fixture into b (initialised here; the caller releases it). */
void read_fixture(struct bf_buf *b, const char *path);
/* A fixture as jansson reads it: a new reference. */
json_t *load_json(const char *path);

/* The sample of bench, metric and iteration, or NULL; borrowed. */
const struct bf_sample *find_sample(const struct bf_samples *s,
                                    const char *bench, const char *metric,
                                    int iteration);
/* The samples of bench (and of metric, unless it is NULL). */
size_t count_samples(const struct bf_samples *s, const char *bench,
                     const char *metric);
/*
 * The sample of bench, metric and iteration exists with this unit and
 * exactly this value (the parser and the test do the same arithmetic).
 */
void expect_sample(const struct bf_samples *s, const char *bench,
                   const char *metric, const char *unit, int iteration,
                   double value);
/* Sample i, in order, is exactly this one. */
void expect_nth(const struct bf_samples *s, size_t i, const char *bench,
                const char *metric, const char *unit, int iteration,
                double value);

/*
 * Samples from, from + 1, ... (in order) are iterations 0, 1, ... of
 * bench and metric in unit with exactly the values v[0..n).
 */
void expect_iterations(const struct bf_samples *s, size_t from,
                       const char *bench, const char *metric, const char *unit,
                       const double *v, size_t n);

/* Parse text in format into out ("test" names it); it must succeed. */
void parse_ok(struct bf_samples *out, const char *format, const char *text,
              size_t len);
/* Parse the fixture at path in format into out; it must succeed. */
void parse_fixture(struct bf_samples *out, const char *format,
                   const char *path);
/*
 * Parse text and expect failure with code and a message containing
 * want; the sample out starts with must survive untouched.
 */
void expect_fail(const char *format, const char *text, size_t len,
                 const char *what, int code, const char *want);
/* expect_fail of a NUL-terminated text with BF_EINVAL. */
void expect_einval(const char *format, const char *text, const char *want);

/*
 * Run argv (no shell, at most timeout_s, 16 MiB of output kept) into
 * res, which must succeed; hint says what the test needs when it cannot
 * run. The caller releases res.
 */
void run_or_fail(struct bf_spawn_result *res, const char *const *argv,
                 double timeout_s, const char *hint);

/* xorshift64: reproducible noise without rand()'s state. */
uint64_t next_random(uint64_t *x);

#endif /* BF_TEST_PARSE_HELPERS_H */
