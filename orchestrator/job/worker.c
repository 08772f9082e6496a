#include "job/worker.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/counters.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/proto.h"
#include "benchfarm/sample.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "farm/ssh.h"
#include "job/compare.h"
#include "job/presubmit_int.h"

static struct bf_worker *worker_new(struct bf_job *job, const char *name)
{
	struct bf_worker *w = bf_xcalloc(1, sizeof(*w));

	w->job = job;
	w->name = bf_xstrdup(name);
	w->machine = -1;
	for (int s = 0; s < 2; s++) {
		bf_argv_init(&w->art_local[s]);
		bf_argv_init(&w->art_remote[s]);
	}
	return w;
}

struct bf_worker *bf_worker_new_local(struct bf_job *job)
{
	struct bf_worker *w = worker_new(job, "local");

	w->local = true;
	return w;
}

static char *dupnull(const char *s)
{
	return s ? bf_xstrdup(s) : NULL;
}

struct bf_worker *bf_worker_new_remote(struct bf_job *job,
                                       const struct bf_store_device *dev)
{
	struct bf_worker *w = worker_new(job, dev->name);

	w->dev.name = w->name;
	w->dev.type = dupnull(dev->type);
	w->dev.host = dupnull(dev->host);
	w->dev.port = dev->port;
	w->dev.user = dupnull(dev->user);
	w->dev.key_path = dupnull(dev->key_path);
	w->dev.agent_path = dupnull(dev->agent_path);
	w->dev.adb_serial = dupnull(dev->adb_serial);
	w->dev.workdir = dupnull(dev->workdir);
	w->dev.host_key_fp = dupnull(dev->host_key_fp);
	w->dev.health = dupnull(dev->health);
	w->dev.machine = dupnull(dev->machine);
	return w;
}

void bf_worker_free(struct bf_worker *w)
{
	if (!w)
		return;
	bf_agentconn_close(w->agent);
	bf_ssh_close(w->ssh);
	json_decref(w->info);
	for (int s = 0; s < 2; s++) {
		bf_argv_release(&w->art_local[s]);
		bf_argv_release(&w->art_remote[s]);
		json_decref(w->art_verify[s]);
	}
	w->dev.name = NULL; /* w->name */
	bf_store_device_release(&w->dev);
	free(w->remote_cwd);
	free(w->name);
	free(w);
}

static int connect_remote(struct bf_worker *w, struct bf_err *err)
{
	struct bf_ssh_target t = BF_SSH_TARGET_INIT;
	const char *adb[] = { "--adb", w->dev.adb_serial, NULL };
	int ret = 0;

	if (!w->ssh) {
		t.name = w->name;
		t.host = w->dev.host;
		t.port = w->dev.port;
		t.user = w->dev.user;
		t.key_path = w->dev.key_path;
		t.host_key_fp = w->dev.host_key_fp; /* the shared pin */
		ret = bf_ssh_connect(&w->ssh, &t, err);
		if (!ret)
			ret = bf_worker__upload_artifacts(w, err);
	}
	if (!ret)
		ret = bf_ssh_open_agent(&w->agent, w->ssh, w->dev.agent_path,
		                        w->dev.adb_serial ? adb : NULL, err);
	/* the agent ends an older lease's run, and ours once it is old */
	if (!ret && w->leased)
		bf_agentconn_set_fence(w->agent, w->name, w->lease_token);
	if (ret && ret != BF_ECORRUPT && ret != BF_EAUTH) {
		/* A fresh session next time: this one may be dead. */
		bf_ssh_close(w->ssh);
		w->ssh = NULL;
	}
	return ret;
}

