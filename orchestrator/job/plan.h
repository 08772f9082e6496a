#ifndef BF_PLAN_H
#define BF_PLAN_H

#include "benchfarm/common.h"

/*
 * The order of a comparison's runs. Both sides of every benchmark run
 * on one device; with interleaving, repeats come in balanced blocks of
 * two pairs (AB BA or BA AB, chosen from the seed), so that drift in
 * the device (heat, clocks, background work) falls on both sides
 * alike. Warmup runs come first and are discarded.
 */
enum bf_side_id {
	BF_SIDE_BASE = 0,
	BF_SIDE_PATCH = 1,
};

struct bf_plan_step {
	int bench; /* index into the config's benchmarks */
	int side; /* enum bf_side_id */
	int repeat; /* repeat index, or warmup index when warmup */
	bool warmup; /* result discarded */
};

struct bf_plan {
	struct bf_plan_step *steps;
	size_t n;
};

/*
 * Build the plan for nbench benchmarks, repeats measured runs and
 * warmup discarded runs per side. Same seed, same plan. Cannot fail.
 */
void bf_plan_build(struct bf_plan *plan, int nbench, int repeats, int warmup,
                   bool interleave, uint64_t seed);
void bf_plan_release(struct bf_plan *plan);

/* "base" or "patch". */
const char *bf_side_name(int side);

#endif /* BF_PLAN_H */
