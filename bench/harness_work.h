/*
 * The workloads bench/harness_vs_gbench.sh measures with both harnesses:
 * about 50 ns and about 5 us of dependent multiply-adds on this machine
 * class. Shared so both programs run the very same code.
 */
#ifndef BF_HARNESS_WORK_H
#define BF_HARNESS_WORK_H

#include <stdint.h>

__attribute__((noinline)) static uint64_t work(uint64_t x, int rounds)
{
	for (int i = 0; i < rounds; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

#define ROUNDS_50NS 40
#define ROUNDS_5US  4000

#endif
