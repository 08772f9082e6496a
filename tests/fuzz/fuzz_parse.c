/*
 * Every benchmark output parser (agent/parse*.c). A first byte below 5
 * picks gbench, jetpack, hyperfine, native or lines for the rest of the
 * input; any other input (the fixtures that seed it: real tools'
 * outputs) goes through all five.
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "parse/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "gbench", "jetpack", "hyperfine",
		                               "native", "lines" };
	struct bf_samples out = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;

	if (!size)
		return 0;
	if (data[0] < 5) {
		bf_parse_output(&out, formats[data[0]], (const char *)data + 1,
		                size - 1, "fuzz", &err);
		bf_samples_release(&out);
		return 0;
	}
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++) {
		bf_parse_output(&out, formats[i], (const char *)data, size,
		                "fuzz", &err);
		bf_samples_release(&out);
	}
	return 0;
}
