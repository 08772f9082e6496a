#ifndef BF_SERVE_H
#define BF_SERVE_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_agent_ctx;

/*
 * A request handler of `benchfarm-agent serve`. It writes zero or more
 * events and exactly one final message for req's id to out_fd, and
 * returns 0, or a negative code when the connection itself failed.
 */
typedef int bf_req_fn(int out_fd, const json_t *req, int64_t id,
                      struct bf_agent_ctx *ctx);

enum bf_req_flags {
	BF_REQ_ENDS_SESSION = 1 << 0, /* serve stops after answering */
};

struct bf_req {
	const char *type;
	bf_req_fn *fn;
	unsigned flags;
};

/* The loop of `serve`: hello, then requests until EOF or shutdown. */
int bf_agent_serve(int in_fd, int out_fd, struct bf_agent_ctx *ctx);

/* Handlers, one file each; ctx may be NULL (no session: no fence). */
int bf_req_run(int out_fd, const json_t *req, int64_t id,
               struct bf_agent_ctx *ctx);
/* "duet": two run requests at once, each on its own core (req_duet.c). */
int bf_req_duet(int out_fd, const json_t *req, int64_t id,
                struct bf_agent_ctx *ctx);
int bf_req_info(int out_fd, const json_t *req, int64_t id,
                struct bf_agent_ctx *ctx);
int bf_req_check(int out_fd, const json_t *req, int64_t id,
                 struct bf_agent_ctx *ctx);

int bf_req_instrument(int out_fd, const json_t *req, int64_t id,
                      struct bf_agent_ctx *ctx);

/*
 * The answers every handler may write (req_reply.c). One "sample"
 * event per sample.
 */
struct bf_samples;
int bf_req_send_samples(int out_fd, int64_t id, const struct bf_samples *s);

/* Send an error message; returns bf_proto_write's result. */
int bf_req_error(int out_fd, int64_t id, const char *code, const char *fmt, ...)
        BF_PRINTF(4, 5);
/*
 * The code of the last error message bf_req_error wrote ("timeout",
 * "bad_request", ...), NULL when none since bf_req_clear_error: how a
 * one-shot command picks its exit status.
 */
const char *bf_req_last_error(void);
void bf_req_clear_error(void);

#endif /* BF_SERVE_H */
