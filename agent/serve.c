#include "serve.h"

#include <stdio.h>

#include "agent.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "benchfarm/proto.h"
#include "fence.h"

static int req_shutdown(int out_fd, const json_t *req, int64_t id,
                        struct bf_agent_ctx *ctx);

/* Request types the agent accepts; anything else is refused. */
static const struct bf_req requests[] = {
	{ "info", bf_req_info, 0 },
	{ "check", bf_req_check, 0 },
	{ "run", bf_req_run, 0 },
	{ "duet", bf_req_duet, 0 },
	{ "instrument", bf_req_instrument, 0 },
	{ "shutdown", req_shutdown, BF_REQ_ENDS_SESSION },
};

static int req_shutdown(int out_fd, const json_t *req, int64_t id,
                        struct bf_agent_ctx *ctx)
{
	json_t *msg =
	        json_pack("{s:s, s:I}", "type", "result", "id", (json_int_t)id);
	int ret = bf_proto_write(out_fd, msg, NULL);

	(void)req;
	(void)ctx;
	json_decref(msg);
	return ret;
}

static int send_hello(int out_fd)
{
	json_t *caps = json_array(), *msg;
	int ret;

	for (size_t i = 0; i < BF_ARRAY_SIZE(requests); i++)
		json_array_append_new(caps, json_string(requests[i].type));
	msg = json_pack("{s:s, s:i, s:s, s:o}", "type", "hello", "protocol",
	                BF_PROTO_VERSION, "agent", BF_VERSION, "capabilities",
	                caps);
	ret = bf_proto_write(out_fd, msg, NULL);
	json_decref(msg);
	return ret;
}

static const struct bf_req *find_request(const char *type)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(requests); i++)
		if (!strcmp(requests[i].type, type))
			return &requests[i];
	return NULL;
}

/*
 * Tell the orchestrator what the claim of the request's lease did on
 * the device: an event "fence" with the runs of older leases it ended
 * and whether one was still running when the wait ran out.
 */
static int send_fence(int out_fd, int64_t id, const struct bf_fence *f,
                      const struct bf_fence_claim *c)
{
	json_t *msg;
	int ret;

	if (!c->ended && !c->overlap)
		return 0;
	msg = json_pack("{s:s, s:I, s:s, s:I, s:i, s:I, s:b}", "type", "fence",
	                "id", (json_int_t)id, "device", f->device, "token",
	                (json_int_t)f->token, "ended", c->ended, "ended_token",
	                (json_int_t)c->ended_token, "overlap", c->overlap);
	ret = bf_proto_write(out_fd, msg, NULL);
	json_decref(msg);
	return ret;
}

/*
 * The request's lease fence (fence.h): *f NULL when it has none, or
 * when the state file cannot be used (logged: the request is served
 * unfenced). 1 when the request was answered here (refused: malformed,
 * or a newer lease's run is in progress).
 */
static int fence_request(struct bf_fence **f, int out_fd, const json_t *req,
                         int64_t id, int *ret)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_fence_claim c;
	int rc = bf_fence_from_request(f, req, &err);

	if (rc == BF_EINVAL) {
		*ret = bf_req_error(out_fd, id, "bad_request", "%s", err.msg);
		return 1;
	}
	if (!rc && *f)
		rc = bf_fence_claim(&c, *f, 0, bf_fence_wait_s(), &err);
	if (rc == BF_EBUSY) {
		*ret = bf_req_error(out_fd, id, "superseded", "%s", err.msg);
		return 1;
	}
	if (rc) {
		BF_LOG_WARN("serve: %s; the request is served without its "
		            "lease fence",
		            err.msg);
		bf_fence_free(*f);
		*f = NULL;
		return 0;
	}
	*ret = *f ? send_fence(out_fd, id, *f, &c) : 0;
	return *ret != 0;
}

/* Handles one line; *done is set when the session should end. */
static int serve_line(int out_fd, const char *line, size_t len, bool *done,
                      struct bf_agent_ctx *ctx)
{
	struct bf_err err = BF_ERR_INIT;
	const struct bf_req *handler;
	struct bf_fence *fence = NULL;
	json_t *req = NULL;
	int64_t id;
	int ret;

	if (bf_proto_parse(&req, line, len, "orchestrator", &err))
		return bf_req_error(out_fd, -1, "bad_request", "%s", err.msg);
	id = bf_proto_id(req);
	handler = find_request(bf_proto_type(req));
	if (id < 0)
		ret = bf_req_error(out_fd, -1, "bad_request",
		                   "request '%s' has no integer \"id\"",
		                   bf_proto_type(req));
	else if (!handler)
		ret = bf_req_error(out_fd, id, "bad_request",
		                   "unknown request type '%s'",
		                   bf_proto_type(req));
	else if (!fence_request(&fence, out_fd, req, id, &ret)) {
		ctx->fence = fence;
		ret = handler->fn(out_fd, req, id, ctx);
		ctx->fence = NULL;
	}
	if (!ret && handler && id >= 0)
		*done = handler->flags & BF_REQ_ENDS_SESSION;
	bf_fence_free(fence);
	json_decref(req);
	return ret;
}

int bf_agent_serve(int in_fd, int out_fd, struct bf_agent_ctx *ctx)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_linereader r;
	bool done = false;
	int ret;

	if ((ret = send_hello(out_fd)))
		return ret;
	bf_linereader_init(&r, in_fd);
	while (!done) {
		const char *line;
		size_t len;

		ret = bf_linereader_next(&r, &line, &len, 0, &err);
		if (ret == BF_ENOTFOUND) {
			ret = 0;
			break;
		}
		if (ret == BF_ETOOBIG) {
			ret = bf_req_error(out_fd, -1, "bad_request", "%s",
			                   err.msg);
		} else if (!ret && len) {
			ret = serve_line(out_fd, line, len, &done, ctx);
		}
		if (ret) {
			BF_LOG_ERR("serve: %s",
			           err.msg[0] ? err.msg : bf_strerror(ret));
			break;
		}
	}
	bf_linereader_release(&r);
	return ret;
}
