/*
 * Running reporters (core/src/report_run.c) and the two reporters
 * that need no formatting knowledge: json and exec:NAME, against the
 * mock host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/fs.h"
#include "benchfarm/report.h"
#include "mocks/host_mock.h"

extern const struct bf_plugin bf_plugin_json;
extern const struct bf_plugin bf_plugin_exec;

static json_t *doc(void)
{
	return json_pack("{s:s, s:[{s:s, s:s}]}", "kind", "compare", "results",
	                 "name", "BM_a", "verdict", "same");
}

static void test_report__json_output_is_the_document(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	json_t *d = doc(), *back;
	const struct bf_buf *b;

	(void)state;
	assert_int_equal(bf_report_render(&r, &bf_plugin_json, d, &o,
	                                  host_mock_init(&m), &err),
	                 0);
	assert_int_equal(bf_report_noutputs(r), 1);
	assert_string_equal(bf_report_output_name(r, 0), "result.json");
	b = bf_report_output(r, 0);
	back = json_loadb(b->buf, b->len, 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(back, d));
	assert_null(bf_report_output(r, 1));
	json_decref(back);
	json_decref(d);
	bf_report_free(r);
	host_mock_release(&m);
}

static int calls_init, calls_shutdown, seen_state;

static int t_init(void **st, const struct bf_host *h,
                  const struct bf_report_opts *o, struct bf_err *err)
{
	static int token = 42;

	(void)h;
	(void)o;
	(void)err;
	calls_init++;
	*st = &token;
	return 0;
}

static int t_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)err;
	seen_state = *(int *)payload;
	bf_buf_addstr(bf_report_add_output(r, "a.txt"), "first");
	bf_buf_addstr(bf_report_add_output(r, "b.txt"), "second");
	return 0;
}

static void t_shutdown(void *st)
{
	assert_int_equal(*(int *)st, 42);
	calls_shutdown++;
}

static const struct bf_plugin test_plugin = {
	BF_PLUGIN_ABI, "t", "test", "compare", t_init, t_run, t_shutdown,
};

static void
test_report__state_passes_from_init_to_run_and_shutdown(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	json_t *d = doc();

	(void)state;
	calls_init = calls_shutdown = seen_state = 0;
	assert_int_equal(bf_report_render(&r, &test_plugin, d, &o,
	                                  host_mock_init(&m), &err),
	                 0);
	assert_int_equal(calls_init, 1);
	assert_int_equal(calls_shutdown, 1);
	assert_int_equal(seen_state, 42);
	assert_int_equal(bf_report_noutputs(r), 2);
	assert_string_equal(bf_report_output_name(r, 1), "b.txt");
	json_decref(d);
	bf_report_free(r);
	host_mock_release(&m);
}

static void expect_refused(const struct bf_plugin *p, json_t *d,
                           const char *needle)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;

	calls_init = 0;
	assert_int_equal(
	        bf_report_render(&r, p, d, &o, host_mock_init(&m), &err),
	        BF_EINVAL);
	assert_null(r);
	assert_int_equal(calls_init, 0);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' not in '%s'", needle, err.msg);
	host_mock_release(&m);
	json_decref(d);
}

static void test_report__refuses_abi_kind_and_foreign_documents(void **state)
{
	struct bf_plugin old = test_plugin, detect_only = test_plugin;

	(void)state;
	old.abi = BF_PLUGIN_ABI + 1;
	detect_only.kinds = "detect";
	expect_refused(&old, doc(), "ABI");
	expect_refused(&detect_only, doc(), "renders detect results");
	expect_refused(&test_plugin, json_pack("{s:i}", "x", 1), "no \"kind\"");
	expect_refused(&test_plugin, json_pack("[i]", 1), "no \"kind\"");
	/* "compare" must match a whole word of kinds, not a prefix */
	detect_only.kinds = "comparex,detect";
	expect_refused(&detect_only, doc(), "renders");
}

/* Renders doc() with test_plugin and o; the return code. */
static int render_opts(const struct bf_report_opts *o, struct bf_err *err)
{
	struct bf_report *r = NULL;
	struct host_mock m;
	json_t *d = doc();
	int rc;

	calls_init = 0;
	rc = bf_report_render(&r, &test_plugin, d, o, host_mock_init(&m), err);
	if (rc) {
		assert_null(r);
		assert_int_equal(calls_init, 0);
	}
	bf_report_free(r);
	host_mock_release(&m);
	json_decref(d);
	return rc;
}

/*
 * Words from the command line or the config reach JSON, XML and markdown
 * documents: each reporter is refused one that is not UTF-8 text without
 * control characters, with the option named.
 */
static void test_report__option_words_must_be_text(void **state)
{
	static const char *const bad[] = {
		"perf\xff", /* not UTF-8 */
		"perf\xc3", /* cut sequence */
		"perf\xc0\xaf", /* overlong '/' */
		"perf\xed\xa0\x80", /* a surrogate */
		"perf\xf4\x90\x80\x80", /* beyond U+10FFFF */
		"perf\tx", /* C0 control */
		"perf\x7f", /* DEL */
		"perf\xc2\x9b", /* C1 control (CSI) */
	};
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.check_name = bad[i];
		assert_int_equal(render_opts(&o, &err), BF_EINVAL);
		if (!strstr(err.msg, "--check-name") ||
		    !strstr(err.msg, "not UTF-8 text"))
			fail_msg("case %zu: '%s'", i, err.msg);
		bf_err_clear(&err);
	}
	o.check_name = "perf/pixel-7 \xc3\xbc \xe2\x9c\x93 \xf0\x9f\x98\x80";
	assert_int_equal(render_opts(&o, &err), 0);
	o.link = "https://ci.example.com/\n";
	assert_int_equal(render_opts(&o, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "review.link"));
	assert_non_null(strstr(err.msg, "byte 0x0a at offset 23"));
	bf_err_clear(&err);
	o.link = NULL;
	o.gerrit_label = "Perf\x1b[31m";
	assert_int_equal(render_opts(&o, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "review.gerrit.label"));
	bf_err_clear(&err);
	o.gerrit_label = NULL;
	o.exec_name = "x\xff";
	assert_int_equal(render_opts(&o, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "exec:NAME"));
	bf_err_clear(&err);
}

