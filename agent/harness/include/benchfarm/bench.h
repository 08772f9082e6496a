#ifndef BF_BENCH_H
#define BF_BENCH_H

/*
 * libbenchfarm_bench: microbenchmarks for C and C++ measured the way
 * Jetpack Microbenchmark measures Kotlin: warmup until the fast and slow
 * moving averages of the iteration time agree, loops sized to a target
 * time per measurement, 50 measurements, the clock read only at
 * measurement boundaries, thermal throttling detected and slept off, and
 * JSON in Jetpack's schema (docs/harness.md).
 *
 *     #include <benchfarm/bench.h>
 *
 *     BF_BENCHMARK(parse_small)
 *     {
 *         while (bf_bench_keep_running(state))
 *             bf_bench_do_not_optimize(parse("{}"));
 *     }
 *
 *     BF_BENCHMARK_ARGS(sort, 64, 1024, 16384)   // sort/64, sort/1024, ...
 *     {
 *         long long n = bf_bench_arg(state);
 *         ...
 *     }
 *
 *     BF_BENCHMARK_ARGS_N(matmul, 2, 64, 1, 64, 8)  // matmul/64/1, /64/8
 *     {
 *         long long n = bf_bench_arg(state, 0), k = bf_bench_arg(state, 1);
 *         ...
 *     }
 *
 * Build: cc bench.c $(pkg-config --cflags --libs benchfarm-bench). A
 * program without main gets one; with its own main it calls
 * bf_bench_main(argc, argv). Run it with --help for the flags.
 *
 * The library is not thread-safe: benchmarks run one at a time, on the
 * thread that called bf_bench_main, and a state is used by that thread
 * only.
 */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define BF_BENCH_API __attribute__((visibility("default")))
#else
#define BF_BENCH_API
#endif

/* One run of a benchmark: its loop, timing and arguments. Opaque. */
struct bf_bench_state;

/* A benchmark's body. */
typedef void bf_bench_fn(struct bf_bench_state *state);

/*
 * Registration, done by the BF_BENCHMARK macros before main runs; a
 * program with its own main may also call these before bf_bench_main.
 * name is copied and must be unique (runs with arguments are named
 * NAME/ARG0/ARG1...). Mistakes (a duplicate name, a count of values that
 * is not a multiple of per_run, lo > hi) are reported by bf_bench_main,
 * which then exits with status 2. Cannot fail otherwise (aborts when out
 * of memory).
 */
BF_BENCH_API void bf_bench_register(const char *name, bf_bench_fn *fn);
/*
 * One run per row of args: nvalues values, per_run of them per run, in
 * row order (per_run 1 is a list like Google Benchmark's Arg, more is
 * Args). args is copied.
 */
BF_BENCH_API void bf_bench_register_args(const char *name, bf_bench_fn *fn,
                                         const long long *args, int per_run,
                                         int nvalues);
/* lo, lo*mult, lo*mult^2, ... below hi, then hi (Google Benchmark's
 * Range; mult < 2 means 8). */
BF_BENCH_API void bf_bench_register_range(const char *name, bf_bench_fn *fn,
                                          long long lo, long long hi,
                                          long long mult);

/*
 * The start of every state: what the inline fast path of
 * bf_bench_keep_running touches, so that an iteration costs a decrement
 * and a branch, as in Google Benchmark's loop. Not for direct use.
 */
struct bf_bench_state_head {
	unsigned long long remaining; /* iterations left in this measurement */
};

/* The end of a measurement; the start of the next one. Not for direct
 * use: bf_bench_keep_running calls it. */
BF_BENCH_API int bf_bench__boundary(struct bf_bench_state *state);

/*
 * Non-zero while the benchmark should run one more iteration. The clock
 * is read only when a measurement ends, never per iteration. Once it
 * has returned 0 it keeps returning 0.
 */
