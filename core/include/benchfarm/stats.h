#ifndef BF_STATS_H
#define BF_STATS_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * Statistics for comparing benchmark samples: descriptive summaries, a
 * seeded PRNG, the two-sided Mann-Whitney U test (agreeing with SciPy's
 * mannwhitneyu), a bootstrap interval for the relative change of the
 * median, Benjamini-Hochberg FDR adjustment, and the per-metric verdict.
 *
 * Unless a function says otherwise, input arrays are borrowed for the
 * duration of the call and never modified, and must not contain NaN.
 */

/*
 * Descriptive statistics. These cannot fail; an empty input (n == 0)
 * gives NAN. Functions that need an ordered copy allocate one (and abort
 * when memory runs out, like bf_xmalloc).
 */

/* Arithmetic mean. */
double bf_stats_mean(const double *x, size_t n);
/* Sample standard deviation (divisor n - 1); 0 when n == 1. */
double bf_stats_stddev(const double *x, size_t n);
/* Coefficient of variation, stddev / mean; NAN when the mean is 0. */
double bf_stats_cv(const double *x, size_t n);
double bf_stats_min(const double *x, size_t n);
double bf_stats_max(const double *x, size_t n);
/*
 * The mean of a and b, (a + b) / 2, without overflow: finite whenever a
 * and b are (two values above DBL_MAX / 2 included). Every mean of two
 * (the even median, a percentile between two order statistics, a
 * detector's midpoint) is taken with it. Cannot fail.
 */
double bf_stats_mid(double a, double b);
/* Median; the mean of the two middle values when n is even. */
double bf_stats_median(const double *x, size_t n);
/*
 * Median of x, reordering x in place (no allocation): for scratch
 * buffers in hot loops. x is modified; its multiset of values is not.
 */
double bf_stats_median_inplace(double *x, size_t n);
/* Median absolute deviation from the median, unscaled. */
double bf_stats_mad(const double *x, size_t n);
/*
 * MAD scaled by 1.4826, a consistent estimator of the standard
 * deviation for normal data (1 / Phi^-1(3/4) rounded; scipy's
 * median_abs_deviation(scale="normal") uses it unrounded).
 */
double bf_stats_mad_scaled(const double *x, size_t n);
/*
 * The q-th percentile, q in [0, 100], interpolating linearly between
 * order statistics like numpy.percentile's default method "linear".
 * NAN when q is outside [0, 100].
 */
double bf_stats_percentile(const double *x, size_t n, double q);

/* A descriptive summary of one sample. */
struct bf_summary {
	size_t n;
	double min, max;
	double mean;
	double stddev; /* sample (n - 1) */
	double cv; /* stddev / mean */
	double median;
	double mad; /* unscaled median absolute deviation */
	double p05, p95; /* linear-interpolation percentiles */
};

/*
 * Fill out with the summary of x. Cannot fail. When n == 0, out->n is 0
 * and every other field is NAN.
 */
void bf_summary_compute(struct bf_summary *out, const double *x, size_t n);

/*
 * A small, fast, seeded PRNG (xoshiro256**, seeded through splitmix64).
 * The same seed gives the same stream on every platform, so recorded
 * seeds reproduce bootstrap intervals and run schedules. Not for secrets.
 */
struct bf_rng {
	uint64_t s[4];
};

/* Seed the generator; any seed, 0 included, is fine. Cannot fail. */
void bf_rng_seed(struct bf_rng *rng, uint64_t seed);
/* The next 64 uniformly distributed bits. */
uint64_t bf_rng_next_u64(struct bf_rng *rng);
/* A uniform double in [0, 1), with 53 random bits. */
double bf_rng_uniform(struct bf_rng *rng);
/*
 * A uniform integer in [0, bound), without modulo bias. bound must not
 * be 0 (a programming error: BF_BUG).
 */
uint64_t bf_rng_below(struct bf_rng *rng, uint64_t bound);

/* The result of a two-sided Mann-Whitney U test. */
struct bf_mwu_result {
	double u; /* U1, the statistic for x (SciPy's "statistic") */
	double p; /* two-sided p-value */
	bool exact; /* exact null distribution (else normal approximation) */
};

/*
 * Two-sided Mann-Whitney U test of x against y, the same as
 * scipy.stats.mannwhitneyu(x, y, alternative="two-sided",
 * method="auto", use_continuity=True). As SciPy's "auto" rule does, it
 * uses the exact distribution of U when at least one sample has at most
 * 8 values and there are no ties, and otherwise the normal approximation
 * with tie and continuity corrections. When every value is equal, p is 1.
 * Fails with BF_EINVAL when a sample is empty or holds a NaN.
 */
int bf_stats_mwu(struct bf_mwu_result *out, const double *x, size_t nx,
                 const double *y, size_t ny, struct bf_err *err);

