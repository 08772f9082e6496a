#include "job/dispatch.h"

#include <stdio.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "config/cfg.h"
#include "farm/machine.h"
#include "job/heartbeat.h"
#include "job/plan.h"
#include "job/presubmit_int.h"
#include "job/wait.h"
#include "job/worker.h"
#include "store/store.h"

/*
 * Spreading a presubmit over devices. The work is one unit per
 * benchmark: its warmups and interleaved repeats, kept on one device so
 * that base and patch always meet the same hardware. Each leased device
 * gets a worker thread that takes units until none are left. A device
 * that fails (unreachable, unfit, connection lost after retries) gives
 * its unit back at the step it reached, and another device of the pool
 * finishes it: steps already measured are kept, the interrupted one is
 * redone, none is counted twice.
 *
 * Only a fault of the device (unreachable, host key, agent broken or
 * crashed, disk full, cores offline, a check that cannot read it, a
 * connection lost) marks it bad. A device unfit for now (a check of
 * its environment failed after the agent waited for it: load, heat,
 * battery, throttle) is left out of this job, its unit goes to another
 * device, and it keeps its health: the next job tries it again. Every
 * device of the pool that did not measure, left out before the job
 * (bad, drained) or during it, is listed with why in the result
 * (devices_out), and a job that no device could measure says so
 * (job->no_device), naming them. A failure that is the job's (an artifact it
 * cannot ship, the store refusing a sample) would follow the work to every
 * device: it stops the job, every device keeps its health and its lease is
 * released. A benchmark that fails is neither: it is recorded as that
 * benchmark's error.
 *
 * Leases last devices.lease_time seconds; a heartbeat renews them
 * (heartbeat.c). Each lease's fencing token stays with its worker,
 * which writes nothing for its device without checking it (worker.c)
 * and checks its lease before each run: a job that lost a device to
 * another (stopped past its lease time) runs and stores nothing more on
 * it, takes no further unit, and ends as an infrastructure failure.
 *
 * Adaptive repeats: a unit's plan holds max_repeats, and a look that
 * decides the benchmark (compare_seq.c) drops its remaining steps, under
 * the lock that moves u->next, so a moved unit never looks twice.
 */

struct bf_unit {
	int bench;
	struct bf_plan plan;
	size_t next; /* first step not yet done */
	bool taken, done, failed;
	int moves; /* times it was given back by a failing device */
	/* the device that last gave it back; counted moved when another
	 * takes it */
	const struct bf_worker *given_back_by;
};

struct dispatch {
	struct bf_job *job;
	struct bf_unit *units;
	size_t nunits;
	size_t steps_total, steps_done;
	char holder[128];
	/* The pool's devices in registry order; tried[i] once leased or
	 * refused. */
	struct bf_store_device *devs;
	bool *tried;
	size_t ndevs;
	size_t busy; /* devices leased by other jobs */
	/* Why the store last refused a lease: another job's lease, or the
	 * store itself busy (its rows locked by a stalled host) */
	struct bf_err refused;
	bool job_failed; /* a failure of the job's own stopped it */
	bool lease_lost; /* that failure: a device's lease went */
	char job_why[BF_ERR_SIZE - 64]; /* which (abort_msg adds a prefix) */
	/*
	 * Devices that are one machine (farm/machine.h): group[i] is that
	 * of devs[i] (bf_machine_group: the index of its machine's first
	 * device, -1 alone), and with devices.same_machine: serial the
	 * workers of a machine take turns in slot[group].
	 */
	int *group;
	struct bf_machine_slot *slot;
	bool serial;
};

static bool starts_block(const struct bf_plan *plan, size_t i)
{
	const struct bf_plan_step *st = &plan->steps[i];

	if (i == 0)
		return true;
	if (st->warmup)
		return false;
	return plan->steps[i - 1].warmup ||
	       plan->steps[i - 1].repeat != st->repeat;
}

