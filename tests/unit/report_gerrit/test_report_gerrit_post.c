/*
 * The gerrit reporter against mock hosts: the ReviewInput's exact fields
 * and vote for each kind of result, the message's order, indentation and
 * size limit, where comments go (ordinary ones, robot ones on request),
 * what is sent over SSH (the file
 * query, then the review: argv, stdin, target), and what is refused
 * before anything is sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/plugin.h"
#include "benchfarm/report.h"
#include "mocks/host_mock.h"
#include "mocks/report_fixture.h"

extern const struct bf_plugin bf_plugin_gerrit;

#define LINK  "https://ci.example.com/7"
#define SHA2  "2222222222222222222222222222222222222222"
#define QUERY "gerrit query --format JSON --patch-sets --files "

static const struct bf_host_ssh server = { 1,     "gerrit.example.com",
	                                   29418, "perfbot",
	                                   NULL,  NULL };

/* ---- a host that records every ssh_run (host_mock keeps the last) ---- */

#define REC_MAX 4

struct rec {
	const char *query_answer; /* stdout of `gerrit query` */
	int query_status, review_status;
	const char *review_answer;
	int fail_at; /* 1-based call that fails (transport), 0: none */
	int calls, warns, infos;
	char *argv[REC_MAX]; /* words joined by ' ' */
	char *input[REC_MAX];
	char *target[REC_MAX];
};

static struct rec *rec_on;

static void rec_log(int level, const char *fmt, ...)
{
	(void)fmt;
	rec_on->warns += level == BF_LOG_WARN;
	rec_on->infos += level == BF_LOG_INFO;
}

static const char *rec_getenv(const char *name)
{
	(void)name;
	return NULL;
}

static int rec_ssh(const struct bf_host_ssh *t, const char *const *argv,
                   const char *input, size_t len, struct bf_buf *out,
                   int *status, struct bf_err *err)
{
	struct bf_buf b = BF_BUF_INIT;
	struct rec *r = rec_on;
	int n = r->calls++;

	assert_true(n < REC_MAX);
	for (size_t i = 0; argv[i]; i++)
		bf_buf_addf(&b, "%s%s", i ? " " : "", argv[i]);
	r->argv[n] = bf_buf_detach(&b, NULL);
	r->input[n] = bf_xstrndup(input ? input : "", input ? len : 0);
	bf_buf_addf(&b, "%s@%s:%d", t->user, t->host, t->port);
	r->target[n] = bf_buf_detach(&b, NULL);
	if (r->fail_at == n + 1)
		return bf_err_set(err, BF_ETIMEOUT, "timed out");
	if (!strcmp(argv[1], "query")) {
		bf_buf_addstr(out, r->query_answer ? r->query_answer : "");
		*status = r->query_status;
	} else {
		bf_buf_addstr(out, r->review_answer ? r->review_answer : "");
		*status = r->review_status;
	}
	return 0;
}

static int rec_spawn(const char *const *argv, const char *input, size_t len,
                     struct bf_buf *out, int *status, struct bf_err *err)
{
	(void)argv, (void)input, (void)len, (void)out, (void)status;
	fail_msg("gerrit must not spawn");
	return bf_err_set(err, BF_ERROR, "no");
}

static const struct bf_host rec_host = {
	BF_HOST_VERSION, rec_log, rec_getenv, rec_ssh, rec_spawn,
};

static const struct bf_host *rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	rec_on = r;
	return &rec_host;
}

static void rec_release(struct rec *r)
{
	for (int i = 0; i < REC_MAX; i++) {
		free(r->argv[i]);
		free(r->input[i]);
		free(r->target[i]);
	}
	rec_on = NULL;
}

/* ---- helpers ---- */

static void opts_init(struct bf_report_opts *o)
{
	struct bf_report_opts init = BF_REPORT_OPTS_INIT;

	*o = init;
	o->check_name = "perf/pixel";
	o->gerrit_label = "Performance-Verified";
	o->link = LINK;
}

/* Renders d; the output's text into *text (caller frees) when asked. */
static int render(const json_t *d, const struct bf_report_opts *o,
                  const struct bf_host *h, char **text, struct bf_err *err)
{
	struct bf_report *r = NULL;
	const struct bf_buf *b;
	int ret = bf_report_render(&r, &bf_plugin_gerrit, d, o, h, err);

	if (!ret) {
		assert_int_equal(bf_report_noutputs(r), 1);
		assert_string_equal(bf_report_output_name(r, 0),
		                    "gerrit-review.json");
		b = bf_report_output(r, 0);
		assert_int_equal(strlen(b->buf), b->len);
		if (text)
			*text = bf_xstrdup(b->buf);
	} else {
		assert_null(r);
	}
	bf_report_free(r);
	return ret;
}

