#ifndef BF_DETECT_H
#define BF_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bf_err;

/*
 * Step detectors over one benchmark's history: a series of values in
 * commit order (oldest first), one per measured commit. Constants and
 * formulas: each detector's source file, and docs/postsubmit.md.
 *
 * Missing values are NaN: they are dropped before fitting and the
 * indexes reported are those of the input. An infinity is BF_EINVAL.
 * Directions are of the value: +1 when it steps up, -1 when down; the
 * caller maps that to regressed or improved from the metric's "better".
 */

enum bf_detector {
	BF_DETECT_JETPACK,
	BF_DETECT_SKIA,
	BF_DETECT_PERFHERDER,
	BF_DETECT_EDIVISIVE,
	BF_DETECT_POOLED, /* the default: on each commit's repeats */
};

/* Skia Perf's step fit variants (stepfit.go). */
enum bf_skia_algo {
	BF_SKIA_ORIGINAL, /* "original": least-squares step, float32 */
	BF_SKIA_ABSOLUTE, /* "absolute": step size in the value's unit */
	BF_SKIA_PERCENT, /* "percent": step as a fraction of the before mean */
	BF_SKIA_COHEN, /* "cohen": Cohen's d */
	BF_SKIA_MANNWHITNEYU, /* "mannwhitneyu": p-value of the U test */
};

struct bf_detect_params {
	enum bf_detector detector;
	/* jetpack: WIDTH results each side (5), |score| >= threshold (25). */
	int jetpack_width;
	double jetpack_threshold;
	/* skia: radius r, interesting threshold, min stddev, variant. */
	int skia_radius;
	double skia_interesting;
	double skia_stddev_threshold;
	enum bf_skia_algo skia_algo;
	/* perfherder: back window min/max, fore window, t threshold, min %. */
	int ph_min_back_window;
	int ph_max_back_window;
	int ph_fore_window;
	double ph_t_threshold;
	double ph_min_percent; /* alerts below this |% change| are dropped */
	/* edivisive (Otava): max p-value, window length, min magnitude. */
	double ed_pvalue;
	int ed_window;
	double ed_min_magnitude;
	/*
	 * pooled: up to WIDTH commits each side (8), |z| >= threshold (4)
	 * with full windows, and |after/before - 1| >= min_change (0.02).
	 */
	int pooled_width;
	double pooled_threshold;
	double pooled_min_change;
};

/* The reference's defaults for detector d. */
void bf_detect_params_default(struct bf_detect_params *p, enum bf_detector d);

/*
 * The names, NULL-terminated, in the order of enum bf_detector and enum
 * bf_skia_algo: the config's allowed words and the CLI's are these.
 */
extern const char *const bf_detector_names[];
extern const char *const bf_skia_algo_names[];
/* "jetpack" etc. to the enum; -1 when unknown. */
int bf_detector_from_name(const char *name);
const char *bf_detector_name(enum bf_detector d);
int bf_skia_algo_from_name(const char *name);
const char *bf_skia_algo_name(enum bf_skia_algo a);
/*
 * The interesting threshold of a skia variant when none is given: 50
 * (Perf's flag) for original; for the others, the low end of what
 * Perf's alert editor suggests (regression-detection.md 1.7): percent
 * 0.1, cohen 2, mannwhitneyu 0.05 (a p-value). absolute measures in the
 * metric's unit and has none: 0.
 */
double bf_skia_default_interesting(enum bf_skia_algo a);

/* One detected change: the series steps at index (first new value). */
struct bf_change {
	size_t index; /* input index of the first value after the step */
	/*
	 * The detector's statistic. From bf_detect_series its sign is the
	 * direction's (positive when the metric rose); the per-detector
	 * entry points below sign it as their reference does. Skia's
	 * mannwhitneyu scores the rank-biserial correlation (-1..1), its
	 * p-value is p_value.
	 */
	double score;
	int direction; /* +1 up, -1 down */
	double before; /* mean (or median) level before, after */
	double after;
	double size; /* (after - before) / before; NaN when before is 0 */
	double p_value; /* edivisive, mannwhitneyu; NaN otherwise */
};

/*
 * Every change in x[0..n). *out is malloc'd (free it), *nout may be 0.
 * Returns 0, or BF_EINVAL for an infinite value or bad parameters.
 * A series shorter than the detector's window has no changes.
 */
int bf_detect_series(struct bf_change **out, size_t *nout,
                     const struct bf_detect_params *p, const double *x,
                     size_t n, struct bf_err *err);

/* One window evaluated at its midpoint (analyze step --window). */
struct bf_step_window {
	size_t turning_point; /* index of the first value after the step */
	double step_size; /* Skia's StepSize (or the score for others) */
	double least_squares; /* Skia's LeastSquares; NaN if not defined */
	double regression; /* the detector's statistic */
	int direction; /* +1 up, -1 down, 0 none */
	const char *status; /* "High", "Low" or "Uninteresting" */
};

int bf_detect_window(struct bf_step_window *out,
                     const struct bf_detect_params *p, const double *x,
                     size_t n, struct bf_err *err);

/* Per-detector entry points (detect_*.c); x has no NaN here. */
int bf_detect_jetpack(struct bf_change **out, size_t *nout,
                      const struct bf_detect_params *p, const double *x,
                      size_t n, struct bf_err *err);