/* A step is done: the caller's note (under job->lock). */
static void progress(struct dispatch *d, const struct bf_worker *w,
                     const struct bf_plan_step *st)
{
	const struct bf_job *job = d->job;
	char *text;

	d->steps_done++;
	if (!job->o->note)
		return;
	text = bf_xasprintf(
	        "[%zu/%zu] %s %s %s %d on %s", d->steps_done, d->steps_total,
	        job->cfg->benchmarks[st->bench].name, bf_side_name(st->side),
	        st->warmup ? "warmup" : "run", st->repeat + 1, w->name);
	job->o->note(job->o->note_arg, BF_JOB_STEP, text);
	free(text);
}

/*
 * Runs u from u->next on w; 0 when finished, else the device failed.
 * *in_run tells whether it failed while running the benchmark (which
 * counts against the unit) or in a check (the device's fault alone).
 */
static int run_unit(struct dispatch *d, struct bf_worker *w, struct bf_unit *u,
                    bool *in_run, struct bf_err *err)
{
	struct bf_job *job = d->job;
	size_t first = u->next;
	int ret = 0;

	*in_run = false;
	for (size_t i = u->next; i < u->plan.n; i++) {
		const struct bf_plan_step *st = &u->plan.steps[i];

		if ((i == first || starts_block(&u->plan, i)) &&
		    (ret = bf_worker_check(w, st->warmup ? 0 : st->repeat + 1,
		                           err)))
			return ret;
		if ((ret = bf_worker_run_step(w, st, err))) {
			*in_run = true;
			return ret;
		}
		pthread_mutex_lock(&job->lock);
		u->next = i + 1;
		w->steps_done++;
		progress(d, w, st);
		/* adaptive: a decided benchmark drops its remaining steps */
		if (bf_comparison_stops_after(&job->cmp, u->bench, &u->plan,
		                              i)) {
			d->steps_total -= u->plan.n - (i + 1);
			u->plan.n = i + 1;
		}
		pthread_mutex_unlock(&job->lock);
	}
	return 0;
}

/* The next unit nobody works on; NULL when none (under job->lock). */
static struct bf_unit *take_unit(struct dispatch *d, bool *busy)
{
	*busy = false;
	if (d->job_failed)
		return NULL;
	for (size_t i = 0; i < d->nunits; i++) {
		struct bf_unit *u = &d->units[i];

		if (u->done || u->failed)
			continue;
		if (u->taken) {
			*busy = true;
			continue;
		}
		u->taken = true;
		return u;
	}
	return NULL;
}

struct worker_arg {
	struct dispatch *d;
	struct bf_worker *w;
};

static bool work_left(const struct dispatch *d)
{
	if (d->job_failed)
		return false;
	for (size_t i = 0; i < d->nunits; i++)
		if (!d->units[i].done && !d->units[i].failed)
			return true;
	return false;
}

static struct bf_worker *lease_next(struct dispatch *d);
static void note_machines(const struct dispatch *d, const char *what);

/*
 * w failed for the job, not for itself: the job stops (under
 * job->lock); w is not dead, so it keeps its health.
 */
static void job_failed(struct dispatch *d, struct bf_worker *w, const char *msg)
{
	/* said once: settle_devices finds a lost lease again */
	if (d->job_failed && !strncmp(d->job_why, msg, sizeof(d->job_why) - 1))
		return;
	if (!d->job_failed) {
		bf_strlcpy(d->job_why, msg, sizeof(d->job_why));
		d->lease_lost = w->lease_lost;
	}
	d->job_failed = true;
	if (w->lease_lost)
		BF_LOG_WARN("%s: stopped, running nothing more: %s", w->name,
		            msg);
	else
		BF_LOG_WARN("%s: the job failed, not the device: %s", w->name,
		            msg);
}