/* The review of d without a server, parsed; no SSH call is made. */
static json_t *review_of(const json_t *d, const struct bf_report_opts *o)
{
	struct bf_err err = BF_ERR_INIT;
	struct host_mock m;
	json_t *rv;
	char *text = NULL;

	if (render(d, o, host_mock_init(&m), &text, &err))
		fail_msg("gerrit: %s", err.msg);
	assert_int_equal(m.ssh_calls, 0);
	assert_int_equal(m.spawn_calls, 0);
	rv = json_loads(text, 0, NULL);
	assert_non_null(rv);
	free(text);
	host_mock_release(&m);
	return rv;
}

static json_t *review_of_fixture(const char *name,
                                 const struct bf_report_opts *o)
{
	json_t *d = report_fixture(name), *rv = review_of(d, o);

	json_decref(d);
	return rv;
}

static const char *msg_of(const json_t *rv)
{
	const char *m = json_string_value(json_object_get(rv, "message"));

	assert_non_null(m);
	return m;
}

static void assert_json_equal(json_t *got, json_t *want)
{
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_INDENT(1) | JSON_SORT_KEYS);
		char *w = json_dumps(want, JSON_INDENT(1) | JSON_SORT_KEYS);

		print_error("got:\n%s\nwant:\n%s\n", g, w);
		free(g);
		free(w);
		fail();
	}
}

/* A CommentInput: unresolved for a regression, resolved otherwise. */
static json_t *comment(const char *message, int line, bool unresolved)
{
	json_t *c = json_pack("{s:s, s:b}", "message", message, "unresolved",
	                      unresolved);

	if (line)
		json_object_set_new(c, "line", json_integer(line));
	return c;
}

/* The robot comment fields every robot comment of these tests carries. */
static json_t *robot(const char *message, int line)
{
	json_t *c =
	        json_pack("{s:s, s:s, s:s, s:s}", "robot_id", "perf/pixel",
	                  "robot_run_id", "7", "message", message, "url", LINK);

	if (line)
		json_object_set_new(c, "line", json_integer(line));
	return c;
}

#define REG_MSG \
	"micro/BM_sort/1024 real_time regressed: +12.3% [+8.0%, +17.0%], p 0.002"
#define IMP_MSG \
	"micro/BM_hash items_per_second improved: +8.5% [+5.0%, +11.0%], p 0.004"

/* ---- the documents ---- */

static void test_gerrit__regressed_review_exactly(void **state)
{
	struct bf_report_opts o;
	json_t *rv, *want;

	(void)state;
	opts_init(&o);
	rv = review_of_fixture("compare-regressed", &o);
	want = json_pack(
	        "{s:s, s:s, s:{s:i}, s:{s:[o], s:[o]}}", "message",
	        "benchfarm (perf/pixel): 1 regression, 1 improvement\n"
	        "\n"
	        "    base 111111111111 -> patch 222222222222, 6 runs per "
	        "side on pixel-7.\n"
	        "\n"
	        "Regressions:\n"
	        "\n"
	        "    * micro/BM_sort/1024 real_time: +12.3% [+8.0%, +17.0%], "
	        "p 0.002\n"
	        "\n"
	        "Improvements:\n"
	        "\n"
	        "    * micro/BM_hash items_per_second: +8.5% [+5.0%, +11.0%], "
	        "p 0.004\n"
	        "\n"
	        "Unchanged: 1; not conclusive: 1.\n"
	        "\n"
	        "Full results: " LINK "\n",
	        "tag", "autogenerated:benchfarm", "labels",
	        "Performance-Verified", -1, "comments", "bench/sort_bench.cc",
	        comment(REG_MSG, 42, true), "benchfarm.yaml",
	        comment(IMP_MSG, 8, false));
	assert_non_null(want);
	assert_json_equal(rv, want);
	/* no notify: Gerrit's default for autogenerated tags */
	assert_null(json_object_get(rv, "notify"));
	json_decref(want);
	json_decref(rv);
}

static void test_gerrit__clean_review_exactly(void **state)
{
	struct bf_report_opts o;
	json_t *rv, *want;

	(void)state;
	opts_init(&o);
	o.gerrit_vote_pass = 2;
	rv = review_of_fixture("compare-clean", &o);
	want = json_pack("{s:s, s:s, s:{s:i}, s:{}}", "message",
	                 "benchfarm (perf/pixel): no regressions\n"
	                 "\n"
	                 "    base 111111111111 -> patch 222222222222, 6 "
	                 "runs per side on pixel-7.\n"
	                 "\n"
	                 "Unchanged: 1; not conclusive: 0.\n"
	                 "\n"
	                 "Full results: " LINK "\n",
	                 "tag", "autogenerated:benchfarm", "labels",
	                 "Performance-Verified", 2, "comments");
	assert_json_equal(rv, want);
	json_decref(want);
	json_decref(rv);
}

