#include "job/presubmit_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchfarm/json.h"

#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "job/disagree.h"
#include "job/plan.h"
#include "job/worker.h"

/*
 * A side's commit and build: build_sandbox is "bwrap", "none" (with
 * build_sandbox_why) or null when there was no build command;
 * build_rebuilt says a cached build was found changed and built again.
 */
static json_t *commit_json(const struct bf_side *side,
                           const struct bf_gitcommit *info)
{
	json_t *o = json_pack(
	        "{s:s, s:s, s:s, s:s, s:b, s:b, s:o}", "commit", side->commit,
	        "tree", side->tree, "subject",
	        info->subject ? info->subject : "", "author",
	        info->author ? info->author : "", "build_cached", side->cached,
	        "build_rebuilt", side->rebuilt, "build_sandbox",
	        bf_json_str_or_null(side->sandbox[0] ? side->sandbox : NULL));

	if (side->sandbox_why)
		json_object_set_new(o, "build_sandbox_why",
		                    json_string(side->sandbox_why));
	return o;
}

static json_t *summary_json(const struct bf_job *job)
{
	struct bf_tally t;
	double total = bf_now_monotonic() - job->started;

	bf_comparison_tally(&t, &job->cmp);
	return json_pack(
	        "{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:b, s:f, "
	        "s:f}",
	        "regressed", t.regressed, "improved", t.improved, "same",
	        t.same, "unknown", t.unknown, "ungated", t.ungated, "missing",
	        t.missing, "errors", t.errors, "failed_runs",
	        (json_int_t)json_array_size(job->cmp.errors), "reconnects",
	        job->reconnects, "moved_units", job->moved_units, "aborted",
	        job->aborted, "wall_s", total, "benchmark_s",
	        job->bench_wall_s);
}

/* When the job started, "YYYY-MM-DDTHH:MM:SSZ" (UTC), from its age. */
static json_t *started_json(const struct bf_job *job)
{
	time_t t = time(NULL) - (time_t)(bf_now_monotonic() - job->started);
	char stamp[32];
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(stamp);
}

/*
 * What each benchmark measured gets: its repeats (runs per side, duet
 * rounds; the most when adaptive) and warmup, which differ between
 * benchmarks when the config gives them (their own keys, measure:
 * instructions' defaults).
 */
static json_t *bench_runs_json(const struct bf_job *job)
{
	const struct bf_cfg *cfg = job->cfg;
	const char *only = job->o->only_bench;
	json_t *arr = json_array();

	for (size_t b = 0; b < cfg->nbenchmarks; b++) {
		if (only && strcmp(cfg->benchmarks[b].name, only))
			continue;
		json_array_append_new(arr,
		                      json_pack("{s:s, s:i, s:i}", "benchmark",
		                                cfg->benchmarks[b].name,
		                                "repeats", job->runs[b].repeats,
		                                "warmup", job->runs[b].warmup));
	}
	return arr;
}

static json_t *settings_json(const struct bf_job *job)
{
	const struct bf_cfg *cfg = job->cfg;

	json_t *o = json_pack(
	        "{s:s, s:i, s:i, s:b, s:I, s:f, s:f, s:s}", "mode",
	        job->adaptive ? "adaptive" : "fixed", "repeats", job->repeats,
	        "warmup", job->warmup, "interleave", cfg->runs.interleave,
	        "seed", (json_int_t)job->seed, "alpha",
	        job->o->alpha >= 0 ? job->o->alpha : cfg->presubmit.alpha,
	        "min_effect",
	        job->o->min_effect >= 0 ? job->o->min_effect
	                                : cfg->presubmit.min_effect,
	        "fail_on",
	        cfg->presubmit.fail_on == BF_FAIL_ON_REGRESSION ? "regression"
	                                                        : "never");

	/* a series one side does not report: fails the gate, or passes */
	json_object_set_new(o, "missing_series",
	                    json_string(bf_missing_series_name(
	                            cfg->presubmit.missing_series)));
	/* how the rounds ran: one run at a time, or base and patch at once */
	json_object_set_new(o, "run_mode",
	                    json_string(job->duet ? "duet" : "interleaved"));
	/* duet: how far apart the sides were, and rounds left out */
	if (job->duet)
		json_object_set_new(
		        o, "duet_isolation",
		        bf_duet_tally_json(&job->duet_tally,
		                           bf_duet_isolation_name(
		                                   cfg->runs.duet_isolation)));
	json_object_set_new(o, "benchmarks", bench_runs_json(job));
	/* adaptive: repeats is the most; these the least and the most */
	if (job->adaptive) {
		json_object_set_new(o, "min_repeats",
		                    json_integer(cfg->runs.min_repeats));
		json_object_set_new(o, "max_repeats",
		                    json_integer(cfg->runs.max_repeats));
	}
	return o;
}

