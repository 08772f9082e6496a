#include "benchfarm/plugin.h"

/* gerrit: being written (issue #7); refuses until then. */

static int gerrit_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)r;
	(void)payload;
	return bf_err_set(err, BF_ERROR,
	                  "the gerrit reporter is not built yet");
}

const struct bf_plugin bf_plugin_gerrit = {
	.abi = BF_PLUGIN_ABI,
	.name = "gerrit",
	.summary = "gerrit (not built yet)",
	.kinds = "compare",
	.run = gerrit_run,
};
