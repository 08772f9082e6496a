#include "job/presubmit.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "git/workspace.h"
#include "job/compare.h"
#include "job/dispatch.h"
#include "job/heartbeat.h"
#include "job/plan.h"
#include "job/presubmit_int.h"
#include "job/worker.h"
#include "report/plugins.h"
#include "store/store.h"

static void job_release(struct bf_job *job)
{
	for (size_t i = 0; i < job->nworkers; i++)
		bf_worker_free(job->workers[i]);
	free(job->workers);
	pthread_mutex_destroy(&job->lock);
	pthread_cond_destroy(&job->cond);
	for (int s = 0; s < 2; s++) {
		bf_side_release(&job->side[s]);
		bf_artifacts_release(&job->arts[s]);
		bf_gitcommit_release(&job->info[s]);
	}
	bf_comparison_release(&job->cmp);
	json_decref(job->checks);
	json_decref(job->machines);
	json_decref(job->trace);
	json_decref(job->failure);
	json_decref(job->devices_out);
	bf_gitrepo_free(job->repo);
	free(job->digest);
	free(job->runs);
}

/* Tell the caller (o->note); the first error is kept for err. */
static void note(struct bf_job *job, enum bf_job_note kind, const char *fmt,
                 ...) BF_PRINTF(3, 4);

static void note(struct bf_job *job, enum bf_job_note kind, const char *fmt,
                 ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = bf_xvasprintf(fmt, ap);
	va_end(ap);
	if (kind == BF_JOB_ERROR && !job->first_err.code)
		bf_err_set(&job->first_err, BF_ERROR, "%s", text);
	if (job->o->note)
		job->o->note(job->o->note_arg, kind, text);
	free(text);
}

char *bf_presubmit_config_digest(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct bf_buf b;

	bf_buf_init(&b, 16 * 1024 * 1024);
	bf_buf_read_file(&b, path, NULL);
	for (size_t i = 0; i < b.len; i++) {
		h ^= (unsigned char)b.buf[i];
		h *= 0x100000001b3ULL;
	}
	bf_buf_release(&b);
	return bf_xasprintf("fnv1a64:%016llx", (unsigned long long)h);
}

static uint64_t fresh_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^
	       ((uint64_t)getpid() << 32);
}

/*
 * The base by default: the merge-base of the patch with
 * project.target_branch. A branch that the repository does not have is
 * the config's error, and the message says which key to change.
 */
static int default_base(struct bf_job *job, const char *patch,
                        struct bf_err *err)
{
	const char *branch = job->cfg->project.target_branch;
	struct bf_err e = BF_ERR_INIT;
	int ret;

	ret = bf_gitrepo_merge_base(job->side[0].commit, job->repo, patch,
	                            branch, &e);
	/* does the branch resolve on its own (remote-tracking too)? */
	if (ret && bf_gitrepo_merge_base(job->side[0].commit, job->repo, branch,
	                                 branch, NULL))
		return bf_err_set(
		        err, ret,
		        "project.target_branch '%s' in %s: %s; set it "
		        "to the branch that patches go into, or give "
		        "--base REV",
		        branch, job->cfg->path, e.msg);
	if (ret)
		bf_err_set(err, ret, "%s", e.msg);
	return ret;
}

/*
 * Base and patch are one commit: the run can only measure noise. By
 * default that is because the patch is already on the target branch
 * (its merge-base is itself), which is refused; an explicit --base or
 * --allow-same runs it, and the result says so (same_commit).
 */
static int check_same(struct bf_job *job, const char *patch, struct bf_err *err)
{
	if (job->record || strcmp(job->side[0].commit, job->side[1].commit))
		return 0;
	if (!job->o->base && !job->o->allow_same)
		return bf_err_set(
		        err, BF_EINVAL,
		        "the patch '%s' (%.12s) is already on "
		        "project.target_branch '%s', so it is its own "
		        "merge-base and both sides would be the same commit; "
		        "give --base REV to compare it with an earlier commit, "
		        "or --allow-same for an A/A run",
		        patch, job->side[1].commit,
		        job->cfg->project.target_branch);
	job->same_commit = true;
	note(job, BF_JOB_WARNING,
	     "base and patch are the same commit %.12s: an A/A run, which "
	     "can only measure noise",
	     job->side[1].commit);
	return 0;
}

