/*
 * store_ingest DB CSV [SAMPLES] [BATCH]: the store's ingest rate for raw
 * samples. Opens a fresh store at DB, records one run and adds SAMPLES
 * samples (default 1,000,000) with bf_store_sample_add_many in batches
 * of BATCH (default 1,000: a benchmark run's worth, as the orchestrator
 * adds them), then prints "samples seconds samples_per_s". Writes the
 * same rows, ids included, to CSV (in the samples table's column order)
 * so the script
 * can time sqlite3's .import of them as the peer.
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

int main(int argc, char **argv)
{
	size_t total = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000000;
	size_t batch = argc > 4 ? strtoul(argv[4], NULL, 10) : 1000;
	struct bf_store_run run = { 0 };
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_sample *rows;
	struct bf_store *store = NULL;
	static char names[64][32];
	int64_t run_id;
	FILE *csv;
	double t0, t;

	if (argc < 3 || !total || !batch) {
		fprintf(stderr,
		        "usage: store_ingest DB CSV [SAMPLES] [BATCH]\n");
		return 2;
	}
	if (bf_store_open(&store, argv[1], &err)) {
		fprintf(stderr, "store_ingest: %s\n", err.msg);
		return 1;
	}
	run.kind = "run";
	run.patch_commit = "2222222222222222222222222222222222222222";
	run.device = "bench";
	if (bf_store_run_create(&run_id, store, &run, &err)) {
		fprintf(stderr, "store_ingest: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < 64; i++)
		snprintf(names[i], sizeof(names[i]), "BM_bench_%02d/1024", i);
	rows = calloc(batch, sizeof(*rows));
	csv = fopen(argv[2], "w");
	if (!rows || !csv) {
		perror("store_ingest");
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
			        "%zu,%lld,%s,%s,%s,%s,%s,%s,%lld,%lld,%.17g,%s\n",
			        k + 1, (long long)run_id, s->benchmark,
			        s->metric, s->unit, s->side, s->commit_id,
			        s->device, (long long)s->repeat_idx,
			        (long long)s->iter_idx, s->value, s->suite);
		}
		t0 = now();
		if (bf_store_sample_add_many(store, rows, n, &err)) {
			fprintf(stderr, "store_ingest: %s\n", err.msg);
			return 1;
		}
		t += now() - t0;
		done += n;
	}
	fclose(csv);
	printf("%zu %.3f %.0f\n", total, t, (double)total / t);
	free(rows);
	bf_store_close(store);
	return 0;
}
