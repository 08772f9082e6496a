/*
 * trace_calls N: a call-heavy program for bench/trace_overhead.sh, built
 * with -finstrument-functions. N calls of a small function through a
 * call chain of depth 3 (a, b, c: N/3 each round), then prints the sum
 * and the seconds the loop took (CLOCK_MONOTONIC), so process start-up
 * and the trace's write at exit are not in the time.
 */
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000000;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < n / 3; i++)
		a(i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lu %.6f\n", sink,
	       (double)(t1.tv_sec - t0.tv_sec) +
	               (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