static void test_gerrit__infra_review_exactly(void **state)
{
	struct bf_report_opts o;
	json_t *rv, *want;

	(void)state;
	opts_init(&o);
	o.link = NULL;
	rv = review_of_fixture("compare-infra", &o);
	/* no vote, no robot comment, never "no regressions" */
	want = json_pack(
	        "{s:s, s:s, s:{}}", "message",
	        "benchfarm (perf/pixel): incomplete, infrastructure "
	        "failures; nothing regressed among what was measured\n"
	        "\n"
	        "    base 111111111111 -> patch 222222222222, 6 runs per "
	        "side on pixel-7.\n"
	        "\n"
	        "Infrastructure failures (not results; what they touched "
	        "was not compared):\n"
	        "\n"
	        "    * stopped early: device 'pixel-7': connection lost "
	        "after 2 retries\n"
	        "    * micro (patch, run 4): connection to 'pixel-7' lost\n"
	        "    * micro/BM_io real_time: not measured: no samples: "
	        "every run failed\n"
	        "\n"
	        "Unchanged: 1; not conclusive: 0.\n",
	        "tag", "autogenerated:benchfarm", "comments");
	assert_json_equal(rv, want);
	json_decref(want);
	json_decref(rv);
}

static json_int_t vote(const json_t *rv)
{
	const json_t *l = json_object_get(rv, "labels");

	if (!l)
		return 99; /* no vote */
	assert_int_equal(json_object_size(l), 1);
	assert_true(
	        json_is_integer(json_object_get(l, "Performance-Verified")));
	return json_integer_value(json_object_get(l, "Performance-Verified"));
}

static json_int_t vote_of(const char *fixture, const struct bf_report_opts *o)
{
	json_t *rv = review_of_fixture(fixture, o);
	json_int_t v = vote(rv);

	json_decref(rv);
	return v;
}

static void test_gerrit__votes(void **state)
{
	struct bf_report_opts o;
	json_t *d, *rv;

	(void)state;
	opts_init(&o);
	o.gerrit_vote_fail = -2;
	o.gerrit_vote_pass = 1;
	assert_int_equal(vote_of("compare-regressed", &o), -2);
	assert_int_equal(vote_of("compare-clean", &o), 1);
	/* something not measured and nothing regressed: no vote */
	assert_int_equal(vote_of("compare-infra", &o), 99);
	/* nothing compared: no vote, and it says so */
	assert_int_equal(vote_of("compare-empty", &o), 99);
	rv = review_of_fixture("compare-empty", &o);
	assert_non_null(strstr(msg_of(rv), "benchfarm (perf/pixel): nothing "
	                                   "was compared\n"));
	json_decref(rv);
	/* a result too noisy to judge earns no pass vote, and says so */
	d = report_fixture("compare-clean");
	json_object_set_new(json_array_get(json_object_get(d, "results"), 0),
	                    "verdict", json_string("unknown"));
	rv = review_of(d, &o);
	assert_int_equal(vote(rv), 99);
	assert_non_null(strstr(msg_of(rv), "benchfarm (perf/pixel): not "
	                                   "conclusive: too few or too noisy "
	                                   "samples to tell\n"));
	json_decref(rv);
	json_decref(d);
	/* a regression among infrastructure failures still votes */
	assert_int_equal(vote_of("compare-hostile", &o), -2);
	/* fail_on: never makes a regression a number, not a gate */
	d = report_fixture("compare-regressed");
	json_object_set_new(json_object_get(d, "settings"), "fail_on",
	                    json_string("never"));
	rv = review_of(d, &o);
	assert_int_equal(vote(rv), 99);
	assert_int_equal(strncmp(msg_of(rv),
	                         "benchfarm (perf/pixel): 1 "
	                         "regression",
	                         34),
	                 0);
	json_decref(rv);
	json_decref(d);
	/* no label configured (or an empty one): no vote at all */
	o.gerrit_label = NULL;
	assert_int_equal(vote_of("compare-regressed", &o), 99);
	assert_int_equal(vote_of("compare-clean", &o), 99);
	o.gerrit_label = "";
	assert_int_equal(vote_of("compare-clean", &o), 99);
}

/* ---- the message ---- */

