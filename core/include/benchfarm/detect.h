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

#endif /* BF_DETECT_H */
