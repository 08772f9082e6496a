#include "config/cfg.h"

#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "config/cfg_int.h"

/*
 * The config's structs: their defaults (bf_cfg_init), release, and the
 * names of their enum values. Reading a file is cfg_load.c's.
 */

const char *const bf_cfg__format_words[] = {
	"gbench", "jetpack", "hyperfine", "native", "lines", NULL,
};
const char *const bf_cfg__output_words[] = { "stdout", "stderr", "both", NULL };
const char *const bf_cfg__measure_words[] = { "time", "instructions", NULL };
const char *const bf_cfg__better_words[] = { "lower", "higher", NULL };
const char *const bf_cfg__fail_on_words[] = { "regression", "never", NULL };
const char *const bf_cfg__missing_series_words[] = { "fail", "ignore", NULL };
const char *const bf_cfg__build_identity_words[] = { "code", "bytes", NULL };
const char *const bf_cfg__build_sandbox_words[] = { "auto", "require", "off",
	                                            NULL };
const char *const bf_cfg__same_machine_words[] = { "serial", "parallel", NULL };
const char *const bf_cfg__duet_isolation_words[] = {
	"best_effort", "none", "processes", "full", NULL,
};
const char *const bf_cfg__check_words[] = {
	"battery",  "cores", "clocks", "thermal",
	"throttle", "load",  "boost",  NULL,
};
const char *const bf_cfg__report_words[] = {
	"markdown", "json",      "github", "gerrit", "gitlab",
	"junit",    "skia-perf", "bmf",    NULL,
};
static const char *const jetpack_keys[] = { "name", "width", "threshold",
	                                    NULL };
static const char *const skia_keys[] = {
	"name", "width", "threshold", "variant", "stddev_threshold", NULL
};
static const char *const perfherder_keys[] = { "name", "width", "threshold",
	                                       "min_change", NULL };
static const char *const pooled_keys[] = { "name", "width", "threshold",
	                                   "min_change", NULL };
static const char *const edivisive_keys[] = { "name", "width", "max_pvalue",
	                                      NULL };

/* The step detectors' defaults (configs/README.md); 0 = not used. */
const struct bf_cfg__detector_def bf_cfg__detectors[] = {
	{ "jetpack", 5, 25.0, 0.0, 0.0, 0.0, jetpack_keys },
	{ "skia", 7, 50.0, 0.0, 0.0, 0.001, skia_keys },
	{ "perfherder", 12, 7.0, 0.02, 0.0, 0.0, perfherder_keys },
	{ "edivisive", 50, 0.0, 0.0, 0.001, 0.0, edivisive_keys },
	{ "pooled", 8, 4.0, 0.02, 0.0, 0.0, pooled_keys },
};

static const char *word_at(const char *const *words, size_t n, int i)
{
	if (i < 0 || (size_t)i >= n - 1)
		return NULL;
	return words[i];
}

const char *bf_format_name(enum bf_format f)
{
	return word_at(bf_cfg__format_words,
	               BF_ARRAY_SIZE(bf_cfg__format_words), (int)f);
}

int bf_format_parse(enum bf_format *out, const char *name)
{
	for (size_t i = 0; bf_cfg__format_words[i]; i++) {
		if (!strcmp(name, bf_cfg__format_words[i])) {
			*out = (enum bf_format)i;
			return 0;
		}
	}
	return BF_EINVAL;
}

const char *bf_output_name(enum bf_output o)
{
	return word_at(bf_cfg__output_words,
	               BF_ARRAY_SIZE(bf_cfg__output_words), (int)o);
}

const char *bf_measure_name(enum bf_measure m)
{
	return word_at(bf_cfg__measure_words,
	               BF_ARRAY_SIZE(bf_cfg__measure_words), (int)m);
}

const char *bf_better_name(enum bf_better b)
{
	return word_at(bf_cfg__better_words,
	               BF_ARRAY_SIZE(bf_cfg__better_words), (int)b);
}

const char *bf_build_identity_name(enum bf_build_identity b)
{
	return word_at(bf_cfg__build_identity_words,
	               BF_ARRAY_SIZE(bf_cfg__build_identity_words), (int)b);
}

const char *bf_build_sandbox_name(enum bf_build_sandbox s)
{
	return word_at(bf_cfg__build_sandbox_words,
	               BF_ARRAY_SIZE(bf_cfg__build_sandbox_words), (int)s);
}

const char *bf_fail_on_name(enum bf_fail_on f)
{
	return word_at(bf_cfg__fail_on_words,
	               BF_ARRAY_SIZE(bf_cfg__fail_on_words), (int)f);
}

const char *bf_missing_series_name(enum bf_missing_series m)
{
	return word_at(bf_cfg__missing_series_words,
	               BF_ARRAY_SIZE(bf_cfg__missing_series_words), (int)m);
}

const char *bf_same_machine_name(enum bf_same_machine m)
{
	return word_at(bf_cfg__same_machine_words,
	               BF_ARRAY_SIZE(bf_cfg__same_machine_words), (int)m);
}

const char *bf_duet_isolation_name(enum bf_duet_isolation m)
{
	return word_at(bf_cfg__duet_isolation_words,
	               BF_ARRAY_SIZE(bf_cfg__duet_isolation_words), (int)m);
}

void bf_cfg__detector_set(struct bf_cfg_detector *d,
                          const struct bf_cfg__detector_def *def)
{
	free(d->name);
	d->name = bf_xstrdup(def->name);
	d->width = def->width;
	d->threshold = def->threshold;
	d->min_change = def->min_change;
	d->max_pvalue = def->max_pvalue;
	BF_FREE(d->variant);
	d->stddev_threshold = def->stddev_threshold;
}

