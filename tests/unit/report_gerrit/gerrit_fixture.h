#ifndef BF_GERRIT_FIXTURE_H
#define BF_GERRIT_FIXTURE_H

#include <stdbool.h>

#include "benchfarm/plugin.h"

/*
 * What the gerrit reporter's tests share (test_report_gerrit: the review
 * it writes; test_report_gerrit_post: what it sends to a server): the
 * options, rendering, and the review's expected parts. Each fails the
 * running cmocka test instead of returning an error.
 */

extern const struct bf_plugin bf_plugin_gerrit;

#define LINK "https://ci.example.com/7"
#define SHA2 "2222222222222222222222222222222222222222"

#define REG_MSG \
	"micro/BM_sort/1024 real_time regressed: +12.3% [+8.0%, +17.0%], p 0.002"
#define IMP_MSG \
	"micro/BM_hash items_per_second improved: +8.5% [+5.0%, +11.0%], p 0.004"

/* The options of these tests: check perf/pixel, a label, LINK. */
void opts_init(struct bf_report_opts *o);

/*
 * Renders d with host h; the output's text into *text (caller frees)
 * when text is not NULL. 0 or the plugin's error code with err set.
 */
int render(const json_t *d, const struct bf_report_opts *o,
           const struct bf_host *h, char **text, struct bf_err *err);

/* The review of d without a server, parsed; no SSH call is made. */
json_t *review_of(const json_t *d, const struct bf_report_opts *o);
json_t *review_of_fixture(const char *name, const struct bf_report_opts *o);
/* The review's message. */
const char *msg_of(const json_t *rv);
/* Fails the test, printing both, unless got and want are equal. */
void assert_json_equal(json_t *got, json_t *want);
/* A CommentInput: unresolved for a regression, resolved otherwise. */
json_t *comment(const char *message, int line, bool unresolved);
/* The robot comment fields every robot comment of these tests carries. */
json_t *robot(const char *message, int line);
/* The review's vote on Performance-Verified, 99 when it has none. */
json_int_t vote(const json_t *rv);

#endif /* BF_GERRIT_FIXTURE_H */
