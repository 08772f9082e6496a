#include "benchfarm/plugin.h"

/* junit: being written (issue #7); refuses until then. */

static int junit_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)r;
	(void)payload;
	return bf_err_set(err, BF_ERROR, "the junit reporter is not built yet");
}

const struct bf_plugin bf_plugin_junit = {
	.abi = BF_PLUGIN_ABI,
	.name = "junit",
	.summary = "junit (not built yet)",
	.kinds = "compare",
	.run = junit_run,
};
