#ifndef BF_AGENTCONN_H
#define BF_AGENTCONN_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_err;

/*
 * The orchestrator's side of the agent protocol, over any transport that
 * can send bytes and receive lines: a local child process
 * (transport_local.c) or an SSH exec channel (ssh_channel.c).
 */
struct bf_conn_ops {
	const char *name; /* "local", "ssh" */
	int (*send)(void *state, const char *data, size_t len,
	            struct bf_err *err);
	/* A line without its newline, borrowed until the next call. */
	int (*recv_line)(void *state, const char **line, size_t *len,
	                 double deadline, struct bf_err *err);
	void (*close)(void *state);
};

struct bf_agentconn;

/*
 * Start `AGENT serve [--root ROOT]` as a local child and read its hello.
 * agent_path NULL finds benchfarm-agent: $BENCHFARM_AGENT, else beside
 * the running benchfarm, else on PATH. root may be NULL. On success the
 * caller frees *out with bf_agentconn_close().
 */
int bf_agentconn_open_local(struct bf_agentconn **out, const char *agent_path,
                            const char *root, const char *device_name,
                            struct bf_err *err);

/*
 * Wrap an already-open transport (takes ownership of state; ops->close
 * frees it even on failure) and read the hello. The agent's protocol
 * must be BF_PROTO_VERSION, else BF_EVERSION naming both versions.
 */
int bf_agentconn_attach(struct bf_agentconn **out,
                        const struct bf_conn_ops *ops, void *state,
                        const char *device_name, struct bf_err *err);

/* Close the connection (the agent exits); NULL is ok. */
void bf_agentconn_close(struct bf_agentconn *c);

/* The hello message; borrowed. */
const json_t *bf_agentconn_hello(const struct bf_agentconn *c);

/* Called for each event ("sample", "progress", "log") of a request. */
typedef int bf_agent_event_fn(const json_t *event, void *payload);

/*
 * Send req (borrowed; its "id" is set here) and wait up to timeout_s
 * for the final message, calling on_event for each event. Returns:
 * 0 with *final_out (new reference, may be NULL to ignore) the "result";
 * BF_ERROR when the agent answered "error" (err says its code and
 * message; *final_out is the error message); a non-zero value from
 * on_event (the connection is then unusable: the rest of the answer is
 * never read); or BF_EPROTO / BF_ETIMEOUT / BF_ESYS when the connection
 * failed, after which the connection is unusable. The deadline holds
 * however fast the agent sends.
 */
int bf_agentconn_request(json_t **final_out, struct bf_agentconn *c,
                         json_t *req, double timeout_s,
                         bf_agent_event_fn *on_event, void *payload,
                         struct bf_err *err);

/*
 * Send the lease's fencing token (device's lease, token) with every
 * request from now on ("fence"), so that the agent ends a run of an
 * older lease still in progress on the device and refuses this
 * connection's requests once a newer lease's run is in progress there.
 * The agent's "fence" events (runs it ended) are logged as warnings.
 * Cannot fail.
 */
void bf_agentconn_set_fence(struct bf_agentconn *c, const char *device,
                            int64_t token);

/* True once a connection failure made c unusable. */
bool bf_agentconn_is_broken(const struct bf_agentconn *c);

#endif /* BF_AGENTCONN_H */
