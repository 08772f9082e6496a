#ifndef BF_WAIT_H
#define BF_WAIT_H

#include "benchfarm/common.h"

struct bf_err;
struct bf_job;

/*
 * Try to lease devices; true when at least one was leased. *busy gets
 * how many of the pool's devices other jobs hold.
 */
typedef bool bf_wait_try_fn(void *arg, size_t *busy);

/*
 * Waiting its turn for a pool whose devices are all leased (wait.c).
 * pool is the queue's key (the label, or "device:NAME"), what names it
 * in messages ("pool 'lab'").
 */
struct bf_wait {
	struct bf_job *job; /* its store, and its notes */
	const char *pool, *what, *holder;
	int wait_s; /* how long at most; 0: try once */
	bf_wait_try_fn *try_lease;
	void *arg;
};

/*
 * Join the pool's queue, and whenever no live job that came earlier
 * waits, call try_lease; until it leases a device, or wait_s seconds
 * have passed (BF_ETIMEOUT, err saying for what, how long and what to
 * do). The place is renewed and checked twice a second; each change of
 * place goes to the job's notes (BF_JOB_WAITING). The queue is left on
 * every return. Returns 0, BF_ETIMEOUT or the store's error.
 */
int bf_wait_turn(const struct bf_wait *w, struct bf_err *err);

#endif /* BF_WAIT_H */
