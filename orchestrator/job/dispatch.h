#ifndef BF_DISPATCH_H
#define BF_DISPATCH_H

struct bf_err;
struct bf_job;

/*
 * Run the job's plan on its devices: the local machine, or devices of a
 * pool (devices.pool, --pool) or one named device (--device) leased
 * from the registry, in parallel, one worker thread per device. Sets
 * job->aborted (with job->abort_msg) when the pool could not finish the
 * work. Returns BF_EBUSY when no device could be leased.
 */
int bf_dispatch_run(struct bf_job *job, struct bf_err *err);

/*
 * Before anything is built: whether the pool has a device the registry
 * lets it use (not bad, drained or retired). BF_ENOTFOUND, with
 * job->no_device and job->devices_out set and err naming each device
 * and why, when it has none; 0 for the local machine, a named device,
 * or a pool with one (which may still be busy or unfit when leased).
 */
int bf_dispatch_preflight(struct bf_job *job, struct bf_err *err);

#endif /* BF_DISPATCH_H */
