/*
 * The agent's side of the protocol: bf_agent_serve reading the input as
 * the orchestrator's lines (line reader, size limit, JSON, ids, request
 * dispatch and refusals) and answering into /dev/null. Requests that
 * act on this machine ("run", "instrument", "check": processes, sysfs
 * writes, workloads) are blanked before the agent sees them; "info"
 * reads a fixture sysroot. A request's lease fence keeps its state
 * under /tmp/bf-fuzz-state-PID, not in the user's home.
 */
#include "fuzz/fuzz_util.h"

#include <fcntl.h>
#include <jansson.h>

#include "agent.h"
#include "benchfarm/err.h"
#include "serve.h"

static bool acts(const char *line, size_t len)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *type = json_string_value(json_object_get(j, "type"));
	bool yes = type && (!strcmp(type, "run") || !strcmp(type, "check") ||
	                    !strcmp(type, "instrument"));

	json_decref(j);
	return yes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[4096];
	struct bf_agent_ctx ctx = { NULL, NULL, NULL };
	char *text = fuzz_string(data, size);
	const char *path;
	int in, out;

	if (!root[0]) {
		char state[64];

		snprintf(root, sizeof(root),
		         "%s/tests/fixtures/sysroot/healthy-locked",
		         getenv("BF_SRC") ? getenv("BF_SRC") : ".");
		snprintf(state, sizeof(state), "/tmp/bf-fuzz-state-%d",
		         (int)getpid());
		setenv("XDG_STATE_HOME", state, 1);
	}
	ctx.root = root;
	for (char *p = text, *nl; p < text + size; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(text + size - p));
		if (!nl)
			nl = text + size;
		if (acts(p, (size_t)(nl - p)))
			memset(p, ' ', (size_t)(nl - p));
	}
	path = fuzz_file((const uint8_t *)text, size);
	free(text);
	in = open(path, O_RDONLY | O_CLOEXEC);
	out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (in < 0 || out < 0)
		abort();
	bf_agent_serve(in, out, &ctx);
	close(in);
	close(out);
	return 0;
}
