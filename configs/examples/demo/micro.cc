// The demo's benchmarks: three small, deterministic workloads measured
// with Google Benchmark. ci/demo.sh commits this file as the baseline,
// then a patch that raises CHECKSUM_ROUNDS (tuning.h) by 20%, making
// BM_checksum about 20% slower and leaving the others alone.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tuning.h"

// Read at run time, so that the patch changes one word of data and not
// a byte of code: the other benchmarks keep their addresses, and the
// demo shows the patch's effect, not a code-alignment effect.
static volatile int checksum_rounds = CHECKSUM_ROUNDS;

static uint32_t checksum_round(const std::vector<uint8_t> &data, uint32_t h)
{
	for (uint8_t b : data)
		h = (h ^ b) * 16777619u;
	return h;
}

static void BM_checksum(benchmark::State &state)
{
	std::vector<uint8_t> data(4096);
	for (size_t i = 0; i < data.size(); i++)
		data[i] = static_cast<uint8_t>(i * 31);
	for (auto _ : state) {
		uint32_t h = 2166136261u;
		for (int r = 0; r < checksum_rounds; r++)
			h = checksum_round(data, h);
		benchmark::DoNotOptimize(h);
	}
}
BENCHMARK(BM_checksum);

static void BM_sort(benchmark::State &state)
{
	std::vector<uint32_t> src(2048);
	uint32_t x = 12345;
	for (auto &v : src) {
		x = x * 1103515245u + 12345u;
		v = x >> 8;
	}
	for (auto _ : state) {
		std::vector<uint32_t> v = src;
		std::sort(v.begin(), v.end());
		benchmark::DoNotOptimize(v.data());
	}
}
BENCHMARK(BM_sort);

static void BM_sum(benchmark::State &state)
{
	std::vector<uint64_t> v(8192, 3);
	for (auto _ : state) {
		uint64_t s = 0;
		for (uint64_t e : v)
			s += e;
		benchmark::DoNotOptimize(s);
	}
}
BENCHMARK(BM_sum);

BENCHMARK_MAIN();
