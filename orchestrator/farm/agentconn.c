#include "farm/agentconn.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/proto.h"
#include "benchfarm/spawn.h"

#define HELLO_TIMEOUT_S 10.0

struct bf_agentconn {
	const struct bf_conn_ops *ops;
	void *state;
	char *name; /* device name, for messages */
	json_t *hello;
	int64_t next_id;
	bool broken;
	json_t *fence; /* {"device", "token"} sent with each request, or NULL */
	bool overlap_noted; /* an older run that outlived its end was logged */
};

static int read_hello(struct bf_agentconn *c, struct bf_err *err)
{
	double deadline = bf_now_monotonic() + HELLO_TIMEOUT_S;
	const char *line;
	json_t *hello = NULL;
	json_t *proto;
	size_t len;
	int ret;

	ret = c->ops->recv_line(c->state, &line, &len, deadline, err);
	if (ret == BF_ENOTFOUND)
		return bf_err_set(err, BF_EPROTO,
		                  "agent on '%s' exited before saying hello",
		                  c->name);
	if (ret) {
		bf_err_prefix(err, "agent on '%s': no hello", c->name);
		return ret;
	}
	if ((ret = bf_proto_parse(&hello, line, len, "agent", err))) {
		bf_err_prefix(err, "agent on '%s' did not start with a hello",
		              c->name);
		return ret;
	}
	proto = json_object_get(hello, "protocol");
	if (strcmp(bf_proto_type(hello), "hello") || !json_is_integer(proto)) {
		json_decref(hello);
		return bf_err_set(err, BF_EPROTO,
		                  "agent on '%s' did not start with a hello",
		                  c->name);
	}
	if (json_integer_value(proto) != BF_PROTO_VERSION) {
		ret = bf_err_set(err, BF_EVERSION,
		                 "agent on '%s' speaks protocol %lld, this "
		                 "benchfarm speaks %d; install the matching "
		                 "benchfarm-agent",
		                 c->name, (long long)json_integer_value(proto),
		                 BF_PROTO_VERSION);
		json_decref(hello);
		return ret;
	}
	c->hello = hello;
	return 0;
}

