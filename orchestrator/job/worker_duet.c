/*
 * A duet round on one device: the "duet" request runs the base's and
 * the patch's run requests at the same time, each pinned to its own
 * core by the agent. Both sides' samples are stored in one transaction
 * fenced by the lease and added to the comparison together, so that
 * the comparison's values pair up round by round; a round in which a
 * side failed is recorded as that side's error and the other side's
 * samples are dropped with it (a value without its pair says nothing
 * about the ratio). So is a round in which a side was stopped while it
 * ran (duet_round.h): it measured the stop. The agent keeps the sides
 * apart as runs.duet_isolation asks (its own PID namespace and cpuset
 * each, where the device allows); what it reached is tallied for the
 * result, and a device that cannot reach what the config requires
 * fails the job.
 */
#include <string.h>

#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/proto.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "job/compare.h"
#include "job/duet_round.h"
#include "job/presubmit_int.h"
#include "job/worker.h"

/* The events of both runs, told apart by their "pair": 0 base, 1 patch. */
static int on_event(const json_t *ev, void *payload)
{
	struct bf_worker_run *r = payload;
	const json_t *pair = json_object_get(ev, "pair");

	if (!json_is_integer(pair) || json_integer_value(pair) < 0 ||
	    json_integer_value(pair) > 1)
		return 0;
	return bf_worker_on_event(ev, &r[json_integer_value(pair)]);
}

/* Both sides measured: store them together, then add them together. */
static int record_pair(struct bf_worker *w, const struct bf_plan_step *side,
                       struct bf_worker_run *r, struct bf_err *err)
{
	struct bf_job *job = w->job;
	struct bf_samples s[2] = { r[0].s, r[1].s };
	int ret = bf_worker__store_runs(w, side, s, 2, err);

	if (ret) {
		w->job_fault = true;
		bf_err_prefix(err, "recording the samples of '%s'",
		              job->cfg->benchmarks[side[0].bench].name);
		return ret;
	}
	for (int i = 0; i < 2; i++) {
		size_t n = json_array_size(job->cmp.samples);

		bf_comparison_add_run(&job->cmp, job->cfg, side[i].bench,
		                      side[i].side, side[i].repeat, &s[i]);
		for (size_t k = n; k < json_array_size(job->cmp.samples); k++)
			json_object_set_new(json_array_get(job->cmp.samples, k),
			                    "device", json_string(w->name));
	}
	bf_comparison_add_round(&job->cmp, side[0].bench, side[0].swapped);
	return 0;
}

/* Whether a side of the round whose results are fin was stopped. */
static bool stopped(const json_t *const fin[2])
{
	struct bf_duet_times t[2];
	char msg[256];

	bf_duet_times_of(&t[0], fin[0]);
	bf_duet_times_of(&t[1], fin[1]);
	return bf_duet_stopped_side(t, msg, sizeof(msg)) >= 0;
}

/*
 * A round in which a side was stopped (under job->lock): each side's
 * run is recorded as an error ("stopped"), its samples left out.
 */
static int record_stopped(struct bf_worker *w, const struct bf_plan_step *side,
                          const json_t *const fin[2])
{
	struct bf_job *job = w->job;
	const struct bf_cfg_benchmark *b = &job->cfg->benchmarks[side[0].bench];
	struct bf_duet_times t[2];
	char msg[256], text[400];
	int s;

	bf_duet_times_of(&t[0], fin[0]);
	bf_duet_times_of(&t[1], fin[1]);
	s = bf_duet_stopped_side(t, msg, sizeof(msg));
	job->duet_tally.stopped++;
	BF_LOG_WARN("%s: %s %s run %d (duet): %s; the round is left out",
	            w->name, b->name, bf_side_name(side[s].side),
	            side[s].repeat + 1, msg);
	for (int i = 0; i < 2; i++) {
		snprintf(text, sizeof(text), "%s; the round is left out",
		         i == s ? msg : "its pair was stopped while it ran");
		bf_comparison_add_error(&job->cmp, job->cfg, side[i].bench,
		                        side[i].side, side[i].repeat, "stopped",
		                        text);
	}
	return 0;
}

/*
 * What the round returned (under job->lock): final is the duet's result
 * ("runs": each side's result or error) or, with ret BF_ERROR, the
 * error of the whole request, which is each side's.
 */
static int record_round(struct bf_worker *w, const struct bf_plan_step *side,
                        int ret, const json_t *final, struct bf_worker_run *r,
                        struct bf_err *err)
{
	struct bf_job *job = w->job;
	const struct bf_cfg_benchmark *b = &job->cfg->benchmarks[side[0].bench];
	const json_t *fin[2];
	bool failed[2];
	double wall = 0;
	int rc;

	for (int i = 0; i < 2; i++) {
		fin[i] = ret ? final
		             : json_array_get(json_object_get(final, "runs"),
		                              (size_t)i);
		failed[i] = ret || strcmp(bf_proto_type(fin[i]), "result");
		if (!failed[i] &&
		    json_number_value(json_object_get(fin[i], "wall_s")) > wall)
			wall = json_number_value(
			        json_object_get(fin[i], "wall_s"));
	}
	job->bench_wall_s += wall;
	if (!ret && !side[0].warmup)
		bf_duet_tally_add(&job->duet_tally,
		                  json_object_get(final, "isolation"));
	if (!failed[0] && !failed[1] && (side[0].warmup || !stopped(fin)))
		return side[0].warmup ? 0 : record_pair(w, side, r, err);
	/* A benchmark's failure is a result too: only while the lease holds. */
	if ((rc = bf_worker_lease_check(w, err)))
		return rc;
	if (!failed[0] && !failed[1])
		return record_stopped(w, side, fin);
	for (int i = 0; i < 2; i++) {
		const char *msg = bf_json_str_or(
		        fin[i], "message",
		        ret ? err->msg : "its pair failed, dropped with it");

		if (!failed[i])
			continue;
		BF_LOG_WARN("%s: %s %s %s %d (duet): %s", w->name, b->name,
		            bf_side_name(side[i].side),
		            side[i].warmup ? "warmup" : "run",
		            side[i].repeat + 1, msg);
		bf_comparison_add_error(
		        &job->cmp, job->cfg, side[i].bench, side[i].side,
		        side[i].warmup ? -1 : side[i].repeat,
		        bf_json_str_or(fin[i], "code", "error"), msg);
	}
	return 0;
}

