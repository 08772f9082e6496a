#ifndef BF_HEARTBEAT_H
#define BF_HEARTBEAT_H

#include "benchfarm/common.h"

struct bf_job;
struct bf_heartbeat;

/*
 * Renew the lease of every leased worker of job (job->workers, under
 * job->lock, spares leased later included) as holder for another ttl_s
 * seconds, every ttl_s / 3 seconds (at least 1) from a thread of its
 * own, until bf_heartbeat_stop(); and every BF_STORE_ALIVE_PERIOD_S
 * (or that period when shorter) tell the store that job->run_id and
 * this process's leases are alive (bf_store_alive). A renewal the
 * store refuses (the lease went to another job, or is gone) is a
 * warning and that lease is renewed no more: the worker's next fenced
 * write is refused and stops the job. Any other failure (a lost
 * connection, a busy store) is a warning and is tried again at the
 * next renewal. NULL when the thread cannot be started (leases are
 * then not renewed; the caller goes on).
 */
struct bf_heartbeat *bf_heartbeat_start(struct bf_job *job, const char *holder,
                                        int ttl_s);

/*
 * The holder key of job's leases and queue tickets, into buf:
 * benchfarm@HOST:PID:runRUN_ID.
 */
void bf_heartbeat_holder(char *buf, size_t size, const struct bf_job *job);

/* Stop the thread and free hb. NULL is ok. */
void bf_heartbeat_stop(struct bf_heartbeat *hb);

#endif /* BF_HEARTBEAT_H */
