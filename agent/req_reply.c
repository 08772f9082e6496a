#include "serve.h"

#include <stdarg.h>
#include <stdio.h>

#include "benchfarm/proto.h"
#include "benchfarm/sample.h"

/*
 * The answers every request handler (req_*.c) writes besides its own:
 * errors and samples. Below the handlers and the loop in serve.c that
 * calls them, so that the calls go one way.
 */

/* The code of the last error answered (one-shot commands' exit codes). */
static char last_error[32];

const char *bf_req_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

void bf_req_clear_error(void)
{
	last_error[0] = '\0';
}

int bf_req_error(int out_fd, int64_t id, const char *code, const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	json_t *msg;
	int ret;

	snprintf(last_error, sizeof(last_error), "%s", code);
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	msg = bf_proto_error(id, code, message);
	ret = bf_proto_write(out_fd, msg, NULL);
	json_decref(msg);
	return ret;
}

int bf_req_send_samples(int out_fd, int64_t id, const struct bf_samples *s)
{
	int ret = 0;

	for (size_t i = 0; i < s->n && !ret; i++) {
		const struct bf_sample *x = &s->v[i];
		json_t *msg = json_pack("{s:s, s:I, s:s, s:s, s:s, s:f, s:i}",
		                        "type", "sample", "id", (json_int_t)id,
		                        "benchmark", x->benchmark, "metric",
		                        x->metric, "unit", x->unit, "value",
		                        x->value, "iteration", x->iteration);

		ret = bf_proto_write(out_fd, msg, NULL);
		json_decref(msg);
	}
	return ret;
}
