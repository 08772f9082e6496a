#ifndef BF_REVIEW_FIXTURE_H
#define BF_REVIEW_FIXTURE_H

#include <stddef.h>

#include "benchfarm/plugin.h"

/*
 * What the tests of the review reporters share (test_report_review: the
 * github check run and outputs; test_report_github_annotations: its
 * annotations and workflow commands; test_report_gitlab): every output of
 * a plugin, the check run's fields, and long documents and their cuts.
 * Each fails the running cmocka test instead of returning an error.
 */

extern const struct bf_plugin bf_plugin_github;
extern const struct bf_plugin bf_plugin_gitlab;

/* Every output of p on d, as NUL-terminated strings, in order. */
struct outputs {
	size_t n;
	char *name[6];
	char *text[6];
};

/*
 * Renders d with p and a mock host into *o (free with outputs_free): 0
 * or p's error code with err set. Fails when p calls outside.
 */
int render(struct outputs *o, const struct bf_plugin *p, json_t *d,
           const struct bf_report_opts *opts, struct bf_err *err);
void outputs_free(struct outputs *o);
/* render, failing the test on an error. */
void render_ok(struct outputs *o, const struct bf_plugin *p, json_t *d,
               const struct bf_report_opts *opts);

/* github-check.json of o, parsed (caller json_decrefs). */
json_t *check_of(const struct outputs *o);
/* o's string, or integer, at key; fails when it is not one. */
const char *str(const json_t *o, const char *key);
json_int_t num(const json_t *o, const char *key);
/* A check run's output, its annotation i, and how many it has. */
const json_t *output_of(const json_t *c);
const json_t *annotation(const json_t *c, size_t i);
size_t nannotations(const json_t *c);

/* The code points of UTF-8 text s. */
size_t utf8_chars(const char *s);
/* A document of n results named with 150 two-byte characters each. */
json_t *many(int n);
/*
 * md ends with note after its last whole line, every <details> closed,
 * and starts with the marker.
 */
void assert_cut_well(const char *md, const char *note);

#endif /* BF_REVIEW_FIXTURE_H */
