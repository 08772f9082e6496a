#ifndef BF_HARNESS_H
#define BF_HARNESS_H

/*
 * The harness's decisions, apart from any clock so that tests drive them
 * with synthetic durations (tests/unit/harness): Jetpack's warmup
 * manager, loop sizing, the statistics of a benchmark's measurements and
 * the thermal-throttle controller. Constants from
 * ../shared/reference/jetpack-benchmark.md (sections 1 to 3).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_WARMUP_MIN_DURATION_NS 250000000ULL /* 250 ms */
#define BF_WARMUP_MAX_DURATION_NS 8000000000ULL /* 8 s */
#define BF_WARMUP_MIN_ITERATIONS  30
#define BF_WARMUP_MIN_SIMILAR     40 /* done when similar > 40 */
#define BF_WARMUP_FAST_RATIO      0.1f
#define BF_WARMUP_SLOW_RATIO      0.005f
#define BF_WARMUP_THRESHOLD       0.04f

#define BF_MEASUREMENTS_DEFAULT 50
#define BF_TARGET_NS_DEFAULT    100000000ULL /* 100 ms per measurement */
#define BF_ITERATIONS_MIN       1
#define BF_ITERATIONS_MAX       1000000

#define BF_THROTTLE_FACTOR  1.10 /* slower than baseline by 10% */
#define BF_THROTTLE_RETRIES 2
#define BF_THROTTLE_SLEEP_S 90.0

struct bf_warmup {
	uint64_t iterations;
	uint64_t total_ns;
	uint64_t last_ns; /* the estimate handed to the measurements */
	float fast, slow;
	int similar;
	bool done;
};

void bf_warmup_init(struct bf_warmup *w);
/* One warmup iteration of d ns; returns true when the warmup is done. */
bool bf_warmup_add(struct bf_warmup *w, uint64_t d_ns);

/* Iterations per measurement for target ns: clamp(target / est, 1, 1e6). */
uint64_t bf_loop_iterations(uint64_t target_ns, uint64_t estimate_ns);

struct bf_bench_stats {
	double min, max, median, mean, stddev, cv, p90, p95, p99;
};

/* Statistics of n per-measurement values (n >= 1); v is not changed. */
void bf_bench_stats(struct bf_bench_stats *s, const double *v, size_t n);

/*
 * The throttle controller. The baseline is the minimum per-iteration
 * time of a fixed workload, measured once; after a timing phase the
 * workload runs again, and more than 10% slower means throttled: sleep,
 * then redo the phase, at most `retries` times per benchmark. When the
 * budget is spent the phase's data is kept and the baseline is measured
 * again for the next benchmark.
 */
struct bf_throttle {
	double baseline_ns; /* 0: not measured yet */
	int retries_left;
	double sleep_s; /* per detection */
	double slept_s; /* this benchmark's total */
	bool enabled;
};

struct bf_throttle_env {
	/* the workload's minimum per-iteration time, in ns */
	double (*measure_work)(void *ctx);
	void (*sleep)(void *ctx, double seconds);
	void *ctx;
};

enum bf_throttle_verdict {
	BF_THROTTLE_KEEP, /* keep the phase's data */
	BF_THROTTLE_REDO, /* slept: measure the phase again */
};

void bf_throttle_init(struct bf_throttle *t, bool enabled, int retries,
                      double sleep_s);
/* At the start of each benchmark: a fresh budget, baseline if none. */
void bf_throttle_begin(struct bf_throttle *t, const struct bf_throttle_env *e,
                       int retries);
/* After a timing phase. */
enum bf_throttle_verdict
bf_throttle_after_phase(struct bf_throttle *t, const struct bf_throttle_env *e);

/* JSON string contents of s (escaped, no quotes) into out; returns len. */
size_t bf_json_escape(char *out, size_t cap, const char *s);

#endif /* BF_HARNESS_H */
