#include "benchfarm/plugin.h"

/* gitlab: being written (issue #7); refuses until then. */

static int gitlab_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)r;
	(void)payload;
	return bf_err_set(err, BF_ERROR,
	                  "the gitlab reporter is not built yet");
}

const struct bf_plugin bf_plugin_gitlab = {
	.abi = BF_PLUGIN_ABI,
	.name = "gitlab",
	.summary = "gitlab (not built yet)",
	.kinds = "compare",
	.run = gitlab_run,
};
