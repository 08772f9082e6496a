/*
 * Every built-in reporter (plugins/report_*.c, but exec) on a result
 * document from any bytes, with the mock host: reporters read results
 * that may come from another machine or version.
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "mocks/host_mock.h"
#include "report/plugins.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);

	if (!doc)
		return 0;
	o.gerrit_label = "Verified";
	for (size_t i = 0; i < bf_nplugins; i++) {
		struct bf_err err = BF_ERR_INIT;
		struct bf_report *r = NULL;
		struct host_mock m;

		if (!strcmp(bf_plugins[i]->name, "exec"))
			continue;
		if (!bf_report_render(&r, bf_plugins[i], doc, &o,
		                      host_mock_init(&m), &err))
			bf_report_free(r);
		host_mock_release(&m);
	}
	json_decref(doc);
	return 0;
}