static json_t *devices_json(const struct bf_job *job)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < job->nworkers; i++) {
		const struct bf_worker *w = job->workers[i];
		json_t *d = json_pack(
		        "{s:s, s:O, s:i, s:b, s:b}", "name", w->name, "info",
		        w->info ? w->info : json_null(), "steps", w->steps_done,
		        "failed", w->dead, "skipped", w->dead && w->transient);

		if (w->dead)
			json_object_set_new(d, "error", json_string(w->why));
		json_array_append_new(arr, d);
	}
	return arr;
}

/*
 * What the sides shipped: the identity used and each side's (null when
 * it was not built), with how many files counted by their code.
 */
static json_t *build_json(const struct bf_job *job)
{
	json_t *o = json_pack(
	        "{s:s}", "identity",
	        bf_build_identity_name(job->cfg->project.build_identity));

	for (int s = job->record ? 1 : 0; s < 2; s++) {
		const struct bf_build_id *b = &job->build[s];
		const char *key = job->record ? "commit" : bf_side_name(s);

		json_object_set_new(
		        o, key,
		        b->id[0] ? json_pack("{s:s, s:I, s:I}", "id", b->id,
		                             "elf_files",
		                             (json_int_t)b->elf_files,
		                             "other_files",
		                             (json_int_t)b->other_files)
		                 : json_null());
	}
	return o;
}

/* The devices that ran the job, and whether its runs were stopped. */
static void add_outcome(json_t *r, const struct bf_job *job)
{
	json_object_set_new(r, "devices", devices_json(job));
	/* the pool's devices that did not measure, before or during it */
	json_object_set_new(r, "devices_out",
	                    job->devices_out ? json_deep_copy(job->devices_out)
	                                     : json_array());
	if (job->machines)
		json_object_set_new(r, "machines",
		                    json_deep_copy(job->machines));
	json_object_set_new(r, "status",
	                    json_string(job->aborted ? "infra_failure" : "ok"));
	if (job->aborted)
		json_object_set_new(r, "infra_error",
		                    json_string(job->abort_msg));
}

json_t *bf_job_record_json(const struct bf_job *job)
{
	const struct bf_comparison *c = &job->cmp;
	json_t *r = json_object(), *results = json_array();

	for (size_t i = 0; i < c->n; i++) {
		const struct bf_series *s = &c->series[i];
		const struct bf_values *v = &s->side[BF_SIDE_PATCH];
		json_t *vals = json_array();

		if (!v->n)
			continue;
		for (size_t k = 0; k < v->n; k++)
			json_array_append_new(vals, json_real(v->v[k]));
		json_array_append_new(
		        results,
		        json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o}",
		                  "benchmark",
		                  job->cfg->benchmarks[s->bench].name, "name",
		                  s->name, "metric", s->metric, "unit", s->unit,
		                  "n", (json_int_t)v->n, "median",
		                  bf_json_real_or_null(
		                          bf_stats_median(v->v, v->n)),
		                  "values", vals));
	}
	json_object_set_new(r, "benchfarm", json_string(BF_VERSION));
	json_object_set_new(r, "kind", json_string("run"));
	json_object_set_new(r, "run_id", json_integer(job->run_id));
	json_object_set_new(r, "config", json_string(job->cfg->path));
	json_object_set_new(r, "commit",
	                    commit_json(&job->side[1], &job->info[1]));
	json_object_set_new(r, "build", build_json(job));
	json_object_set_new(r, "same_build_as",
	                    job->same_build_run
	                            ? json_pack("{s:I, s:s}", "run",
	                                        (json_int_t)job->same_build_run,
	                                        "commit",
	                                        job->same_build_commit)
	                            : json_null());
	add_outcome(r, job);
	json_object_set_new(r, "results", results);
	json_object_set_new(r, "errors", json_deep_copy(c->errors));
	return r;
}