int bf_detect_jetpack_window(struct bf_step_window *out,
                             const struct bf_detect_params *p, const double *x,
                             size_t n, struct bf_err *err);
int bf_detect_skia(struct bf_change **out, size_t *nout,
                   const struct bf_detect_params *p, const double *x, size_t n,
                   struct bf_err *err);
int bf_detect_skia_window(struct bf_step_window *out,
                          const struct bf_detect_params *p, const double *x,
                          size_t n, struct bf_err *err);
int bf_detect_perfherder(struct bf_change **out, size_t *nout,
                         const struct bf_detect_params *p, const double *x,
                         size_t n, struct bf_err *err);
int bf_detect_perfherder_window(struct bf_step_window *out,
                                const struct bf_detect_params *p,
                                const double *x, size_t n, struct bf_err *err);
int bf_detect_edivisive(struct bf_change **out, size_t *nout,
                        const struct bf_detect_params *p, const double *x,
                        size_t n, struct bf_err *err);
/*
 * How close edivisive came, for saying why it found nothing: over the
 * windows its split pass cuts while it finds no change point (ed_window
 * values, advancing by half of that), the first candidate of each (the
 * split maximising Q-hat) and its t-test. *p_out gets the smallest
 * p-value (NaN when n < 3), *index_out that split (the first value
 * after it). x has no NaN. Returns 0 or BF_EINVAL for bad parameters.
 */
int bf_detect_edivisive_best(double *p_out, size_t *index_out,
                             const struct bf_detect_params *p, const double *x,
                             size_t n, struct bf_err *err);
int bf_detect_edivisive_window(struct bf_step_window *out,
                               const struct bf_detect_params *p,
                               const double *x, size_t n, struct bf_err *err);

/*
 * Detection on every repeat of every commit: commit i of n has the
 * repeats v[off[i] .. off[i+1]) (off has n + 1 entries, off[0] = 0); a
 * commit without repeats (off[i] == off[i+1]) is missing. The pooled
 * detector reads the repeats; the others read one value per commit, the
 * median of its repeats, as bf_detect_series. Indexes are commits'.
 * A repeat that is NaN is dropped; an infinite one is BF_EINVAL.
 */
int bf_detect_series_reps(struct bf_change **out, size_t *nout,
                          const struct bf_detect_params *p, const double *v,
                          const size_t *off, size_t n, struct bf_err *err);
int bf_detect_window_reps(struct bf_step_window *out,
                          const struct bf_detect_params *p, const double *v,
                          const size_t *off, size_t n, struct bf_err *err);

/*
 * The pooled detector (detect_pooled.c), on commits that all have
 * repeats (no NaN). A side of a window has at least BF_POOLED_MIN_SIDE
 * commits: near either end of the series a side is shorter than WIDTH
 * and its threshold is higher (bf_pooled_threshold).
 */
#define BF_POOLED_MIN_SIDE 2

/* The series' noise, estimated once over all its commits. */
struct bf_pooled_noise {
	/*
	 * The variance of one repeat within a commit: the median over the
	 * commits with two or more repeats of their sample variance,
	 * divided by the median of chi2(k)/k (Wilson-Hilferty, k the
	 * median repeats - 1) so that it estimates a normal's variance.
	 */
	double within;
	double n_harmonic; /* the harmonic mean of the repeat counts */
	/*
	 * The commit-to-commit variance more repeats do not remove:
	 * (median |level[j+1] - level[j]| / 0.67449)^2 / 2 (a level is a
	 * commit's median), less the within part (pi/2) * within /
	 * n_harmonic, and never below 0.
	 */
	double between;
};
void bf_pooled_noise(struct bf_pooled_noise *nz, const double *v,
                     const size_t *off, size_t m);
/* The variance of the level of a commit of n repeats. */
double bf_pooled_commit_var(const struct bf_pooled_noise *nz, size_t n);

/*
 * Commits [lo, mid) before, [mid, hi) after. Each side's level is the
 * median of its commits' levels (with two commits, the one nearer the
 * other side's median: both must have moved), its variance the sum of
 * their variances over their count squared, times pi/2 for a median of
 * three or more (2 for two, 1 for one); z = (after - before) /
 * sqrt(var before + var after). z_mean is the same with the sides'
 * mean levels (no factor): it places a step within a run of flagged
 * commits, where the medians move in steps of whole commits.
 */
struct bf_pooled_window {
	double before, after, se, z;
	double mean_before, mean_after, z_mean;
};
void bf_pooled_window_eval(struct bf_pooled_window *w, const double *v,
                           const size_t *off, const struct bf_pooled_noise *nz,
                           size_t lo, size_t mid, size_t hi);
/*
 * The |z| a window needs when its shorter side has `side` commits:
 * pooled_threshold, times sqrt(WIDTH / side) when side < WIDTH.
 */
double bf_pooled_threshold(const struct bf_detect_params *p, size_t side);
int bf_detect_pooled(struct bf_change **out, size_t *nout,
                     const struct bf_detect_params *p, const double *v,
                     const size_t *off, size_t m, struct bf_err *err);
int bf_detect_pooled_window(struct bf_step_window *out,
                            const struct bf_detect_params *p, const double *v,
                            const size_t *off, size_t m, struct bf_err *err);

#endif /* BF_DETECT_H */
