#include "presubmit_int.h"

#include "benchfarm/spawn.h"
#include "cfg.h"
#include "sched.h"
#include "worker.h"

static json_t *commit_json(const struct bf_side *side,
                           const struct bf_gitcommit *info)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:b}", "commit", side->commit,
	                 "tree", side->tree, "subject",
	                 info->subject ? info->subject : "", "author",
	                 info->author ? info->author : "", "build_cached",
	                 side->cached);
}

static json_t *summary_json(const struct bf_job *job)
{
	struct bf_tally t;
	double total = bf_now_monotonic() - job->started;

	bf_comparison_tally(&t, &job->cmp);
	return json_pack(
	        "{s:i, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:b, s:f, s:f}",
	        "regressed", t.regressed, "improved", t.improved, "same",
	        t.same, "unknown", t.unknown, "errors", t.errors, "failed_runs",
	        (json_int_t)json_array_size(job->cmp.errors), "reconnects",
	        job->reconnects, "moved_units", job->moved_units, "aborted",
	        job->aborted, "wall_s", total, "benchmark_s",
	        job->bench_wall_s);
}

static json_t *settings_json(const struct bf_job *job)
{
	const struct bf_cfg *cfg = job->cfg;

	return json_pack(
	        "{s:i, s:i, s:b, s:I, s:f, s:f, s:s}", "repeats", job->repeats,
	        "warmup", job->warmup, "interleave", cfg->runs.interleave,
	        "seed", (json_int_t)job->seed, "alpha",
	        job->o->alpha >= 0 ? job->o->alpha : cfg->presubmit.alpha,
	        "min_effect",
	        job->o->min_effect >= 0 ? job->o->min_effect
	                                : cfg->presubmit.min_effect,
	        "fail_on",
	        cfg->presubmit.fail_on == BF_FAIL_ON_REGRESSION ? "regression"
	                                                        : "never");
}

static json_t *devices_json(const struct bf_job *job)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < job->nworkers; i++) {
		const struct bf_worker *w = job->workers[i];
		json_t *d =
		        json_pack("{s:s, s:O, s:i, s:b}", "name", w->name,
		                  "info", w->info ? w->info : json_null(),
		                  "steps", w->steps_done, "failed", w->dead);

		if (w->dead)
			json_object_set_new(d, "error", json_string(w->why));
		json_array_append_new(arr, d);
	}
	return arr;
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
	json_object_set_new(r, "devices", devices_json(job));
	json_object_set_new(r, "status",
	                    json_string(job->aborted ? "infra_failure" : "ok"));
	if (job->aborted)
		json_object_set_new(r, "infra_error",
		                    json_string(job->abort_msg));
	json_object_set_new(r, "results", results);
	json_object_set_new(r, "errors", json_deep_copy(c->errors));
	return r;
}

json_t *bf_job_result_json(const struct bf_job *job)
{
	json_t *r = json_object();

	json_object_set_new(r, "benchfarm", json_string(BF_VERSION));
	json_object_set_new(r, "kind", json_string("compare"));
	json_object_set_new(r, "run_id", json_integer(job->run_id));
	json_object_set_new(r, "config", json_string(job->cfg->path));
	json_object_set_new(r, "config_digest", json_string(job->digest));
	json_object_set_new(r, "settings", settings_json(job));
	json_object_set_new(r, "base",
	                    commit_json(&job->side[0], &job->info[0]));
	json_object_set_new(r, "patch",
	                    commit_json(&job->side[1], &job->info[1]));
	json_object_set_new(r, "devices", devices_json(job));
	json_object_set_new(r, "status",
	                    json_string(job->aborted ? "infra_failure" : "ok"));
	if (job->aborted)
		json_object_set_new(r, "infra_error",
		                    json_string(job->abort_msg));
	json_object_set_new(r, "summary", summary_json(job));
	json_object_set_new(r, "results",
	                    bf_comparison_results_json(&job->cmp, job->cfg));
	json_object_set_new(r, "errors", json_deep_copy(job->cmp.errors));
	json_object_set_new(r, "checks", json_deep_copy(job->checks));
	json_object_set_new(r, "samples", json_deep_copy(job->cmp.samples));
	return r;
}
