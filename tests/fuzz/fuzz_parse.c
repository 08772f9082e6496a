/*
 * Every benchmark output parser (agent/parse*.c): the first byte picks
 * gbench, jetpack, hyperfine, native or lines; the rest is the output.
 */
#include "fuzz_util.h"

#include "benchfarm/err.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "gbench", "jetpack", "hyperfine",
		                               "native", "lines" };
	struct bf_samples out = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	if (!size)
		return 0;
	bf_parse_output(&out, formats[data[0] % 5], (const char *)data + 1,
	                size - 1, "fuzz", &err);
	bf_samples_release(&out);
	return 0;
}
