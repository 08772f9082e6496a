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
	BF_SIDE_BOTH = 2, /* a duet round: base and patch at once */
};

struct bf_plan_step {
	int bench; /* index into the config's benchmarks */
	int side; /* enum bf_side_id */
	int repeat; /* repeat index, or warmup index when warmup */
	bool warmup; /* result discarded */
	bool swapped; /* a duet round: base on the second core, patch first */
};

struct bf_plan {
	struct bf_plan_step *steps;
	size_t n;
};

/*
 * How many runs one benchmark gets: repeats measured runs per side
 * (duet: rounds), after warmup discarded ones. Benchmarks of one
 * comparison may differ (a benchmark's repeats: and warmup: in the
 * config).
 */
struct bf_plan_runs {
	int repeats;
	int warmup;
};

/*
 * Build the plan for nbench benchmarks, benchmark b getting runs[b].
 * Warmups come first, round by round, each benchmark's while it has
 * any left. With interleaving, repeat r holds every benchmark that has
 * more than r repeats, in a random order, each as an adjacent pair of
 * runs; the pair's order is drawn for even r and mirrored for odd r,
 * so that each benchmark's repeats 2k and 2k+1 run AB BA or BA AB: a
 * benchmark with fewer repeats leaves the later blocks and keeps its
 * own balanced. Without it every base run comes first. Same seed, same
 * plan; benchmarks that all have one count get the plan they had when
 * the count was the comparison's. Cannot fail.
 */
void bf_plan_build(struct bf_plan *plan, int nbench,
                   const struct bf_plan_runs *runs, bool interleave,
                   uint64_t seed);

/*
 * Duet mode: each round is one step (side BF_SIDE_BOTH) running base and
 * patch at the same time on two cores; warmup rounds first, then the
 * measured rounds, round r holding every benchmark that has more than r
 * rounds (runs[b].repeats), in a random order. Which side gets which
 * core comes in balanced blocks like interleaving's order (even rounds
 * draw, odd rounds mirror), so that a faster core falls on both sides
 * alike. Same seed, same plan.
 */
void bf_plan_build_duet(struct bf_plan *plan, int nbench,
                        const struct bf_plan_runs *runs, uint64_t seed);
/* bf_plan_build_duet() when duet, else bf_plan_build(). */
void bf_plan_build_mode(struct bf_plan *plan, bool duet, int nbench,
                        const struct bf_plan_runs *runs, bool interleave,
                        uint64_t seed);
void bf_plan_release(struct bf_plan *plan);

/* "base", "patch" or "both". */
const char *bf_side_name(int side);

#endif /* BF_PLAN_H */
