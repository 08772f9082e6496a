/*
 * Judging one metric of a comparison: the bootstrap interval of the
 * relative change of the median, and the verdict rule with
 * Benjamini-Hochberg control across a family of metrics. A change is
 * regressed or improved when its adjusted p-value is under alpha and
 * its point estimate lies beyond min_effect (significant and large
 * enough to matter); it is the same when its whole interval lies within
 * +-min_effect; anything else (or fewer than BF_COMPARE_MIN_SAMPLES a
 * side) is unknown. Asking the whole interval to lie beyond min_effect,
 * as this rule once did, finds a true change of exactly min_effect at
 * most half the time, whatever the number of runs.
 */
#include "benchfarm/stats.h"

#include <math.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

static bool has_nan(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(x[i]))
			return true;
	return false;
}

static void resample(double *out, const double *x, size_t n, struct bf_rng *rng)
{
	for (size_t i = 0; i < n; i++)
		out[i] = x[bf_rng_below(rng, n)];
}

int bf_stats_bootstrap_median_change(double *low_out, double *high_out,
                                     const double *base, size_t nb,
                                     const double *patch, size_t np,
                                     int resamples, double confidence,
                                     uint64_t seed, struct bf_err *err)
{
	double *bs = NULL, *ps = NULL, *change = NULL, tail;
	struct bf_rng rng;
	int ret = 0;

	if (nb == 0 || np == 0)
		return bf_err_set(
		        err, BF_EINVAL,
		        "bootstrap needs two non-empty samples (got %zu and %zu values)",
		        nb, np);
	if (has_nan(base, nb) || has_nan(patch, np))
		return bf_err_set(err, BF_EINVAL,
		                  "bootstrap: a sample contains NaN");
	if (resamples < 1 || !(confidence > 0 && confidence < 1))
		return bf_err_set(
		        err, BF_EINVAL,
		        "bootstrap: need resamples >= 1 and 0 < confidence < 1 (got %d and %g)",
		        resamples, confidence);
	if (bf_stats_median(base, nb) == 0)
		return bf_err_set(
		        err, BF_EINVAL,
		        "the base median is 0: relative change undefined");

	bf_rng_seed(&rng, seed);
	bs = bf_xcalloc(nb, sizeof(*bs));
	ps = bf_xcalloc(np, sizeof(*ps));
	change = bf_xcalloc((size_t)resamples, sizeof(*change));
	for (int r = 0; r < resamples; r++) {
		double mb, mp;

		resample(bs, base, nb, &rng);
		resample(ps, patch, np, &rng);
		mb = bf_stats_median_inplace(bs, nb);
		mp = bf_stats_median_inplace(ps, np);
		if (mb == 0) {
			ret = bf_err_set(
			        err, BF_EINVAL,
			        "a bootstrap resample of the base has median 0: relative change undefined");
			goto out;
		}
		change[r] = mp / mb - 1;
	}
	tail = (1 - confidence) / 2 * 100;
	*low_out = bf_stats_percentile(change, (size_t)resamples, tail);
	*high_out = bf_stats_percentile(change, (size_t)resamples, 100 - tail);
out:
	free(bs);
	free(ps);
	free(change);
	return ret;
}

const char *bf_verdict_name(enum bf_verdict v)
{
	switch (v) {
	case BF_VERDICT_SAME:
		return "same";
	case BF_VERDICT_REGRESSED:
		return "regressed";
	case BF_VERDICT_IMPROVED:
		return "improved";
	case BF_VERDICT_UNKNOWN:
		break;
	}
	return "unknown";
}

/*
 * Counts whose median is large enough that a count's step of 1 lies
 * within BF_EXACT_SPREAD of it: 64 against 65 page faults is one fault,
 * not a 1.6% change. The guard of both exact and counted values.
 */
static bool resolved(const struct bf_summary *s)
{
	return fabs(s->median) * BF_EXACT_SPREAD >= 1;
}

/* A side's range relative to its median. */
static double spread(const struct bf_summary *s)
{
	return (s->max - s->min) / fabs(s->median);
}