/* w's why says that it was skipped, not marked bad. */
static void keeps_health(struct bf_worker *w)
{
	static const char tail[] = " (skipped for this job; it keeps its "
	                           "health)";
	size_t len = strlen(w->why);

	if (len + sizeof(tail) <= sizeof(w->why))
		memcpy(w->why + len, tail, sizeof(tail));
}

/*
 * Wait until w may measure on its machine (devices.same_machine:
 * serial, with another leased device of the job on it): its turn, or
 * false when no work is left meanwhile. Under job->lock.
 */
static bool slot_take(struct dispatch *d, struct bf_worker *w)
{
	struct bf_machine_slot *s;

	if (!d->serial || w->local || w->machine < 0)
		return true;
	s = &d->slot[w->machine];
	while (!bf_machine_slot_may_take(s, w)) {
		if (!work_left(d))
			return false;
		s->waiting++;
		pthread_cond_wait(&d->job->cond, &d->job->lock);
		s->waiting--;
	}
	bf_machine_slot_take(s, w);
	return true;
}

/*
 * w's turn on its machine is over (under job->lock). w NULL: the
 * thread's last worker gave up and no spare replaced it (its turn was
 * given back before it looked for one).
 */
static void slot_give_back(struct dispatch *d, struct bf_worker *w)
{
	if (!w || !d->serial || w->local || w->machine < 0)
		return;
	if (bf_machine_slot_give_back(&d->slot[w->machine], w))
		pthread_cond_broadcast(&d->job->cond);
}

/*
 * What w's agent said of its machine, recorded when the registry did
 * not know it or knew another (under job->lock). The job keeps the
 * devices' machines as it leased them; the next job uses this.
 */
static void record_machine(struct dispatch *d, struct bf_worker *w)
{
	char *rec = w->local ? NULL : bf_machine_from_info(w->info);
	struct bf_err err = BF_ERR_INIT;

	if (rec && (!w->dev.machine || strcmp(rec, w->dev.machine)) &&
	    bf_store_device_set_machine(d->job->store, w->name, rec, &err))
		BF_LOG_WARN("%s: cannot record its machine: %s", w->name,
		            err.msg);
	free(rec);
}

