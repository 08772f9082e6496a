#include "benchfarm/detect.h"

#include "benchfarm/err.h"

/* Placeholder: being written. */
int bf_detect_edivisive(struct bf_change **out, size_t *nout,
                        const struct bf_detect_params *p, const double *x,
                        size_t n, struct bf_err *err)
{
	(void)out;
	(void)nout;
	(void)p;
	(void)x;
	(void)n;
	return bf_err_set(err, BF_EINVAL,
	                  "detector 'edivisive' is not built yet");
}

int bf_detect_edivisive_window(struct bf_step_window *out,
                               const struct bf_detect_params *p,
                               const double *x, size_t n, struct bf_err *err)
{
	(void)out;
	(void)p;
	(void)x;
	(void)n;
	return bf_err_set(err, BF_EINVAL,
	                  "detector 'edivisive' is not built yet");
}