static void test_gerrit__hostile_names_stay_in_indented_lines(void **state)
{
	struct bf_report_opts o;
	json_t *rv;
	const char *msg, *reg, *infra, *imp;

	(void)state;
	opts_init(&o);
	rv = review_of_fixture("compare-hostile", &o);
	msg = msg_of(rv);
	/* the names intact, shell metacharacters and all */
	assert_non_null(strstr(msg, "$(rm -rf /);`id`&&echo \"q\" 's'"));
	assert_non_null(strstr(msg, "<script>alert(1)</script> (base, run 1)"));
	/* a line break in a name does not start a line */
	assert_null(strstr(msg, "\nline"));
	assert_null(strchr(msg, '\r'));
	/* regressions, then infrastructure failures, then improvements */
	reg = strstr(msg, "\nRegressions:\n\n    * ");
	infra = strstr(msg, "\nInfrastructure failures (not results");
	imp = strstr(msg, "\nImprovements:\n\n    * ");
	assert_non_null(reg);
	assert_true(reg < infra && infra < imp);
	/* every line with a name from the result is indented: never a link
	 * or markup where Gerrit renders markdown */
	for (const char *l = msg; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char *line = bf_xstrndup(l, n);

		if (strstr(line, "[x]") || strstr(line, "<script>") ||
		    strstr(line, "dev|<b>") || strstr(line, "rm -rf"))
			assert_int_equal(strncmp(line, "    ", 4), 0);
		free(line);
		l += n + (nl != NULL);
	}
	json_decref(rv);
}

/* A result with n regressions, n errors, n improvements, n devices. */
static json_t *huge(size_t n)
{
	json_t *d = report_fixture("compare-regressed");
	json_t *results = json_array(), *errors = json_array();
	json_t *devices = json_array();
	char name[300];

	for (size_t i = 0; i < 3 * n; i++) {
		const char *v = i < n       ? "regressed"
		                : i < 2 * n ? "error"
		                            : "improved";

		snprintf(name, sizeof(name), "%0190zu", i);
		json_array_append_new(
		        results,
		        json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, "
		                  "s:{s:s, s:i}}",
		                  "benchmark", "suite", "name", name, "metric",
		                  "real_time", "verdict", v, "effect", 0.25,
		                  "ci_low", 0.2, "ci_high", 0.3, "p_adjusted",
		                  0.001, "source", "file", "bench/b.cc", "line",
		                  (int)i + 1));
		if (i < n) {
			json_array_append_new(
			        errors,
			        json_pack("{s:s, s:s, s:i, s:s}", "benchmark",
			                  name, "side", "patch", "repeat", 0,
			                  "message", "connection lost"));
			json_array_append_new(devices,
			                      json_pack("{s:s}", "name", name));
		}
	}
	json_object_set_new(d, "results", results);
	json_object_set_new(d, "errors", errors);
	json_object_set_new(d, "devices", devices);
	json_object_set_new(d, "status", json_string("infra_failure"));
	return d;
}

/* The items ("    * ", not "    * ... and N more") from from to to. */
static size_t count_items(const char *from, const char *to)
{
	size_t n = 0;

	for (const char *l = from; l && l < to; l = strchr(l, '\n')) {
		l += *l == '\n';
		n += !strncmp(l, "    * ", 6) && strncmp(l, "    * ...", 9);
	}
	return n;
}

static void test_gerrit__message_stays_under_gerrit_limit(void **state)
{
	struct bf_report_opts o;
	json_t *d = huge(400), *rv, *rc;
	const char *msg, *reg, *infra, *imp, *more;
	size_t shown;
	unsigned long omitted;

	(void)state;
	opts_init(&o);
	rv = review_of(d, &o);
	msg = msg_of(rv);
	/* Gerrit refuses a message over 16 KiB characters */
	assert_true(strlen(msg) <= 15000);
	reg = strstr(msg, "\nRegressions:\n\n");
	infra = strstr(msg, "\nInfrastructure failures (not results");
	imp = strstr(msg, "\nImprovements:\n\n");
	assert_true(reg && infra && imp && reg < infra && infra < imp);
	/* every section shows some and counts the rest exactly */
	shown = count_items(reg, infra);
	assert_true(shown > 10);
	more = strstr(reg, "    * ... and ");
	assert_true(more && more < infra);
	assert_int_equal(sscanf(more, "    * ... and %lu more", &omitted), 1);
	assert_int_equal(shown + omitted, 400);
	more = strstr(infra, "    * ... and ");
	assert_true(more && more < imp);
	more = strstr(imp, "    * ... and ");
	assert_non_null(more);
	assert_non_null(strstr(msg, "\nUnchanged: 0; not conclusive: 0.\n"
	                            "\nFull results: " LINK "\n"));
	/* the device list is cut too */
	assert_non_null(strstr(msg, " more.\n"));
	/* comments: at most 50, the regressions first */
	rc = json_object_get(json_object_get(rv, "comments"), "bench/b.cc");
	assert_int_equal(json_array_size(rc), 50);
	assert_int_equal(json_integer_value(json_object_get(
	                         json_array_get(rc, 49), "line")),
	                 50);
	json_decref(rv);
	json_decref(d);
}

