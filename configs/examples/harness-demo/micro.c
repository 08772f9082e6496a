/*
 * The demo's three workloads, measured with libbenchfarm_bench instead of
 * Google Benchmark (configs/examples/demo/micro.cc has the same ones).
 * `BF_DEMO=harness make demo` commits this as the baseline, then a patch
 * that raises CHECKSUM_ROUNDS (tuning.h) by 20%.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <benchfarm/bench.h>

#include "tuning.h"

/*
 * Read at run time, so that the patch changes one word of data and not a
 * byte of code: the other benchmarks keep their addresses, and the demo
 * shows the patch's effect, not a code-alignment effect.
 */
static volatile int checksum_rounds = CHECKSUM_ROUNDS;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

BF_BENCHMARK(checksum)
{
	uint8_t data[4096];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 31);
	while (bf_bench_keep_running(state)) {
		uint32_t h = 2166136261u;

		for (int r = 0; r < checksum_rounds; r++)
			for (size_t i = 0; i < sizeof(data); i++)
				h = (h ^ data[i]) * 16777619u;
		bf_bench_do_not_optimize(&h);
	}
}

BF_BENCHMARK(sort)
{
	uint32_t src[2048], v[2048], x = 12345;

	for (size_t i = 0; i < 2048; i++) {
		x = x * 1103515245u + 12345u;
		src[i] = x >> 8;
	}
	while (bf_bench_keep_running(state)) {
		memcpy(v, src, sizeof(v));
		qsort(v, 2048, sizeof(v[0]), cmp_u32);
		bf_bench_do_not_optimize(v);
	}
}

BF_BENCHMARK(sum)
{
	static uint64_t v[8192];

	for (size_t i = 0; i < 8192; i++)
		v[i] = 3;
	while (bf_bench_keep_running(state)) {
		uint64_t s = 0;

		for (size_t i = 0; i < 8192; i++)
			s += v[i];
		bf_bench_do_not_optimize(&s);
	}
}