#define BF_BOOTSTRAP_RESAMPLES  2000
#define BF_BOOTSTRAP_CONFIDENCE 0.95

/*
 * Percentile bootstrap confidence interval for the relative change of
 * the median, median(patch) / median(base) - 1. Each of `resamples`
 * rounds draws both samples with replacement from an RNG seeded with
 * `seed`, so the same inputs and seed give the same interval. The
 * interval is the (1 - confidence) / 2 and (1 + confidence) / 2
 * percentiles of the resampled changes. Writes *low_out and *high_out
 * on success only.
 * Fails with BF_EINVAL when a sample is empty or holds a NaN, when
 * resamples < 1 or confidence is not inside (0, 1), or when the median
 * of base (or of a resample of it) is 0, leaving the change undefined.
 */
int bf_stats_bootstrap_median_change(double *low_out, double *high_out,
                                     const double *base, size_t nb,
                                     const double *patch, size_t np,
                                     int resamples, double confidence,
                                     uint64_t seed, struct bf_err *err);

/*
 * Benjamini-Hochberg adjusted p-values (step-up, made monotone, capped at
 * 1), as R's p.adjust(p, "BH") and statsmodels' multipletests(p,
 * method="fdr_bh") compute them. NaN entries stay NaN in adjusted_out and
 * do not count towards n (as R's p.adjust does with NA). adjusted_out
 * holds n values and may be p itself. Cannot fail.
 */
void bf_stats_bh_adjust(double *adjusted_out, const double *p, size_t n);

/* The judgement on one metric of a comparison. */
enum bf_verdict {
	BF_VERDICT_SAME,
	BF_VERDICT_REGRESSED,
	BF_VERDICT_IMPROVED,
	BF_VERDICT_UNKNOWN, /* too few or too noisy samples to say */
};

/* "same", "regressed", "improved", "unknown"; never NULL. */
const char *bf_verdict_name(enum bf_verdict v);

/* Fewer samples than this on either side give BF_VERDICT_UNKNOWN. */
#define BF_COMPARE_MIN_SAMPLES 3

/*
 * Exact counts: when each side's values are whole numbers within
 * BF_EXACT_SPREAD of its median (max - min <= BF_EXACT_SPREAD *
 * |median|) and the median is at least 1 / BF_EXACT_SPREAD (so that a
 * count's step of 1 is within that spread), as the counts of a program
 * run under cachegrind are, there is no noise to test against: a change
 * of at least BF_EXACT_MIN_EFFECT is a verdict and a smaller one is the
 * same, whatever the U test and min_effect (a guard against noise) say.
 */
#define BF_EXACT_SPREAD     1e-4
#define BF_EXACT_MIN_EFFECT 1e-3

/*
 * Counted metrics (opts.counted: the counts of a deterministic
 * measurement, such as instructions under cachegrind) that do vary a
 * little from run to run, as a program with a random hash seed or
 * address-dependent paths does: three runs a side can never make the U
 * test significant. Their rule: a change of at least BF_EXACT_MIN_EFFECT
 * is a verdict when the two sides' ranges lie apart by at least
 * BF_COUNTED_GAP times the wider range (for three runs a side drawn
 * alike, normal, uniform, exponential or lognormal, that happens in
 * 0.14 to 0.35% of A/A comparisons) and both medians are at least
 * 1 / BF_EXACT_SPREAD (a count's step of 1 within the spread of exact
 * counts); a change below it, with both sides' ranges below it too, is
 * the same; anything else takes the ordinary rule.
 */
#define BF_COUNTED_GAP 2

struct bf_compare_opts {
	double alpha; /* significance level for the adjusted p-value */
	double min_effect; /* smallest relative change worth reporting */
	bool higher_is_better; /* false for times, true for throughputs */
	uint64_t seed; /* bootstrap RNG seed */
	int resamples; /* bootstrap rounds */
	double confidence; /* bootstrap interval level */
	bool counted; /* counts of a deterministic measurement (BF_COUNTED_GAP)
	               */
};

/*
 * The defaults of presubmit.alpha and presubmit.min_effect, chosen from
 * measured runs (docs/statistics.md): at alpha 0.01 an A/A comparison
 * of a series with a 3% CV gave a false verdict in under 1% of trials
 * where 0.05 gave 4.9%; and a min_effect of 1% lets a 2% change with a
 * CV under 1% be found at 10 runs a side, as a min_effect of 2% could
 * not (half of such changes measure below 2%).
 */
#define BF_COMPARE_DEFAULT_ALPHA      0.01
#define BF_COMPARE_DEFAULT_MIN_EFFECT 0.01

#define BF_COMPARE_OPTS_INIT                                             \
	{                                                                \
		BF_COMPARE_DEFAULT_ALPHA, BF_COMPARE_DEFAULT_MIN_EFFECT, \
		        false, 0, BF_BOOTSTRAP_RESAMPLES,                \
		        BF_BOOTSTRAP_CONFIDENCE, false                   \
	}