/* Open the repository and pick the two commits. Exit code or 0. */
static int resolve_commits(struct bf_job *job, struct bf_err *err)
{
	const struct bf_cfg *cfg = job->cfg;
	char *dir = bf_fs_dirname(cfg->path);
	char *repo = bf_fs_join(dir, cfg->project.repo);
	const char *patch = job->o->patch ? job->o->patch : "HEAD";
	int ret;

	ret = bf_gitrepo_open(&job->repo, repo, err);
	if (!ret)
		ret = bf_gitrepo_resolve(job->side[1].commit, job->repo, patch,
		                         err);
	if (!ret && job->record)
		memcpy(job->side[0].commit, job->side[1].commit,
		       sizeof(job->side[0].commit));
	else if (!ret && job->o->base)
		ret = bf_gitrepo_resolve(job->side[0].commit, job->repo,
		                         job->o->base, err);
	else if (!ret)
		ret = default_base(job, patch, err);
	if (!ret)
		ret = check_same(job, patch, err);
	for (int s = 0; !ret && s < 2; s++)
		ret = bf_gitrepo_commit_info(job->repo, job->side[s].commit,
		                             &job->info[s], err);
	free(dir);
	free(repo);
	return ret ? BF_EXIT_USAGE : 0;
}

/* Why the job failed (the first reason wins); side, commit may be NULL. */
static void job_fail(struct bf_job *job, const char *stage, const char *side,
                     const char *commit, const char *msg, const char *tail)
{
	if (job->failure)
		return;
	job->failure = json_pack("{s:s, s:s}", "stage", stage, "error", msg);
	if (side)
		json_object_set_new(job->failure, "side", json_string(side));
	if (commit)
		json_object_set_new(job->failure, "commit",
		                    json_string(commit));
	if (tail)
		json_object_set_new(job->failure, "log_tail",
		                    json_string(tail));
}

/*
 * No device of the pool could measure: the failure's stage is
 * "devices", with each device left out and why (its "devices").
 */
static void no_device(struct bf_job *job, const char *msg)
{
	job_fail(job, "devices", NULL, NULL, msg, NULL);
	if (job->devices_out &&
	    !strcmp(bf_json_str_or(job->failure, "stage", ""), "devices"))
		json_object_set_new(job->failure, "devices",
		                    json_deep_copy(job->devices_out));
}

/* Export and build both sides; a failure shows the log's tail. */
static int prepare_sides(struct bf_job *job, struct bf_err *err)
{
	for (int s = job->record ? 1 : 0; s < 2; s++) {
		char commit[41];
		char *tail;

		bf_strlcpy(commit, job->side[s].commit, sizeof(commit));
		note(job, BF_JOB_PREPARING, "%s %.12s",
		     job->record ? "commit" : bf_side_name(s), commit);
		if (!bf_workspace_prepare(&job->side[s], &job->arts[s],
		                          job->repo, commit, job->cfg, err) &&
		    (!job->cfg->project.artifacts.argc ||
		     !bf_build_id_of(&job->build[s], &job->arts[s],
		                     job->cfg->project.build_identity, err)))
			continue;
		tail = job->side[s].log_path
		               ? bf_workspace_log_tail(job->side[s].log_path,
		                                       15)
		               : NULL;
		note(job, BF_JOB_ERROR, "%s", err->msg);
		if (tail && *tail)
			note(job, BF_JOB_BUILD_LOG, "%s", tail);
		job_fail(job, "build", job->record ? "commit" : bf_side_name(s),
		         commit, err->msg, tail && *tail ? tail : NULL);
		/* what the build was made of: a rerun under the same
		 * inputs need not build it again (backfill) */
		if (job->side[s].key[0] &&
		    !strcmp(bf_json_str_or(job->failure, "stage", ""), "build"))
			json_object_set_new(job->failure, "build_key",
			                    json_string(job->side[s].key));
		free(tail);
		err->msg[0] = '\0';
		return BF_EXIT_INFRA;
	}
	return 0;
}

