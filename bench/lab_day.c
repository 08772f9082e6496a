/*
 * lab_day LOCATION PROCS DEVICES [HOURS] [SPEED] [LOAD] [SEED]: a day of
 * a lab on the store at LOCATION, in simulated time. DEVICES devices
 * (labelled "lab") are shared by PROCS orchestrator processes, each
 * with its own connection and its own stream of jobs; each job needs one
 * device of the pool "lab" for a random short time. Store-level, no SSH:
 * a job joins the pool's queue (bf_store_wait_join), waits its turn
 * (bf_store_wait_turn), leases a free device (the lease list, then
 * bf_store_lease_take on a free one), records a run
 * (bf_store_run_create), and when its time is up stores its 100 samples
 * in a fenced write (bf_store_fence_begin, bf_store_sample_add_many),
 * finishes the run and releases the device.
 *
 * Simulated time runs SPEED times faster than the clock (default 720: a
 * day in 2 minutes), and is the time every store call is given. Jobs
 * arrive at random (Poisson) at LOAD (default 0.85) times what the
 * devices can serve, each lasting 5 to 25 simulated minutes (uniform),
 * for HOURS simulated hours (default 24). The first waiting job of each
 * process asks for its turn every 5 ms of real time (3.6 simulated s at
 * the default speed) and at once after the process released a device.
 *
 * Prints jobs per simulated hour, queue wait (median, p95, max; from
 * arrival to lease, simulated seconds), device utilisation (busy
 * device-time over DEVICES x the day, including the time the store
 * takes), the store calls per second of real time, and how much of the
 * real time the orchestrators were not asleep (a process slower than
 * its events lets simulated time run on: at SPEED 720 a 100 ms stall is
 * 72 simulated seconds of every queued job's wait). Exits 1 on any
 * error of the store other than a device or a turn being busy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/store.h"

#define SAMPLES_PER_JOB 100
#define LEN_MIN         300.0 /* simulated s */
#define LEN_MAX         1500.0
#define POLL_NS         5000000L

struct job {
	double arrive, start, end; /* simulated s */
	int64_t ticket, token, run;
	int dev; /* -1 while waiting */
};

/* What one process reports (shared with the parent). */
struct report {
	size_t done, arrived, nwait;
	double busy; /* device-seconds, simulated */
	size_t calls; /* store calls */
	int64_t slept_ns; /* real time spent waiting for the next event */
};

static int g_ndev;
static double g_speed;
static int64_t g_t0, g_epoch;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double sim_now(void)
{
	return (double)(now_ns() - g_t0) / 1e9 * g_speed;
}

static int64_t store_now(double sim)
{
	return g_epoch + (int64_t)sim;
}

static const double *g_sort_key;

/* Indices by g_sort_key[index]. */
static int by_key(const void *a, const void *b)
{
	double x = g_sort_key[*(const size_t *)a];
	double y = g_sort_key[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

static double urand(unsigned *seed)
{
	return ((double)rand_r(seed) + 0.5) / ((double)RAND_MAX + 1.0);
}

static void dev_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "dev%04d", i);
}

#define CHECK(call)                                                \
	do {                                                       \
		rep->calls++;                                      \
		if ((call)) {                                      \
			fprintf(stderr, "lab_day: %s\n", err.msg); \
			return 1;                                  \
		}                                                  \
	} while (0)

/* A free device for job j (its lease taken): 0, or 1 when none is. */
static int lease_free(struct bf_store *store, struct job *j, double sim,
                      const char *holder, struct report *rep, bool *got)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_lease *l = NULL;
	size_t n = 0;
	bool *busy = calloc((size_t)g_ndev, sizeof(*busy));
	char name[32];
	int rc = 0;

	*got = false;
	rep->calls++;
	if (!busy || bf_store_lease_list(&l, &n, store, &err)) {
		fprintf(stderr, "lab_day: %s\n", err.msg);
		free(busy);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (l[i].expires_at > store_now(sim))
			busy[strtol(l[i].device + 3, NULL, 10)] = true;
	bf_store_leases_free(l, n);
	for (int d = 0; d < g_ndev && !*got && !rc; d++) {
		if (busy[d])
			continue;
		dev_name(name, sizeof(name), d);
		rep->calls++;
		rc = bf_store_lease_take(store, name, holder, 3600,
		                         store_now(sim), &j->token, &err);
		if (rc == BF_EBUSY)
			rc = 0;
		else if (rc)
			fprintf(stderr, "lab_day: %s\n", err.msg);
		else {
			*got = true;
			j->dev = d;
		}
	}
	free(busy);
	return rc ? 1 : 0;
}

