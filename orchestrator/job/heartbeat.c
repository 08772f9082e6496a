#include "job/heartbeat.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "job/presubmit_int.h"
#include "job/worker.h"
#include "store/store.h"

/*
 * The heartbeat of a job's leases: a thread that waits on a condition
 * variable with a deadline on the monotonic clock (not a sleep: stopping
 * it wakes it at once). Every BF_STORE_ALIVE_PERIOD_S (or the lease
 * period when shorter) it tells the store the job is alive
 * (bf_store_alive: its run's and leases' alive_at, and its liveness lock
 * again after a PostgreSQL restart), and every third of the lease time
 * it renews the leases, which leaves two renewals' worth of slack
 * before a lease can expire under a running job.
 */
struct bf_heartbeat {
	struct bf_job *job;
	char holder[128];
	int ttl_s, period_s, beat_s;
	int64_t renewed; /* CLOCK_MONOTONIC seconds of the last renewal */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

static int64_t mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

/*
 * Say the job is alive and, once a lease period has passed since the
 * last renewal, renew every worker's lease (takes job->lock).
 */
static void beat(struct bf_heartbeat *hb)
{
	struct bf_job *job = hb->job;
	struct bf_err aerr = BF_ERR_INIT;
	bool renew = mono_s() - hb->renewed >= hb->period_s;

	pthread_mutex_lock(&job->lock);
	if (bf_store_alive(job->store, job->run_id, &aerr))
		BF_LOG_WARN("cannot tell the store this job is alive (trying "
		            "again at the next beat): %s",
		            aerr.msg);
	if (renew)
		hb->renewed = mono_s();
	for (size_t i = 0; renew && i < job->nworkers; i++) {
		struct bf_worker *w = job->workers[i];
		struct bf_err err = BF_ERR_INIT;
		int rc;

		if (w->local || !w->leased || w->lease_lost)
			continue;
		rc = bf_store_lease_renew(job->store, w->name, hb->holder,
		                          hb->ttl_s, (int64_t)time(NULL), &err);
		if (!rc)
			continue;
		/* refused: another job holds it, or it is gone; the fence
		 * then refuses this job's writes for the device. Anything
		 * else (a lost connection, a busy store: BF_ETIMEOUT) is
		 * tried again at the next beat, well before the lease can
		 * expire. */
		if (rc == BF_EBUSY || rc == BF_ENOTFOUND)
			w->lease_lost = true;
		BF_LOG_WARN(
		        "cannot renew the lease of device '%s'%s: %s", w->name,
		        w->lease_lost ? "" : " (trying again at the next beat)",
		        err.msg);
	}
	pthread_mutex_unlock(&job->lock);
}

static void *heartbeat_main(void *arg)
{
	struct bf_heartbeat *hb = arg;
	struct timespec at;

	pthread_mutex_lock(&hb->lock);
	while (!hb->stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += hb->beat_s;
		while (!hb->stop && pthread_cond_timedwait(&hb->cond, &hb->lock,
		                                           &at) != ETIMEDOUT)
			;
		if (hb->stop)
			break;
		pthread_mutex_unlock(&hb->lock);
		beat(hb);
		pthread_mutex_lock(&hb->lock);
	}
	pthread_mutex_unlock(&hb->lock);
	return NULL;
}

struct bf_heartbeat *bf_heartbeat_start(struct bf_job *job, const char *holder,
                                        int ttl_s)
{
	struct bf_heartbeat *hb = bf_xcalloc(1, sizeof(*hb));
	pthread_condattr_t ca;

	hb->job = job;
	bf_strlcpy(hb->holder, holder, sizeof(hb->holder));
	hb->ttl_s = ttl_s;
	hb->period_s = ttl_s / 3 > 0 ? ttl_s / 3 : 1;
	hb->beat_s = hb->period_s < BF_STORE_ALIVE_PERIOD_S
	                     ? hb->period_s
	                     : BF_STORE_ALIVE_PERIOD_S;
	hb->renewed = mono_s();
	/* a store reconnecting after a server restart gives up while the
	 * leases last at least another renewal period */
	bf_store_reconnect_window(hb->period_s < BF_STORE_RECONNECT_S
	                                  ? (double)hb->period_s
	                                  : BF_STORE_RECONNECT_S);
	pthread_mutex_init(&hb->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&hb->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&hb->thread, NULL, heartbeat_main, hb)) {
		BF_LOG_WARN("cannot start the lease heartbeat; leases of "
		            "this job are not renewed");
		pthread_cond_destroy(&hb->cond);
		pthread_mutex_destroy(&hb->lock);
		free(hb);
		return NULL;
	}
	return hb;
}

void bf_heartbeat_holder(char *buf, size_t size, const struct bf_job *job)
{
	char host[64] = "host";

	gethostname(host, sizeof(host) - 1);
	snprintf(buf, size, "benchfarm@%s:%ld:run%lld", host, (long)getpid(),
	         (long long)job->run_id);
}

void bf_heartbeat_stop(struct bf_heartbeat *hb)
{
	if (!hb)
		return;
	pthread_mutex_lock(&hb->lock);
	hb->stop = true;
	pthread_cond_signal(&hb->cond);
	pthread_mutex_unlock(&hb->lock);
	pthread_join(hb->thread, NULL);
	pthread_cond_destroy(&hb->cond);
	pthread_mutex_destroy(&hb->lock);
	free(hb);
}