/* The run's device: its device class (a device's name, or a pool's). */
static const char *run_device(const struct bf_job *job)
{
	return job->o->device ? job->o->device
	       : job->o->pool ? job->o->pool
	                      : job->cfg->devices.pool;
}

static int create_run(struct bf_job *job, struct bf_err *err)
{
	struct bf_store_run run;

	memset(&run, 0, sizeof(run));
	run.kind = (char *)(job->record ? "run" : "compare");
	run.config_digest = job->digest;
	run.base_commit = job->record ? NULL : job->side[0].commit;
	run.patch_commit = job->side[1].commit;
	run.device = (char *)run_device(job);
	run.seed = (int64_t)job->seed;
	return bf_store_run_create(&job->run_id, job->store, &run, err);
}

/*
 * The result JSON into o->json_path (when given); BF_EXIT_INFRA when it
 * cannot be written.
 */
static int write_json(struct bf_job *job, const json_t *result,
                      struct bf_err *err)
{
	if (!job->o->json_path ||
	    !bf_json_write_file(result, job->o->json_path, true, true, err))
		return BF_EXIT_OK;
	note(job, BF_JOB_ERROR, "%s", err->msg);
	return BF_EXIT_INFRA;
}

/*
 * The markdown report into o->markdown_path, else to *o->markdown_out
 * for the caller to show; BF_EXIT_INFRA when it cannot be made or
 * written. It carries the review settings' marker and link, as `report
 * --format markdown -c` and compare --report write them: a pipeline
 * that posts either file finds and updates the same comment.
 */
static int write_markdown(struct bf_job *job, const json_t *result,
                          struct bf_err *err)
{
	const char *path = job->o->markdown_path;
	char *md;

	if (!path && !job->o->markdown_out)
		return BF_EXIT_OK;
	md = bf_report_markdown_text(result, job->cfg->review.check_name,
	                             job->cfg->review.link, err);
	if (md && !path) {
		free(*job->o->markdown_out); /* one written before, if any */
		*job->o->markdown_out = md;
		return BF_EXIT_OK;
	}
	if (md && !bf_fs_write_atomic(path, md, strlen(md), 0600, err)) {
		free(md);
		return BF_EXIT_OK;
	}
	free(md);
	note(job, BF_JOB_ERROR, "%s", err->msg);
	return BF_EXIT_INFRA;
}

/*
 * The run is over: stored as failed or complete, its result handed to
 * the caller (result_out) or dropped. Returns ret, the exit code; or
 * BF_EXIT_INFRA when the store does not take the finish (the connection
 * is lost, or another host already marked the run aborted): the result
 * and reports, already written, are written again as an infrastructure
 * failure, so that nothing says the run succeeded while the store says
 * it did not end or was aborted.
 */
static int finish_run(struct bf_job *job, json_t *result, int ret)
{
	struct bf_err ferr = BF_ERR_INIT, err = BF_ERR_INIT;

	if (bf_store_run_finish(job->store, job->run_id,
	                        ret == BF_EXIT_INFRA ? "failed" : "complete",
	                        (int64_t)time(NULL), &ferr)) {
		char *why = bf_xasprintf(
		        "store %s: run %lld could not be finished as %s: %s",
		        bf_store_shown(job->store), (long long)job->run_id,
		        ret == BF_EXIT_INFRA ? "failed" : "complete", ferr.msg);

		bf_strlcpy(job->abort_msg, why, sizeof(job->abort_msg));
		free(why);
		note(job, BF_JOB_ERROR,
		     "%s; its result is not valid, run the job again",
		     job->abort_msg);
		job->aborted = true;
		job_fail(job, "run", NULL, NULL, job->abort_msg, NULL);
		ret = BF_EXIT_INFRA;
		json_decref(result);
		result = job->record ? bf_job_record_json(job)
		                     : bf_job_result_json(job);
		write_json(job, result, &err);
		if (!job->record)
			write_markdown(job, result, &err);
	}
	if (job->o->result_out)
		*job->o->result_out = result;
	else
		json_decref(result);
	return ret;
}

