#include "benchfarm/plugin.h"

/* skia-perf: being written (issue #7); refuses until then. */

static int skia_perf_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	(void)r;
	(void)payload;
	return bf_err_set(err, BF_ERROR,
	                  "the skia-perf reporter is not built yet");
}

const struct bf_plugin bf_plugin_skia_perf = {
	.abi = BF_PLUGIN_ABI,
	.name = "skia-perf",
	.summary = "skia-perf (not built yet)",
	.kinds = "compare",
	.run = skia_perf_run,
};