struct bf_compare_result {
	struct bf_summary base, patch;
	double u; /* Mann-Whitney U of patch against base */
	double p_value; /* two-sided Mann-Whitney p-value */
	double p_adjusted; /* after FDR control; p_value for one metric */
	double effect; /* median(patch) / median(base) - 1 */
	double ci_low, ci_high; /* bootstrap interval of effect */
	bool higher_is_better; /* the metric's direction, from the opts */
	bool exact; /* judged as exact counts (BF_EXACT_SPREAD) */
	bool counted; /* opts.counted: the counted rule (BF_COUNTED_GAP) */
	enum bf_verdict verdict;
};

/*
 * Compare a patch sample against a base sample of one metric and fill
 * out: summaries, U test, effect, bootstrap interval and verdict, with
 * p_adjusted = p_value (see bf_compare_apply_fdr() for several metrics).
 * opts may be NULL for BF_COMPARE_OPTS_INIT.
 *
 * With fewer than BF_COMPARE_MIN_SAMPLES values on a side the verdict is
 * BF_VERDICT_UNKNOWN and this is not an error: the summaries are filled,
 * and so are u, p_value and effect when they are defined; the interval
 * (and whatever else is undefined) is NAN.
 *
 * Fails with BF_EINVAL when a sample holds a NaN, when a value on
 * either side is below 0 (a ratio to a negative base points the wrong
 * way: -10 to -5 is not an improvement of 50%), when the median of
 * base (or of a bootstrap resample of it) is 0, leaving the relative
 * change undefined, or when opts are out of range; out is then
 * unspecified.
 */
int bf_compare_samples(struct bf_compare_result *out, const double *base,
                       size_t nb, const double *patch, size_t np,
                       const struct bf_compare_opts *opts, struct bf_err *err);

/*
 * The verdict for r, from r->base.n, r->patch.n, r->p_adjusted,
 * r->ci_low, r->ci_high and r->higher_is_better, with alpha and
 * min_effect taken from opts (NULL for the defaults; its
 * higher_is_better is not used, so metrics of both directions can share
 * one opts):
 * - regressed (improved) when p_adjusted < alpha and the point
 *   estimate r->effect lies beyond min_effect in the worse (better)
 *   direction: statistically significant and practically large; for
 *   lower-is-better metrics effect > min_effect is worse and
 *   effect < -min_effect better, and the reverse for higher-is-better;
 * - same when the whole interval lies inside [-min_effect, min_effect];
 * - unknown otherwise, and when a side has too few samples or a value
 *   is NaN;
 * - for exact counts (r->exact), regressed or improved by the sign of
 *   r->effect when it is at least BF_EXACT_MIN_EFFECT, else same;
 * - for counted values (r->counted) that are not exact, the rule of
 *   BF_COUNTED_GAP first, then the rules above.
 * Cannot fail.
 */
enum bf_verdict bf_compare_verdict(const struct bf_compare_result *r,
                                   const struct bf_compare_opts *opts);

/*
 * Control the false discovery rate across the n metrics of one
 * comparison: set each results[i].p_adjusted to its Benjamini-Hochberg
 * adjustment of the p_value family, then recompute each verdict with
 * bf_compare_verdict(), so each keeps its own direction. Results with
 * a NaN p_value are left out of the family. opts may be NULL for the
 * defaults. Cannot fail.
 */
void bf_compare_apply_fdr(struct bf_compare_result *results, size_t n,
                          const struct bf_compare_opts *opts);

/*
 * The smallest two-sided p-value a comparison of nb base against np
 * patch values can give: for the Mann-Whitney U test, that of two
 * samples lying wholly apart (2 / C(nb + np, nb) where the exact
 * distribution is used); for the paired rounds of a duet (paired, nb
 * rounds), the sign test's 2 / 2^nb. 1 when a side is empty.
 */
double bf_stats_min_p(size_t nb, size_t np, bool paired);

/*
 * The fewest runs a side (rounds, when paired) at which a change seen
 * in one series of a correction family of `family` series can reach an
 * adjusted p below alpha: Benjamini-Hochberg lifts a lone significant
 * p to p * family, so the least n with bf_stats_min_p(n, n) * family <
 * alpha. BF_STATS_MIN_RUNS_NONE when none up to that bound can.
 */
#define BF_STATS_MIN_RUNS_NONE 10000
size_t bf_stats_min_runs(double alpha, size_t family, bool paired);

/*
 * The regularized incomplete beta function I_x(a, b), for a, b > 0 and
 * x in [0, 1] (stats_beta.c): the tails of Student's t (E-divisive's
 * test, the sequential boundaries of adaptive repeats) come from it.
 */
double bf_stats_beta_inc(double a, double b, double x);

#endif /* BF_STATS_H */
