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
 * - p_value: two-sided exact sign test of "the median of d is 0" (how
 *   many rounds the patch was slower, against Binomial(n, 1/2)); rounds
 *   with d == 0 are left out. Not Wilcoxon's signed-rank test: on a
 *   shared device a neighbour slows one core of a round by far more
 *   than the change, and the signed-rank test lets those few rounds'
 *   large ranks outweigh every other round (2 such rounds in 12 turn a
 *   20% slowdown's p from 0.0005 to 0.18); the sign test counts each
 *   round once, as the median it tests does;
 * - u: the number of rounds with d > 0;
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
 * The two-sided exact sign test p-value of the n values d (zeros left
 * out) and the count of positive ones into *positive; 1 when every d is
 * 0. Cannot fail.
 */
double bf_stats_sign_test(const double *d, size_t n, double *positive);

/*
 * How much slower the second core ran than the first in a duet, from the
 * rounds themselves. Rounds alternate which core each side gets
 * (swapped[i]: round i ran base on the second core, patch on the
 * first); with the second core k times slower, a round's log ratio
 * log(patch / base) is the change plus log k when not swapped and minus
 * log k when swapped. *effect is k - 1, estimated as
 * exp((median of the unswapped log ratios - median of the swapped) / 2)
 * - 1 (negative: the first core was slower); *p is the two-sided
 * Mann-Whitney p-value of the two groups of log ratios (small: the
 * cores differ, by a neighbour on one of them or by design, as big and
 * little cores do). Fails with BF_EINVAL when a value is not > 0 or
 * either group has fewer than 2 rounds.
 */
int bf_paired_core_effect(double *effect, double *p, const double *base,
                          const double *patch, const bool *swapped, size_t n,
                          struct bf_err *err);

#endif /* BF_STATS_PAIRED_H */