static int render_exec(struct host_mock *m, const char *name,
                       struct bf_report **r, struct bf_err *err)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	const struct bf_host *h = host_mock_init(m);
	json_t *d = doc();
	int rc;

	m->answer = "posted\n";
	o.exec_name = name;
	rc = bf_report_render(r, &bf_plugin_exec, d, &o, h, err);
	json_decref(d);
	return rc;
}

static void test_report__exec_hands_the_document_to_the_program(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	json_t *in, *d = doc();

	(void)state;
	assert_int_equal(render_exec(&m, "slack-2.x_y", &r, &err), 0);
	assert_int_equal(m.spawn_calls, 1);
	assert_int_equal(m.ssh_calls, 0);
	assert_string_equal(m.last_argv, "benchfarm-report-slack-2.x_y");
	in = json_loads(m.last_input, 0, NULL);
	assert_non_null(in);
	assert_true(json_equal(in, d));
	assert_string_equal(bf_report_output_name(r, 0),
	                    "exec-slack-2.x_y.out");
	assert_string_equal(bf_report_output(r, 0)->buf, "posted\n");
	json_decref(in);
	json_decref(d);
	bf_report_free(r);
	host_mock_release(&m);
}

static void test_report__exec_names_that_are_not_words_are_refused(void **state)
{
	static const char *const bad[] = { "",     "../x",  "a/b", "a b",
		                           ".hid", "$(id)", "x;y", NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;

	(void)state;
	for (size_t i = 0; i <= BF_ARRAY_SIZE(bad) - 1; i++) {
		bf_err_clear(&err);
		assert_int_equal(render_exec(&m, bad[i], &r, &err), BF_EINVAL);
		assert_null(r);
		assert_int_equal(m.spawn_calls, 0);
		host_mock_release(&m);
	}
}

static void test_report__exec_failures_are_errors(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	const struct bf_host *h;
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *d = doc();

	(void)state;
	o.exec_name = "gone";
	h = host_mock_init(&m);
	m.status = 127;
	assert_int_equal(bf_report_render(&r, &bf_plugin_exec, d, &o, h, &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "benchfarm-report-gone"));
	assert_non_null(strstr(err.msg, "PATH"));
	bf_err_clear(&err);
	m.status = 3;
	assert_int_equal(bf_report_render(&r, &bf_plugin_exec, d, &o, h, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "exit status 3"));
	bf_err_clear(&err);
	m.status = 0;
	m.fail = BF_ETIMEOUT;
	assert_int_equal(bf_report_render(&r, &bf_plugin_exec, d, &o, h, &err),
	                 BF_ETIMEOUT);
	assert_null(r);
	json_decref(d);
	host_mock_release(&m);
}

static char *slurp(const char *path)
{
	struct bf_buf b = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;

	assert_int_equal(bf_buf_read_file(&b, path, &err), 0);
	return bf_buf_detach(&b, NULL);
}

static void test_report__write_puts_main_output_and_all_in_dir(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	char tmpl[] = "/tmp/bf-report-XXXXXX", *dir, *p, *s;
	json_t *d = doc();
	struct stat st;

	(void)state;
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	assert_int_equal(bf_report_render(&r, &test_plugin, d, &o,
	                                  host_mock_init(&m), &err),
	                 0);
	p = bf_fs_join(dir, "main.out");
	assert_int_equal(bf_report_write(r, p, NULL, &err), 0);
	s = slurp(p);
	assert_string_equal(s, "first");
	free(s);
	free(p);
	p = bf_fs_join(dir, "sub/dir");
	assert_int_equal(bf_report_write(r, NULL, p, &err), 0);
	free(p);
	p = bf_fs_join(dir, "sub/dir/b.txt");
	s = slurp(p);
	assert_string_equal(s, "second");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	free(s);
	free(p);
	p = bf_fs_join(dir, "no/such/dir/x"); /* parents not made for -o */
	assert_int_not_equal(bf_report_write(r, p, NULL, &err), 0);
	free(p);
	assert_int_equal(bf_fs_rmtree(dir, &err), 0);
	json_decref(d);
	bf_report_free(r);
	host_mock_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report__json_output_is_the_document),
		cmocka_unit_test(
		        test_report__state_passes_from_init_to_run_and_shutdown),
		cmocka_unit_test(
		        test_report__refuses_abi_kind_and_foreign_documents),
		cmocka_unit_test(test_report__option_words_must_be_text),
		cmocka_unit_test(
		        test_report__exec_hands_the_document_to_the_program),
		cmocka_unit_test(
		        test_report__exec_names_that_are_not_words_are_refused),
		cmocka_unit_test(test_report__exec_failures_are_errors),
		cmocka_unit_test(
		        test_report__write_puts_main_output_and_all_in_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