int bf_agentconn_attach(struct bf_agentconn **out,
                        const struct bf_conn_ops *ops, void *state,
                        const char *device_name, struct bf_err *err)
{
	struct bf_agentconn *c = bf_xcalloc(1, sizeof(*c));
	int ret;

	c->ops = ops;
	c->state = state;
	c->name = bf_xstrdup(device_name);
	c->next_id = 1;
	ret = read_hello(c, err);
	if (ret) {
		bf_agentconn_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

void bf_agentconn_close(struct bf_agentconn *c)
{
	if (!c)
		return;
	c->ops->close(c->state);
	json_decref(c->hello);
	json_decref(c->fence);
	free(c->name);
	free(c);
}

const json_t *bf_agentconn_hello(const struct bf_agentconn *c)
{
	return c->hello;
}

bool bf_agentconn_is_broken(const struct bf_agentconn *c)
{
	return c->broken;
}

void bf_agentconn_set_fence(struct bf_agentconn *c, const char *device,
                            int64_t token)
{
	json_decref(c->fence);
	c->fence = json_pack("{s:s, s:I}", "device", device, "token",
	                     (json_int_t)token);
}

/*
 * The agent's "fence" event: what the request's lease did on the device
 * before it was served (runs of older leases it ended, one it could
 * not end), logged.
 */
static void fence_event(struct bf_agentconn *c, const json_t *ev)
{
	json_int_t ended = json_integer_value(json_object_get(ev, "ended"));
	json_int_t token = json_integer_value(json_object_get(ev, "token"));
	json_int_t older =
	        json_integer_value(json_object_get(ev, "ended_token"));

	if (ended > 0)
		BF_LOG_WARN("device '%s': the agent ended a run of an older "
		            "lease (token %lld < %lld) that was still running "
		            "there",
		            c->name, (long long)older, (long long)token);
	if (json_is_true(json_object_get(ev, "overlap")) && !c->overlap_noted) {
		c->overlap_noted = true;
		BF_LOG_WARN("device '%s': a run of an older lease is still "
		            "running there after it was killed; runs that "
		            "overlap it are redone or reported as overlapped",
		            c->name);
	}
}

static int send_req(struct bf_agentconn *c, json_t *req, struct bf_err *err)
{
	char *text = json_dumps(req, JSON_COMPACT | JSON_ENSURE_ASCII);
	size_t len;
	int ret;

	if (!text)
		return bf_err_set(err, BF_ERROR, "cannot encode request");
	len = strlen(text);
	text[len] = '\n';
	ret = c->ops->send(c->state, text, len + 1, err);
	free(text);
	return ret;
}

/* Turn the agent's error message into err and BF_ERROR. */
static int agent_error(const json_t *msg, struct bf_err *err)
{
	return bf_err_set(err, BF_ERROR, "%s: %s",
	                  bf_json_str_or(msg, "code", "error"),
	                  bf_json_str_or(msg, "message", "(no message)"));
}

/* Mark the connection broken and describe why. */
static int broken(struct bf_agentconn *c, int ret, struct bf_err *err)
{
	c->broken = true;
	if (ret == BF_ENOTFOUND)
		return bf_err_set(err, BF_EPROTO,
		                  "agent on '%s' closed the connection",
		                  c->name);
	if (ret == BF_ETIMEOUT)
		return bf_err_set(err, BF_ETIMEOUT,
		                  "agent on '%s' did not answer in time",
		                  c->name);
	bf_err_prefix(err, "agent on '%s'", c->name);
	return ret;
}

/*
 * Read one message of request id; *msg is a new reference. The deadline
 * is checked before every line, not only when the transport has to
 * wait: an agent that never stops sending (lines of another id, empty
 * lines, events) still cannot keep a request past it.
 */
static int next_msg(json_t **msg, struct bf_agentconn *c, int64_t id,
                    double deadline, struct bf_err *err)
{
	const char *line;
	size_t len;
	int ret;

	for (;;) {
		if (deadline && bf_now_monotonic() > deadline)
			return broken(c, BF_ETIMEOUT, err);
		ret = c->ops->recv_line(c->state, &line, &len, deadline, err);
		if (ret)
			return broken(c, ret, err);
		if (!len)
			continue;
		ret = bf_proto_parse(msg, line, len, "agent", err);
		if (ret)
			return broken(c, ret, err);
		if (bf_proto_id(*msg) == id)
			return 0;
		if (!strcmp(bf_proto_type(*msg), "error")) {
			/* An error about no request: our line was bad. */
			ret = agent_error(*msg, err);
			json_decref(*msg);
			return broken(c, BF_EPROTO, err);
		}
		BF_LOG_DEBUG("agent on '%s': ignoring message for id %lld",
		             c->name, (long long)bf_proto_id(*msg));
		json_decref(*msg);
	}
}

int bf_agentconn_request(json_t **final_out, struct bf_agentconn *c,
                         json_t *req, double timeout_s,
                         bf_agent_event_fn *on_event, void *payload,
                         struct bf_err *err)
{
	double deadline = timeout_s > 0 ? bf_now_monotonic() + timeout_s : 0;
	int64_t id = c->next_id++;
	json_t *msg = NULL;
	int ret;

	if (c->broken)
		return bf_err_set(err, BF_EPROTO,
		                  "connection to '%s' is broken", c->name);
	json_object_set_new(req, "id", json_integer((json_int_t)id));
	if (c->fence)
		json_object_set(req, "fence", c->fence);
	if ((ret = send_req(c, req, err)))
		return broken(c, ret, err);
	for (;;) {
		const char *type;

		if ((ret = next_msg(&msg, c, id, deadline, err)))
			return ret;
		type = bf_proto_type(msg);
		if (!strcmp(type, "result") || !strcmp(type, "error"))
			break;
		if (!strcmp(type, "fence"))
			fence_event(c, msg);
		else
			ret = on_event ? on_event(msg, payload) : 0;
		json_decref(msg);
		msg = NULL;
		if (ret) {
			/* the rest of the answer is still coming: drop it */
			c->broken = true;
			return ret;
		}
	}
	ret = strcmp(bf_proto_type(msg), "error") ? 0 : agent_error(msg, err);
	if (final_out)
		*final_out = msg;
	else
		json_decref(msg);
	return ret;
}