static void *worker_main(void *arg)
{
	struct dispatch *d = ((struct worker_arg *)arg)->d;
	struct bf_worker *w = ((struct worker_arg *)arg)->w;
	struct bf_job *job = d->job;
	struct bf_err err = BF_ERR_INIT;

	pthread_mutex_lock(&job->lock);
	for (;;) {
		bool busy, in_run;
		struct bf_unit *u;
		int ret;

		/* each turn on a shared machine is one unit */
		slot_give_back(d, w);
		/* A device that gave up is replaced by a spare of the pool. */
		if (w->dead &&
		    (w->local || !work_left(d) || !(w = lease_next(d))))
			break;
		/*
		 * One device of a machine at a time connects (uploads) and
		 * measures, when the config says serial.
		 */
		if (!slot_take(d, w))
			break;
		/*
		 * Connect first (SSH, artifacts, agent hello and info): an
		 * unreachable device, a broken agent or a full disk never
		 * holds a unit.
		 */
		if (!w->agent) {
			pthread_mutex_unlock(&job->lock);
			ret = bf_worker_connect(w, &err);
			pthread_mutex_lock(&job->lock);
			if (ret && w->job_fault) {
				job_failed(d, w, err.msg);
				break;
			}
			if (ret) {
				w->dead = true;
				bf_strlcpy(w->why, err.msg, sizeof(w->why));
				BF_LOG_WARN("%s", err.msg);
				continue;
			}
			record_machine(d, w);
		}
		/* A worker whose lease is gone takes nothing more. */
		if (w->lease_lost) {
			/* the heartbeat saw it: the store's words for it */
			if (!d->job_failed) {
				bf_worker_lease_check(w, &err);
				job_failed(d, w, err.msg);
			}
			break;
		}
		u = take_unit(d, &busy);
		if (!u && !busy)
			break;
		if (!u) {
			/* Another device may still give its unit back. */
			slot_give_back(d, w);
			pthread_cond_wait(&job->cond, &job->lock);
			continue;
		}
		if (u->given_back_by && u->given_back_by != w)
			job->moved_units++;
		u->given_back_by = NULL;
		pthread_mutex_unlock(&job->lock);
		ret = run_unit(d, w, u, &in_run, &err);
		pthread_mutex_lock(&job->lock);
		u->taken = false;
		if (!ret) {
			u->done = true;
		} else if (w->job_fault) {
			u->failed = true;
			job_failed(d, w, err.msg);
		} else {
			w->dead = true;
			bf_strlcpy(w->why, err.msg, sizeof(w->why));
			if (w->transient)
				keeps_health(w);
			/* A benchmark that kills every device stops somewhere.
			 */
			if (in_run && ++u->moves > job->cfg->runs.retries)
				u->failed = true;
			u->given_back_by = w;
			BF_LOG_WARN("%s gave up on %s: %s", w->name,
			            job->cfg->benchmarks[u->bench].name,
			            err.msg);
		}
		pthread_cond_broadcast(&job->cond);
	}
	slot_give_back(d, w);
	pthread_cond_broadcast(&job->cond);
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

/* Keep the steps of the side a postsubmit record measures. */
static void keep_patch_side(struct bf_plan *plan)
{
	size_t k = 0;

	for (size_t i = 0; i < plan->n; i++)
		if (plan->steps[i].side == BF_SIDE_PATCH)
			plan->steps[k++] = plan->steps[i];
	plan->n = k;
}

static void build_units(struct dispatch *d)
{
	const struct bf_job *job = d->job;
	const char *only = job->o->only_bench;

	d->units = bf_xcalloc(job->cfg->nbenchmarks + 1, sizeof(*d->units));
	for (size_t b = 0; b < job->cfg->nbenchmarks; b++) {
		struct bf_unit *u = &d->units[d->nunits];

		if (only && strcmp(job->cfg->benchmarks[b].name, only))
			continue;
		d->nunits++;
		u->bench = (int)b;
		bf_plan_build_mode(&u->plan, job->duet, 1, &job->runs[b],
		                   job->cfg->runs.interleave, job->seed + b);
		if (job->record)
			keep_patch_side(&u->plan);
		for (size_t i = 0; i < u->plan.n; i++)
			u->plan.steps[i].bench = (int)b;
		d->steps_total += u->plan.n;
	}
}

static bool has_label(const char *labels, const char *want)
{
	size_t n = strlen(want);
	const char *p = labels;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, want, n))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

static bool usable(const struct bf_store_device *dev, const char *pool,
                   const char *device)
{
	if (device)
		return !strcmp(dev->name, device);
	if (!has_label(dev->labels, pool) && strcmp(dev->name, pool))
		return false;
	return strcmp(dev->health, "maintenance") &&
	       strcmp(dev->health, "retired") && strcmp(dev->health, "bad");
}

/* Add one device that did not measure to job->devices_out. */
static void add_out(struct bf_job *job, const char *name, const char *health,
                    bool skipped, bool before, const char *why)
{
	if (!job->devices_out)
		job->devices_out = json_array();
	json_array_append_new(
	        job->devices_out,
	        json_pack("{s:s, s:s, s:b, s:b, s:s}", "name", name, "health",
	                  health ? health : "unknown", "skipped", skipped,
	                  "before_job", before, "why", why ? why : ""));
}

/* A device of the pool the registry keeps out (bad, drained). */
static void note_unusable(struct bf_job *job, const struct bf_store_device *dev,
                          const char *pool, const char *device)
{
	char why[BF_ERR_SIZE];

	if (device || !strcmp(dev->health, "retired") ||
	    (!has_label(dev->labels, pool) && strcmp(dev->name, pool)))
		return;
	snprintf(why, sizeof(why), "%s before the job%s%s",
	         !strcmp(dev->health, "maintenance") ? "drained" : "bad",
	         dev->health_reason ? ": " : "",
	         dev->health_reason ? dev->health_reason : "");
	add_out(job, dev->name, dev->health, false, true, why);
}