static void test_gerrit__comment_paths(void **state)
{
	struct bf_report_opts o;
	json_t *d = report_fixture("compare-regressed"), *rv, *rc, *r, *c;
	const char *files[] = { "./bench/x.cc", "/etc/passwd", "../up.cc",
		                "bench/../../up.cc" };

	(void)state;
	opts_init(&o);
	/* "./" is dropped; outside the repository: the patch set level */
	r = json_array_get(json_object_get(d, "results"), 1);
	json_object_set_new(json_object_get(r, "source"), "file",
	                    json_string(files[0]));
	json_object_del(json_array_get(json_object_get(d, "results"), 2),
	                "source");
	json_object_set_new(d, "run_id", json_string("run-9"));
	o.link = "ftp://not.a.web.link/"; /* no url then */
	rv = review_of(d, &o);
	rc = json_object_get(rv, "comments");
	assert_int_equal(json_object_size(rc), 2);
	c = json_array_get(json_object_get(rc, "bench/x.cc"), 0);
	assert_int_equal(json_integer_value(json_object_get(c, "line")), 42);
	assert_true(json_is_true(json_object_get(c, "unresolved")));
	assert_null(json_object_get(c, "robot_run_id"));
	assert_null(json_object_get(c, "url"));
	c = json_array_get(json_object_get(rc, "/PATCHSET_LEVEL"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "message")),
	                    IMP_MSG);
	assert_null(json_object_get(c, "line")); /* Gerrit refuses one */
	json_decref(rv);
	for (size_t i = 1; i < BF_ARRAY_SIZE(files); i++) {
		json_object_set_new(json_object_get(r, "source"), "file",
		                    json_string(files[i]));
		rv = review_of(d, &o);
		rc = json_object_get(rv, "comments");
		assert_int_equal(json_object_size(rc), 1);
		assert_int_equal(
		        json_array_size(json_object_get(rc, "/PATCHSET_LEVEL")),
		        2);
		json_decref(rv);
	}
	json_decref(d);
}

/* Renders d with $BENCHFARM_GERRIT_COMMENTS set to v; *rv or the error. */
static int review_with_env(const json_t *d, const char *v, json_t **rv,
                           struct bf_err *err)
{
	struct bf_report_opts o;
	struct host_mock m;
	char *text = NULL;
	const struct bf_host *h = host_mock_init(&m);
	int ret;

	opts_init(&o);
	host_mock_setenv(&m, "BENCHFARM_GERRIT_COMMENTS", v);
	ret = render(d, &o, h, &text, err);
	*rv = ret ? NULL : json_loads(text, 0, NULL);
	free(text);
	host_mock_release(&m);
	return ret;
}

static void test_gerrit__robot_comments_on_request(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	json_t *d = report_fixture("compare-regressed"), *rv, *want;

	(void)state;
	/* "robot": the comments of a server before 3.12, same places */
	assert_int_equal(review_with_env(d, "robot", &rv, &err), 0);
	assert_null(json_object_get(rv, "comments"));
	want = json_pack("{s:[o], s:[o]}", "bench/sort_bench.cc",
	                 robot(REG_MSG, 42), "benchfarm.yaml",
	                 robot(IMP_MSG, 8));
	assert_json_equal(json_object_get(rv, "robot_comments"), want);
	json_decref(want);
	json_decref(rv);
	/* "comments" and "" are the default: ordinary comments */
	assert_int_equal(review_with_env(d, "comments", &rv, &err), 0);
	assert_null(json_object_get(rv, "robot_comments"));
	assert_int_equal(json_object_size(json_object_get(rv, "comments")), 2);
	json_decref(rv);
	assert_int_equal(review_with_env(d, "", &rv, &err), 0);
	assert_int_equal(json_object_size(json_object_get(rv, "comments")), 2);
	json_decref(rv);
	/* another word: an error naming the variable and the words */
	assert_int_equal(review_with_env(d, "Robot", &rv, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "$BENCHFARM_GERRIT_COMMENTS is "
	                                "'Robot'"));
	assert_non_null(strstr(err.msg, "'comments'"));
	bf_err_clear(&err);
	json_decref(d);
}