int bf_worker_connect(struct bf_worker *w, struct bf_err *err)
{
	json_t *req, *res = NULL;
	int ret;

	bf_agentconn_close(w->agent);
	w->agent = NULL;
	w->job_fault = false;
	if (w->local)
		ret = bf_agentconn_open_local(&w->agent, w->job->o->agent_path,
		                              NULL, "local", err);
	else
		ret = connect_remote(w, err);
	if (ret || w->info)
		return ret;
	req = json_pack("{s:s}", "type", "info");
	ret = bf_agentconn_request(&res, w->agent, req, 60, NULL, NULL, err);
	json_decref(req);
	if (!ret)
		w->info = json_incref(json_object_get(res, "info"));
	json_decref(res);
	return ret;
}

int bf_worker_on_event(const json_t *ev, void *payload)
{
	struct bf_worker_run *r = payload;
	const char *bench, *metric, *unit;
	double value;

	if (strcmp(bf_proto_type(ev), "sample") ||
	    bf_json_get_num(&value, ev, "value", "sample", NULL))
		return 0;
	bench = bf_json_str_or(ev, "benchmark", "?");
	metric = bf_json_str_or(ev, "metric", "value");
	unit = bf_json_str_or(ev, "unit", "");
	if (r->s.n >= r->max)
		return bf_err_set(
		        &r->err, BF_ETOOBIG,
		        "the run reported more than %zu samples "
		        "(runs.samples_max); raise it if the benchmark "
		        "really reports that many",
		        r->max);
	r->text += strlen(bench) + strlen(metric) + strlen(unit) + 3;
	if (r->text > BF_WORKER_RUN_TEXT_MAX)
		return bf_err_set(&r->err, BF_ETOOBIG,
		                  "the run reported more than %zu MiB of "
		                  "benchmark names, metrics and units",
		                  BF_WORKER_RUN_TEXT_MAX >> 20);
	bf_samples_add(
	        &r->s, bench, metric, unit, value,
	        (int)json_integer_value(json_object_get(ev, "iteration")));
	return 0;
}

static const char *skip_dot_slash(const char *path)
{
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return path;
}

/*
 * A command word or env value naming an artifact ("out/micro",
 * "./out/micro") or a path under a directory artifact
 * ("testdata/x.bin") becomes its path on the device. Caller frees.
 */
static char *map_word(const struct bf_worker *w, int side, const char *word)
{
	const char *wd = skip_dot_slash(word);

	for (size_t i = 0; i < w->art_local[side].argc; i++) {
		const char *name = skip_dot_slash(w->art_local[side].argv[i]);
		size_t n = strlen(name);

		if (!strcmp(name, wd))
			return bf_xstrdup(w->art_remote[side].argv[i]);
		if (!strncmp(name, wd, n) && wd[n] == '/')
			return bf_xasprintf("%s%s", w->art_remote[side].argv[i],
			                    wd + n);
	}
	return bf_xstrdup(word);
}

/* The benchmark's env: ("NAME=VALUE"), values naming artifacts mapped. */
static json_t *env_json(const struct bf_worker *w, int side,
                        const struct bf_cfg_benchmark *b)
{
	json_t *env = json_object();

	for (size_t i = 0; i < b->env.argc; i++) {
		const char *eq = strchr(b->env.argv[i], '=');
		char *name = bf_xstrndup(b->env.argv[i],
		                         (size_t)(eq - b->env.argv[i]));
		char *value = map_word(w, side, eq + 1);

		json_object_set_new(env, name, json_string(value));
		free(name);
		free(value);
	}
	return env;
}