void bf_cfg__benchmark_init(struct bf_cfg_benchmark *b)
{
	memset(b, 0, sizeof(*b));
	bf_argv_init(&b->command);
	bf_argv_init(&b->env);
	bf_argv_init(&b->gate_metrics);
	b->format = BF_FORMAT_GBENCH;
	b->timeout_s = BF_CFG_BENCHMARK_TIMEOUT_DEFAULT;
	b->repeats = BF_CFG_DEFAULT_REPEATS;
	b->warmup = BF_CFG_DEFAULT_WARMUP;
}

void bf_cfg_init(struct bf_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->version = 1;
	cfg->project.target_branch = bf_xstrdup(BF_CFG_DEFAULT_BRANCH);
	cfg->project.build_timeout_s = BF_CFG_DEFAULT_BUILD_TIMEOUT;
	cfg->devices.pool = bf_xstrdup(BF_CFG_DEFAULT_POOL);
	cfg->devices.lease_time_s = BF_CFG_DEFAULT_LEASE_TIME;
	cfg->devices.wait_s = BF_CFG_DEFAULT_WAIT;
	cfg->devices.same_machine = BF_SAME_MACHINE_SERIAL;
	cfg->runs.repeats = BF_CFG_DEFAULT_REPEATS;
	cfg->runs.min_repeats = BF_CFG_DEFAULT_MIN_REPEATS;
	cfg->runs.max_repeats = BF_CFG_DEFAULT_MAX_REPEATS;
	cfg->runs.warmup = BF_CFG_DEFAULT_WARMUP;
	cfg->runs.interleave = true;
	cfg->runs.seed = 0;
	cfg->runs.retries = BF_CFG_DEFAULT_RETRIES;
	cfg->runs.samples_max = BF_CFG_DEFAULT_SAMPLES_MAX;
	cfg->checks = (struct bf_cfg_checks)BF_CFG_CHECKS_INIT;
	cfg->presubmit.alpha = BF_CFG_DEFAULT_ALPHA;
	cfg->presubmit.min_effect = BF_CFG_DEFAULT_MIN_EFFECT;
	cfg->presubmit.fail_on = BF_FAIL_ON_REGRESSION;
	cfg->presubmit.missing_series = BF_MISSING_SERIES_FAIL;
	/* the default detector: pooled, on each commit's repeats */
	bf_cfg__detector_set(&cfg->postsubmit.detector,
	                     &bf_cfg__detectors[BF_DETECT_POOLED]);
	bf_argv_push(&cfg->report, BF_CFG_DEFAULT_REPORT);
	cfg->review.check_name = bf_xstrdup("benchfarm");
	cfg->review.gerrit.vote_fail = -1;
	cfg->review.gerrit.vote_pass = 1;
}

void bf_cfg_detector_release(struct bf_cfg_detector *d)
{
	BF_FREE(d->name);
	BF_FREE(d->variant);
}

static void benchmark_release(struct bf_cfg_benchmark *b)
{
	free(b->name);
	bf_argv_release(&b->command);
	bf_argv_release(&b->env);
	bf_argv_release(&b->gate_metrics);
	free(b->workdir);
	free(b->source);
	for (size_t i = 0; i < b->nmetrics; i++) {
		free(b->metrics[i].name);
		bf_cfg_detector_release(&b->metrics[i].detector);
	}
	free(b->metrics);
	bf_cfg_detector_release(&b->detector);
}

void bf_cfg_release(struct bf_cfg *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	free(cfg->store);
	free(cfg->project.repo);
	free(cfg->project.target_branch);
	free(cfg->project.commit_url);
	bf_argv_release(&cfg->project.build);
	bf_argv_release(&cfg->project.artifacts);
	for (size_t i = 0; i < cfg->nbenchmarks; i++)
		benchmark_release(&cfg->benchmarks[i]);
	free(cfg->benchmarks);
	free(cfg->devices.pool);
	bf_argv_release(&cfg->checks.suppress);
	bf_cfg_detector_release(&cfg->postsubmit.detector);
	bf_argv_release(&cfg->report);
	free(cfg->review.check_name);
	free(cfg->review.link);
	free(cfg->review.gerrit.host);
	free(cfg->review.gerrit.user);
	free(cfg->review.gerrit.key);
	free(cfg->review.gerrit.label);
	free(cfg->review.gerrit.change);
	memset(cfg, 0, sizeof(*cfg));
}

const struct bf_cfg_benchmark *bf_cfg_find_benchmark(const struct bf_cfg *cfg,
                                                     const char *name)
{
	for (size_t i = 0; i < cfg->nbenchmarks; i++) {
		if (!strcmp(cfg->benchmarks[i].name, name))
			return &cfg->benchmarks[i];
	}
	return NULL;
}

bool bf_cfg_metric_wanted(const struct bf_cfg_benchmark *b, const char *metric,
                          const char *unit, bool *higher)
{
	size_t ulen = unit ? strlen(unit) : 0;

	if (!b || !b->nmetrics) {
		*higher = ulen >= 2 && !strcmp(unit + ulen - 2, "/s");
		return true;
	}
	for (size_t i = 0; i < b->nmetrics; i++) {
		if (!strcmp(b->metrics[i].name, metric)) {
			*higher = b->metrics[i].better == BF_BETTER_HIGHER;
			return true;
		}
	}
	*higher = false;
	return false;
}
