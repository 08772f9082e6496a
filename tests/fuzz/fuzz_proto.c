/*
 * The agent protocol reader, both directions: lines split by the line
 * reader and each parsed as a message (core/src/proto.c), as the
 * orchestrator reads the agent and the agent reads the orchestrator.
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "benchfarm/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct bf_err err = BF_ERR_INIT;
		json_t *msg = NULL;

		if (!bf_proto_parse(&msg, p, len, "fuzz", &err)) {
			(void)bf_proto_id(msg);
			json_decref(msg);
		}
		p += len + 1;
	}
	return 0;
}