static void test_gerrit__bad_input(void **state)
{
	struct bf_report_opts o;
	struct bf_err err = BF_ERR_INIT;
	struct host_mock m;
	json_t *d;

	(void)state;
	opts_init(&o);
	/* no results array: an error naming it */
	d = json_pack("{s:s}", "kind", "compare");
	assert_int_equal(render(d, &o, host_mock_init(&m), NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "\"results\""));
	bf_err_clear(&err);
	host_mock_release(&m);
	json_decref(d);
	/* a detect result is not for Gerrit */
	d = report_fixture("detect");
	assert_int_equal(render(d, &o, host_mock_init(&m), NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "detect"));
	bf_err_clear(&err);
	host_mock_release(&m);
	json_decref(d);
	/* a check name from the command line that is not UTF-8 */
	d = report_fixture("compare-clean");
	o.check_name = "perf\xff";
	assert_int_equal(render(d, &o, host_mock_init(&m), NULL, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "not UTF-8"));
	bf_err_clear(&err);
	host_mock_release(&m);
	/* fields missing everywhere: still a review */
	json_decref(d);
	d = json_pack("{s:s, s:[{}, {s:s}], s:[{}], s:[{}]}", "kind", "compare",
	              "results", "verdict", "regressed", "errors", "devices");
	opts_init(&o);
	{
		json_t *rv = review_of(d, &o);

		assert_non_null(strstr(msg_of(rv), "    base ? -> patch ?, 0 "
		                                   "runs per side on ?.\n"));
		assert_non_null(strstr(msg_of(rv), "    * ?/? ?: ?\n"));
		assert_non_null(strstr(msg_of(rv), "    * ? (?, run ?): \n"));
		json_decref(rv);
	}
	json_decref(d);
}

/* ---- posting ---- */

/* `gerrit query` output for change 4711 with patch sets 2 and 3. */
static const char query_4711[] =
        "{\"project\":\"p\",\"number\":4711,\"patchSets\":["
        "{\"number\":2,\"revision\":\"" SHA2 "\",\"files\":["
        "{\"file\":\"/COMMIT_MSG\"},{\"file\":\"bench/sort_bench.cc\"},"
        "{\"file\":\"benchfarm.yaml\"}]},"
        "{\"number\":3,\"revision\":\"3333333333333333333333333333333333333333\","
        "\"files\":[{\"file\":\"/COMMIT_MSG\",\"type\":\"ADDED\"},"
        "{\"file\":\"bench/sort_bench.cc\",\"type\":\"MODIFIED\"},"
        "{\"file\":\"src/sort.c\",\"type\":\"MODIFIED\"}]}]}\n"
        "{\"type\":\"stats\",\"rowCount\":1}\n";

static const char query_4711_old[] =
        "{\"project\":\"p\",\"number\":\"4711\",\"patchSets\":["
        "{\"number\":\"2\",\"revision\":\"" SHA2 "\",\"files\":["
        "{\"file\":\"/COMMIT_MSG\"},{\"file\":\"bench/sort_bench.cc\"},"
        "{\"file\":\"benchfarm.yaml\"}]}]}\n";

/* Posts fixture to change with r; returns the written review. */
static char *post(const char *fixture, const char *change, struct rec *r,
                  const struct bf_host *h, int want)
{
	struct bf_report_opts o;
	struct bf_err err = BF_ERR_INIT;
	json_t *d = report_fixture(fixture);
	char *text = NULL;
	int ret;

	(void)r;
	opts_init(&o);
	o.gerrit = &server;
	o.gerrit_change = change;
	ret = render(d, &o, h, &text, &err);
	if (ret != want)
		fail_msg("gerrit: %d, %s", ret, err.msg);
	if (ret)
		text = bf_xstrdup(err.msg);
	json_decref(d);
	return text;
}

static void test_gerrit__posts_what_it_writes(void **state)
{
	struct rec r;
	const struct bf_host *h = rec_init(&r);
	char *text;
	json_t *rv, *rc, *c;

	(void)state;
	r.query_answer = query_4711;
	text = post("compare-regressed", "4711,3", &r, h, 0);
	/* first which files patch set 3 has, then the review */
	assert_int_equal(r.calls, 2);
	assert_string_equal(r.argv[0], QUERY "change:4711");
	assert_string_equal(r.input[0], "");
	assert_string_equal(r.argv[1], "gerrit review --json 4711,3");
	assert_string_equal(r.target[0], "perfbot@gerrit.example.com:29418");
	assert_string_equal(r.target[1], "perfbot@gerrit.example.com:29418");
	/* stdin is byte for byte the written review */
	assert_string_equal(r.input[1], text);
	assert_int_equal(r.infos, 1); /* where it posted */
	assert_int_equal(r.warns, 0);
	/* sort_bench.cc is in patch set 3: its comment stays there; the
	 * config is not (only in 2): that one goes to the patch set level */
	rv = json_loads(text, 0, NULL);
	rc = json_object_get(rv, "comments");
	assert_int_equal(json_object_size(rc), 2);
	c = json_array_get(json_object_get(rc, "bench/sort_bench.cc"), 0);
	assert_int_equal(json_integer_value(json_object_get(c, "line")), 42);
	assert_string_equal(json_string_value(json_object_get(c, "message")),
	                    REG_MSG);
	c = json_array_get(json_object_get(rc, "/PATCHSET_LEVEL"), 0);
	assert_null(json_object_get(c, "line"));
	assert_string_equal(json_string_value(json_object_get(c, "message")),
	                    "benchfarm.yaml:8: " IMP_MSG);
	assert_int_equal(vote(rv), -1);
	json_decref(rv);
	free(text);
	rec_release(&r);
}