/*
 * "'NAME' (HEALTH): WHY; ..." of job->devices_out into buf: those out
 * during the job first, then those out before it (the registry kept
 * them out), with their why unless brief.
 */
static void describe_out(char *buf, size_t len, const struct bf_job *job,
                         bool brief)
{
	size_t i, off = 0;
	json_t *o;

	buf[0] = '\0';
	for (int before = 0; before < 2; before++) {
		json_array_foreach(job->devices_out, i, o)
		{
			bool b = json_is_true(json_object_get(o, "before_job"));
			int n;

			if (b != (before == 1))
				continue;
			n = snprintf(
			        buf + off, len - off, "%s'%s' (%s)%s%s",
			        off ? "; " : "", bf_json_str_or(o, "name", "?"),
			        bf_json_str_or(o, "health", "?"),
			        b && brief ? "" : ": ",
			        b && brief ? "" : bf_json_str_or(o, "why", ""));
			if (n < 0 || (size_t)n >= len - off)
				return;
			off += (size_t)n;
		}
	}
}

/* Which of the pool's devices are one machine, by their records. */
static void group_machines(struct dispatch *d)
{
	const char **recs = bf_xcalloc(d->ndevs + 1, sizeof(*recs));

	for (size_t i = 0; i < d->ndevs; i++)
		recs[i] = d->devs[i].machine;
	d->group = bf_xcalloc(d->ndevs + 1, sizeof(*d->group));
	d->slot = bf_xcalloc(d->ndevs + 1, sizeof(*d->slot));
	bf_machine_group(d->group, recs, d->ndevs);
	d->serial = d->job->cfg->devices.same_machine == BF_SAME_MACHINE_SERIAL;
	free(recs);
}

/* The pool's candidates, from the registry. */
static int list_pool(struct dispatch *d, struct bf_err *err)
{
	struct bf_job *job = d->job;
	const char *device = job->o->device;
	const char *pool = job->o->pool ? job->o->pool : job->cfg->devices.pool;
	struct bf_store_device *all = NULL;
	size_t n = 0;
	int ret = bf_store_device_list(&all, &n, job->store, err);

	if (ret)
		return ret;
	d->devs = bf_xcalloc(n + 1, sizeof(*d->devs));
	d->tried = bf_xcalloc(n + 1, sizeof(*d->tried));
	for (size_t i = 0; i < n; i++) {
		if (!usable(&all[i], pool, device)) {
			note_unusable(job, &all[i], pool, device);
			continue;
		}
		d->devs[d->ndevs++] = all[i];
		memset(&all[i], 0, sizeof(all[i]));
	}
	bf_store_devices_free(all, n);
	group_machines(d);
	return 0;
}

/*
 * Lease the next free device of the pool and make it a worker (under
 * job->lock once the threads run). NULL when none is left.
 */
static struct bf_worker *lease_next(struct dispatch *d)
{
	struct bf_job *job = d->job;
	int64_t token = 0;

	for (size_t i = 0; i < d->ndevs; i++) {
		struct bf_worker *w;

		if (d->tried[i])
			continue;
		d->tried[i] = true;
		if (bf_store_lease_take(job->store, d->devs[i].name, d->holder,
		                        job->cfg->devices.lease_time_s,
		                        (int64_t)time(NULL), &token,
		                        &d->refused)) {
			d->busy++;
			continue;
		}
		w = bf_worker_new_remote(job, &d->devs[i]);
		w->machine = d->group[i];
		w->leased = true;
		w->lease_token = token;
		job->workers[job->nworkers++] = w;
		return w;
	}
	return NULL;
}

