#include "job/wait.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "job/presubmit_int.h"
#include "store/store.h"

/*
 * The queue's poll: a waiter looks at its place (renewing its ticket) and
 * at the pool twice a second. A ticket lives for TICKET_TTL_S seconds
 * after its last renewal (the lease time when shorter), so a waiter that
 * was killed on another host holds the queue back no longer than that;
 * on this host its ended process frees its place at once.
 */
#define POLL_NS      500000000L
#define TICKET_TTL_S 30

static void note(const struct bf_wait *w, const char *fmt, ...) BF_PRINTF(2, 3);

static void note(const struct bf_wait *w, const char *fmt, ...)
{
	const struct bf_presubmit_opts *o = w->job->o;
	va_list ap;
	char *text;

	if (!o->note)
		return;
	va_start(ap, fmt);
	text = bf_xvasprintf(fmt, ap);
	va_end(ap);
	o->note(o->note_arg, BF_JOB_WAITING, text);
	free(text);
}

static int64_t ticket_ttl(const struct bf_wait *w)
{
	int lease = w->job->cfg->devices.lease_time_s;

	return lease < TICKET_TTL_S ? lease : TICKET_TTL_S;
}

/* One look: 1 when it leased, 0 when it must wait, or an error. */
static int look(const struct bf_wait *w, int64_t *ticket, int64_t *ahead,
                size_t *busy, struct bf_err *err)
{
	struct bf_store *store = w->job->store;
	int64_t now = (int64_t)time(NULL);
	int rc;

	rc = bf_store_wait_turn(ahead, store, *ticket, ticket_ttl(w), now, err);
	if (rc == BF_ENOTFOUND) {
		/* Expired (this process was stopped): back of the queue. */
		rc = bf_store_wait_join(ticket, store, w->pool, w->holder,
		                        ticket_ttl(w), now, err);
		if (!rc)
			rc = bf_store_wait_turn(ahead, store, *ticket,
			                        ticket_ttl(w), now, err);
	}
	if (rc)
		return rc;
	return !*ahead && w->try_lease(w->arg, busy);
}

/*
 * Called under w->job->lock, which the job's heartbeat takes to use the
 * store; let go while it sleeps between looks.
 */
int bf_wait_turn(const struct bf_wait *w, struct bf_err *err)
{
	struct bf_store *store = w->job->store;
	double deadline = bf_now_monotonic() + w->wait_s;
	int64_t ticket = 0, ahead = 0, last_ahead = -1;
	size_t busy = 0, last_busy = (size_t)-1;
	const struct timespec poll = { 0, POLL_NS };
	bool waited = false;
	int rc;

	rc = bf_store_wait_join(&ticket, store, w->pool, w->holder,
	                        ticket_ttl(w), (int64_t)time(NULL), err);
	if (rc)
		return rc;
	while (!(rc = look(w, &ticket, &ahead, &busy, err))) {
		if (bf_now_monotonic() >= deadline) {
			char why[64];

			if (ahead)
				snprintf(why, sizeof(why),
				         "%lld job%s still ahead",
				         (long long)ahead,
				         ahead == 1 ? "" : "s");
			else
				snprintf(why, sizeof(why),
				         "%zu device%s leased by other jobs",
				         busy, busy == 1 ? "" : "s");
			rc = bf_err_set(
			        err, BF_ETIMEOUT,
			        "no device of %s came free in %d s (%s); "
			        "raise devices.wait or --wait, or see "
			        "'benchfarm device list'",
			        w->what, w->wait_s, why);
			break;
		}
		if (ahead && ahead != last_ahead)
			note(w,
			     "waiting for a device of %s: %lld job%s ahead "
			     "(ticket %lld)",
			     w->what, (long long)ahead, ahead == 1 ? "" : "s",
			     (long long)ticket);
		else if (!ahead && (last_ahead || busy != last_busy))
			note(w,
			     "waiting for a device of %s: next in line (ticket "
			     "%lld), %zu device%s leased by other jobs",
			     w->what, (long long)ticket, busy,
			     busy == 1 ? "" : "s");
		last_ahead = ahead;
		last_busy = busy;
		waited = true;
		pthread_mutex_unlock(&w->job->lock);
		nanosleep(&poll, NULL);
		pthread_mutex_lock(&w->job->lock);
	}
	if (rc == 1) {
		rc = 0;
		if (waited)
			note(w, "waited its turn for %s: leased", w->what);
	}
	bf_store_wait_leave(store, ticket, NULL);
	return rc;
}
