#include "config/cfg_int.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/detect.h"
#include "benchfarm/err.h"

/*
 * Step detectors: a detector's keys in a config (postsubmit.detector, a
 * benchmark's or a metric's), and the same rules for a detector set up
 * outside a config (bf_cfg_detector_init, _option, _finish).
 */

#define DOFF(m) offsetof(struct bf_cfg_detector, m)
#define TABLE(f)                    \
	{                           \
		f, BF_ARRAY_SIZE(f) \
	}

/*
 * The rule of a skia variant's threshold (see skia_variant_threshold):
 * 0 (d->threshold set to the variant's default when have_threshold is
 * false), NEEDS_THRESHOLD (absolute has no default) or NOT_A_P_VALUE
 * (mannwhitneyu's must be below 1).
 */
enum { NEEDS_THRESHOLD = 1, NOT_A_P_VALUE = 2 };

#define NO_MAX HUGE_VAL

static int load_variant(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg_detector *d = obj;
	size_t i;
	int ret = bf_cfg__get_word(ld, node, path, bf_skia_algo_names,
	                           "skia variant", &i);

	if (!ret) {
		free(d->variant);
		d->variant = bf_xstrdup(bf_skia_algo_names[i]);
	}
	return ret;
}

static const struct bf_cfg__field detector_fields[] = {
	BF_CFG__STR_KEY("name", DOFF(name), 0),
	BF_CFG__INT_KEY("width", DOFF(width), 1, 100000),
	BF_CFG__DOUBLE_KEY("threshold", DOFF(threshold), BF_CFG__LO_OPEN, 0,
	                   NO_MAX),
	BF_CFG__DOUBLE_KEY("min_change", DOFF(min_change), 0, 0, NO_MAX),
	BF_CFG__DOUBLE_KEY("max_pvalue", DOFF(max_pvalue),
	                   BF_CFG__LO_OPEN | BF_CFG__HI_OPEN, 0, 1),
	BF_CFG__FN_KEY("variant", 0, 0, load_variant),
	/* skia computes in float32: the largest float32 */
	BF_CFG__DOUBLE_KEY("stddev_threshold", DOFF(stddev_threshold),
	                   BF_CFG__LO_OPEN, 0, 3.4028234663852886e38),
};
static const struct bf_cfg__table detector_table = TABLE(detector_fields);

static bool has_word(const char *const *words, const char *s)
{
	for (; *words; words++) {
		if (!strcmp(*words, s))
			return true;
	}
	return false;
}

/*
 * Each known key of a detector mapping must be one its detector uses;
 * unknown keys are left to bf_cfg__load_map, which suggests a spelling.
 */
static int check_detector_keys(struct bf_cfg__ld *ld, yaml_node_t *map,
                               const struct bf_cfg__detector_def *def)
{
	yaml_node_t *key;
	const char *k;
	bool known;

	for (size_t i = 0; i < bf_cfg__map_size(map); i++) {
		key = bf_cfg__pair_key(ld, map, i);
		k = bf_cfg__scalar(key);
		known = false;
		for (size_t j = 0; j < detector_table.n; j++)
			known = known || !strcmp(detector_fields[j].key, k);
		if (known && !has_word(def->keys, k))
			return bf_cfg__error(
			        ld, key, "'%s' does not apply to detector '%s'",
			        k, def->name);
	}
	return 0;
}

/*
 * A skia variant other than original scores on its own scale: without a
 * threshold it takes its variant's default, absolute (in the metric's
 * unit) has none, and mannwhitneyu's is a p-value below 1.
 */
static int skia_threshold_rule(struct bf_cfg_detector *d, bool have_threshold)
{
	double def;

	if (!d->variant)
		return 0;
	def = bf_skia_default_interesting(
	        (enum bf_skia_algo)bf_skia_algo_from_name(d->variant));
	if (!have_threshold && def == 0)
		return NEEDS_THRESHOLD;
	if (!have_threshold)
		d->threshold = def;
	else if (!strcmp(d->variant, "mannwhitneyu") && d->threshold >= 1)
		return NOT_A_P_VALUE;
	return 0;
}

static int skia_variant_threshold(struct bf_cfg__ld *ld, yaml_node_t *map,
                                  const char *path, struct bf_cfg_detector *d)
{
	yaml_node_t *v = bf_cfg__find_key(ld, map, "variant");
	yaml_node_t *t = bf_cfg__find_key(ld, map, "threshold");

	if (!v)
		return 0;
	switch (skia_threshold_rule(d, t != NULL)) {
	case NEEDS_THRESHOLD:
		return bf_cfg__error(ld, v,
		                     "skia variant '%s' needs a 'threshold' in "
		                     "'%s' (a step in the metric's unit)",
		                     d->variant, path);
	case NOT_A_P_VALUE:
		return bf_cfg__error(ld, t,
		                     "'%s.threshold' of skia variant "
		                     "'mannwhitneyu' is a p-value: it must be "
		                     "less than 1, not %g",
		                     path, d->threshold);
	}
	return 0;
}

