/*
 * Unit tests for commands and the agent over SSH channels
 * (orchestrator/farm/ssh_channel.c): argv quoting, exit status, timeouts
 * and output caps of exec, and the agent protocol over a channel, with
 * the agent or the connection killed mid-request. Against a real
 * OpenSSH sshd and the real benchfarm-agent (unit/ssh/fixture.h). Run
 * from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"
#include "farm/agentconn.h"
#include "farm/ssh.h"
#include "unit/ssh/fixture.h"

struct events {
	int samples;
	double value;
};

static int on_event(const json_t *ev, void *payload)
{
	struct events *e = payload;

	if (!strcmp(json_string_value(json_object_get(ev, "type")), "sample")) {
		e->samples++;
		e->value = json_number_value(json_object_get(ev, "value"));
	}
	return 0;
}

static json_t *run_req(const char *script)
{
	return json_pack("{s:s, s:[s,s,s], s:s}", "type", "run", "argv", "sh",
	                 "-c", script, "format", "lines");
}

static void test_ssh__quote_argv(void **state)
{
	const char *one[] = { "a", NULL };
	const char *many[] = { "it's", "$x `y`", "", "a\nb", NULL };
	const char *bare[] = { "gerrit",      "review", "--json", "4711,3",
		               "/a/b.c:1+@%", "a=b",    "a b",    "~x",
		               "*",           NULL };
	char *q;

	(void)state;
	q = bf_ssh_quote_argv(one);
	assert_string_equal(q, "a");
	free(q);
	q = bf_ssh_quote_argv(many);
	assert_string_equal(q, "'it'\\''s' '$x `y`' '' 'a\nb'");
	free(q);
	/* safe words go bare; '=', a blank, a tilde or a glob is quoted */
	q = bf_ssh_quote_argv(bare);
	assert_string_equal(q, "gerrit review --json 4711,3 /a/b.c:1+@% 'a=b' "
	                       "'a b' '~x' '*'");
	free(q);
}

static void test_ssh__connect_exec_and_status(void **state)
{
	const char *echo[] = { "echo", "hi", NULL };
	const char *exit3[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
		                NULL };
	const char *late[] = { "sh", "-c", "exec >&-; sleep 0.1; exit 4",
		               NULL };
	double t0 = bf_now_monotonic(), t1, t2;
	struct bf_ssh *s = connect_d1();
	int status = -1;
	char *out;

	(void)state;
	t1 = bf_now_monotonic();
	out = exec_out(&status, s, echo);
	t2 = bf_now_monotonic();
	assert_string_equal(out, "hi\n");
	assert_int_equal(status, 0);
	free(out);
	out = exec_out(&status, s, exit3);
	assert_string_equal(out, "out\n");
	assert_int_equal(status, 3);
	free(out);
	/* The status arrives after the end of output: it is waited for. */
	out = exec_out(&status, s, late);
	assert_string_equal(out, "");
	assert_int_equal(status, 4);
	free(out);
	assert_string_equal(bf_ssh_name(s), "d1");
	print_message("connect+auth %.1f ms, exec %.1f ms\n", (t1 - t0) * 1e3,
	              (t2 - t1) * 1e3);
	bf_ssh_close(s);
}

static void test_ssh__exec_quoting_keeps_metacharacters(void **state)
{
	const char *argv[] = { "printf", "%s|", "$(id);`x`", "a b",
		               "it's",   "*",   NULL };
	struct bf_ssh *s = connect_d1();
	int status = -1;
	char *out;

	(void)state;
	out = exec_out(&status, s, argv);
	assert_string_equal(out, "$(id);`x`|a b|it's|*|");
	assert_int_equal(status, 0);
	free(out);
	bf_ssh_close(s);
}

static void test_ssh__exec_timeout_keeps_session(void **state)
{
	const char *slow[] = { "sleep", "3", NULL };
	const char *echo[] = { "echo", "still", NULL };
	struct bf_buf out = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	int status = -1;
	double t0 = bf_now_monotonic();
	char *text;

	(void)state;
	assert_int_equal(bf_ssh_exec(&status, &out, s, slow, 0.3, &err),
	                 BF_ETIMEOUT);
	assert_true(bf_now_monotonic() - t0 < 3.0);
	assert_non_null(strstr(err.msg, "'d1'"));
	text = exec_out(&status, s, echo);
	assert_string_equal(text, "still\n");
	free(text);
	bf_buf_release(&out);
	bf_ssh_close(s);
}

static void test_ssh__exec_output_is_capped(void **state)
{
	const char *argv[] = { "printf", "0123456789abcdef", NULL };
	const char *endless[] = { "yes", NULL };
	struct bf_err err = BF_ERR_INIT;
	double t0;
	struct bf_ssh *s = connect_d1();
	struct bf_buf out;
	int status = -1;

	(void)state;
	bf_buf_init(&out, 10);
	assert_int_equal(bf_ssh_exec(&status, &out, s, argv, 10, &err),
	                 BF_ETOOBIG);
	assert_string_equal(out.buf, "0123456789");
	assert_int_equal(status, 0);
	/* A command that never stops writing is ended, not waited for. */
	bf_buf_reset(&out);
	status = 0;
	t0 = bf_now_monotonic();
	assert_int_equal(bf_ssh_exec(&status, &out, s, endless, 30, &err),
	                 BF_ETOOBIG);
	assert_true(bf_now_monotonic() - t0 < 5.0);
	assert_string_equal(out.buf, "y\ny\ny\ny\ny\n");
	assert_int_equal(status, -1); /* SIGPIPE */
	bf_buf_release(&out);
	bf_ssh_close(s);
}

