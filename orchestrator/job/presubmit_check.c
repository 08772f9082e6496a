#include "job/presubmit_int.h"

#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "config/cfg.h"
#include "farm/agentconn.h"
#include "farm/devcheck.h"
#include "job/worker.h"
#include "store/store.h"

/*
 * Device checks before every measurement block: the agent's
 * `check` request with the config's thresholds. Every check result is
 * stored with the run; a device that is not fit is not measured, and
 * that is an infrastructure failure, never a verdict. A device unfit
 * for now only (busy, hot, low battery, throttled: the agent has
 * already waited load_wait, throttle_sleep, wait_max for it) is left
 * out of this job with its health unchanged (w->transient); only a
 * fault (cores offline, clocks, a check that cannot read the device)
 * marks it bad.
 */

static json_t *copy_or_null(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return v ? json_deep_copy(v) : json_null();
}

/* The checks of one round, for the report (under job->lock). */
static void add_to_report(struct bf_worker *w, const json_t *checks, int block)
{
	size_t i;
	json_t *c;

	json_array_foreach(checks, i, c)
	{
		const char *msg = bf_json_str_or(c, "message", NULL);

		json_array_append_new(
		        w->job->checks,
		        json_pack("{s:s, s:i, s:s, s:s, s:o, s:o, s:s}",
		                  "device", w->name, "block", block, "id",
		                  bf_json_str_or(c, "id", "?"), "status",
		                  bf_json_str_or(c, "status", "fail"), "value",
		                  copy_or_null(c, "value"), "threshold",
		                  copy_or_null(c, "threshold"), "message",
		                  msg ? msg : ""));
	}
}

int bf_worker_check(struct bf_worker *w, int block, struct bf_err *err)
{
	struct bf_devcheck dc = BF_DEVCHECK_INIT;
	struct bf_job *job = w->job;
	struct bf_err serr = BF_ERR_INIT;
	int txn, ret = 0;

	if (!w->agent || bf_agentconn_is_broken(w->agent))
		ret = bf_worker_connect(w, err);
	if (!ret)
		ret = bf_devcheck_run(&dc, w->agent, &job->cfg->checks, w->name,
		                      false, err);
	if (ret)
		goto out;
	pthread_mutex_lock(&job->lock);
	/* A device whose lease was lost is not this job's to judge. */
	if ((ret = bf_worker_fence_begin(w, &txn, err))) {
		pthread_mutex_unlock(&job->lock);
		goto out;
	}
	if (bf_devcheck_store(job->store, &dc, job->run_id, w->name, 0, &serr))
		BF_LOG_WARN("cannot store the checks of '%s': %s", w->name,
		            serr.msg);
	ret = bf_worker_fence_end(w, txn, 0, err);
	add_to_report(w, json_object_get(dc.result, "checks"), block);
	pthread_mutex_unlock(&job->lock);
	if (!ret && !dc.fit) {
		w->transient = dc.transient;
		ret = bf_err_set(err, BF_EBUSY, "%s", dc.reason);
	}
out:
	bf_devcheck_release(&dc);
	return ret;
}
