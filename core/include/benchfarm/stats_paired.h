#ifndef BF_STATS_PAIRED_H
#define BF_STATS_PAIRED_H

#include "benchfarm/err.h"
#include "benchfarm/stats.h"

/*
 * Paired comparison (duet mode): base[i] and patch[i] were measured in
 * the same round, at the same time on two cores of one device, so that
 * the noise both shared (a neighbour, the clock frequency, heat) falls
 * out of their ratio. The statistic works on the per-round log ratios
 * d[i] = log(patch[i] / base[i]):
 * - p_value: two-sided Wilcoxon signed-rank test of "the median of d is
 *   0", exact when no two nonzero |d| tie and at most 60 are nonzero, else the
 *   normal approximation with tie and continuity corrections; rounds
 *   with d == 0 are dropped (Wilcoxon's rule);
 * - u: the signed-rank statistic W+ (sum of the ranks of positive d);
 * - effect: exp(median(d)) - 1, the median ratio less 1;
 * - ci_low, ci_high: bootstrap interval (opts->resamples rounds resampled
 *   as pairs, opts->seed) of exp(median(d)) - 1;
 * - verdict: bf_compare_verdict(), the rule of unpaired comparisons
 *   (alpha, min_effect, BF_COMPARE_MIN_SAMPLES rounds); exact is false.
 * base and patch are summarised as in bf_compare_samples().
 * Fails with BF_EINVAL when a value is NaN or not > 0 (a ratio needs
 * positive values) or opts are out of range.
 */
int bf_compare_paired(struct bf_compare_result *out, const double *base,
                      const double *patch, size_t n,
                      const struct bf_compare_opts *opts, struct bf_err *err);

/*
 * The two-sided Wilcoxon signed-rank p-value of the n values d (zeros
 * dropped) and W+ into *w_plus. 1 when nothing is left after dropping
 * zeros. Cannot fail.
 */
double bf_stats_signed_rank(const double *d, size_t n, double *w_plus);

#endif /* BF_STATS_PAIRED_H */
