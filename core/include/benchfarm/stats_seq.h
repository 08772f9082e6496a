#ifndef BF_STATS_SEQ_H
#define BF_STATS_SEQ_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * Adaptive repeats: a group-sequential comparison that looks at the
 * data after each interleaved block and stops as soon as every metric
 * is decided, with its error rates held however early it stops.
 *
 * The design is Lan-DeMets alpha spending with the O'Brien-Fleming-type
 * spending function, two-sided and symmetric: each side spends
 *
 *     E(t) = 2 - 2 Phi(z / sqrt(t)),  z = Phi^-1(1 - alpha / 4),
 *
 * of its alpha / 2 by information fraction t (E(1) = alpha / 2). The
 * looks are planned: after n_1 < n_2 < ... < n_K runs per side, at
 * t_k = n_k / n_K. The boundary c_k of look k is the z value whose
 * two-sided crossing probability, with no earlier crossing, under the
 * canonical joint distribution of (Z_1, ..., Z_K) (independent
 * increments, corr(Z_j, Z_k) = sqrt(t_j / t_k)), is 2 (E(t_k) -
 * E(t_{k-1})): found by numerical integration of the continuation
 * density (Armitage, McPherson and Rowe's recursion) on a grid.
 *
 * At look k the repeated confidence interval for the log-ratio of the
 * sides is d +- q_k se, where d is the difference of the trimmed means
 * of the log values (patch - base), se its standard error (Yuen: from
 * the winsorized variances) and q_k the Student t quantile, with
 * Welch-Satterthwaite degrees of freedom, at the nominal one-sided level
 * 1 - Phi(c_k) of the boundary. These
 * intervals cover the true log-ratio at every look at once with
 * probability 1 - alpha (Jennison and Turnbull, ch. 9), whatever rule
 * decides when to stop: so stopping when the interval lies beyond the
 * threshold (different) or inside it (same) keeps both error rates.
 */

/*
 * Share of each side's values (logs) trimmed from each end before the
 * look's statistic (Yuen's trimmed-mean t): the runs a noisy neighbour
 * slowed do not widen the interval much. With 10%, fewer than 10 runs
 * trim nothing (Welch's t on the means, the most efficient for clean
 * noise) and 10 to 19 runs trim one from each end.
 */
#define BF_SEQ_TRIM 0.1

/* The most looks a design holds (runs.max_repeats is bounded for it). */
#define BF_SEQ_MAX_LOOKS 128

struct bf_seq_design {
	int nlooks;
	double alpha; /* two-sided, spent over all looks */
	int n[BF_SEQ_MAX_LOOKS]; /* runs per side at each look */
	double t[BF_SEQ_MAX_LOOKS]; /* information fraction n_k / n_K */
	double spent[BF_SEQ_MAX_LOOKS]; /* two-sided alpha spent by look k */
	double z[BF_SEQ_MAX_LOOKS]; /* boundary c_k on the z scale */
	double nominal[BF_SEQ_MAX_LOOKS]; /* two-sided 2 (1 - Phi(c_k)) */
};

/* Standard normal CDF and its inverse (p in (0, 1)). */
double bf_stats_norm_cdf(double x);
double bf_stats_norm_quantile(double p);
/* Student t upper tail P(T > x), and its inverse, for df > 0. */
double bf_stats_t_sf(double x, double df);
double bf_stats_t_isf(double p, double df);

/* Two-sided alpha spent by information fraction t: 2 E(t) above. */
double bf_seq_obf_spent(double t, double alpha);

/*
 * The looks after min, min + step, ... runs per side, the last at max
 * (which is also a look when the steps do not land on it). Fills
 * d->nlooks, d->n and d->t. BF_EINVAL when min < 2, max < min, step <
 * 1 or there would be more than BF_SEQ_MAX_LOOKS looks.
 */
int bf_seq_plan_looks(struct bf_seq_design *d, int min, int max, int step,
                      struct bf_err *err);

/*
 * The boundaries of the looks in d (d->nlooks, d->n, d->t set, as
 * bf_seq_plan_looks does) for two-sided alpha in (0, 1). Cannot fail
 * for valid input (a programming error otherwise).
 */
void bf_seq_design_boundaries(struct bf_seq_design *d, double alpha);

enum bf_seq_decision {
	BF_SEQ_OPEN, /* not yet decided: run another block */
	BF_SEQ_DIFFERENT, /* the interval lies beyond min_effect */
	BF_SEQ_SAME, /* the interval lies inside +-min_effect */
	BF_SEQ_MAX_REACHED, /* the last look, still open: no verdict */
};

/* "open", "different", "same", "max_reached". */
const char *bf_seq_decision_name(enum bf_seq_decision d);

struct bf_seq_look {
	int look; /* index of the look, 0-based */
	size_t nb, np; /* values used per side */
	double estimate; /* trimmed mean(log patch) - (log base) */
	double se, df; /* Yuen standard error and degrees of freedom */
	double q; /* the t quantile multiplying se */
	double low, high; /* the repeated confidence interval, log scale */
	double bound; /* log(1 + min_effect) */
	enum bf_seq_decision decision;
};

/*
 * Look k of design d at the values so far (positive; the log is taken
 * here), with the threshold min_effect (a relative change, >= 0).
 * BF_EINVAL when a side has fewer than 2 values, a value is not a
 * positive finite number, or k is out of range.
 */
int bf_seq_look(struct bf_seq_look *out, const struct bf_seq_design *d, int k,
                const double *base, size_t nb, const double *patch, size_t np,
                double min_effect, struct bf_err *err);

/*
 * The rule run over values already in hand, as a simulation or a replay
 * of recorded runs has them: look k of d at the first d->n[k] values of
 * base and patch (each holding at least the last look's count), k = 0,
 * 1, ... until a look decides, or the last; that look into *out (out->nb
 * is the runs per side it took). Fails as bf_seq_look() does.
 */
int bf_seq_first_decision(struct bf_seq_look *out,
                          const struct bf_seq_design *d, const double *base,
                          const double *patch, double min_effect,
                          struct bf_err *err);

#endif /* BF_STATS_SEQ_H */