/*
 * The sides are built: their identities go with the run. A compare of
 * one build on both sides can only measure the machine (same_build); a
 * postsubmit commit whose build a complete run of its device class
 * under the same config measured already is that run's point
 * (same_build_run) unless o->measure_every. Exit code or 0.
 */
static int record_builds(struct bf_job *job, struct bf_err *err)
{
	const char *base = job->record ? NULL : job->build[0].id;
	const char *patch = job->build[1].id;

	/*
	 * Without project.artifacts a benchmark runs in the export and
	 * may read any of its files: what it ships is not known.
	 */
	if (!*patch)
		return 0;
	if (bf_store_run_set_build(job->store, job->run_id, base, patch, err)) {
		job_fail(job, "run", NULL, NULL, err->msg, NULL);
		return BF_EXIT_INFRA;
	}
	if (!job->record) {
		job->same_build = !strcmp(base, patch);
		for (int i = 0; i < 2; i++)
			if (job->o->known_builds[i] &&
			    !strcmp(job->o->known_builds[i], patch))
				job->known_build = true;
		if (job->same_build)
			note(job, BF_JOB_WARNING,
			     "base and patch are the same build (%.17s...): "
			     "any difference between them is the machine, and "
			     "no verdict will say otherwise",
			     patch);
		return 0;
	}
	if (job->o->measure_every)
		return 0;
	if (bf_store_run_same_build(&job->same_build_run,
	                            job->same_build_commit, job->store,
	                            run_device(job), job->digest, patch, err) ||
	    (job->same_build_run &&
	     bf_store_run_set_measured_by(job->store, job->run_id,
	                                  job->same_build_run, err))) {
		job_fail(job, "run", "commit", job->side[1].commit, err->msg,
		         NULL);
		return BF_EXIT_INFRA;
	}
	if (job->same_build_run)
		note(job, BF_JOB_WARNING,
		     "commit %.12s is the same build as %.12s, measured in run "
		     "%lld: its point is that one (--measure-every measures it "
		     "anyway)",
		     job->side[1].commit, job->same_build_commit,
		     (long long)job->same_build_run);
	return 0;
}

bool bf_job_gate_fails(const struct bf_job *job, const struct bf_tally *t)
{
	const struct bf_cfg *cfg = job->cfg;

	return cfg->presubmit.fail_on == BF_FAIL_ON_REGRESSION &&
	       (t->regressed || (t->missing && cfg->presubmit.missing_series ==
	                                               BF_MISSING_SERIES_FAIL));
}

/* Write the reports; returns the exit code. */
static int conclude(struct bf_job *job, struct bf_err *err)
{
	json_t *result = bf_job_result_json(job);
	struct bf_tally t;
	int ret = write_json(job, result, err);

	bf_comparison_tally(&t, &job->cmp);
	if (write_markdown(job, result, err))
		ret = BF_EXIT_INFRA;
	if (!ret &&
	    (job->aborted || (!t.measured && !t.missing && !job->known_build)))
		ret = BF_EXIT_INFRA;
	if (ret == BF_EXIT_INFRA)
		job_fail(job, "run", NULL, NULL,
		         job->aborted ? job->abort_msg
		         : t.measured ? "the reports could not be written"
		                      : "no benchmark produced a result",
		         NULL);
	else if (!ret && bf_job_gate_fails(job, &t))
		ret = BF_EXIT_REGRESSION;
	return finish_run(job, result, ret);
}

/* benchfarm run: one commit recorded, no verdict. */
static int conclude_record(struct bf_job *job, struct bf_err *err)
{
	json_t *result = bf_job_record_json(job);
	json_t *results = json_object_get(result, "results");
	int ret = write_json(job, result, err);

	if (job->aborted || (!json_array_size(results) && !job->same_build_run))
		ret = BF_EXIT_INFRA;
	if (ret == BF_EXIT_INFRA)
		job_fail(job, "run", "commit", job->side[1].commit,
		         job->aborted ? job->abort_msg
		         : json_array_size(results)
		                 ? "the result could not be written"
		                 : "no benchmark produced a result",
		         NULL);
	return finish_run(job, result, ret);
}