/* Job j's time is up: its samples, its run finished, its device back. */
static int finish(struct bf_store *store, struct job *j, const char *holder,
                  struct report *rep)
{
	struct bf_store_sample s[SAMPLES_PER_JOB];
	struct bf_err err = BF_ERR_INIT;
	double sim = sim_now();
	char name[32];
	int txn = 0, rc;

	dev_name(name, sizeof(name), j->dev);
	for (int i = 0; i < SAMPLES_PER_JOB; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].run_id = j->run;
		s[i].benchmark = "BM_lab/4096";
		s[i].metric = "real_time";
		s[i].unit = "ns";
		s[i].side = "commit";
		s[i].commit_id = "3333333333333333333333333333333333333333";
		s[i].device = name;
		s[i].suite = "lab";
		s[i].repeat_idx = i / 10;
		s[i].iter_idx = i % 10;
		s[i].value = 1000.0 + i;
	}
	CHECK(bf_store_fence_begin(&txn, store, name, j->token, store_now(sim),
	                           &err));
	rc = bf_store_sample_add_many(store, s, SAMPLES_PER_JOB, &err);
	CHECK(bf_store_fence_end(store, txn, rc, &err));
	CHECK(bf_store_run_finish(store, j->run, "complete", store_now(sim),
	                          &err));
	CHECK(bf_store_lease_release(store, name, holder, &err));
	rep->busy += sim_now() - j->start;
	rep->done++;
	return 0;
}

/* One orchestrator process: its jobs until the day ends. */
static int orchestrate(const char *location, int me, int nproc, double hours,
                       double load, unsigned seed, struct report *rep,
                       double *waits, size_t maxjobs)
{
	double end = hours * 3600, mean_len = (LEN_MIN + LEN_MAX) / 2;
	double rate = load * g_ndev / mean_len / nproc; /* jobs per sim s */
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *store = NULL;
	struct job *jobs = calloc(maxjobs, sizeof(*jobs));
	size_t head = 0; /* the first job not yet leased */
	double next = 0;
	char holder[64];

	if (!jobs)
		return 1;
	seed = seed * 7919u + (unsigned)me * 104729u + 1u;
	next = -log(urand(&seed)) / rate;
	if (bf_store_open(&store, location, &err)) {
		fprintf(stderr, "lab_day: %s\n", err.msg);
		return 1;
	}
	for (;;) {
		double sim = sim_now(), wake;
		bool got = true;
		int64_t t;

		if (sim >= end)
			break;
		while (next <= sim && rep->arrived < maxjobs) {
			struct job *j = &jobs[rep->arrived++];

			j->arrive = next;
			j->dev = -1;
			j->end = next + LEN_MIN +
			         (LEN_MAX - LEN_MIN) * urand(&seed);
			snprintf(holder, sizeof(holder), "p%d-job%zu", me,
			         rep->arrived);
			CHECK(bf_store_wait_join(&j->ticket, store, "lab",
			                         holder, 2 * 86400,
			                         store_now(sim), &err));
			next += -log(urand(&seed)) / rate;
		}
		for (size_t i = 0; i < head; i++) {
			struct job *j = &jobs[i];

			if (j->dev < 0 || j->start < 0 || j->end > sim)
				continue;
			snprintf(holder, sizeof(holder), "p%d-job%zu", me,
			         i + 1);
			if (finish(store, j, holder, rep))
				return 1;
			j->start = -1; /* done */
		}
		while (head < rep->arrived && got) {
			struct job *j = &jobs[head];
			int64_t ahead = 0;

			sim = sim_now();
			CHECK(bf_store_wait_turn(&ahead, store, j->ticket,
			                         2 * 86400, store_now(sim),
			                         &err));
			if (ahead)
				break;
			snprintf(holder, sizeof(holder), "p%d-job%zu", me,
			         head + 1);
			if (lease_free(store, j, sim, holder, rep, &got))
				return 1;
			if (!got)
				break;
			CHECK(bf_store_wait_leave(store, j->ticket, &err));
			{
				struct bf_store_run run = { 0 };
				double len = j->end - j->arrive;

				run.kind = "run";
				run.device = (char *)"lab";
				run.started_at = store_now(sim);
				CHECK(bf_store_run_create(&j->run, store, &run,
				                          &err));
				j->start = sim_now();
				j->end = j->start + len;
				waits[rep->nwait++] = j->start - j->arrive;
			}
			head++;
		}
		/* sleep until the next arrival or end, or the next poll */
		wake = next < end ? next : end;
		for (size_t i = 0; i < head; i++)
			if (jobs[i].start >= 0 && jobs[i].dev >= 0 &&
			    jobs[i].end < wake)
				wake = jobs[i].end;
		sim = sim_now();
		if (wake > sim) {
			double ns = (wake - sim) / g_speed * 1e9;
			struct timespec ts;

			if (head < rep->arrived && ns > POLL_NS)
				ns = POLL_NS;
			ts.tv_sec = (time_t)(ns / 1e9);
			ts.tv_nsec = (long)fmod(ns, 1e9);
			t = now_ns();
			nanosleep(&ts, NULL);
			rep->slept_ns += now_ns() - t;
		}
	}
	/* the day is over: the busy time up to its end, then clean up */
	for (size_t i = 0; i < head; i++)
		if (jobs[i].start >= 0 && jobs[i].dev >= 0)
			rep->busy += end - jobs[i].start;
	bf_store_leases_release_own(store, NULL, &err);
	bf_store_close(store);
	free(jobs);
	return 0;
}

