/*
 * Paired comparison of the rounds of a duet: the sign test and a
 * bootstrap interval of the median ratio, on the per-round log ratios
 * of patch to base.
 */
#include "benchfarm/stats_paired.h"

#include <math.h>

#include "benchfarm/alloc.h"

double bf_stats_sign_test(const double *d, size_t n, double *positive)
{
	size_t m = 0, k = 0, lo;
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		m += d[i] != 0;
		k += d[i] > 0;
	}
	*positive = (double)k;
	if (m == 0)
		return 1;
	lo = k < m - k ? k : m - k;
	/* P(X <= lo) for X ~ Binomial(m, 1/2), term by term in logs */
	for (size_t i = 0; i <= lo; i++)
		sum += exp(lgamma((double)m + 1) - lgamma((double)i + 1) -
		           lgamma((double)(m - i) + 1) - (double)m * log(2));
	return 2 * sum > 1 ? 1 : 2 * sum;
}

static int check(const double *x, size_t n, const char *side,
                 struct bf_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return bf_err_set(
			        err, BF_EINVAL,
			        "round %zu: the %s value %g is not > 0, "
			        "so the ratio of the pair is undefined",
			        i + 1, side, x[i]);
	return 0;
}

int bf_compare_paired(struct bf_compare_result *out, const double *base,
                      const double *patch, size_t n,
                      const struct bf_compare_opts *opts, struct bf_err *err)
{
	struct bf_compare_opts def = BF_COMPARE_OPTS_INIT;
	double *d, *rs, *med, tail;
	struct bf_rng rng;

	if (!opts)
		opts = &def;
	if (!(opts->alpha > 0 && opts->alpha <= 1) ||
	    !(opts->min_effect >= 0) || opts->resamples < 1 ||
	    !(opts->confidence > 0 && opts->confidence < 1))
		return bf_err_set(err, BF_EINVAL,
		                  "paired comparison: alpha, min_effect, "
		                  "resamples or confidence out of range");
	if (check(base, n, "base", err) || check(patch, n, "patch", err))
		return BF_EINVAL;
	bf_summary_compute(&out->base, base, n);
	bf_summary_compute(&out->patch, patch, n);
	out->u = out->p_value = out->p_adjusted = NAN;
	out->effect = out->ci_low = out->ci_high = NAN;
	out->higher_is_better = opts->higher_is_better;
	out->exact = false;
	out->counted = false;
	out->verdict = BF_VERDICT_UNKNOWN;
	if (n == 0)
		return 0;
	d = bf_xcalloc(n, sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = log(patch[i] / base[i]);
	out->p_value = out->p_adjusted = bf_stats_sign_test(d, n, &out->u);
	out->effect = exp(bf_stats_median(d, n)) - 1;
	if (n < BF_COMPARE_MIN_SAMPLES) {
		free(d);
		return 0;
	}
	rs = bf_xcalloc(n, sizeof(*rs));
	med = bf_xcalloc((size_t)opts->resamples, sizeof(*med));
	bf_rng_seed(&rng, opts->seed);
	for (int k = 0; k < opts->resamples; k++) {
		for (size_t i = 0; i < n; i++)
			rs[i] = d[bf_rng_below(&rng, n)];
		med[k] = exp(bf_stats_median_inplace(rs, n)) - 1;
	}
	tail = (1 - opts->confidence) / 2 * 100;
	out->ci_low = bf_stats_percentile(med, (size_t)opts->resamples, tail);
	out->ci_high =
	        bf_stats_percentile(med, (size_t)opts->resamples, 100 - tail);
	out->verdict = bf_compare_verdict(out, opts);
	free(d);
	free(rs);
	free(med);
	return 0;
}

int bf_paired_core_effect(double *effect, double *p, const double *base,
                          const double *patch, const bool *swapped, size_t n,
                          struct bf_err *err)
{
	double *d[2];
	size_t m[2] = { 0, 0 };
	struct bf_mwu_result u;
	int ret;

	if (check(base, n, "base", err) || check(patch, n, "patch", err))
		return BF_EINVAL;
	d[0] = bf_xcalloc(n + 1, sizeof(double));
	d[1] = bf_xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		int g = swapped[i] ? 1 : 0;

		d[g][m[g]++] = log(patch[i] / base[i]);
	}
	if (m[0] < 2 || m[1] < 2) {
		ret = bf_err_set(
		        err, BF_EINVAL,
		        "%zu rounds with base on the first core and %zu "
		        "with it on the second: at least 2 of each are "
		        "needed to tell the cores apart",
		        m[0], m[1]);
	} else if (!(ret = bf_stats_mwu(&u, d[0], m[0], d[1], m[1], err))) {
		*p = u.p;
		*effect = exp((bf_stats_median(d[0], m[0]) -
		               bf_stats_median(d[1], m[1])) /
		              2) -
		          1;
	}
	free(d[0]);
	free(d[1]);
	return ret;
}