json_t *bf_worker__run_request(const struct bf_worker *w,
                               const struct bf_plan_step *st)
{
	const struct bf_job *job = w->job;
	const struct bf_cfg_benchmark *b = &job->cfg->benchmarks[st->bench];
	const char *base = w->local ? job->side[st->side].dir : w->remote_cwd;
	json_t *argv = json_array();
	char *cwd = b->workdir && w->local
	                    ? bf_xasprintf("%s/%s", base, b->workdir)
	                    : bf_xstrdup(base);
	json_t *req;

	for (size_t i = 0; i < b->command.argc; i++) {
		char *word = map_word(w, st->side, b->command.argv[i]);

		json_array_append_new(argv, json_string(word));
		free(word);
	}
	req = json_pack("{s:s, s:o, s:s, s:s, s:i}", "type", "run", "argv",
	                argv, "cwd", cwd, "format", bf_format_name(b->format),
	                "timeout", b->timeout_s);
	/* only when asked: an older agent knows standard output alone */
	if (b->output != BF_OUTPUT_STDOUT)
		json_object_set_new(req, "output",
		                    json_string(bf_output_name(b->output)));
	if (b->env.argc)
		json_object_set_new(req, "env", env_json(w, st->side, b));
	if (b->measure != BF_MEASURE_TIME)
		json_object_set_new(req, "measure",
		                    json_string(bf_measure_name(b->measure)));
	/* the cached artifacts still hold what they are named after */
	if (w->art_verify[st->side])
		json_object_set(req, "verify", w->art_verify[st->side]);
	free(cwd);
	return req;
}

/* A fence's refusal: BF_EBUSY is a lease lost, anything else the store's. */
static int fenced_out(struct bf_worker *w, int ret)
{
	if (ret == BF_EBUSY)
		w->lease_lost = true;
	if (ret)
		w->job_fault = true;
	return ret;
}

int bf_worker_lease_check(struct bf_worker *w, struct bf_err *err)
{
	int ret;

	if (w->local || !w->leased)
		return 0;
	ret = bf_store_lease_fence(w->job->store, w->name, w->lease_token,
	                           (int64_t)time(NULL), err);
	/* the heartbeat saw it go; the store may not say so yet */
	if (!ret && w->lease_lost)
		ret = bf_err_set(
		        err, BF_EBUSY,
		        "device '%s': its lease (token %lld) could not "
		        "be renewed, it went to another job or was "
		        "dropped; this job's results for it are not "
		        "stored",
		        w->name, (long long)w->lease_token);
	return fenced_out(w, ret);
}

int bf_worker_fence_begin(struct bf_worker *w, int *txn, struct bf_err *err)
{
	*txn = 0;
	if (w->local || !w->leased)
		return 0;
	return fenced_out(w, bf_store_fence_begin(txn, w->job->store, w->name,
	                                          w->lease_token,
	                                          (int64_t)time(NULL), err));
}

int bf_worker_fence_end(struct bf_worker *w, int txn, int rc,
                        struct bf_err *err)
{
	if (w->local || !w->leased)
		return rc;
	return bf_store_fence_end(w->job->store, txn, rc, err);
}

int bf_worker__store_runs(struct bf_worker *w, const struct bf_plan_step *st,
                          const struct bf_samples *s, int nruns,
                          struct bf_err *err)
{
	struct bf_job *job = w->job;
	struct bf_store_sample *rows;
	size_t n = 0, total = 0;
	int txn = 0, ret = 0;

	for (int r = 0; r < nruns; r++)
		total += s[r].n;
	if (!total)
		return 0;
	rows = bf_xcalloc(total, sizeof(*rows));
	for (int r = 0; r < nruns; r++) {
		const struct bf_cfg_benchmark *b =
		        &job->cfg->benchmarks[st[r].bench];

		for (size_t k = 0; k < s[r].n; k++) {
			const struct bf_sample *x = &s[r].v[k];
			size_t i = n;
			bool higher;

			if (job->record &&
			    !bf_cfg_metric_wanted(b, x->metric, x->unit,
			                          &higher))
				continue;
			n++;
			rows[i].run_id = job->run_id;
			rows[i].benchmark = x->benchmark;
			rows[i].metric = x->metric;
			rows[i].unit = x->unit;
			rows[i].side =
			        (char *)(job->record
			                         ? "commit"
			                         : bf_side_name(st[r].side));
			rows[i].commit_id = job->side[st[r].side].commit;
			rows[i].device = w->name;
			rows[i].suite = b->name;
			rows[i].repeat_idx = st[r].repeat;
			rows[i].iter_idx = x->iteration;
			rows[i].value = x->value;
		}
	}
	if (n && !(ret = bf_worker_fence_begin(w, &txn, err))) {
		ret = bf_store_sample_add_many(job->store, rows, n, err);
		ret = bf_worker_fence_end(w, txn, ret, err);
	}
	free(rows);
	return ret;
}

