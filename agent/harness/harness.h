#ifndef BF_HARNESS_H
#define BF_HARNESS_H

/*
 * libbenchfarm_bench's insides (not installed). Every symbol here is
 * hidden from the shared library and carries the bf_bench__ prefix.
 *
 * Time goes through struct bf_bench_clock, so the unit tests
 * (tests/unit/harness) drive the warmup manager, loop sizing, pauses,
 * the throttle controller and the time cap with synthetic durations.
 * Constants from Jetpack Microbenchmark (androidx.benchmark: the
 * warmup manager, loop sizing and throttle pauses; docs/harness.md).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "benchfarm/bench.h"

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

#define BF_TIME_CAP_DEFAULT_S 600.0

/* The clock and the sleeper; the real ones are CLOCK_MONOTONIC and
 * nanosleep, the tests' are scripted. */
struct bf_bench_clock {
	uint64_t (*now_ns)(void *ctx);
	void (*sleep_ns)(void *ctx, uint64_t ns);
	void *ctx;
};

extern const struct bf_bench_clock bf_bench__real_clock;

/* Jetpack's WarmupManager. */
struct bf_bench_warmup {
	uint64_t iterations;
	uint64_t total_ns;
	uint64_t last_ns; /* the estimate handed to the measurements */
	float fast, slow;
	int similar;
	bool done;
};

void bf_bench__warmup_init(struct bf_bench_warmup *w);
/* One warmup iteration of d ns; returns true when the warmup is done. */
bool bf_bench__warmup_add(struct bf_bench_warmup *w, uint64_t d_ns);

/* Iterations per measurement: clamp(target / estimate, 1, 1e6). */
uint64_t bf_bench__loop_iterations(uint64_t target_ns, uint64_t estimate_ns);

struct bf_bench_stats {
	double min, max, median, mean, stddev, cv, p90, p95, p99;
};

/*
 * Statistics of n per-measurement values (all zero when n is 0): the
 * percentiles interpolate between ranks as Jetpack does, stddev is the
 * sample standard deviation (n - 1) and cv = stddev / mean. v is not
 * changed. Cannot fail (aborts when out of memory).
 */
void bf_bench__stats(struct bf_bench_stats *out, const double *v, size_t n);

/*
 * The throttle controller. The baseline is the minimum per-iteration
 * time of a fixed workload, measured once; after a timing phase the
 * workload runs again, and more than 10% slower means throttled: sleep,
 * then redo the phase, at most `retries` times per benchmark. When the
 * budget is spent the phase's data is kept and the baseline is measured
 * again for the next benchmark.
 */
struct bf_bench_throttle {
	double baseline_ns; /* 0: not measured yet */
	int retries, retries_left;
	uint64_t sleep_ns; /* per detection */
	uint64_t slept_ns; /* this benchmark's total */
	bool enabled;
};

struct bf_bench_throttle_env {
	/* the workload's minimum per-iteration time, in ns */
	double (*measure_work)(void *ctx);
	void *ctx;
	const struct bf_bench_clock *clock; /* sleeps through this */
};

enum bf_bench_throttle_verdict {
	BF_THROTTLE_KEEP, /* keep the phase's data */
	BF_THROTTLE_REDO, /* slept: measure the phase again */
};

void bf_bench__throttle_init(struct bf_bench_throttle *t, bool enabled,
                             int retries, uint64_t sleep_ns);
/* At the start of each benchmark: a fresh budget, a baseline if none. */
void bf_bench__throttle_begin(struct bf_bench_throttle *t,
                              const struct bf_bench_throttle_env *env);
/* After a timing phase; the message of a sleep goes to log (or none). */
enum bf_bench_throttle_verdict
bf_bench__throttle_after_phase(struct bf_bench_throttle *t,
                               const struct bf_bench_throttle_env *env,
                               FILE *log);

/* The real workload: 400 KB copied 10 times, then a 4x4 matrix
 * translation (Jetpack's translateM) timed with the clock in ctx. */
double bf_bench__throttle_work(void *clock);

/*
 * The contents of a JSON string for s (escaped, without quotes) into
 * out of size cap, always terminated when cap > 0; returns the full
 * length, as snprintf does. Invalid UTF-8 becomes U+FFFD, so that any
 * bytes (a program name, a host name) give valid JSON.
 */
size_t bf_bench__json_escape(char *out, size_t cap, const char *s);

/* The registry that the BF_BENCHMARK macros fill. */
struct bf_bench_entry {
	char *name; /* "name" or "name/ARG0/ARG1" */
	bf_bench_fn *fn;
	long long *args; /* nargs values, owned */
	int nargs;
};

