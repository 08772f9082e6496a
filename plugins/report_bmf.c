#include "benchfarm/plugin.h"

/* bmf: being written (issue #7); refuses until then. */

static int bmf_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)r;
	(void)payload;
	return bf_err_set(err, BF_ERROR, "the bmf reporter is not built yet");
}

const struct bf_plugin bf_plugin_bmf = {
	.abi = BF_PLUGIN_ABI,
	.name = "bmf",
	.summary = "bmf (not built yet)",
	.kinds = "compare",
	.run = bmf_run,
};