struct try_arg {
	struct dispatch *d;
	size_t want;
};

/* The queue's turn came: lease what is free (a bf_wait_try_fn). */
static bool try_lease(void *arg, size_t *busy)
{
	struct dispatch *d = ((struct try_arg *)arg)->d;
	size_t want = ((struct try_arg *)arg)->want;

	memset(d->tried, 0, d->ndevs * sizeof(*d->tried));
	d->busy = 0;
	while (d->job->nworkers < want && lease_next(d))
		;
	*busy = d->busy;
	return d->job->nworkers > 0;
}

/*
 * Lease up to want devices of the pool, in its turn in the pool's queue
 * (waiting up to --wait or devices.wait seconds); fills job->workers.
 */
static int lease_pool(struct dispatch *d, size_t want, struct bf_err *err)
{
	struct bf_job *job = d->job;
	const char *device = job->o->device;
	const char *pool = job->o->pool ? job->o->pool : job->cfg->devices.pool;
	struct try_arg arg = { d, want };
	char key[256], what[300];
	int ret = list_pool(d, err);

	if (ret)
		return ret;
	job->workers = bf_xcalloc(d->ndevs + 1, sizeof(*job->workers));
	snprintf(key, sizeof(key), "%s%s", device ? "device:" : "",
	         device ? device : pool);
	snprintf(what, sizeof(what), "%s '%s'", device ? "device" : "pool",
	         device ? device : pool);
	if (d->ndevs) {
		struct bf_wait w = {
			job,
			key,
			what,
			d->holder,
			job->o->wait_s >= 0 ? job->o->wait_s
			                    : job->cfg->devices.wait_s,
			try_lease,
			&arg,
		};

		if ((ret = bf_wait_turn(&w, err))) {
			/* say why the devices were refused: a device locked
			 * in a busy store is no other job's lease */
			if (ret == BF_ETIMEOUT && d->refused.code) {
				struct bf_err timeout = *err;

				bf_err_set(err, ret, "%s; the last refusal: %s",
				           timeout.msg, d->refused.msg);
			}
			return ret;
		}
	}
	if (job->nworkers)
		note_machines(d, what);
	if (!job->nworkers) {
		char out[BF_ERR_SIZE - 128];

		describe_out(out, sizeof(out), job, false);
		ret = bf_err_set(err, BF_EBUSY,
		                 "no healthy free device for %s '%s' (%zu "
		                 "leased by other jobs%s%s); see 'benchfarm "
		                 "device list'",
		                 device ? "device" : "pool",
		                 device ? device : pool, d->busy,
		                 out[0] ? "; out: " : "", out);
	}
	return ret;
}

/*
 * The job's devices that are one machine: an array of {devices: names,
 * same: which ids matched, ran: "one at a time" or "at once"}, a new
 * reference; NULL when no two are. Under job->lock.
 */
static json_t *machines_json(const struct dispatch *d)
{
	const struct bf_job *job = d->job;
	json_t *arr = NULL;

	for (size_t g = 0; g < d->ndevs; g++) {
		json_t *names = json_array();
		const char *first = NULL;
		unsigned match = 0;

		for (size_t i = 0; i < job->nworkers; i++) {
			const struct bf_worker *w = job->workers[i];

			if (w->local || w->machine != (int)g)
				continue;
			if (first)
				match |=
				        bf_machine_match(first, w->dev.machine);
			else
				first = w->dev.machine;
			json_array_append_new(names, json_string(w->name));
		}
		if (json_array_size(names) < 2) {
			json_decref(names);
			continue;
		}
		if (!arr)
			arr = json_array();
		json_array_append_new(
		        arr,
		        json_pack("{s:o, s:s, s:s}", "devices", names, "same",
		                  bf_machine_match_name(match), "ran",
		                  d->serial ? "one at a time" : "at once"));
	}
	return arr;
}