/*
 * The sides' ranges apart by BF_COUNTED_GAP times the wider one, for
 * counts whose medians are large enough that a step of 1 is within
 * BF_EXACT_SPREAD (as for exact counts: 1247 cache misses against 1250
 * is three misses, not a 0.24% change).
 */
static bool counted_apart(const struct bf_compare_result *r)
{
	double gap =
	        fmax(r->patch.min - r->base.max, r->base.min - r->patch.max);
	double range =
	        fmax(r->base.max - r->base.min, r->patch.max - r->patch.min);

	return resolved(&r->base) && resolved(&r->patch) && gap > 0 &&
	       gap >= BF_COUNTED_GAP * range;
}

enum bf_verdict bf_compare_verdict(const struct bf_compare_result *r,
                                   const struct bf_compare_opts *opts)
{
	struct bf_compare_opts def = BF_COMPARE_OPTS_INIT;
	double lo = r->ci_low, hi = r->ci_high, m;
	bool significant;

	if (!opts)
		opts = &def;
	m = opts->min_effect;
	if (r->base.n < BF_COMPARE_MIN_SAMPLES ||
	    r->patch.n < BF_COMPARE_MIN_SAMPLES || isnan(lo) || isnan(hi) ||
	    isnan(r->p_adjusted))
		return BF_VERDICT_UNKNOWN;
	if (r->exact && fabs(r->effect) < BF_EXACT_MIN_EFFECT)
		return BF_VERDICT_SAME;
	if (r->exact || (r->counted && counted_apart(r) &&
	                 fabs(r->effect) >= BF_EXACT_MIN_EFFECT))
		return (r->effect > 0) == r->higher_is_better
		               ? BF_VERDICT_IMPROVED
		               : BF_VERDICT_REGRESSED;
	if (r->counted && fabs(r->effect) < BF_EXACT_MIN_EFFECT &&
	    spread(&r->base) < BF_EXACT_MIN_EFFECT &&
	    spread(&r->patch) < BF_EXACT_MIN_EFFECT)
		return BF_VERDICT_SAME;
	significant = r->p_adjusted < opts->alpha;
	if (significant && r->effect > m)
		return r->higher_is_better ? BF_VERDICT_IMPROVED
		                           : BF_VERDICT_REGRESSED;
	if (significant && r->effect < -m)
		return r->higher_is_better ? BF_VERDICT_REGRESSED
		                           : BF_VERDICT_IMPROVED;
	if (lo >= -m && hi <= m)
		return BF_VERDICT_SAME;
	return BF_VERDICT_UNKNOWN;
}

/*
 * The n values x (summarised in s) are counts, whole numbers, that do
 * not vary beyond BF_EXACT_SPREAD of their median, which is large
 * enough that a step of 1 (a count's resolution) is within that spread:
 * 64 page faults on each run are not exact, as 64 against 65 would be a
 * 1.6% change made of one fault. A time or a rate that repeats to the
 * last digit is computed or rounded (a fixed manual time), not counted,
 * and keeps the test.
 */
static bool exact(const struct bf_summary *s, const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] != floor(x[i]))
			return false;
	return resolved(s) &&
	       s->max - s->min <= BF_EXACT_SPREAD * fabs(s->median);
}

static int check_opts(const struct bf_compare_opts *o, struct bf_err *err)
{
	if (!(o->alpha > 0 && o->alpha <= 1))
		return bf_err_set(err, BF_EINVAL,
		                  "alpha must be in (0, 1] (got %g)", o->alpha);
	if (!(o->min_effect >= 0))
		return bf_err_set(err, BF_EINVAL,
		                  "min_effect must be >= 0 (got %g)",
		                  o->min_effect);
	if (o->resamples < 1)
		return bf_err_set(err, BF_EINVAL,
		                  "resamples must be >= 1 (got %d)",
		                  o->resamples);
	if (!(o->confidence > 0 && o->confidence < 1))
		return bf_err_set(err, BF_EINVAL,
		                  "confidence must be in (0, 1) (got %g)",
		                  o->confidence);
	return 0;
}

/*
 * The change is a ratio to the base: with a value below 0 on a side its
 * sign can flip (-10 to -5 reads -50%, better, for a lower-is-better
 * metric that got worse), so such a series is refused, not judged.
 */
