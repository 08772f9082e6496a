// The workloads measured with Google Benchmark (bench/harness_vs_gbench.sh).
#include <benchmark/benchmark.h>

#include "harness_work.h"

static void empty(benchmark::State &state)
{
	for (auto _ : state) {
	}
}
BENCHMARK(empty);

static void work_50ns(benchmark::State &state)
{
	uint64_t x = 1;

	for (auto _ : state) {
		x = work(x, ROUNDS_50NS);
		benchmark::DoNotOptimize(x);
	}
}
BENCHMARK(work_50ns);

static void work_5us(benchmark::State &state)
{
	uint64_t x = 1;

	for (auto _ : state) {
		x = work(x, ROUNDS_5US);
		benchmark::DoNotOptimize(x);
	}
}
BENCHMARK(work_5us);

BENCHMARK_MAIN();
