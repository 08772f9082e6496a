/*
 * The orchestrator's side of the protocol: the input is what an agent
 * says, line by line, to bf_agentconn (hello and its version check,
 * then requests whose events and final messages are matched by id and
 * whose "sample" events the worker decodes into samples).
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "benchfarm/sample.h"
#include "farm/agentconn.h"
#include "job/worker.h"

struct replay {
	const char *p, *end;
};

static int replay_send(void *state, const char *data, size_t len,
                       struct bf_err *err)
{
	(void)state;
	(void)data;
	(void)len;
	(void)err;
	return 0;
}

static int replay_recv(void *state, const char **line, size_t *len,
                       double deadline, struct bf_err *err)
{
	struct replay *r = state;
	const char *nl;

	(void)deadline;
	if (r->p >= r->end)
		return bf_err_set(err, BF_ENOTFOUND, "end of input");
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	*line = r->p;
	*len = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
	r->p += *len + 1;
	return 0;
}

static void replay_close(void *state)
{
	(void)state;
}

static const struct bf_conn_ops replay_ops = { "fuzz", replay_send, replay_recv,
	                                       replay_close };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay r = { (const char *)data, (const char *)data + size };
	struct bf_err err = BF_ERR_INIT;
	struct bf_agentconn *c;

	if (bf_agentconn_attach(&c, &replay_ops, &r, "fuzz", &err))
		return 0;
	while (!bf_agentconn_is_broken(c) && r.p < r.end) {
		struct bf_worker_run s = { BF_SAMPLES_INIT, 1000, 0,
			                   BF_ERR_INIT };
		json_t *req = json_pack("{s:s}", "type", "run"), *final = NULL;

		bf_agentconn_request(&final, c, req, 0, bf_worker_on_event, &s,
		                     &err);
		json_decref(final);
		json_decref(req);
		bf_samples_release(&s.s);
	}
	bf_agentconn_close(c);
	return 0;
}