/*
 * A failed run says why in its info, where scripts and people can
 * read it; the caller may want it too (bisect skips a
 * commit whose build fails).
 */
static void keep_failure(struct bf_job *job)
{
	char *text;

	if (!job->failure)
		return;
	text = json_dumps(job->failure, JSON_COMPACT);
	if (job->run_id && text)
		bf_store_run_set_info(job->store, job->run_id, text, NULL);
	free(text);
	if (job->o->failure_out)
		*job->o->failure_out = json_incref(job->failure);
}

/*
 * Each benchmark's runs: --repeats and --warmup set every benchmark's;
 * adaptive repeats plan max_repeats for each; else the benchmark's own
 * (the config resolved them: its keys, runs', measure's defaults).
 */
static void plan_runs(struct bf_job *job)
{
	const struct bf_cfg *cfg = job->cfg;
	const struct bf_presubmit_opts *o = job->o;

	job->runs = bf_xcalloc(cfg->nbenchmarks + 1, sizeof(*job->runs));
	for (size_t b = 0; b < cfg->nbenchmarks; b++) {
		job->runs[b].repeats = o->repeats > 0 || job->adaptive
		                               ? job->repeats
		                               : cfg->benchmarks[b].repeats;
		job->runs[b].warmup =
		        o->warmup >= 0 ? o->warmup : cfg->benchmarks[b].warmup;
	}
}

/* repeats: auto: the comparison's sequential design. */
static int start_adaptive(struct bf_job *job, struct bf_err *err)
{
	const struct bf_cfg *cfg = job->cfg;
	double alpha =
	        job->o->alpha >= 0 ? job->o->alpha : cfg->presubmit.alpha;
	double min_effect = job->o->min_effect >= 0 ? job->o->min_effect
	                                            : cfg->presubmit.min_effect;

	if (job->duet) {
		bf_err_set(err, BF_EINVAL,
		           "%s: adaptive repeats (repeats: auto) are not "
		           "available in duet mode: give a number of repeats "
		           "or use --mode interleaved",
		           cfg->path);
		return BF_EXIT_USAGE;
	}
	if (!cfg->runs.interleave) {
		bf_err_set(err, BF_EINVAL,
		           "%s: adaptive repeats (--repeats auto) decide after "
		           "each interleaved block: set 'runs.interleave: "
		           "true' or give a number of repeats",
		           cfg->path);
		return BF_EXIT_USAGE;
	}
	if (bf_comparison_adaptive(&job->cmp, cfg->runs.min_repeats,
	                           cfg->runs.max_repeats, alpha, min_effect,
	                           err))
		return BF_EXIT_USAGE;
	return 0;
}