static int check_sign(const double *x, size_t n, const char *side,
                      struct bf_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] < 0)
			return bf_err_set(
			        err, BF_EINVAL,
			        "the %s has negative values (%g): a change relative to a negative value points the wrong way, so benchfarm judges only metrics that are never below 0 (report an offset from a positive reference instead)",
			        side, x[i]);
	return 0;
}

int bf_compare_samples(struct bf_compare_result *out, const double *base,
                       size_t nb, const double *patch, size_t np,
                       const struct bf_compare_opts *opts, struct bf_err *err)
{
	struct bf_compare_opts def = BF_COMPARE_OPTS_INIT;
	struct bf_mwu_result mwu;
	int ret;

	if (!opts)
		opts = &def;
	ret = check_opts(opts, err);
	if (ret)
		return ret;
	if (has_nan(base, nb) || has_nan(patch, np))
		return bf_err_set(err, BF_EINVAL, "a sample contains NaN");
	if ((ret = check_sign(base, nb, "base", err)) ||
	    (ret = check_sign(patch, np, "patch", err)))
		return ret;

	bf_summary_compute(&out->base, base, nb);
	bf_summary_compute(&out->patch, patch, np);
	out->u = out->p_value = out->p_adjusted = NAN;
	out->effect = out->ci_low = out->ci_high = NAN;
	out->higher_is_better = opts->higher_is_better;
	out->counted = opts->counted;
	out->verdict = BF_VERDICT_UNKNOWN;
	out->exact =
	        nb >= BF_COMPARE_MIN_SAMPLES && np >= BF_COMPARE_MIN_SAMPLES &&
	        exact(&out->base, base, nb) && exact(&out->patch, patch, np);
	if (nb > 0 && out->base.median == 0)
		return bf_err_set(
		        err, BF_EINVAL,
		        "the base median is 0: relative change undefined");
	if (nb == 0 || np == 0)
		return 0;

	ret = bf_stats_mwu(&mwu, patch, np, base, nb, err);
	if (ret)
		return ret;
	out->u = mwu.u;
	out->p_value = out->p_adjusted = mwu.p;
	out->effect = out->patch.median / out->base.median - 1;
	if (nb < BF_COMPARE_MIN_SAMPLES || np < BF_COMPARE_MIN_SAMPLES)
		return 0;

	ret = bf_stats_bootstrap_median_change(
	        &out->ci_low, &out->ci_high, base, nb, patch, np,
	        opts->resamples, opts->confidence, opts->seed, err);
	if (ret)
		return ret;
	out->verdict = bf_compare_verdict(out, opts);
	return 0;
}

void bf_compare_apply_fdr(struct bf_compare_result *results, size_t n,
                          const struct bf_compare_opts *opts)
{
	double *p;

	if (n == 0)
		return;
	p = bf_xcalloc(n, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = results[i].p_value;
	bf_stats_bh_adjust(p, p, n);
	for (size_t i = 0; i < n; i++) {
		results[i].p_adjusted = p[i];
		results[i].verdict = bf_compare_verdict(&results[i], opts);
	}
	free(p);
}

double bf_stats_min_p(size_t nb, size_t np, bool paired)
{
	struct bf_mwu_result r;
	double *x;

	if (!nb || !np)
		return 1;
	if (paired)
		return fmin(1, 2 * pow(0.5, (double)nb));
	x = bf_xcalloc(nb + np, sizeof(*x));
	for (size_t i = 0; i < nb + np; i++)
		x[i] = (double)i + 1;
	/* every base value below every patch value: the least p there is */
	if (bf_stats_mwu(&r, x, nb, x + nb, np, NULL))
		r.p = 1;
	free(x);
	return r.p;
}

size_t bf_stats_min_runs(double alpha, size_t family, bool paired)
{
	for (size_t n = BF_COMPARE_MIN_SAMPLES; n < BF_STATS_MIN_RUNS_NONE; n++)
		if (bf_stats_min_p(n, n, paired) *
		            (double)(family ? family : 1) <
		    alpha)
			return n;
	return BF_STATS_MIN_RUNS_NONE;
}