static void test_gerrit__patch_set_by_commit_and_old_gerrit(void **state)
{
	struct rec r;
	const struct bf_host *h = rec_init(&r);
	char *text;
	json_t *rv, *rc;

	(void)state;
	/* a commit: the patch set whose revision it is (2 has both files) */
	r.query_answer = query_4711;
	text = post("compare-regressed", SHA2, &r, h, 0);
	assert_int_equal(r.calls, 2);
	assert_string_equal(r.argv[0], QUERY "commit:" SHA2);
	assert_string_equal(r.argv[1], "gerrit review --json " SHA2);
	assert_string_equal(r.input[1], text);
	rv = json_loads(text, 0, NULL);
	rc = json_object_get(rv, "comments");
	assert_non_null(json_object_get(rc, "bench/sort_bench.cc"));
	assert_non_null(json_object_get(rc, "benchfarm.yaml"));
	assert_null(json_object_get(rc, "/PATCHSET_LEVEL"));
	json_decref(rv);
	free(text);
	rec_release(&r);
	/* Gerrit 2.x writes patch set numbers as strings */
	h = rec_init(&r);
	r.query_answer = query_4711_old;
	text = post("compare-regressed", "4711,2", &r, h, 0);
	rv = json_loads(text, 0, NULL);
	rc = json_object_get(rv, "comments");
	assert_non_null(json_object_get(rc, "benchfarm.yaml"));
	assert_null(json_object_get(rc, "/PATCHSET_LEVEL"));
	json_decref(rv);
	free(text);
	rec_release(&r);
}

static void test_gerrit__unknown_files_go_to_the_patch_set(void **state)
{
	static const char *const answers[] = {
		"fatal: not permitted\n", /* with status 1 */
		"{\"type\":\"stats\",\"rowCount\":0}\n",
		"not json\n",
	};
	struct rec r;
	const struct bf_host *h;
	char *text;
	json_t *rv, *rc;

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(answers); i++) {
		h = rec_init(&r);
		r.query_answer = answers[i];
		r.query_status = i == 0;
		text = post("compare-regressed", "4711,3", &r, h, 0);
		assert_int_equal(r.calls, 2);
		assert_int_equal(r.warns, 1);
		assert_string_equal(r.input[1], text);
		rv = json_loads(text, 0, NULL);
		rc = json_object_get(rv, "comments");
		assert_int_equal(json_object_size(rc), 1);
		rc = json_object_get(rc, "/PATCHSET_LEVEL");
		assert_int_equal(json_array_size(rc), 2);
		assert_string_equal(json_string_value(json_object_get(
		                            json_array_get(rc, 0), "message")),
		                    "bench/sort_bench.cc:42: " REG_MSG);
		json_decref(rv);
		free(text);
		rec_release(&r);
	}
}

static void test_gerrit__no_file_comment_no_query(void **state)
{
	struct rec r;
	const struct bf_host *h = rec_init(&r);
	char *text;

	(void)state;
	text = post("compare-clean", "12,5", &r, h, 0);
	assert_int_equal(r.calls, 1);
	assert_string_equal(r.argv[0], "gerrit review --json 12,5");
	assert_string_equal(r.input[0], text);
	free(text);
	rec_release(&r);
	/* hostile: comments only at the patch set level, no query */
	h = rec_init(&r);
	text = post("compare-hostile", "12,5", &r, h, 0);
	assert_int_equal(r.calls, 1);
	assert_string_equal(r.input[0], text);
	free(text);
	rec_release(&r);
}

/* Posts to the change the env gives; returns the argv sent. */
static char *posted_change(const char *fixture, const char *num, const char *ps)
{
	struct bf_report_opts o;
	struct bf_err err = BF_ERR_INIT;
	struct host_mock m;
	const struct bf_host *h = host_mock_init(&m);
	json_t *d = report_fixture(fixture);
	char *argv;

	opts_init(&o);
	o.gerrit = &server;
	if (num)
		host_mock_setenv(&m, "GERRIT_CHANGE_NUMBER", num);
	if (ps)
		host_mock_setenv(&m, "GERRIT_PATCHSET_NUMBER", ps);
	if (render(d, &o, h, NULL, &err))
		fail_msg("gerrit: %s", err.msg);
	assert_int_equal(m.ssh_calls, 1);
	argv = bf_xstrdup(m.last_argv);
	host_mock_release(&m);
	json_decref(d);
	return argv;
}

static void test_gerrit__change_from_env_then_commit(void **state)
{
	char *argv;

	(void)state;
	argv = posted_change("compare-clean", "12", "5");
	assert_string_equal(argv, "gerrit\nreview\n--json\n12,5");
	free(argv);
	/* half of it is not enough: the patch commit */
	argv = posted_change("compare-clean", "12", NULL);
	assert_string_equal(argv, "gerrit\nreview\n--json\n" SHA2);
	free(argv);
}

