/*
 * analyze's input: files of numbers and commit,value series
 * (core/src/numfile.c), then the step detectors over what was read.
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "benchfarm/numfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct bf_err err = BF_ERR_INIT;
	double *v = NULL;
	char **labels = NULL;
	size_t n = 0;

	if (!bf_numfile_read(&v, &n, path, &err))
		free(v);
	bf_err_clear(&err);
	if (!bf_numfile_read_series(&v, &labels, &n, path, &err)) {
		for (int d = 0; d < 4 && n < 400; d++) {
			struct bf_detect_params p;
			struct bf_change *ch = NULL;
			size_t nch = 0;
			struct bf_err e2 = BF_ERR_INIT;

			bf_detect_params_default(&p, (enum bf_detector)d);
			if (!bf_detect_series(&ch, &nch, &p, v, n, &e2))
				free(ch);
		}
		free(v);
		bf_numfile_labels_free(labels, n);
	}
	return 0;
}
