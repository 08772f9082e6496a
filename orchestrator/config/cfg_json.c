#include "config/cfg.h"

#include <jansson.h>
#include <stdio.h>

#include "benchfarm/argv.h"
#include "benchfarm/json.h"
#include "store/store.h"

/*
 * The effective config as JSON, keyed like the YAML file. Reals are
 * printed with 15 significant digits so that 0.05 reads as 0.05.
 */
#define JSON_FLAGS \
	(JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

static void set(json_t *obj, const char *key, json_t *value)
{
	json_object_set_new(obj, key, value);
}

static json_t *project_json(const struct bf_cfg *cfg)
{
	json_t *o = json_object();

	set(o, "repo", bf_json_str_or_null(cfg->project.repo));
	set(o, "target_branch",
	    bf_json_str_or_null(cfg->project.target_branch));
	if (cfg->project.commit_url)
		set(o, "commit_url", json_string(cfg->project.commit_url));
	set(o, "build", bf_json_argv(&cfg->project.build));
	set(o, "artifacts", bf_json_argv(&cfg->project.artifacts));
	set(o, "build_timeout", json_integer(cfg->project.build_timeout_s));
	set(o, "build_identity",
	    bf_json_str_or_null(
	            bf_build_identity_name(cfg->project.build_identity)));
	set(o, "build_sandbox",
	    bf_json_str_or_null(
	            bf_build_sandbox_name(cfg->project.build_sandbox)));
	set(o, "build_network", json_boolean(cfg->project.build_network));
	return o;
}

/* null when not set (a benchmark's or metric's: the enclosing one). */
static json_t *detector_json(const struct bf_cfg_detector *d)
{
	json_t *det;

	if (!d->name)
		return json_null();
	det = json_object();
	set(det, "name", bf_json_str_or_null(d->name));
	set(det, "width", json_integer(d->width));
	set(det, "threshold", json_real(d->threshold));
	set(det, "min_change", json_real(d->min_change));
	set(det, "max_pvalue", json_real(d->max_pvalue));
	if (!strcmp(d->name, "skia")) {
		set(det, "variant",
		    json_string(d->variant ? d->variant : "original"));
		set(det, "stddev_threshold", json_real(d->stddev_threshold));
	}
	return det;
}

/*
 * A benchmark's repeats and warmup are shown where they differ from the
 * runs' (its own key, or measure: instructions' defaults).
 */
static json_t *benchmark_json(const struct bf_cfg *cfg,
                              const struct bf_cfg_benchmark *b)
{
	json_t *o = json_object();
	json_t *metrics = json_object();
	json_t *m;

	set(o, "name", bf_json_str_or_null(b->name));
	set(o, "command", bf_json_argv(&b->command));
	set(o, "workdir", bf_json_str_or_null(b->workdir));
	set(o, "env", bf_json_argv(&b->env));
	set(o, "source", bf_json_str_or_null(b->source));
	set(o, "format", bf_json_str_or_null(bf_format_name(b->format)));
	set(o, "output", bf_json_str_or_null(bf_output_name(b->output)));
	set(o, "measure", bf_json_str_or_null(bf_measure_name(b->measure)));
	set(o, "counters", json_boolean(b->counters));
	set(o, "timeout", json_integer(b->timeout_s));
	if (!cfg->runs.adaptive && b->repeats != cfg->runs.repeats)
		set(o, "repeats", json_integer(b->repeats));
	if (b->warmup != cfg->runs.warmup)
		set(o, "warmup", json_integer(b->warmup));
	for (size_t i = 0; i < b->nmetrics; i++) {
		m = json_object();
		set(m, "better",
		    bf_json_str_or_null(bf_better_name(b->metrics[i].better)));
		set(m, "detector", detector_json(&b->metrics[i].detector));
		set(metrics, b->metrics[i].name, m);
	}
	set(o, "metrics", metrics);
	set(o, "detector", detector_json(&b->detector));
	set(o, "gate",
	    b->gate == BF_GATE_LIST ? bf_json_argv(&b->gate_metrics)
	                            : json_string(bf_gate_name(b->gate)));
	return o;
}

static json_t *runs_json(const struct bf_cfg *cfg)
{
	json_t *o = json_object();
	char seed[32];

	set(o, "repeats",
	    cfg->runs.adaptive ? json_string("auto")
	                       : json_integer(cfg->runs.repeats));
	set(o, "min_repeats", json_integer(cfg->runs.min_repeats));
	set(o, "max_repeats", json_integer(cfg->runs.max_repeats));
	set(o, "warmup", json_integer(cfg->runs.warmup));
	set(o, "interleave", json_boolean(cfg->runs.interleave));
	set(o, "mode", json_string(cfg->runs.duet ? "duet" : "interleaved"));
	set(o, "duet_isolation",
	    json_string(bf_duet_isolation_name(cfg->runs.duet_isolation)));
	if (cfg->runs.seed <= INT64_MAX) {
		set(o, "seed", json_integer((json_int_t)cfg->runs.seed));
	} else {
		snprintf(seed, sizeof(seed), "%llu",
		         (unsigned long long)cfg->runs.seed);
		set(o, "seed", json_string(seed));
	}
	set(o, "retries", json_integer(cfg->runs.retries));
	set(o, "samples_max", json_integer(cfg->runs.samples_max));
	return o;
}

static json_t *checks_json(const struct bf_cfg_checks *c)
{
	json_t *o = json_object();

	set(o, "battery_min", json_integer(c->battery_min));
	set(o, "require_charging", json_boolean(c->require_charging));
	set(o, "require_all_cores", json_boolean(c->require_all_cores));
	set(o, "require_locked_clocks", json_boolean(c->require_locked_clocks));
	set(o, "thermal_max", json_real(c->thermal_max));
	set(o, "throttle_tolerance", json_real(c->throttle_tolerance));
	set(o, "load_max", json_real(c->load_max));
	set(o, "suppress", bf_json_argv(&c->suppress));
	set(o, "wait_max", json_integer(c->wait_max_s));
	set(o, "load_wait", json_integer(c->load_wait_s));
	set(o, "throttle_retries", json_integer(c->throttle_retries));
	set(o, "throttle_sleep", json_integer(c->throttle_sleep_s));
	return o;
}

static json_t *presubmit_json(const struct bf_cfg *cfg)
{
	json_t *o = json_object();

	set(o, "alpha", json_real(cfg->presubmit.alpha));
	set(o, "min_effect", json_real(cfg->presubmit.min_effect));
	set(o, "fail_on",
	    bf_json_str_or_null(bf_fail_on_name(cfg->presubmit.fail_on)));
	set(o, "missing_series",
	    bf_json_str_or_null(
	            bf_missing_series_name(cfg->presubmit.missing_series)));
	return o;
}

static json_t *postsubmit_json(const struct bf_cfg_detector *d)
{
	json_t *o = json_object();

	set(o, "detector", detector_json(d));
	return o;
}

static json_t *review_json(const struct bf_cfg *cfg)
{
	json_t *o = json_object();
	json_t *g = json_null();

	set(o, "check_name", bf_json_str_or_null(cfg->review.check_name));
	set(o, "link", bf_json_str_or_null(cfg->review.link));
	if (cfg->review.gerrit.host) {
		g = json_object();
		set(g, "host", bf_json_str_or_null(cfg->review.gerrit.host));
		set(g, "port",
		    json_integer(cfg->review.gerrit.port
		                         ? cfg->review.gerrit.port
		                         : 29418));
		set(g, "user", bf_json_str_or_null(cfg->review.gerrit.user));
		set(g, "key", bf_json_str_or_null(cfg->review.gerrit.key));
		set(g, "label", bf_json_str_or_null(cfg->review.gerrit.label));
		set(g, "vote_fail", json_integer(cfg->review.gerrit.vote_fail));
		set(g, "vote_pass", json_integer(cfg->review.gerrit.vote_pass));
		set(g, "change",
		    bf_json_str_or_null(cfg->review.gerrit.change));
	}
	set(o, "gerrit", g);
	return o;
}

static json_t *cfg_json(const struct bf_cfg *cfg)
{
	json_t *root = json_object();
	json_t *benchmarks = json_array();
	json_t *devices = json_object();

	for (size_t i = 0; i < cfg->nbenchmarks; i++)
		json_array_append_new(benchmarks,
		                      benchmark_json(cfg, &cfg->benchmarks[i]));
	set(devices, "pool", bf_json_str_or_null(cfg->devices.pool));
	set(devices, "lease_time", json_integer(cfg->devices.lease_time_s));
	set(devices, "wait", json_integer(cfg->devices.wait_s));
	set(devices, "same_machine",
	    bf_json_str_or_null(
	            bf_same_machine_name(cfg->devices.same_machine)));
	set(root, "version", json_integer(cfg->version));
	set(root, "project", project_json(cfg));
	if (cfg->store) {
		/* a password in it is shown as *** */
		char *shown = bf_store_location_display(cfg->store);

		set(root, "store", bf_json_str_or_null(shown));
		free(shown);
	} else {
		set(root, "store", json_null());
	}
	set(root, "benchmarks", benchmarks);
	set(root, "devices", devices);
	set(root, "runs", runs_json(cfg));
	set(root, "checks", checks_json(&cfg->checks));
	set(root, "presubmit", presubmit_json(cfg));
	set(root, "postsubmit", postsubmit_json(&cfg->postsubmit.detector));
	set(root, "report", bf_json_argv(&cfg->report));
	set(root, "review", review_json(cfg));
	return root;
}

char *bf_cfg_to_json(const struct bf_cfg *cfg)
{
	json_t *root = cfg_json(cfg);
	char *text = json_dumps(root, JSON_FLAGS);

	json_decref(root);
	if (!text) {
		fprintf(stderr,
		        "fatal: out of memory formatting the config as JSON\n");
		abort();
	}
	return text;
}