/*
 * The run's counters (counters.h) as samples of the benchmark; the
 * events the device cannot count are logged once per device.
 */
/*
 * Which counters become samples, stored and judged: under measure:
 * instructions the counts are the benchmark's metrics. A timed
 * benchmark's perf counters are kept when its metrics: names them, or
 * all but the ones often 0 in every run (bf_counter_often_zero) with
 * counters: true. Not by default: gbench and jetpack run each benchmark
 * for a fixed time, so the process's counters do not follow one
 * benchmark's speed, and every metric judged costs the others power
 * under the false-discovery control.
 */
static bool counter_kept(const struct bf_cfg_benchmark *b, const char *metric)
{
	if (b->measure != BF_MEASURE_TIME ||
	    (b->counters && !bf_counter_often_zero(metric)))
		return true;
	for (size_t i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i].name, metric))
			return true;
	return false;
}

int bf_worker__add_counters(struct bf_worker *w, struct bf_samples *s,
                            const json_t *final,
                            const struct bf_cfg_benchmark *b,
                            struct bf_err *err)
{
	struct bf_samples got = BF_SAMPLES_INIT;
	struct bf_buf why = BF_BUF_INIT;
	int ret = bf_counters_samples(&got, final, b->name, &why, err);

	for (size_t i = 0; !ret && i < got.n; i++)
		if (counter_kept(b, got.v[i].metric) &&
		    bf_counters_add(s, &got.v[i], err))
			ret = BF_ERROR; /* the benchmark's error, not retried */
	bf_samples_release(&got);
	if (ret && ret != BF_ERROR)
		bf_err_prefix(err, "device '%s'", w->name);
	else if (why.len && !w->counters_noted) {
		w->counters_noted = true;
		BF_LOG_INFO("%s: counters not measured:\n%.*s", w->name,
		            (int)why.len - 1, why.buf);
	}
	bf_buf_release(&why);
	return ret;
}

/* Record what one run returned (under job->lock). */
static int record_run(struct bf_worker *w, const struct bf_plan_step *st,
                      int ret, json_t *final, const struct bf_samples *s,
                      struct bf_err *err)
{
	struct bf_job *job = w->job;

	if (!ret) {
		job->bench_wall_s +=
		        json_number_value(json_object_get(final, "wall_s"));
		if (st->warmup)
			return 0;
		ret = bf_worker__store_runs(w, st, s, 1, err);
		if (!ret) {
			size_t n = json_array_size(job->cmp.samples);

			bf_comparison_add_run(&job->cmp, job->cfg, st->bench,
			                      st->side, st->repeat, s);
			/* the device each sample was measured on */
			for (size_t i = n;
			     i < json_array_size(job->cmp.samples); i++)
				json_object_set_new(
				        json_array_get(job->cmp.samples, i),
				        "device", json_string(w->name));
			return 0;
		}
		/* The store's failure, not the device's. */
		w->job_fault = true;
		bf_err_prefix(err, "recording the samples of '%s'",
		              job->cfg->benchmarks[st->bench].name);
		return ret;
	}
	/* A benchmark's failure is a result too: only while the lease holds. */
	if ((ret = bf_worker_lease_check(w, err)))
		return ret;
	/* counted from 1, as the reports count them */
	BF_LOG_WARN("%s: %s %s %s %d: %s", w->name,
	            job->cfg->benchmarks[st->bench].name,
	            bf_side_name(st->side), st->warmup ? "warmup" : "run",
	            st->repeat + 1, err->msg);
	bf_comparison_add_error(&job->cmp, job->cfg, st->bench, st->side,
	                        st->warmup ? -1 : st->repeat,
	                        bf_json_str_or(final, "code", "error"),
	                        bf_json_str_or(final, "message", err->msg));
	return 0;
}