/*
 * Where a benchmark's code is, for review annotations: its `source:`
 * ("FILE" or "FILE:LINE"), else its entry in the config when the config
 * path is relative to the repository (as CI passes it). NULL: unknown.
 */
static json_t *source_json(const struct bf_cfg *cfg, const char *bench)
{
	const struct bf_cfg_benchmark *b = NULL;
	const char *colon;
	char *end;
	long line;

	for (size_t i = 0; i < cfg->nbenchmarks && !b; i++)
		if (!strcmp(cfg->benchmarks[i].name, bench))
			b = &cfg->benchmarks[i];
	if (!b)
		return NULL;
	if (!b->source) {
		if (!cfg->path || cfg->path[0] == '/' ||
		    !strncmp(cfg->path, "../", 3))
			return NULL;
		return json_pack("{s:s, s:i}", "file", cfg->path, "line",
		                 b->line);
	}
	colon = strrchr(b->source, ':');
	if (colon && colon[1]) {
		errno = 0;
		line = strtol(colon + 1, &end, 10);
		if (!*end && !errno && line > 0 && line <= INT_MAX)
			return json_pack("{s:s%, s:i}", "file", b->source,
			                 (size_t)(colon - b->source), "line",
			                 (int)line);
	}
	return json_pack("{s:s}", "file", b->source);
}

static json_t *results_with_source(const struct bf_job *job)
{
	json_t *results = bf_comparison_results_json(&job->cmp, job->cfg);
	json_t *res, *src;
	size_t i;

	json_array_foreach(results, i, res)
	{
		src = source_json(job->cfg,
		                  bf_json_str_or(res, "benchmark", ""));
		if (src)
			json_object_set_new(res, "source", src);
	}
	return results;
}

json_t *bf_job_result_json(const struct bf_job *job)
{
	json_t *r = json_object();

	json_object_set_new(r, "benchfarm", json_string(BF_VERSION));
	json_object_set_new(r, "kind", json_string("compare"));
	json_object_set_new(r, "started", started_json(job));
	json_object_set_new(r, "run_id", json_integer(job->run_id));
	json_object_set_new(r, "config", json_string(job->cfg->path));
	json_object_set_new(r, "config_digest", json_string(job->digest));
	json_object_set_new(r, "settings", settings_json(job));
	json_object_set_new(r, "base",
	                    commit_json(&job->side[0], &job->info[0]));
	json_object_set_new(r, "patch",
	                    commit_json(&job->side[1], &job->info[1]));
	/* an A/A run: every verdict can only be noise */
	json_object_set_new(r, "same_commit", json_boolean(job->same_commit));
	json_object_set_new(r, "build", build_json(job));
	/* one build on both sides: no verdict but same or unknown */
	json_object_set_new(r, "same_build", json_boolean(job->same_build));
	if (job->known_build)
		json_object_set_new(r, "known_build",
		                    json_string(job->build[1].id));
	add_outcome(r, job);
	if (job->failure) /* stage, side, commit, error, log_tail */
		json_object_set_new(r, "failure", json_deep_copy(job->failure));
	json_object_set_new(r, "summary", summary_json(job));
	json_object_set_new(r, "results", results_with_source(job));
	json_object_set_new(
	        r, "underpowered",
	        bf_comparison_underpowered_json(&job->cmp, job->cfg));
	/* repeats: auto: runs taken per benchmark, and why they stopped */
	if (job->adaptive)
		json_object_set_new(
		        r, "adaptive",
		        bf_comparison_adaptive_json(&job->cmp, job->cfg));
	json_object_set_new(
	        r, "disagreements",
	        bf_disagreements_json(json_object_get(r, "results"), job->cfg));
	json_object_set_new(r, "errors", json_deep_copy(job->cmp.errors));
	json_object_set_new(r, "checks", json_deep_copy(job->checks));
	/* shared, not copied: the largest part, and nobody changes it */
	json_object_set_new(r, "samples", json_incref(job->cmp.samples));
	if (job->trace)
		json_object_set_new(r, "trace", json_deep_copy(job->trace));
	return r;
}
