/*
 * trace_calls N: a call-heavy program for bench/trace_overhead.sh, built
 * with -finstrument-functions. N calls of a small function through a
 * call chain of depth 3 (a, b, c: N/3 each round), then prints the sum
 * and the seconds the loop took (CLOCK_MONOTONIC), so process start-up
 * and the trace's write at exit are not in the time.
 *
 * trace_calls --counter N: N reads of the counter the tracer time-stamps
 * with (rdtsc on x86-64, cntvct_el0 on arm64, clock_gettime elsewhere)
 * and nothing else, in the same output format: the floor under the
 * tracer's cost, which reads it twice per call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void c(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) static void b(unsigned long i)
{
	c(i ^ 1);
}

__attribute__((noinline)) static void a(unsigned long i)
{
	b(i + 1);
}

/* The same read as agent/tracer/trace.c's ticks(). */
static inline uint64_t counter(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

int main(int argc, char **argv)
{
	int reads = argc > 1 && !strcmp(argv[1], "--counter");
	const char *arg = argc > 1 + reads ? argv[1 + reads] : NULL;
	unsigned long n = arg ? strtoul(arg, NULL, 10) : 3000000;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (reads) {
		uint64_t acc = 0;

		for (unsigned long i = 0; i < n; i++)
			acc += counter();
		sink = acc;
	} else {
		for (unsigned long i = 0; i < n / 3; i++)
			a(i);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lu %.6f\n", sink,
	       (double)(t1.tv_sec - t0.tv_sec) +
	               (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
