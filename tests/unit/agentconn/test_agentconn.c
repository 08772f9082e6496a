/*
 * Unit tests for the orchestrator's side of the agent protocol
 * (orchestrator/farm/agentconn.c) over a scripted transport: an agent that
 * is never silent cannot keep a request past its deadline, an
 * answer the caller refuses ends the connection, and a lease's fence
 * goes with every request while the agent's "fence" event is the
 * connection's, not the caller's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

#include "benchfarm/err.h"
#include "benchfarm/proto.h"
#include "benchfarm/spawn.h"
#include "farm/agentconn.h"

/*
 * The scripted agent: its hello, then `flood` lines of a request id
 * nobody asked about, then the result for request 1. Each flood line
 * arrives only once the caller's deadline has passed, as when data is
 * always waiting and time goes by while it is read.
 */
struct script {
	int sent; /* lines handed out */
	int flood;
	int events; /* "sample" events for request 1 before the result */
	bool fence; /* a "fence" event first */
	char line[256];
	char req[512]; /* the last request sent */
};

static int script_send(void *state, const char *data, size_t len,
                       struct bf_err *err)
{
	struct script *s = state;

	(void)err;
	snprintf(s->req, sizeof(s->req), "%.*s", (int)len, data);
	return 0;
}

static int script_recv(void *state, const char **line, size_t *len,
                       double deadline, struct bf_err *err)
{
	struct script *s = state;
	int n = s->sent++;

	(void)err;
	if (n == 0)
		snprintf(s->line, sizeof(s->line),
		         "{\"type\":\"hello\",\"protocol\":%d}",
		         BF_PROTO_VERSION);
	else if (s->fence && n == 1)
		snprintf(s->line, sizeof(s->line),
		         "{\"type\":\"fence\",\"id\":1,\"ended\":1,"
		         "\"ended_token\":41,\"token\":42}");
	else if (n <= s->flood) {
		while (deadline && bf_now_monotonic() <= deadline)
			; /* the reader is busy past its deadline */
		snprintf(s->line, sizeof(s->line),
		         "{\"type\":\"log\",\"id\":99,\"message\":\"x\"}");
	} else if (n <= s->flood + s->events + s->fence)
		snprintf(s->line, sizeof(s->line),
		         "{\"type\":\"sample\",\"id\":1,\"value\":1}");
	else
		snprintf(s->line, sizeof(s->line),
		         "{\"type\":\"result\",\"id\":1}");
	*line = s->line;
	*len = strlen(s->line);
	return 0;
}

static void script_close(void *state)
{
	(void)state;
}

static const struct bf_conn_ops script_ops = { "script", script_send,
	                                       script_recv, script_close };

static void test_agentconn__deadline_holds_while_lines_keep_coming(void **st)
{
	struct script s = { .flood = 3 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_agentconn *c = NULL;
	json_t *req = json_pack("{s:s}", "type", "info"), *final = NULL;

	(void)st;
	assert_int_equal(bf_agentconn_attach(&c, &script_ops, &s, "d1", &err),
	                 0);
	assert_int_equal(
	        bf_agentconn_request(&final, c, req, 0.001, NULL, NULL, &err),
	        BF_ETIMEOUT);
	assert_null(final);
	assert_true(bf_agentconn_is_broken(c));
	assert_non_null(strstr(err.msg, "'d1' did not answer in time"));
	/* at most one line read past the deadline, not the whole flood
	 * (none when the deadline has passed before the first read, as
	 * under valgrind: only the hello was read then) */
	assert_in_range(s.sent, 1, 2);
	json_decref(req);
	bf_agentconn_close(c);
}

static int refuse(const json_t *ev, void *payload)
{
	int *seen = payload;

	(void)ev;
	return ++*seen == 2 ? BF_ERROR : 0;
}

static void test_agentconn__refused_event_ends_the_connection(void **st)
{
	struct script s = { .events = 5 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_agentconn *c = NULL;
	json_t *req = json_pack("{s:s}", "type", "run");
	int seen = 0;

	(void)st;
	assert_int_equal(bf_agentconn_attach(&c, &script_ops, &s, "d1", &err),
	                 0);
	assert_int_equal(
	        bf_agentconn_request(NULL, c, req, 30, refuse, &seen, &err),
	        BF_ERROR);
	assert_int_equal(seen, 2);
	/* the rest of the answer is not read, and nothing more is sent */
	assert_int_equal(s.sent, 3);
	assert_true(bf_agentconn_is_broken(c));
	json_decref(req);
	bf_agentconn_close(c);
}

static int count(const json_t *ev, void *payload)
{
	(void)ev;
	++*(int *)payload;
	return 0;
}

static void test_agentconn__fence_goes_with_each_request(void **st)
{
	struct script s = { .events = 2, .fence = true };
	struct bf_err err = BF_ERR_INIT;
	struct bf_agentconn *c = NULL;
	json_t *req = json_pack("{s:s}", "type", "run"), *sent;
	int seen = 0;

	(void)st;
	assert_int_equal(bf_agentconn_attach(&c, &script_ops, &s, "d1", &err),
	                 0);
	bf_agentconn_set_fence(c, "d1", 42);
	assert_int_equal(
	        bf_agentconn_request(NULL, c, req, 30, count, &seen, &err), 0);
	/* the two samples, not the fence event */
	assert_int_equal(seen, 2);
	sent = json_loads(s.req, 0, NULL);
	assert_non_null(sent);
	assert_string_equal(json_string_value(json_object_get(
	                            json_object_get(sent, "fence"), "device")),
	                    "d1");
	assert_int_equal(json_integer_value(json_object_get(
	                         json_object_get(sent, "fence"), "token")),
	                 42);
	json_decref(sent);
	json_decref(req);
	bf_agentconn_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		        test_agentconn__deadline_holds_while_lines_keep_coming),
		cmocka_unit_test(
		        test_agentconn__refused_event_ends_the_connection),
		cmocka_unit_test(test_agentconn__fence_goes_with_each_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
