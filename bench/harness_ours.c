/* The workloads measured with libbenchfarm_bench (bench/harness_vs_gbench.sh).
 */
#include <benchfarm/bench.h>

#include "harness_work.h"

BF_BENCHMARK(empty)
{
	while (bf_bench_keep_running(state)) {
	}
}

/* The same with the count in a local, as Google Benchmark's loop. */
BF_BENCHMARK(empty_loop)
{
	BF_BENCH_LOOP(state)
	{
	}
}

BF_BENCHMARK(work_50ns)
{
	uint64_t x = 1;

	while (bf_bench_keep_running(state)) {
		x = work(x, ROUNDS_50NS);
		bf_bench_do_not_optimize(&x);
	}
}

BF_BENCHMARK(work_5us)
{
	uint64_t x = 1;

	while (bf_bench_keep_running(state)) {
		x = work(x, ROUNDS_5US);
		bf_bench_do_not_optimize(&x);
	}
}
