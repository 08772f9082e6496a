/*
 * pg_ingest LOCATION MODE CSV [SAMPLES] [BATCH]: the store's ingest rate
 * for raw samples on the store at LOCATION (a PostgreSQL URI or key=value
 * string; a path works too). Opens the store, records one run and adds
 * SAMPLES samples (default 200,000) in batches of BATCH (default 1,000:
 * a benchmark run's worth, as the orchestrator adds them), timing only
 * the store's calls. MODE:
 *   many    bf_store_sample_add_many per batch: the orchestrator's path
 *           (on PostgreSQL one COPY per batch)
 *   single  bf_store_begin, bf_store_sample_add per sample, commit: one
 *           INSERT per sample in one transaction per batch, the path
 *           add_many took on PostgreSQL before COPY
 *   none    create the schema and the run only (for a peer to fill)
 * Prints "samples seconds samples_per_s". Writes the same rows to CSV
 * (the samples table's columns but id, in SAMPLE_COLS order) so that the
 * script can time PostgreSQL's own COPY of them (psql \copy) as the peer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchfarm/err.h"
#include "store/store.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const struct bf_err *err)
{
	fprintf(stderr, "pg_ingest: %s\n", err->msg);
	return 1;
}

/* Store rows[0..n) the way mode says. */
static int add(struct bf_store *store, const char *mode,
               const struct bf_store_sample *rows, size_t n, struct bf_err *err)
{
	int rc;

	if (!strcmp(mode, "many"))
		return bf_store_sample_add_many(store, rows, n, err);
	if ((rc = bf_store_begin(store, err)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		rc = bf_store_sample_add(store, &rows[i], err);
	if (rc) {
		bf_store_rollback(store, NULL);
		return rc;
	}
	return bf_store_commit(store, err);
}

int main(int argc, char **argv)
{
	size_t total = argc > 4 ? strtoul(argv[4], NULL, 10) : 200000;
	size_t batch = argc > 5 ? strtoul(argv[5], NULL, 10) : 1000;
	struct bf_store_run run = { 0 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_sample *rows;
	struct bf_store *store = NULL;
	static char names[64][32];
	const char *mode;
	int64_t run_id;
	FILE *csv;
	double t0, t;

	if (argc < 4 || !batch ||
	    (strcmp(argv[2], "many") && strcmp(argv[2], "single") &&
	     strcmp(argv[2], "none"))) {
		fprintf(stderr, "usage: pg_ingest LOCATION many|single|none "
		                "CSV [SAMPLES] [BATCH]\n");
		return 2;
	}
	mode = argv[2];
	if (bf_store_open(&store, argv[1], &err))
		return fail(&err);
	run.kind = "run";
	run.patch_commit = "2222222222222222222222222222222222222222";
	run.device = "bench";
	if (bf_store_run_create(&run_id, store, &run, &err))
		return fail(&err);
	if (!strcmp(mode, "none")) {
		printf("%lld\n", (long long)run_id);
		bf_store_close(store);
		return 0;
	}
	for (int i = 0; i < 64; i++)
		snprintf(names[i], sizeof(names[i]), "BM_bench_%02d/1024", i);
	rows = calloc(batch, sizeof(*rows));
	csv = fopen(argv[3], "w");
	if (!rows || !csv) {
		perror("pg_ingest");
		return 1;
	}
	t = 0;
	for (size_t done = 0; done < total;) {
		size_t n = total - done < batch ? total - done : batch;

		for (size_t i = 0; i < n; i++) {
			size_t k = done + i;
			struct bf_store_sample *s = &rows[i];

			s->run_id = run_id;
			s->benchmark = names[(k / 50) % 64];
			s->metric = "real_time";
			s->unit = "ns";
			s->side = "commit";
			s->commit_id = run.patch_commit;
			s->device = "bench";
			s->suite = "micro";
			s->repeat_idx = (int64_t)(k / 50 / 64);
			s->iter_idx = (int64_t)(k % 50);
			s->value = 1000.0 + (double)(k % 977) * 0.37;
			fprintf(csv,
			        "%lld,%s,%s,%s,%s,%s,%s,%lld,%lld,%.17g,%s\n",
			        (long long)run_id, s->benchmark, s->metric,
			        s->unit, s->side, s->commit_id, s->device,
			        (long long)s->repeat_idx,
			        (long long)s->iter_idx, s->value, s->suite);
		}
		t0 = now();
		if (add(store, mode, rows, n, &err))
			return fail(&err);
		t += now() - t0;
		done += n;
	}
	fclose(csv);
	printf("%zu %.3f %.0f\n", total, t, (double)total / t);
	free(rows);
	bf_store_close(store);
	return 0;
}
