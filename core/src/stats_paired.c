/*
 * Paired comparison of the rounds of a duet: the Wilcoxon signed-rank
 * test and a bootstrap interval of the median ratio, on the per-round
 * log ratios of patch to base.
 */
#include "benchfarm/stats_paired.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"

#define EXACT_MAX 60

struct ranked {
	double abs;
	bool positive;
};

static int by_abs(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->abs;
	double y = ((const struct ranked *)b)->abs;

	return (x > y) - (x < y);
}

/*
 * P(W+ <= k) for n untied ranks 1..n, each positive with probability
 * 1/2: the count of subsets of 1..n summing to at most k, over 2^n.
 */
static double exact_cdf(size_t n, double k)
{
	size_t max = n * (n + 1) / 2;
	double *c = bf_xcalloc(max + 1, sizeof(*c)), sum = 0;

	c[0] = 1;
	for (size_t r = 1; r <= n; r++)
		for (size_t s = max; s >= r; s--)
			c[s] += c[s - r];
	for (size_t s = 0; s <= max && (double)s <= k; s++)
		sum += c[s];
	free(c);
	return sum / ldexp(1, (int)n);
}

double bf_stats_signed_rank(const double *d, size_t n, double *w_plus)
{
	struct ranked *r = bf_xcalloc(n ? n : 1, sizeof(*r));
	double w = 0, ties = 0, mean, var, p;
	size_t m = 0;
	bool tied = false;

	for (size_t i = 0; i < n; i++)
		if (d[i] != 0)
			r[m++] = (struct ranked){ fabs(d[i]), d[i] > 0 };
	qsort(r, m, sizeof(*r), by_abs);
	for (size_t i = 0; i < m;) {
		size_t j = i;

		while (j + 1 < m && r[j + 1].abs == r[i].abs)
			j++;
		/* ranks i+1..j+1 share their mean */
		for (size_t k = i; k <= j; k++)
			if (r[k].positive)
				w += (double)(i + j + 2) / 2;
		if (j > i) {
			double t = (double)(j - i + 1);

			tied = true;
			ties += t * t * t - t;
		}
		i = j + 1;
	}
	free(r);
	*w_plus = w;
	if (m == 0)
		return 1;
	mean = (double)m * (double)(m + 1) / 4;
	if (!tied && m <= EXACT_MAX) {
		double lo = w < mean ? w : 2 * mean - w;

		p = 2 * exact_cdf(m, lo);
	} else {
		double dev = fabs(w - mean) - 0.5;

		var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24 -
		      ties / 48;
		p = var > 0 ? erfc((dev > 0 ? dev : 0) / sqrt(2 * var)) : 1;
	}
	return p > 1 ? 1 : p;
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
	out->verdict = BF_VERDICT_UNKNOWN;
	if (n == 0)
		return 0;
	d = bf_xcalloc(n, sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = log(patch[i] / base[i]);
	out->p_value = out->p_adjusted = bf_stats_signed_rank(d, n, &out->u);
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
