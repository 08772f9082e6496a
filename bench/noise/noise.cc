// The noise study's benchmarks (bench/noise/record.sh): the demo's three
// workloads and a memory-bound one, each doing an amount of work scaled
// by WORK_PERMILLE (work.h). The baseline has 1000; a patch with 1010,
// 1020 or 1050 does 1%, 2% or 5% more work in every benchmark, which is
// the slowdown the study injects. The knob is read at run time, so base
// and patch are the same machine code and differ by one word of data.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "work.h"

static volatile long work_permille = WORK_PERMILLE;

static size_t scaled(size_t n)
{
	return n * static_cast<size_t>(work_permille) / 1000;
}

// Latency-bound: a byte-serial FNV chain over 40 KiB (L1 and L2).
static void BM_checksum(benchmark::State &state)
{
	std::vector<uint8_t> data(scaled(40960));
	for (size_t i = 0; i < data.size(); i++)
		data[i] = static_cast<uint8_t>(i * 31);
	for (auto _ : state) {
		uint32_t h = 2166136261u;
		for (uint8_t b : data)
			h = (h ^ b) * 16777619u;
		benchmark::DoNotOptimize(h);
	}
}
BENCHMARK(BM_checksum);

// Branchy: sorts of 256 pseudo-random words, 100 per iteration.
static void BM_sort(benchmark::State &state)
{
	std::vector<uint32_t> src(256);
	uint32_t x = 12345;
	for (auto &v : src) {
		x = x * 1103515245u + 12345u;
		v = x >> 8;
	}
	size_t reps = scaled(100);
	for (auto _ : state) {
		for (size_t r = 0; r < reps; r++) {
			std::vector<uint32_t> v = src;
			std::sort(v.begin(), v.end());
			benchmark::DoNotOptimize(v.data());
		}
	}
}
BENCHMARK(BM_sort);

// Vectorised: a sum over 64 KiB (L2).
static void BM_sum(benchmark::State &state)
{
	std::vector<uint64_t> v(scaled(8192), 3);
	for (auto _ : state) {
		uint64_t s = 0;
		for (uint64_t e : v)
			s += e;
		benchmark::DoNotOptimize(s);
	}
}
BENCHMARK(BM_sum);

// Memory-bound: one read of every cache line of 48 MiB of a 64 MiB
// buffer (the buffer is twice the last-level cache of the machine it was
// written on); the work knob scales the 48 MiB.
static void BM_stream(benchmark::State &state)
{
	const size_t words = (64u << 20) / sizeof(uint64_t);
	std::vector<uint64_t> v(words, 1);
	size_t n = scaled(words * 3 / 4);
	for (auto _ : state) {
		uint64_t s = 0;
		for (size_t i = 0; i < n; i += 8)
			s += v[i];
		benchmark::DoNotOptimize(s);
	}
}
BENCHMARK(BM_stream);

BENCHMARK_MAIN();
