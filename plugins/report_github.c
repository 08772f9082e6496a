#include "benchfarm/plugin.h"

/* github: being written (issue #7); refuses until then. */

static int github_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)r;
	(void)payload;
	return bf_err_set(err, BF_ERROR,
	                  "the github reporter is not built yet");
}

const struct bf_plugin bf_plugin_github = {
	.abi = BF_PLUGIN_ABI,
	.name = "github",
	.summary = "github (not built yet)",
	.kinds = "compare",
	.run = github_run,
};