static inline int bf_bench_keep_running(struct bf_bench_state *state)
{
	struct bf_bench_state_head *h =
	        (struct bf_bench_state_head *)(void *)state;

#if defined(__GNUC__) || defined(__clang__)
	if (__builtin_expect(h->remaining != 0, 1)) {
#else
	if (h->remaining != 0) {
#endif
		h->remaining--;
		return 1;
	}
	return bf_bench__boundary(state);
}

/*
 * The same loop with the iteration count in a local, as Google
 * Benchmark's `for (auto _ : state)` keeps it:
 *
 *     BF_BENCH_LOOP(state) {
 *         ...
 *     }
 *
 * An iteration then costs what the body costs (an empty body compiles
 * to nothing), where bf_bench_keep_running decrements a counter in
 * memory, about a cycle. Leaving the loop with break or goto fails the
 * benchmark with a message; return after the loop as usual. Do not mix
 * it with bf_bench_keep_running in one run.
 */
#define BF_BENCH_LOOP(state)                                                   \
	for (unsigned long long bf_bench__n = bf_bench__batch((state), 0);     \
	     bf_bench__n; bf_bench__n = bf_bench__batch((state), bf_bench__n)) \
		for (; bf_bench__n; bf_bench__n--)

/* The next measurement's iteration count for BF_BENCH_LOOP, 0 when
 * done; left is what the last batch did not run (0 unless it broke
 * out). Not for direct use. */
BF_BENCH_API unsigned long long bf_bench__batch(struct bf_bench_state *state,
                                                unsigned long long left);

/*
 * Exclude per-iteration set-up from the time: pause, work, resume. Each
 * call reads the clock, so keep the paused work well above a
 * microsecond. Pausing twice, resuming without a pause, or ending a
 * measurement while paused fails the benchmark with a message.
 */
BF_BENCH_API void bf_bench_pause_timing(struct bf_bench_state *state);
BF_BENCH_API void bf_bench_resume_timing(struct bf_bench_state *state);

/*
 * bf_bench_arg(state) or bf_bench_arg(state, i): argument i (from 0) of
 * this run (BF_BENCHMARK_ARGS, _ARGS_N, _RANGE); 0 for a benchmark
 * without arguments. An index past the run's arguments fails the
 * benchmark with a message and gives 0.
 */
BF_BENCH_API long long bf_bench__arg(struct bf_bench_state *state, int i);
#define bf_bench_arg(...)            BF_BENCH__ARG(__VA_ARGS__, 0, 0)
#define BF_BENCH__ARG(state, i, ...) bf_bench__arg((state), (i))

/*
 * Runs the registered benchmarks as the flags say (--help lists them).
 * Returns the exit status: 0, 1 when a benchmark failed or was stopped,
 * 2 for a usage or registration error; 3 (a benchmark that never
 * returned to bf_bench_keep_running past its time cap) exits the
 * process from the watchdog.
 */
BF_BENCH_API int bf_bench_main(int argc, char **argv);

/* The out-of-line barriers of compilers without GNU inline assembly. */
BF_BENCH_API void bf_bench__use(const void *p);
BF_BENCH_API void bf_bench__barrier(void);

/*
 * The compiler must assume that p's memory is read, so computing it
 * cannot be optimised away: bf_bench_do_not_optimize(&result).
 */
static inline void bf_bench_do_not_optimize(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__asm__ __volatile__("" : : "g"(p) : "memory");
#else
	bf_bench__use(p);
#endif
}

/* A compiler barrier: all memory may have been read and written. */
static inline void bf_bench_clobber_memory(void)
{
#if defined(__GNUC__) || defined(__clang__)
	__asm__ __volatile__("" : : : "memory");
#else
	bf_bench__barrier();
#endif
}

/*
 * The registering macros need constructor functions (GCC, Clang); with
 * other compilers, call bf_bench_register* from main.
 */
#if defined(__GNUC__) || defined(__clang__)
#define BF_BENCH__CTOR      __attribute__((constructor))
#define BF_BENCH__FN(name)  bf_bench__fn_##name
#define BF_BENCH__REG(name) bf_bench__reg_##name
#define BF_BENCH__COUNT(a)  ((int)(sizeof(a) / sizeof((a)[0])))

/* A benchmark; its body sees its state as `state`. */
#define BF_BENCHMARK(name)                                             \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state); \
	BF_BENCH__CTOR static void BF_BENCH__REG(name)(void)           \
	{                                                              \
		bf_bench_register(#name, BF_BENCH__FN(name));          \
	}                                                              \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state)

/* One run per listed value: name/VALUE, params {"arg": "VALUE"}. */
#define BF_BENCHMARK_ARGS(name, ...)                                       \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state);     \
	BF_BENCH__CTOR static void BF_BENCH__REG(name)(void)               \
	{                                                                  \
		static const long long args[] = { __VA_ARGS__ };           \
		bf_bench_register_args(#name, BF_BENCH__FN(name), args, 1, \
		                       BF_BENCH__COUNT(args));             \
	}                                                                  \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state)

/*
 * n arguments per run, the runs' values one after the other:
 * name/V0/V1..., params {"arg0": "V0", "arg1": "V1", ...}.
 */
#define BF_BENCHMARK_ARGS_N(name, n, ...)                                  \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state);     \
	BF_BENCH__CTOR static void BF_BENCH__REG(name)(void)               \
	{                                                                  \
		static const long long args[] = { __VA_ARGS__ };           \
		bf_bench_register_args(#name, BF_BENCH__FN(name), args, n, \
		                       BF_BENCH__COUNT(args));             \
	}                                                                  \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state)

/* lo, lo*mult, ... and hi, as Google Benchmark's Range. */
#define BF_BENCHMARK_RANGE(name, lo, hi, mult)                             \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state);     \
	BF_BENCH__CTOR static void BF_BENCH__REG(name)(void)               \
	{                                                                  \
		bf_bench_register_range(#name, BF_BENCH__FN(name), lo, hi, \
		                        mult);                             \
	}                                                                  \
	static void BF_BENCH__FN(name)(struct bf_bench_state * state)
#endif /* constructor functions */

#ifdef __cplusplus
}
#endif

#endif /* BF_BENCH_H */