/* pooled compares at least two commits each side (BF_POOLED_MIN_SIDE) */
static bool pooled_width_too_small(const struct bf_cfg_detector *d)
{
	return d->name && !strcmp(d->name, "pooled") &&
	       d->width < BF_POOLED_MIN_SIDE;
}

int bf_cfg_detector_init(struct bf_cfg_detector *d, const char *name,
                         struct bf_err *err)
{
	int i = bf_detector_from_name(name);

	if (i < 0)
		return bf_err_set(err, BF_EINVAL,
		                  "unknown detector '%s' (pooled, jetpack, "
		                  "skia, perfherder or edivisive)",
		                  name);
	memset(d, 0, sizeof(*d));
	bf_cfg__detector_set(d, &bf_cfg__detectors[i]);
	return 0;
}

int bf_cfg_detector_option(struct bf_cfg_detector *d, const char *key,
                           const char *value, struct bf_err *err)
{
	const struct bf_cfg__detector_def *def =
	        &bf_cfg__detectors[bf_detector_from_name(d->name)];
	const struct bf_cfg__field *f = NULL;
	int i;

	for (size_t j = 0; j < detector_table.n; j++)
		if (!strcmp(detector_fields[j].key, key))
			f = &detector_fields[j];
	if (!f || !strcmp(key, "name"))
		return bf_err_set(err, BF_EINVAL, "no detector parameter '%s'",
		                  key);
	if (!has_word(def->keys, key))
		return bf_err_set(err, BF_EINVAL,
		                  "does not apply to detector '%s'", def->name);
	if (f->type == BF_CFG__FN) { /* variant */
		if ((i = bf_skia_algo_from_name(value)) < 0)
			return bf_err_set(
			        err, BF_EINVAL,
			        "unknown skia variant '%s' (original, "
			        "absolute, percent, cohen, "
			        "mannwhitneyu)",
			        value);
		free(d->variant);
		d->variant = bf_xstrdup(bf_skia_algo_names[i]);
		return 0;
	}
	return bf_cfg__set_number((char *)d + f->off, f, value, NULL, err);
}

int bf_cfg_detector_finish(struct bf_cfg_detector *d, bool have_threshold,
                           struct bf_err *err)
{
	if (pooled_width_too_small(d))
		return bf_err_set(err, BF_EINVAL,
		                  "the width of detector 'pooled' must be at "
		                  "least 2 (commits each side), not %d",
		                  d->width);
	switch (skia_threshold_rule(d, have_threshold)) {
	case NEEDS_THRESHOLD:
		return bf_err_set(err, BF_EINVAL,
		                  "skia variant '%s' needs a threshold (a "
		                  "step in the metric's unit)",
		                  d->variant);
	case NOT_A_P_VALUE:
		return bf_err_set(err, BF_EINVAL,
		                  "the threshold of skia variant "
		                  "'mannwhitneyu' is a p-value: it must be "
		                  "less than 1, not %g",
		                  d->threshold);
	}
	return 0;
}

int bf_cfg__load_detector(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                          const char *path)
{
	struct bf_cfg_detector *d = obj;
	yaml_node_t *name = node;
	char sub[BF_CFG__PATH_SIZE];
	size_t i;
	int ret;

	if (node->type == YAML_MAPPING_NODE) {
		ret = bf_cfg__check_keys(ld, node, path);
		if (ret)
			return ret;
		name = bf_cfg__find_key(ld, node, "name");
		if (!name)
			return bf_cfg__error(
			        ld, node, "missing required key 'name' in '%s'",
			        path);
	}
	bf_cfg__join(sub, sizeof(sub), path, name == node ? "" : "name");
	ret = bf_cfg__get_word(ld, name, name == node ? path : sub,
	                       bf_detector_names, "detector", &i);
	if (ret)
		return ret;
	bf_cfg__detector_set(d, &bf_cfg__detectors[i]);
	if (name == node)
		return 0;
	ret = check_detector_keys(ld, node, &bf_cfg__detectors[i]);
	if (!ret)
		ret = bf_cfg__load_map(ld, node, path, &detector_table, d);
	if (!ret && d->variant)
		ret = skia_variant_threshold(ld, node, path, d);
	if (!ret && pooled_width_too_small(d))
		ret = bf_cfg__error(
		        ld, bf_cfg__find_key(ld, node, "width"),
		        "'%s.width' of detector 'pooled' must be at "
		        "least 2 (commits each side), not %d",
		        path, d->width);
	return ret;
}