/* Say which leased devices are one machine, and what the job does. */
static void note_machines(const struct dispatch *d, const char *what)
{
	const struct bf_job *job = d->job;
	json_t *arr = machines_json(d);
	size_t i;
	json_t *m;

	json_array_foreach(arr, i, m)
	{
		struct bf_buf b = BF_BUF_INIT;
		const json_t *names = json_object_get(m, "devices");
		size_t k;
		json_t *n;

		json_array_foreach(names, k, n) bf_buf_addf(
		        &b, "%s'%s'", k ? ", " : "", json_string_value(n));
		bf_buf_addf(
		        &b,
		        " of %s are one machine (the same %s): %s "
		        "(devices.same_machine: %s)",
		        what, bf_json_str_or(m, "same", "?"),
		        d->serial ? "they measure one at a time"
		                  : "they measure at once, each the other's "
		                    "load",
		        bf_same_machine_name(job->cfg->devices.same_machine));
		if (job->o->note)
			job->o->note(job->o->note_arg, BF_JOB_WARNING, b.buf);
		else
			BF_LOG_WARN("%s", b.buf);
		bf_buf_release(&b);
	}
	json_decref(arr);
}

/* After the threads: leases back, device health recorded (job->lock). */
static void settle_devices(struct dispatch *d)
{
	struct bf_job *job = d->job;
	int64_t now = (int64_t)time(NULL);

	for (size_t i = 0; i < job->nworkers; i++) {
		struct bf_worker *w = job->workers[i];
		struct bf_err err = BF_ERR_INIT;

		if (w->local || !w->leased)
			continue;
		w->leased = false; /* the heartbeat renews it no more */
		/*
		 * The run's result stands on this device's samples only
		 * while the job still holds its lease.
		 */
		if (bf_store_lease_fence(job->store, w->name, w->lease_token,
		                         now, &err) &&
		    bf_store_lease_renew(job->store, w->name, d->holder,
		                         job->cfg->devices.lease_time_s, now,
		                         NULL)) {
			job_failed(d, w, err.msg);
			continue;
		}
		if (w->dead && w->transient)
			add_out(job, w->name, w->dev.health, true, false,
			        w->why);
		else if (w->dead)
			bf_store_device_set_health(job->store, w->name, "bad",
			                           w->why, now, NULL);
		if (w->dead && !w->transient)
			add_out(job, w->name, "bad", false, false, w->why);
		else if (!w->dead && w->steps_done)
			bf_store_device_set_health(job->store, w->name, "good",
			                           NULL, now, NULL);
		bf_store_lease_release(job->store, w->name, d->holder, NULL);
	}
}

/* Every device of the job gave up: none is left to measure. */
static bool every_device_out(const struct bf_job *job)
{
	for (size_t i = 0; i < job->nworkers; i++)
		if (!job->workers[i]->dead)
			return false;
	return job->nworkers > 0;
}

static void finish(struct dispatch *d)
{
	struct bf_job *job = d->job;
	const char *why = NULL;

	for (size_t i = 0; i < d->nunits; i++)
		if (!d->units[i].done)
			job->aborted = true;
	for (size_t i = 0; i < job->nworkers; i++)
		if (job->workers[i]->dead)
			why = job->workers[i]->why;
	if (d->job_failed && d->lease_lost) {
		job->aborted = true;
		snprintf(job->abort_msg, sizeof(job->abort_msg),
		         "a device's lease was lost (it keeps its health): %s",
		         d->job_why);
	} else if (d->job_failed) {
		job->aborted = true;
		snprintf(
		        job->abort_msg, sizeof(job->abort_msg),
		        "the job failed, not a device (each keeps its health): "
		        "%s",
		        d->job_why);
	} else if (job->aborted && every_device_out(job)) {
		char out[BF_ERR_SIZE - 64];
		int n;

		job->no_device = true;
		describe_out(out, sizeof(out), job, true);
		n = snprintf(job->abort_msg, sizeof(job->abort_msg),
		             "no device of the pool could measure: ");
		if (n > 0 && (size_t)n < sizeof(job->abort_msg))
			bf_strlcpy(job->abort_msg + n,
			           out[0] ? out
			           : why  ? why
			                  : "none left",
			           sizeof(job->abort_msg) - (size_t)n);
	} else if (job->aborted) {
		bf_strlcpy(job->abort_msg,
		           why ? why : "the work could not be finished",
		           sizeof(job->abort_msg));
	}
	if (job->o->note)
		job->o->note(job->o->note_arg, BF_JOB_STEPS_END, "");
}

