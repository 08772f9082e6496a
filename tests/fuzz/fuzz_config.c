/* The YAML config loader (orchestrator/config/cfg*.c), from any bytes. */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "config/cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_cfg cfg;

	if (!bf_cfg_load_string(&cfg, "fuzz.yaml", (const char *)data, size,
	                        &err)) {
		char *json = bf_cfg_to_json(&cfg);

		free(json);
		bf_cfg_release(&cfg);
	}
	return 0;
}
