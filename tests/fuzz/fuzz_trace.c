/*
 * The trace reader (orchestrator/trace/trace_read.c) and everything after it:
 * the call tree, folded stacks, top, Chrome events and the SVG, written
 * to /dev/null. Symbol lookup reads only the files a fuzzed memory map
 * names that are regular files.
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	static const char *const only[] = { "main" };
	static FILE *null;
	struct bf_err err = BF_ERR_INIT;
	struct bf_trace t;
	struct bf_ttree tree;
	char why[256];

	if (!null)
		null = fopen("/dev/null", "w");
	if (bf_trace_load(&t, path, &err)) {
		bf_trace_release(&t);
		return 0;
	}
	if (!bf_ttree_build(&tree, &t, &err)) {
		bf_trace_fold(null, &tree, false);
		bf_trace_top(null, &tree, 10, true);
		bf_trace_svg(null, &tree, &tree, "fuzz");
		bf_trace_chrome(null, &t, tree.syms, NULL, 0, why, sizeof(why));
		bf_trace_chrome(null, &t, tree.syms, only, 1, why, sizeof(why));
		bf_ttree_only(&tree, only, 1);
		bf_trace_fold(null, &tree, true);
		bf_trace_top(null, &tree, 0, false);
		bf_trace_svg(null, &tree, NULL, "fuzz --only");
		bf_ttree_release(&tree);
	}
	bf_trace_release(&t);
	return 0;
}
