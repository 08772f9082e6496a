/*
 * lease_contend LOCATION PROCS DEVICES SECONDS: lease throughput of the
 * store at LOCATION (a PostgreSQL URI or key=value string, or a SQLite
 * path). Registers DEVICES devices (dev0000, ...), then PROCS processes,
 * each with its own connection, loop for SECONDS: lease the first free
 * device in name order (bf_store_lease_take on each until one succeeds,
 * as the orchestrator's dispatch does), then release it
 * (bf_store_lease_release). Prints the cycles per second and what the
 * takes cost.
 *
 * No double lease, checked after the run from what each process
 * recorded for every lease it got (the device, its fencing token, and
 * CLOCK_MONOTONIC just after the take returned and just before the
 * release was called): every take bumps the device's token, so a
 * device's tokens must be exactly 1, 2, ... with none twice, and in
 * token order each lease must begin after the one before it ended.
 * Exits 1, naming the device, on any violation, and on any error of the
 * store other than a device being busy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "store/store.h"

struct hold {
	int32_t dev;
	int64_t token;
	int64_t t0, t1; /* ns */
};

struct proc {
	size_t n; /* holds recorded */
	size_t busy; /* takes refused: the device was leased */
	int failed; /* the process's exit status */
};

#define MAX_HOLDS (1u << 20)

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "dev%04d", i);
}

/* One contender: cycles until deadline (ns), recording its holds. */
static int contend(const char *location, int me, int ndev, int64_t deadline,
                   struct proc *p, struct hold *holds)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *store = NULL;
	char holder[32], dev[32];

	snprintf(holder, sizeof(holder), "bench-p%d", me);
	if (bf_store_open(&store, location, &err)) {
		fprintf(stderr, "lease_contend: %s\n", err.msg);
		return 1;
	}
	while (now_ns() < deadline && p->n < MAX_HOLDS) {
		int64_t token = 0;
		int got = -1;

		for (int i = 0; i < ndev && got < 0; i++) {
			int rc;

			name(dev, sizeof(dev), i);
			rc = bf_store_lease_take(store, dev, holder, 600,
			                         (int64_t)time(NULL), &token,
			                         &err);
			if (rc == 0)
				got = i;
			else if (rc == BF_EBUSY)
				p->busy++;
			else {
				fprintf(stderr, "lease_contend: %s\n", err.msg);
				return 1;
			}
		}
		if (got < 0)
			continue; /* all leased: scan again */
		holds[p->n].dev = got;
		holds[p->n].token = token;
		holds[p->n].t0 = now_ns();
		holds[p->n].t1 = now_ns();
		if (bf_store_lease_release(store, dev, holder, &err)) {
			fprintf(stderr, "lease_contend: %s\n", err.msg);
			return 1;
		}
		p->n++;
	}
	bf_store_close(store);
	return 0;
}

static int by_dev_token(const void *a, const void *b)
{
	const struct hold *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->token < y->token ? -1 : x->token > y->token;
}

/* The double-lease checks over all holds; 0 when none is found. */
static int check(struct hold *all, size_t n)
{
	int bad = 0;

	qsort(all, n, sizeof(*all), by_dev_token);
	for (size_t i = 0; i < n; i++) {
		bool first = i == 0 || all[i - 1].dev != all[i].dev;
		int64_t want = first ? 1 : all[i - 1].token + 1;

		if (all[i].token != want) {
			fprintf(stderr,
			        "DOUBLE LEASE: dev%04d: token %lld where %lld "
			        "was due (a token given twice or a take not "
			        "recorded)\n",
			        all[i].dev, (long long)all[i].token,
			        (long long)want);
			bad = 1;
		}
		if (!first && all[i].t0 < all[i - 1].t1) {
			fprintf(stderr,
			        "DOUBLE LEASE: dev%04d: lease %lld began "
			        "%lld ns before lease %lld ended\n",
			        all[i].dev, (long long)all[i].token,
			        (long long)(all[i - 1].t1 - all[i].t0),
			        (long long)all[i - 1].token);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *store = NULL;
	struct bf_store_lease *leases = NULL;
	int nproc, ndev, seconds, bad = 0;
	size_t nleases = 0, total = 0, busy = 0, k = 0;
	struct proc *procs;
	struct hold *holds, *all;
	int64_t t0, t1;
	char dev[32];

	if (argc != 5 || (nproc = (int)strtol(argv[2], NULL, 10)) <= 0 ||
	    (ndev = (int)strtol(argv[3], NULL, 10)) <= 0 ||
	    (seconds = (int)strtol(argv[4], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: lease_contend LOCATION PROCS DEVICES "
		                "SECONDS\n");
		return 2;
	}
	if (bf_store_open(&store, argv[1], &err)) {
		fprintf(stderr, "lease_contend: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < ndev; i++) {
		struct bf_store_device d = { 0 };

		name(dev, sizeof(dev), i);
		d.name = dev;
		d.type = "linux";
		d.health = "good";
		if (bf_store_device_add(store, &d, &err)) {
			fprintf(stderr, "lease_contend: %s\n", err.msg);
			return 1;
		}
	}
	bf_store_close(store);
	procs = mmap(NULL, (size_t)nproc * sizeof(*procs),
	             PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	holds = mmap(NULL, (size_t)nproc * MAX_HOLDS * sizeof(*holds),
	             PROT_READ | PROT_WRITE,
	             MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (procs == MAP_FAILED || holds == MAP_FAILED) {
		perror("lease_contend: mmap");
		return 1;
	}
	t0 = now_ns();
	for (int i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("lease_contend: fork");
			return 1;
		}
		if (pid == 0)
			_exit(contend(argv[1], i, ndev,
			              t0 + (int64_t)seconds * 1000000000,
			              &procs[i],
			              holds + (size_t)i * MAX_HOLDS));
	}
	for (int i = 0; i < nproc; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "lease_contend: a contender failed\n");
			bad = 1;
		}
	}
	t1 = now_ns();
	for (int i = 0; i < nproc; i++) {
		total += procs[i].n;
		busy += procs[i].busy;
	}
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return 1;
	for (int i = 0; i < nproc; i++)
		for (size_t j = 0; j < procs[i].n; j++)
			all[k++] = holds[(size_t)i * MAX_HOLDS + j];
	bad |= check(all, total);
	if (bf_store_open(&store, argv[1], &err) ||
	    bf_store_lease_list(&leases, &nleases, store, &err)) {
		fprintf(stderr, "lease_contend: %s\n", err.msg);
		return 1;
	}
	if (nleases) {
		fprintf(stderr,
		        "lease_contend: %zu leases left after the run\n",
		        nleases);
		bad = 1;
	}
	bf_store_leases_free(leases, nleases);
	bf_store_close(store);
	printf("%d procs, %d devices, %.1f s: %zu lease/release cycles, "
	       "%.0f cycles/s, %.2f busy takes per cycle; double-lease "
	       "check: %s\n",
	       nproc, ndev, (double)(t1 - t0) / 1e9, total,
	       (double)total / ((double)(t1 - t0) / 1e9),
	       total ? (double)busy / (double)total : 0.0,
	       bad ? "FAILED" : "ok");
	free(all);
	return bad;
}
