#ifndef BF_PROTO_H
#define BF_PROTO_H

#include <jansson.h>

#include "benchfarm/buf.h"
#include "benchfarm/common.h"

struct bf_err;

/*
 * The agent protocol (docs/architecture.md): one JSON object
 * per line over the agent's stdin/stdout, the same over a local pipe and
 * an SSH exec channel. The agent speaks first with "hello"; each request
 * carries an integer "id" and a "type"; the agent answers with events
 * ("sample", "progress", "log") and exactly one final "result" or
 * "error" with the same id.
 */
#define BF_PROTO_VERSION  1
#define BF_PROTO_LINE_MAX (1024 * 1024) /* hard limit on one line */

/* Reads newline-terminated lines from a file descriptor, with a cap. */
struct bf_linereader {
	int fd;
	struct bf_buf buf; /* bytes read but not returned yet */
	size_t start; /* offset of the next line in buf */
	bool eof;
	bool skipping; /* discarding the rest of an oversized line */
};

/* fd is borrowed: the reader never closes it. Cannot fail. */
void bf_linereader_init(struct bf_linereader *r, int fd);
void bf_linereader_release(struct bf_linereader *r);

/*
 * Next line without its newline, into *line (borrowed until the next
 * call) and *len. Returns 0; BF_ENOTFOUND at end of input; BF_ETOOBIG
 * for a line over BF_PROTO_LINE_MAX (its rest is skipped and the next
 * call returns the following line); BF_ETIMEOUT when deadline (from
 * bf_now_monotonic(), 0 = none) passes; BF_ESYS on read errors.
 */
int bf_linereader_next(struct bf_linereader *r, const char **line, size_t *len,
                       double deadline, struct bf_err *err);

/*
 * Parse one protocol line: a JSON object with a string "type". what
 * names the peer in messages. On success *out is a new reference.
 */
int bf_proto_parse(json_t **out, const char *line, size_t len, const char *what,
                   struct bf_err *err);

/* Write msg as one compact line to fd (handles short writes). */
int bf_proto_write(int fd, const json_t *msg, struct bf_err *err);

/* msg["type"], or "" (borrowed). */
const char *bf_proto_type(const json_t *msg);
/* msg["id"], or -1 when missing or not an integer. */
int64_t bf_proto_id(const json_t *msg);

/* New {"type":"error","id":id,"code":code,"message":message}. */
json_t *bf_proto_error(int64_t id, const char *code, const char *message);

#endif /* BF_PROTO_H */
