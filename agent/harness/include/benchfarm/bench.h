#ifndef BENCHFARM_BENCH_H
#define BENCHFARM_BENCH_H

/*
 * libbenchfarm_bench: microbenchmarks for C and C++ measured the way
 * Jetpack Microbenchmark measures Kotlin: warmup until the fast and slow
 * moving averages of the iteration time agree, loops sized to a target
 * time per measurement, 50 measurements, the clock read only at
 * measurement boundaries, thermal throttling detected and slept off, and
 * JSON in Jetpack's schema.
 *
 *     #include <benchfarm/bench.h>
 *
 *     BF_BENCHMARK(parse_small)
 *     {
 *         while (bf_bench_keep_running(state))
 *             bf_bench_do_not_optimize(parse("{}"));
 *     }
 *
 *     BF_BENCHMARK_ARGS(sort, 64, 1024, 16384)   // runs once per value
 *     {
 *         long long n = bf_bench_arg(state);
 *         ...
 *     }
 *
 * Build: cc bench.c $(pkg-config --cflags --libs benchfarm-bench). A
 * program without main gets one; with its own main it calls
 * bf_bench_main(argc, argv). Run it with --help for the flags.
 */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bf_bench_state bf_bench_state;
typedef void (*bf_bench_fn)(bf_bench_state *state);

/* Registration, done by the macros below before main runs. */
void bf_bench_register(const char *name, bf_bench_fn fn, const long long *args,
                       int nargs);
void bf_bench_register_range(const char *name, bf_bench_fn fn, long long lo,
                             long long hi, long long mult);

/*
 * The start of every state: what the inline fast path of
 * bf_bench_keep_running touches, so that an iteration costs a decrement
 * and a branch, as in Google Benchmark's loop. Not for direct use.
 */
struct bf_bench_state_head {
	unsigned long long remaining; /* iterations left in this measurement */
};

/* The end of a measurement; the start of the next one (library). */
int bf_bench__boundary(bf_bench_state *state);

/* Non-zero while the benchmark should run one more iteration. */
static inline int bf_bench_keep_running(bf_bench_state *state)
{
	struct bf_bench_state_head *h =
	        (struct bf_bench_state_head *)(void *)state;

	if (__builtin_expect(h->remaining != 0, 1)) {
		h->remaining--;
		return 1;
	}
	return bf_bench__boundary(state);
}
/* Exclude per-iteration set-up from the time: pause, work, resume. */
void bf_bench_pause_timing(bf_bench_state *state);
void bf_bench_resume_timing(bf_bench_state *state);
/* The parameter of this run (BF_BENCHMARK_ARGS/RANGE), 0 otherwise. */
long long bf_bench_arg(const bf_bench_state *state);

/* Run every registered benchmark, as main does. Returns the exit code. */
int bf_bench_main(int argc, char **argv);

/* The compiler must assume p's memory is read (and the value used). */
static inline void bf_bench_do_not_optimize(const void *p)
{
	__asm__ __volatile__("" : : "g"(p) : "memory");
}

/* A compiler barrier: all memory may have been read and written. */
static inline void bf_bench_clobber_memory(void)
{
	__asm__ __volatile__("" : : : "memory");
}

#define BF_BENCH__FN(name)  bf_bench__fn_##name
#define BF_BENCH__REG(name) bf_bench__reg_##name

#define BF_BENCHMARK(name)                                                 \
	static void BF_BENCH__FN(name)(bf_bench_state * state);            \
	__attribute__((constructor)) static void BF_BENCH__REG(name)(void) \
	{                                                                  \
		bf_bench_register(#name, BF_BENCH__FN(name), 0, 0);        \
	}                                                                  \
	static void BF_BENCH__FN(name)(bf_bench_state * state)

/* One run per listed value: name/VALUE, params {"arg": "VALUE"}. */
#define BF_BENCHMARK_ARGS(name, ...)                                       \
	static void BF_BENCH__FN(name)(bf_bench_state * state);            \
	__attribute__((constructor)) static void BF_BENCH__REG(name)(void) \
	{                                                                  \
		static const long long args[] = { __VA_ARGS__ };           \
		bf_bench_register(#name, BF_BENCH__FN(name), args,         \
		                  (int)(sizeof(args) / sizeof(args[0])));  \
	}                                                                  \
	static void BF_BENCH__FN(name)(bf_bench_state * state)

/* lo, lo*mult, ... and hi, as Google Benchmark's Range. */
#define BF_BENCHMARK_RANGE(name, lo, hi, mult)                             \
	static void BF_BENCH__FN(name)(bf_bench_state * state);            \
	__attribute__((constructor)) static void BF_BENCH__REG(name)(void) \
	{                                                                  \
		bf_bench_register_range(#name, BF_BENCH__FN(name), lo, hi, \
		                        mult);                             \
	}                                                                  \
	static void BF_BENCH__FN(name)(bf_bench_state * state)

#ifdef __cplusplus
}
#endif

#endif /* BENCHFARM_BENCH_H */