/*
 * Something on the device (an earlier benchmark) rewrote a cached
 * artifact and the agent removed it: upload the artifacts again so the
 * run can be redone.
 */
static bool artifact_changed(const json_t *final)
{
	return !strcmp(bf_json_str_or(final, "code", ""), "artifact_changed");
}

/*
 * The run overlapped a run of an older lease that the agent could not
 * end: no clean measurement. It is redone while retries last, else
 * recorded as the run's error.
 */
static bool overlapped(const json_t *final)
{
	return !strcmp(bf_json_str_or(final, "code", ""), "overlapped");
}

int bf_worker_run_step(struct bf_worker *w, const struct bf_plan_step *st,
                       struct bf_err *err)
{
	const struct bf_cfg_benchmark *b = &w->job->cfg->benchmarks[st->bench];
	bool reuploaded = false;
	int attempt, ret = 0;

	if (st->side == BF_SIDE_BOTH)
		return bf_worker__run_duet(w, st, err);
	for (attempt = 0; attempt <= w->job->cfg->runs.retries; attempt++) {
		struct bf_worker_run r = {
			BF_SAMPLES_INIT, (size_t)w->job->cfg->runs.samples_max,
			0, BF_ERR_INIT
		};
		json_t *req = bf_worker__run_request(w, st), *final = NULL;
		double t0 = bf_now_monotonic();

		/*
		 * Not one more run on a device whose lease is gone: another
		 * job may be measuring on it.
		 */
		pthread_mutex_lock(&w->job->lock);
		ret = bf_worker_lease_check(w, err);
		pthread_mutex_unlock(&w->job->lock);
		if (ret) {
			json_decref(req);
			return ret;
		}
		if (!w->agent || bf_agentconn_is_broken(w->agent))
			ret = bf_worker_connect(w, err);
		if (!ret)
			ret = bf_agentconn_request(&final, w->agent, req,
			                           b->timeout_s + 30,
			                           bf_worker_on_event, &r, err);
		if (!ret)
			ret = bf_worker__add_counters(w, &r.s, final, b, err);
		if (ret == BF_ETOOBIG && r.err.code) {
			/* the benchmark's error: recorded, not retried */
			*err = r.err;
			ret = BF_ERROR;
		}
		if (ret == BF_ERROR && !reuploaded && artifact_changed(final)) {
			BF_LOG_WARN("%s: %s; uploading the artifacts again",
			            w->name, err->msg);
			reuploaded = true;
			json_decref(final);
			json_decref(req);
			bf_samples_release(&r.s);
			if ((ret = bf_worker__upload_artifacts(w, err)))
				return ret;
			attempt--; /* redone, not retried */
			continue;
		}
		if (ret == BF_ERROR && overlapped(final) &&
		    attempt < w->job->cfg->runs.retries) {
			BF_LOG_WARN("%s: %s; running it again", w->name,
			            err->msg);
			json_decref(final);
			json_decref(req);
			bf_samples_release(&r.s);
			continue;
		}
		if (!ret || ret == BF_ERROR) {
			pthread_mutex_lock(&w->job->lock);
			w->job->runs_wall_s += bf_now_monotonic() - t0;
			ret = record_run(w, st, ret, final, &r.s, err);
			pthread_mutex_unlock(&w->job->lock);
		}
		json_decref(final);
		json_decref(req);
		bf_samples_release(&r.s);
		if (!ret || !w->agent || !bf_agentconn_is_broken(w->agent))
			return ret;
		pthread_mutex_lock(&w->job->lock);
		w->job->reconnects++;
		pthread_mutex_unlock(&w->job->lock);
		BF_LOG_WARN("%s; reconnecting", err->msg);
	}
	return ret;
}