/*
 * The registered runs (borrowed; valid until the program ends), and the
 * first registration mistake (NULL when none).
 */
const struct bf_bench_entry *bf_bench__entries(size_t *n_out);
const char *bf_bench__registration_error(void);
/* Forgets every registration and mistake (for tests). */
void bf_bench__registry_clear(void);

/* What one benchmark run is asked to do. */
struct bf_bench_run_opts {
	size_t measurements; /* 50 */
	uint64_t target_ns; /* per measurement, 100 ms */
	uint64_t time_cap_ns; /* of the body's time; 0: none */
	bool dry_run; /* one measurement of one iteration, no warmup */
	const struct bf_bench_clock *clock;
	FILE *log; /* throttle messages; NULL: none */
};

struct bf_bench_result {
	const struct bf_bench_entry *e;
	double *runs; /* ns per iteration, one per measurement; owned */
	size_t nruns;
	uint64_t warmup_iterations, repeat_iterations, total_ns;
	uint64_t slept_ns; /* thermal throttle sleeps */
	bool timed_out;
	const char *error; /* NULL: measured; else why not (borrowed) */
	char error_buf[200];
};

/*
 * Runs benchmark e: warmup, timing, and the throttle check (which may
 * sleep and redo the timing; th NULL or disabled: none). Fills res,
 * whose runs the caller frees with bf_bench__result_release. Cannot fail
 * (a misbehaving benchmark is reported in res->error).
 */
void bf_bench__run(struct bf_bench_result *res, const struct bf_bench_entry *e,
                   const struct bf_bench_run_opts *o,
                   struct bf_bench_throttle *th,
                   const struct bf_bench_throttle_env *env);
void bf_bench__result_release(struct bf_bench_result *res);

/*
 * What the watchdog thread and the crash handler read: the benchmark
 * whose body is running, and the real-clock time past which it has to
 * be back in bf_bench_keep_running (0: no limit, e.g. during throttle
 * sleeps).
 */
struct bf_bench_watch {
	_Atomic(const char *) name; /* lock-free: read in a signal handler */
	atomic_uint_fast64_t deadline_ns;
};
extern struct bf_bench_watch bf_bench__watch;

/* The command line. */
struct bf_bench_opts {
	const char *filter, *out;
	bool dry_run, list, throttle, sustained;
	int repeats, retries;
	double time_cap_s, sleep_s;
	uint64_t target_ns;
};

enum bf_bench_opts_result {
	BF_OPTS_RUN,
	BF_OPTS_HELP, /* --help: bf_bench__usage, exit 0 */
	BF_OPTS_USAGE, /* a usage error, described in msg: exit 2 */
};

void bf_bench__opts_init(struct bf_bench_opts *o);
/* Parses argv[1..argc); values are borrowed from argv. */
enum bf_bench_opts_result bf_bench__opts_parse(struct bf_bench_opts *o,
                                               int argc, char **argv, char *msg,
                                               size_t msgsz);
/* Prints the --help text. */
void bf_bench__usage(FILE *f, const char *prog);

/* The machine, for the JSON's context. */
struct bf_bench_context {
	long long cpu_cores; /* cpuN directories, online or not */
	long long cpu_max_freq_hz; /* -1: unknown */
	long long mem_total_bytes; /* -1: unknown */
	bool cpu_locked; /* Jetpack's rule (report.c) */
	bool sustained; /* the busy-spin thread runs */
	bool priority_raised; /* nice -20 was allowed */
	char device[256], model[256], fingerprint[512];
	/* android.os.Build's, from root/system/build.prop on Android;
	 * elsewhere "unknown" (Build.UNKNOWN) and sdk -1 */
	char brand[128], build_id[128], build_type[64], codename[64];
	long long sdk;
};

/* Reads root/sys/devices/system/cpu and root/proc (root "" is /). */
void bf_bench__context_probe(struct bf_bench_context *out, const char *root);
/* Jetpack's "locked clocks" decision from root/sys/devices/system/cpu. */
bool bf_bench__cpu_locked(const char *root);

/*
 * Writes Jetpack's JSON for results r[0..n) (failed ones go to a
 * "failures" list, which Jetpack's readers ignore). Numbers are written
 * in the C locale whatever the program set. Returns 0, or -1 when
 * writing failed (errno set).
 */
int bf_bench__write_json(FILE *f, const struct bf_bench_context *c,
                         const struct bf_bench_result *r, size_t n,
                         const char *class_name);

/* The console table: its header, and one line per result. */
void bf_bench__table_header(FILE *f);
void bf_bench__table_row(FILE *f, const struct bf_bench_result *r);

#endif /* BF_HARNESS_H */