static void test_gerrit__refuses_a_change_that_is_not_one(void **state)
{
	static const char *const bad[] = {
		"1,2; rm -rf /",
		"--help",
		"1,",
		",2",
		"12",
		"1,2,3",
		"1 ,2",
		"4711,3\n",
		"ABCDEF0123456789abcdef0123456789abcdef01",
		"2222222222222222222222222222222222222222x",
		"",
	};
	struct bf_report_opts o;
	struct host_mock m;
	json_t *d = report_fixture("compare-regressed");

	(void)state;
	opts_init(&o);
	o.gerrit = &server;
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		struct bf_err err = BF_ERR_INIT;

		o.gerrit_change = bad[i];
		assert_int_equal(render(d, &o, host_mock_init(&m), NULL, &err),
		                 BF_EINVAL);
		assert_non_null(strstr(err.msg, "is not a change"));
		assert_int_equal(m.ssh_calls, 0);
		host_mock_release(&m);
	}
	/* from the environment too */
	o.gerrit_change = NULL;
	{
		struct bf_err err = BF_ERR_INIT;
		const struct bf_host *h = host_mock_init(&m);

		host_mock_setenv(&m, "GERRIT_CHANGE_NUMBER", "1;id");
		host_mock_setenv(&m, "GERRIT_PATCHSET_NUMBER", "1");
		assert_int_equal(render(d, &o, h, NULL, &err), BF_EINVAL);
		assert_non_null(strstr(err.msg, "'1;id,1' is not a change"));
		assert_int_equal(m.ssh_calls, 0);
		host_mock_release(&m);
	}
	json_decref(d);
}

static void test_gerrit__server_errors(void **state)
{
	struct rec r;
	const struct bf_host *h;
	char *msg;

	(void)state;
	/* the transport fails on the query: nothing else is tried */
	h = rec_init(&r);
	r.fail_at = 1;
	msg = post("compare-regressed", "1,1", &r, h, BF_ETIMEOUT);
	assert_string_equal(msg, "cannot post to Gerrit at "
	                         "gerrit.example.com:29418: timed "
	                         "out");
	assert_int_equal(r.calls, 1);
	free(msg);
	rec_release(&r);
	/* ... or on the review */
	h = rec_init(&r);
	r.fail_at = 1;
	msg = post("compare-clean", "1,1", &r, h, BF_ETIMEOUT);
	assert_string_equal(msg, "cannot post to Gerrit at "
	                         "gerrit.example.com:29418: timed "
	                         "out");
	assert_int_equal(r.infos, 0);
	free(msg);
	rec_release(&r);
	/* gerrit refuses: the change, its status and what it said */
	h = rec_init(&r);
	r.review_status = 1;
	r.review_answer = "fatal: \"1,1\" no such change\r\n\n";
	msg = post("compare-clean", "1,1", &r, h, BF_ERROR);
	assert_string_equal(msg, "gerrit review of 1,1 on "
	                         "gerrit.example.com:29418 exited with "
	                         "status 1: fatal: \"1,1\" no such change");
	assert_int_equal(r.infos, 0); /* not "posted" */
	free(msg);
	rec_release(&r);
	/* it said nothing on stdout (Gerrit's message is on stderr) */
	h = rec_init(&r);
	r.review_status = 255;
	msg = post("compare-clean", "1,1", &r, h, BF_ERROR);
	assert_string_equal(msg, "gerrit review of 1,1 on "
	                         "gerrit.example.com:29418 exited with "
	                         "status 255");
	free(msg);
	rec_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gerrit__regressed_review_exactly),
		cmocka_unit_test(test_gerrit__clean_review_exactly),
		cmocka_unit_test(test_gerrit__infra_review_exactly),
		cmocka_unit_test(test_gerrit__votes),
		cmocka_unit_test(
		        test_gerrit__hostile_names_stay_in_indented_lines),
		cmocka_unit_test(test_gerrit__message_stays_under_gerrit_limit),
		cmocka_unit_test(test_gerrit__comment_paths),
		cmocka_unit_test(test_gerrit__robot_comments_on_request),
		cmocka_unit_test(test_gerrit__bad_input),
		cmocka_unit_test(test_gerrit__posts_what_it_writes),
		cmocka_unit_test(
		        test_gerrit__patch_set_by_commit_and_old_gerrit),
		cmocka_unit_test(
		        test_gerrit__unknown_files_go_to_the_patch_set),
		cmocka_unit_test(test_gerrit__no_file_comment_no_query),
		cmocka_unit_test(test_gerrit__change_from_env_then_commit),
		cmocka_unit_test(test_gerrit__refuses_a_change_that_is_not_one),
		cmocka_unit_test(test_gerrit__server_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