/* The device cannot run two at once: the job cannot use it. */
static int too_few_cores(struct bf_worker *w, const json_t *final,
                         struct bf_err *err)
{
	w->job_fault = true;
	return bf_err_set(err, BF_EINVAL,
	                  "device '%s': runs.mode: duet needs 2 cores, one "
	                  "for the base and one for the patch: %s; measure "
	                  "on a device with 2 or more online cores, or use "
	                  "runs.mode: interleaved (--mode interleaved)",
	                  w->name, bf_json_str_or(final, "message", "?"));
}

/*
 * A run the agent refused because the device cannot isolate the sides
 * as runs.duet_isolation requires: the job cannot use it. BF_ERROR when
 * neither run was refused.
 */
static int not_isolated(struct bf_worker *w, const json_t *final,
                        struct bf_err *err)
{
	for (int i = 0; i < 2; i++) {
		const json_t *fin = json_array_get(
		        json_object_get(final, "runs"), (size_t)i);

		if (strcmp(bf_json_str_or(fin, "code", ""), "not_isolated"))
			continue;
		w->job_fault = true;
		return bf_err_set(
		        err, BF_EINVAL,
		        "device '%s': %s; run its agent where user "
		        "namespaces and seccomp are allowed, measure an "
		        "untrusted patch with runs.mode: interleaved, "
		        "or set runs.duet_isolation: best_effort",
		        w->name, bf_json_str_or(fin, "message", "?"));
	}
	return BF_ERROR;
}

/* Each side's counters into its samples; a side that failed has none. */
static int add_counters(struct bf_worker *w, struct bf_worker_run *r,
                        const json_t *final, const struct bf_cfg_benchmark *b,
                        struct bf_err *err)
{
	int ret = 0;

	for (int i = 0; i < 2 && !ret; i++) {
		const json_t *fin = json_array_get(
		        json_object_get(final, "runs"), (size_t)i);

		if (!strcmp(bf_proto_type(fin), "result"))
			ret = bf_worker__add_counters(w, &r[i].s, fin, b, err);
	}
	return ret;
}

int bf_worker__run_duet(struct bf_worker *w, const struct bf_plan_step *st,
                        struct bf_err *err)
{
	struct bf_job *job = w->job;
	const struct bf_cfg_benchmark *b = &job->cfg->benchmarks[st->bench];
	struct bf_plan_step side[2] = { *st, *st };
	int attempt, ret = 0;

	side[0].side = BF_SIDE_BASE;
	side[1].side = BF_SIDE_PATCH;
	for (attempt = 0; attempt <= job->cfg->runs.retries; attempt++) {
		struct bf_worker_run r[2] = {
			{ BF_SAMPLES_INIT, (size_t)job->cfg->runs.samples_max,
			  0, BF_ERR_INIT },
			{ BF_SAMPLES_INIT, (size_t)job->cfg->runs.samples_max,
			  0, BF_ERR_INIT },
		};
		json_t *final = NULL;
		json_t *req = json_pack(
		        "{s:s, s:[oo], s:b, s:s}", "type", "duet", "runs",
		        bf_worker__run_request(w, &side[0]),
		        bf_worker__run_request(w, &side[1]), "swap",
		        st->swapped, "isolation",
		        bf_duet_isolation_name(job->cfg->runs.duet_isolation));
		double t0 = bf_now_monotonic();

		pthread_mutex_lock(&job->lock);
		ret = bf_worker_lease_check(w, err);
		pthread_mutex_unlock(&job->lock);
		if (!ret && (!w->agent || bf_agentconn_is_broken(w->agent)))
			ret = bf_worker_connect(w, err);
		if (!ret)
			ret = bf_agentconn_request(&final, w->agent, req,
			                           b->timeout_s + 30, on_event,
			                           r, err);
		if (ret == BF_ERROR &&
		    !strcmp(bf_json_str_or(final, "code", ""), "too_few_cores"))
			ret = too_few_cores(w, final, err);
		else if (!ret && not_isolated(w, final, err) != BF_ERROR)
			ret = BF_EINVAL;
		else if (!ret)
			ret = add_counters(w, r, final, b, err);
		if (ret == BF_ETOOBIG && (r[0].err.code || r[1].err.code)) {
			/* the benchmark's error: recorded, not retried */
			*err = r[0].err.code ? r[0].err : r[1].err;
			ret = BF_ERROR;
		}
		if (!ret || ret == BF_ERROR) {
			pthread_mutex_lock(&job->lock);
			job->runs_wall_s += bf_now_monotonic() - t0;
			ret = record_round(w, side, ret, final, r, err);
			pthread_mutex_unlock(&job->lock);
		}
		json_decref(final);
		json_decref(req);
		bf_samples_release(&r[0].s);
		bf_samples_release(&r[1].s);
		if (!ret || w->job_fault || !w->agent ||
		    !bf_agentconn_is_broken(w->agent))
			return ret;
		pthread_mutex_lock(&job->lock);
		job->reconnects++;
		pthread_mutex_unlock(&job->lock);
		BF_LOG_WARN("%s; reconnecting", err->msg);
	}
	return ret;
}