/*
 * The same day under an ideal scheduler: the very jobs the processes
 * drew (each process's stream regenerated from its seed, as
 * orchestrate draws it), served first come, first served by the first
 * free device at no cost at all. What is left between it and the store's
 * figures is the store and the polling. waits gets the waits in order of
 * arrival; *busy the busy device-seconds up to the end; returns the jobs
 * done.
 */
static size_t ideal_day(int nproc, double hours, double load, unsigned seed0,
                        size_t maxjobs, double *waits, size_t *nwait,
                        double *busy)
{
	double end = hours * 3600, mean_len = (LEN_MIN + LEN_MAX) / 2;
	double rate = load * g_ndev / mean_len / nproc;
	double *arrive = malloc((size_t)nproc * maxjobs * sizeof(*arrive));
	double *len = malloc((size_t)nproc * maxjobs * sizeof(*len));
	double *free_at = calloc((size_t)g_ndev, sizeof(*free_at));
	size_t n = 0, done = 0, *order;

	if (!arrive || !len || !free_at)
		exit(1);
	for (int me = 0; me < nproc; me++) {
		unsigned seed = seed0 * 7919u + (unsigned)me * 104729u + 1u;
		double next = -log(urand(&seed)) / rate;
		size_t k = 0;

		while (next < end && k++ < maxjobs) {
			arrive[n] = next;
			len[n++] = LEN_MIN + (LEN_MAX - LEN_MIN) * urand(&seed);
			next += -log(urand(&seed)) / rate;
		}
	}
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		exit(1);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	g_sort_key = arrive;
	qsort(order, n, sizeof(*order), by_key);
	*busy = 0;
	*nwait = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = order[i];
		int d = 0;
		double start;

		for (int k = 1; k < g_ndev; k++)
			if (free_at[k] < free_at[d])
				d = k;
		start = free_at[d] > arrive[j] ? free_at[d] : arrive[j];
		if (start >= end)
			continue; /* never leased within the day */
		waits[(*nwait)++] = start - arrive[j];
		free_at[d] = start + len[j];
		*busy += (free_at[d] < end ? free_at[d] : end) - start;
		done += free_at[d] <= end;
	}
	free(arrive);
	free(len);
	free(free_at);
	free(order);
	return done;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int nproc = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0;
	int ndev = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 0;
	double hours = argc > 4 ? strtod(argv[4], NULL) : 24;
	double speed = argc > 5 ? strtod(argv[5], NULL) : 720;
	double load = argc > 6 ? strtod(argv[6], NULL) : 0.85;
	unsigned seed = argc > 7 ? (unsigned)strtoul(argv[7], NULL, 10) : 1;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *store = NULL;
	size_t maxjobs, done = 0, arrived = 0, nw = 0, calls = 0;
	struct report *reps;
	double *waits, *all, busy = 0, slept = 0;
	int64_t t1;
	int bad = 0;
	char name[32];

	if (argc < 4 || nproc <= 0 || ndev <= 0 || hours <= 0 || speed <= 0 ||
	    load <= 0) {
		fprintf(stderr, "usage: lab_day LOCATION PROCS DEVICES [HOURS] "
		                "[SPEED] [LOAD] [SEED]\n");
		return 2;
	}
	g_ndev = ndev;
	g_speed = speed;
	if (bf_store_open(&store, argv[1], &err)) {
		fprintf(stderr, "lab_day: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < ndev; i++) {
		struct bf_store_device d = { 0 };

		dev_name(name, sizeof(name), i);
		d.name = name;
		d.type = "linux";
		d.labels = "lab";
		d.health = "good";
		if (bf_store_device_add(store, &d, &err)) {
			fprintf(stderr, "lab_day: %s\n", err.msg);
			return 1;
		}
	}
	bf_store_close(store);
	/* twice the expected jobs per process, and some */
	maxjobs = (size_t)(2 * load * ndev / ((LEN_MIN + LEN_MAX) / 2) * hours *
	                   3600 / nproc) +
	          1000;
	reps = mmap(NULL, (size_t)nproc * sizeof(*reps), PROT_READ | PROT_WRITE,
	            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	waits = mmap(NULL, (size_t)nproc * maxjobs * sizeof(*waits),
	             PROT_READ | PROT_WRITE,
	             MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reps == MAP_FAILED || waits == MAP_FAILED) {
		perror("lab_day: mmap");
		return 1;
	}
	g_epoch = (int64_t)time(NULL);
	g_t0 = now_ns();
	for (int i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("lab_day: fork");
			return 1;
		}
		if (pid == 0)
			_exit(orchestrate(argv[1], i, nproc, hours, load, seed,
			                  &reps[i], waits + (size_t)i * maxjobs,
			                  maxjobs));
	}
	for (int i = 0; i < nproc; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "lab_day: an orchestrator failed\n");
			bad = 1;
		}
	}
	t1 = now_ns();
	for (int i = 0; i < nproc; i++) {
		done += reps[i].done;
		arrived += reps[i].arrived;
		busy += reps[i].busy;
		calls += reps[i].calls;
		nw += reps[i].nwait;
		slept += (double)reps[i].slept_ns / 1e9;
	}
	all = malloc((nw ? nw : 1) * sizeof(*all));
	if (!all)
		return 1;
	nw = 0;
	for (int i = 0; i < nproc; i++)
		for (size_t k = 0; k < reps[i].nwait; k++)
			all[nw++] = waits[(size_t)i * maxjobs + k];
	qsort(all, nw, sizeof(*all), by_value);
	printf("%d devices, %d procs, %.0f h at %.0fx (%.1f s real), load "
	       "%.2f: %zu jobs arrived, %zu done, %.1f jobs/h; queue wait "
	       "median %.1f s, p95 %.1f s, max %.1f s (%zu leased); "
	       "utilisation %.1f%%; %.0f store calls/s, orchestrators busy "
	       "%.0f%% of the time%s\n",
	       ndev, nproc, hours, speed, (double)(t1 - g_t0) / 1e9, load,
	       arrived, done, (double)done / hours, nw ? all[nw / 2] : 0.0,
	       nw ? all[(size_t)(0.95 * (double)(nw - 1))] : 0.0,
	       nw ? all[nw - 1] : 0.0, nw,
	       100.0 * busy / ((double)ndev * hours * 3600),
	       (double)calls / ((double)(t1 - g_t0) / 1e9),
	       100.0 * (1 - slept / (nproc * (double)(t1 - g_t0) / 1e9)),
	       bad ? "; FAILED" : "");
	free(all);
	/* the same jobs under the ideal scheduler, for comparison */
	all = malloc(((size_t)nproc * maxjobs + 1) * sizeof(*all));
	if (!all)
		return 1;
	done = ideal_day(nproc, hours, load, seed, maxjobs, all, &nw, &busy);
	qsort(all, nw, sizeof(*all), by_value);
	printf("  the same jobs, ideal scheduler (first come first served, "
	       "no cost): %zu done, %.1f jobs/h; queue wait median %.1f s, "
	       "p95 %.1f s, max %.1f s; utilisation %.1f%%\n",
	       done, (double)done / hours, nw ? all[nw / 2] : 0.0,
	       nw ? all[(size_t)(0.95 * (double)(nw - 1))] : 0.0,
	       nw ? all[nw - 1] : 0.0,
	       100.0 * busy / ((double)ndev * hours * 3600));
	free(all);
	return bad;
}
