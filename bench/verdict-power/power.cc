// The verdict power study's benchmarks (bench/verdict-power/record.sh):
// four workloads of four noise characters, each doing an amount of work
// scaled by the factor in the environment variable POWER_WORK (1.00 when
// unset; 1.01, 1.02 or 1.05 for a patch 1%, 2% or 5% slower). The factor
// is read at run time, so base and patch are the same machine code.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

static double work = 1.0;

static size_t scaled(size_t n)
{
	return static_cast<size_t>(std::llround(static_cast<double>(n) * work));
}

// CPU-bound and steady: a serial chain of integer multiply-adds and
// shifts, each step waiting for the one before, no memory traffic.
static void BM_chain(benchmark::State &state)
{
	size_t steps = scaled(200000);
	for (auto _ : state) {
		uint64_t x = 88172645463325252u;
		for (size_t i = 0; i < steps; i++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			x ^= x >> 29;
		}
		benchmark::DoNotOptimize(x);
	}
}
BENCHMARK(BM_chain);

// Memory-bound: one read of every cache line of a 32 MiB buffer (the
// factor scales the buffer).
static void BM_stream(benchmark::State &state)
{
	std::vector<uint64_t> v(scaled((32u << 20) / sizeof(uint64_t)), 1);
	for (auto _ : state) {
		uint64_t s = 0;
		for (size_t i = 0; i < v.size(); i += 64 / sizeof(uint64_t))
			s += v[i];
		benchmark::DoNotOptimize(s);
	}
}
BENCHMARK(BM_stream);

// Branchy: std::sort of 100k pseudo-random ints from a fixed seed. The
// factor scales n log n, the sort's work, not n: the count sorted is the
// n whose n log n is the factor times that of 100k.
static size_t sort_count(void)
{
	const double n0 = 100000, w0 = n0 * std::log(n0);
	double n = n0;

	for (int i = 0; i < 20; i++)
		n -= (n * std::log(n) - work * w0) / (std::log(n) + 1);
	return static_cast<size_t>(std::llround(n));
}

static void BM_sort(benchmark::State &state)
{
	std::vector<int> src(sort_count());
	std::mt19937 gen(12345);
	for (auto &v : src)
		v = static_cast<int>(gen());
	for (auto _ : state) {
		std::vector<int> v = src;
		std::sort(v.begin(), v.end());
		benchmark::DoNotOptimize(v.data());
	}
}
BENCHMARK(BM_sort);

// The allocator: 20k malloc/free pairs of sizes from 16 to 1 KiB, with 64
// blocks alive at a time, so freed blocks of mixed sizes are reused.
static void BM_alloc(benchmark::State &state)
{
	size_t n = scaled(20000);
	void *live[64] = {};
	for (auto _ : state) {
		uint32_t x = 2463534242u;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			void **slot = &live[i & 63];
			free(*slot);
			*slot = malloc(16 + (x & 1008));
			benchmark::DoNotOptimize(*slot);
		}
	}
	for (auto &p : live)
		free(p);
}
BENCHMARK(BM_alloc);

int main(int argc, char **argv)
{
	const char *w = std::getenv("POWER_WORK");

	if (w && *w) {
		char *end;
		errno = 0;
		work = std::strtod(w, &end);
		if (errno || *end || !(work >= 0.5 && work <= 2)) {
			std::fprintf(stderr, "power: POWER_WORK '%s' is not a "
			                     "factor from 0.5 to 2\n", w);
			return 2;
		}
	}
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 2;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