static void test_ssh__agent_over_ssh(void **state)
{
	const char *echo[] = { "echo", "after", NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;
	struct events e = { 0, 0 };
	json_t *req, *res = NULL;
	char *out;
	int status;

	(void)state;
	for (int round = 0; round < 2; round++) {
		if (bf_ssh_open_agent(&c, s, fx.agent, NULL, &err))
			fail_msg("open agent: %s", err.msg);
		assert_int_equal(json_integer_value(json_object_get(
		                         bf_agentconn_hello(c), "protocol")),
		                 1);
		req = run_req("echo 'a 5 ns'");
		if (bf_agentconn_request(&res, c, req, 30, on_event, &e, &err))
			fail_msg("run: %s", err.msg);
		assert_string_equal(
		        json_string_value(json_object_get(res, "type")),
		        "result");
		assert_int_equal(
		        json_integer_value(json_object_get(res, "exit_code")),
		        0);
		json_decref(res);
		json_decref(req);
		bf_agentconn_close(c);
	}
	assert_int_equal(e.samples, 2);
	assert_true(e.value == 5.0);
	/* The session outlives its agents. */
	out = exec_out(&status, s, echo);
	assert_string_equal(out, "after\n");
	free(out);
	bf_ssh_close(s);
}

static void test_ssh__agent_killed_mid_request(void **state)
{
	const char *echo[] = { "echo", "alive", NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;
	json_t *req;
	char *out;
	int status;

	(void)state;
	if (bf_ssh_open_agent(&c, s, fx.agent, NULL, &err))
		fail_msg("open agent: %s", err.msg);
	/* The benchmark's parent is the agent: it dies mid-request. */
	req = run_req("kill -9 $PPID");
	assert_int_equal(
	        bf_agentconn_request(NULL, c, req, 30, NULL, NULL, &err),
	        BF_EPROTO);
	assert_true(bf_agentconn_is_broken(c));
	assert_non_null(strstr(err.msg, "'d1'"));
	json_decref(req);
	bf_agentconn_close(c);
	out = exec_out(&status, s, echo);
	assert_string_equal(out, "alive\n");
	free(out);
	bf_ssh_close(s);
}

static void test_ssh__connection_drop_mid_request(void **state)
{
	/* Kill this connection's sshd: the nearest sshd ancestor. */
	const char *script =
	        "p=$PPID; while [ \"$(cat /proc/$p/comm)\" != sshd ]; do "
	        "p=$(awk '{print $4}' /proc/$p/stat); done; kill -9 $p";
	const char *echo[] = { "echo", "x", NULL };
	struct bf_buf out = BF_BUF_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;
	double t0 = bf_now_monotonic();
	int status;
	json_t *req;

	(void)state;
	if (bf_ssh_open_agent(&c, s, fx.agent, NULL, &err))
		fail_msg("open agent: %s", err.msg);
	req = run_req(script);
	assert_int_equal(
	        bf_agentconn_request(NULL, c, req, 30, NULL, NULL, &err),
	        BF_EPROTO);
	assert_true(bf_agentconn_is_broken(c));
	assert_true(bf_now_monotonic() - t0 < 10.0);
	json_decref(req);
	bf_agentconn_close(c);
	assert_int_equal(bf_ssh_exec(&status, &out, s, echo, 5, &err),
	                 BF_EPROTO);
	assert_non_null(strstr(err.msg, "'d1'"));
	bf_buf_release(&out);
	bf_ssh_close(s);
}

static void test_ssh__agent_missing(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_ssh *s = connect_d1();
	struct bf_agentconn *c = NULL;

	(void)state;
	assert_int_equal(
	        bf_ssh_open_agent(&c, s, "/nonexistent/bf-agent", NULL, &err),
	        BF_EPROTO);
	assert_null(c);
	assert_non_null(strstr(err.msg, "'d1'"));
	assert_non_null(strstr(err.msg, "/nonexistent/bf-agent"));
	bf_ssh_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh__quote_argv),
		cmocka_unit_test(test_ssh__connect_exec_and_status),
		cmocka_unit_test(test_ssh__exec_quoting_keeps_metacharacters),
		cmocka_unit_test(test_ssh__exec_timeout_keeps_session),
		cmocka_unit_test(test_ssh__exec_output_is_capped),
		cmocka_unit_test(test_ssh__agent_over_ssh),
		cmocka_unit_test(test_ssh__agent_killed_mid_request),
		cmocka_unit_test(test_ssh__connection_drop_mid_request),
		cmocka_unit_test(test_ssh__agent_missing),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