static bool is_local(const struct bf_job *job)
{
	return (!job->o->device && !job->o->pool &&
	        !strcmp(job->cfg->devices.pool, "local")) ||
	       (job->o->device && !strcmp(job->o->device, "local"));
}

int bf_dispatch_preflight(struct bf_job *job, struct bf_err *err)
{
	const char *pool = job->o->pool ? job->o->pool : job->cfg->devices.pool;
	char out[BF_ERR_SIZE - 128];
	struct dispatch d;
	int ret;

	if (is_local(job) || job->o->device)
		return 0;
	memset(&d, 0, sizeof(d));
	d.job = job;
	pthread_mutex_lock(&job->lock);
	ret = list_pool(&d, err);
	if (!ret && !d.ndevs) {
		describe_out(out, sizeof(out), job, false);
		job->no_device = true;
		ret = bf_err_set(err, BF_ENOTFOUND,
		                 "no usable device in pool '%s'%s%s; see "
		                 "'benchfarm device list'",
		                 pool, out[0] ? ": " : " (it has none)", out);
	} else if (!ret) {
		/* dispatch lists them again */
		json_decref(job->devices_out);
		job->devices_out = NULL;
	}
	pthread_mutex_unlock(&job->lock);
	bf_store_devices_free(d.devs, d.ndevs);
	free(d.tried);
	free(d.group);
	free(d.slot);
	return ret;
}

int bf_dispatch_run(struct bf_job *job, struct bf_err *err)
{
	struct dispatch d;
	struct worker_arg *args;
	pthread_t *threads;
	size_t nthreads;
	int ret = 0;

	memset(&d, 0, sizeof(d));
	d.job = job;
	bf_heartbeat_holder(d.holder, sizeof(d.holder), job);
	build_units(&d);
	/* as the job's heartbeat, under job->lock: workers, store */
	pthread_mutex_lock(&job->lock);
	if (is_local(job)) {
		job->workers = bf_xcalloc(1, sizeof(*job->workers));
		job->workers[job->nworkers++] = bf_worker_new_local(job);
	} else {
		ret = lease_pool(&d, d.nunits, err);
	}
	pthread_mutex_unlock(&job->lock);
	if (ret) {
		/* nothing could be leased: no device, or all busy */
		job->no_device = true;
		goto out;
	}
	/* Spares leased later run in the thread of the device they replace. */
	nthreads = job->nworkers;
	args = bf_xcalloc(nthreads, sizeof(*args));
	threads = bf_xcalloc(nthreads, sizeof(*threads));
	for (size_t i = 0; i < nthreads; i++) {
		args[i] = (struct worker_arg){ &d, job->workers[i] };
		pthread_create(&threads[i], NULL, worker_main, &args[i]);
	}
	for (size_t i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	free(args);
	free(threads);
	pthread_mutex_lock(&job->lock);
	settle_devices(&d);
	json_decref(job->machines);
	job->machines = machines_json(&d);
	pthread_mutex_unlock(&job->lock);
	finish(&d);
out:
	for (size_t i = 0; i < d.nunits; i++)
		bf_plan_release(&d.units[i].plan);
	free(d.units);
	bf_store_devices_free(d.devs, d.ndevs);
	free(d.tried);
	free(d.group);
	free(d.slot);
	return ret;
}
