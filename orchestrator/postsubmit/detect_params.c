#include "postsubmit/detect.h"

#include "benchfarm/err.h"
#include "config/cfg.h"

/*
 * Which detector, with which parameters, judges a series: the config's
 * detector entries (a metric's, its benchmark's, postsubmit's) read into
 * core's struct bf_detect_params.
 */

/*
 * The detector of one series: the metric's entry in the config if it
 * names one, else its benchmark's, else postsubmit's.
 */
static const struct bf_cfg_detector *
series_detector(const struct bf_cfg *cfg, const char *suite, const char *metric)
{
	for (size_t b = 0; suite && b < cfg->nbenchmarks; b++) {
		const struct bf_cfg_benchmark *cb = &cfg->benchmarks[b];

		if (strcmp(cb->name, suite))
			continue;
		for (size_t m = 0; metric && m < cb->nmetrics; m++)
			if (!strcmp(cb->metrics[m].name, metric) &&
			    cb->metrics[m].detector.name)
				return &cb->metrics[m].detector;
		if (cb->detector.name)
			return &cb->detector;
	}
	return &cfg->postsubmit.detector;
}

int bf_detect_params_from_cfg(struct bf_detect_params *p,
                              const struct bf_cfg *cfg, const char *name,
                              struct bf_err *err)
{
	return bf_detect_params_for_series(p, cfg, NULL, NULL, name, err);
}

int bf_detect_params_for_series(struct bf_detect_params *p,
                                const struct bf_cfg *cfg, const char *suite,
                                const char *metric, const char *name,
                                struct bf_err *err)
{
	const struct bf_cfg_detector *d = series_detector(cfg, suite, metric);
	const char *want = name ? name : d->name ? d->name : "pooled";
	int det = bf_detector_from_name(want);
	bool own = !name || (d->name && !strcmp(d->name, name));

	if (det < 0)
		return bf_err_set(err, BF_EINVAL,
		                  "unknown detector '%s' (pooled, jetpack, "
		                  "skia, perfherder or edivisive)",
		                  want);
	if (own && d->name)
		return bf_detect_params_from_detector(p, d, err);
	/* the config's parameters are another detector's */
	bf_detect_params_default(p, (enum bf_detector)det);
	return 0;
}

int bf_detect_params_from_detector(struct bf_detect_params *p,
                                   const struct bf_cfg_detector *d,
                                   struct bf_err *err)
{
	int det = bf_detector_from_name(d->name);

	if (det < 0)
		return bf_err_set(err, BF_EINVAL, "unknown detector '%s'",
		                  d->name);
	bf_detect_params_default(p, (enum bf_detector)det);
	switch (p->detector) {
	case BF_DETECT_JETPACK:
		if (d->width > 0)
			p->jetpack_width = d->width;
		if (d->threshold > 0)
			p->jetpack_threshold = d->threshold;
		break;
	case BF_DETECT_SKIA:
		if (d->width > 0)
			p->skia_radius = d->width;
		if (d->threshold > 0)
			p->skia_interesting = d->threshold;
		if (d->stddev_threshold > 0)
			p->skia_stddev_threshold = d->stddev_threshold;
		if (d->variant && bf_skia_algo_from_name(d->variant) < 0)
			return bf_err_set(err, BF_EINVAL,
			                  "unknown skia variant '%s'",
			                  d->variant);
		if (d->variant)
			p->skia_algo =
			        (enum bf_skia_algo)bf_skia_algo_from_name(
			                d->variant);
		break;
	case BF_DETECT_PERFHERDER:
		if (d->width > 0) {
			p->ph_fore_window = d->width;
			p->ph_min_back_window = d->width;
			p->ph_max_back_window = 2 * d->width;
		}
		if (d->threshold > 0)
			p->ph_t_threshold = d->threshold;
		/*
		 * Always: the detector's default (0.02) or the user's value,
		 * and 0 is a value (every change that passes the t-test).
		 */
		p->ph_min_percent = 100 * d->min_change;
		break;
	case BF_DETECT_EDIVISIVE:
		if (d->width > 0)
			p->ed_window = d->width;
		if (d->max_pvalue > 0)
			p->ed_pvalue = d->max_pvalue;
		break;
	case BF_DETECT_POOLED:
		if (d->width > 0)
			p->pooled_width = d->width;
		if (d->threshold > 0)
			p->pooled_threshold = d->threshold;
		/* as perfherder's: the default (0.02) or the user's, 0 too */
		p->pooled_min_change = d->min_change;
		break;
	}
	return 0;
}