int bf_presubmit_run(const struct bf_presubmit_opts *o,
                     const struct bf_cfg *cfg, struct bf_store *store,
                     struct bf_err *err_out)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_heartbeat *hb;
	struct bf_job job;
	char holder[128];
	int ret;

	memset(&job, 0, sizeof(job));
	job.o = o;
	job.cfg = cfg;
	job.store = store;
	job.started = bf_now_monotonic();
	/*
	 * A number (option or config) is a fixed count; auto runs up to
	 * max_repeats and stops earlier when every metric is decided. A
	 * postsubmit record has nothing to decide: it takes max_repeats.
	 */
	job.adaptive = o->repeats == BF_REPEATS_AUTO ||
	               (!o->repeats && cfg->runs.adaptive);
	job.repeats = o->repeats > 0 ? o->repeats
	              : job.adaptive ? cfg->runs.max_repeats
	                             : cfg->runs.repeats;
	job.warmup = o->warmup >= 0 ? o->warmup : cfg->runs.warmup;
	plan_runs(&job);
	job.adaptive &= !o->record;
	job.duet = !o->record &&
	           (o->mode ? o->mode == BF_MODE_DUET : cfg->runs.duet);
	job.record = o->record;
	job.seed = o->seed_set           ? o->seed
	           : cfg->runs.seed != 0 ? cfg->runs.seed
	                                 : fresh_seed();
	job.digest = bf_presubmit_config_digest(cfg->path);
	bf_comparison_init(&job.cmp, (int)cfg->nbenchmarks);
	job.checks = json_array();
	pthread_mutex_init(&job.lock, NULL);
	pthread_cond_init(&job.cond, NULL);
	job.cmp.paired = job.duet;
	if (job.adaptive && (ret = start_adaptive(&job, &err))) {
		note(&job, BF_JOB_ERROR, "%s", err.msg);
		goto out;
	}
	if ((ret = resolve_commits(&job, &err))) {
		note(&job, BF_JOB_ERROR, "%s", err.msg);
		goto out;
	}
	if (create_run(&job, &err)) {
		note(&job, BF_JOB_ERROR, "%s", err.msg);
		ret = BF_EXIT_INFRA;
		goto out;
	}
	/*
	 * The run says it is alive from its creation: through the build
	 * and the pool's queue too, which can outlast a PostgreSQL
	 * restart's grace (another host would then mark it aborted).
	 */
	/*
	 * A history record on a pool with no usable device stops before it
	 * builds: a backfill then stops at this commit (cmd_postsubmit.c).
	 */
	if (job.record && bf_dispatch_preflight(&job, &err)) {
		note(&job, BF_JOB_ERROR, "%s", err.msg);
		no_device(&job, err.msg);
		bf_store_run_finish(store, job.run_id, "failed",
		                    (int64_t)time(NULL), NULL);
		ret = BF_EXIT_INFRA;
		goto out;
	}
	bf_heartbeat_holder(holder, sizeof(holder), &job);
	hb = bf_heartbeat_start(&job, holder, cfg->devices.lease_time_s);
	ret = prepare_sides(&job, &err);
	if (!ret && (ret = record_builds(&job, &err)))
		note(&job, BF_JOB_ERROR, "%s", err.msg);
	if (ret)
		bf_heartbeat_stop(hb);
	if (ret) {
		if (job.record) {
			bf_store_run_finish(store, job.run_id, "failed",
			                    (int64_t)time(NULL), NULL);
			goto out;
		}
		/*
		 * A compare still writes its result and reports, as an
		 * infrastructure failure: a pipeline then replaces its
		 * earlier comment instead of leaving it standing.
		 */
		job.aborted = true;
		bf_strlcpy(job.abort_msg,
		           bf_json_str_or(job.failure, "error", "build failed"),
		           sizeof(job.abort_msg));
		bf_comparison_judge(&job.cmp, cfg, o->alpha, o->min_effect,
		                    job.seed);
		conclude(&job, &err);
		ret = BF_EXIT_INFRA;
		goto out;
	}
	if (job.same_build_run || job.known_build) {
		/* the same build is measured: nothing to lease or run */
	} else if (bf_dispatch_run(&job, &err)) {
		job.aborted = true;
		bf_strlcpy(job.abort_msg, err.msg, sizeof(job.abort_msg));
	}
	bf_heartbeat_stop(hb);
	if (job.no_device)
		no_device(&job, job.abort_msg);
	if (job.record) {
		ret = conclude_record(&job, &err);
		goto out;
	}
	if (o->trace_bench && !job.aborted)
		job.trace = bf_presubmit_trace(
		        &job, o->trace_bench,
		        o->report_dir ? o->report_dir : "benchfarm-report");
	bf_comparison_judge(&job.cmp, cfg, o->alpha, o->min_effect, job.seed);
	if (job.same_build)
		bf_comparison_same_build(&job.cmp);
	ret = conclude(&job, &err);
out:
	keep_failure(&job);
	if (err_out && job.first_err.code)
		*err_out = job.first_err;
	job_release(&job);
	return ret;
}
