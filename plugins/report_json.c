#include <stdlib.h>

#include "benchfarm/plugin.h"

/* json: the result document itself, pretty-printed (for archiving). */

static int json_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	char *text = json_dumps(bf_report_result(r),
	                        JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct bf_buf *out;

	(void)payload;
	if (!text)
		return bf_err_set(err, BF_ERROR, "cannot encode the result");
	out = bf_report_add_output(r, "result.json");
	bf_buf_addstr(out, text);
	bf_buf_addch(out, '\n');
	free(text);
	return 0;
}

const struct bf_plugin bf_plugin_json = {
	.abi = BF_PLUGIN_ABI,
	.name = "json",
	.summary = "the result document itself",
	.kinds = "compare,detect,bisect",
	.run = json_run,
};
