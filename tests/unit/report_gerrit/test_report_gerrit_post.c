/*
 * The gerrit reporter with a server (review.gerrit): what is sent over
 * SSH (the file query, then the review: argv, stdin, target), where
 * comments go by the patch set's files, which change is reviewed, what
 * is refused before anything is sent, and the server's errors. The
 * review itself is test_report_gerrit's.
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
#include "benchfarm/report.h"
#include "mocks/host_mock.h"
#include "mocks/report_fixture.h"
#include "unit/report_gerrit/gerrit_fixture.h"

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
