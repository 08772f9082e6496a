#include "job/plan.h"

#include "benchfarm/alloc.h"
#include "benchfarm/stats.h"

const char *bf_side_name(int side)
{
	return side == BF_SIDE_BASE    ? "base"
	       : side == BF_SIDE_PATCH ? "patch"
	                               : "both";
}

static void push_step(struct bf_plan *plan, size_t *alloc,
                      struct bf_plan_step step)
{
	if (plan->n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 64;
		plan->steps = bf_xreallocarray(plan->steps, *alloc,
		                               sizeof(*plan->steps));
	}
	plan->steps[plan->n++] = step;
}

static void push(struct bf_plan *plan, size_t *alloc, int bench, int side,
                 int repeat, bool warmup)
{
	push_step(plan, alloc,
	          (struct bf_plan_step){ bench, side, repeat, warmup, false });
}

/* A random permutation of 0..n-1 (Fisher-Yates). */
static void shuffle(int *order, int n, struct bf_rng *rng)
{
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)bf_rng_below(rng, (uint64_t)i + 1);
		int t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

void bf_plan_build(struct bf_plan *plan, int nbench, int repeats, int warmup,
                   bool interleave, uint64_t seed)
{
	int *order = bf_xcalloc((size_t)(nbench ? nbench : 1), sizeof(int));
	struct bf_rng rng;
	size_t alloc = 0;
	int first = BF_SIDE_BASE;

	plan->steps = NULL;
	plan->n = 0;
	bf_rng_seed(&rng, seed);
	for (int w = 0; w < warmup; w++)
		for (int b = 0; b < nbench; b++)
			for (int s = 0; s < 2; s++)
				push(plan, &alloc, b, (s + w) % 2, w, true);
	if (!interleave) {
		for (int s = 0; s < 2; s++)
			for (int r = 0; r < repeats; r++)
				for (int b = 0; b < nbench; b++)
					push(plan, &alloc, b, s, r, false);
		free(order);
		return;
	}
	for (int r = 0; r < repeats; r++) {
		/* Even repeats draw the order; odd ones mirror it. */
		if (r % 2 == 0)
			first = (int)bf_rng_below(&rng, 2);
		else
			first = 1 - first;
		shuffle(order, nbench, &rng);
		for (int i = 0; i < nbench; i++) {
			push(plan, &alloc, order[i], first, r, false);
			push(plan, &alloc, order[i], 1 - first, r, false);
		}
	}
	free(order);
}

void bf_plan_build_duet(struct bf_plan *plan, int nbench, int repeats,
                        int warmup, uint64_t seed)
{
	int *order = bf_xcalloc((size_t)(nbench ? nbench : 1), sizeof(int));
	struct bf_rng rng;
	size_t alloc = 0;
	bool swapped = false;

	plan->steps = NULL;
	plan->n = 0;
	bf_rng_seed(&rng, seed);
	for (int w = 0; w < warmup; w++)
		for (int b = 0; b < nbench; b++)
			push_step(plan, &alloc,
			          (struct bf_plan_step){ b, BF_SIDE_BOTH, w,
			                                 true, w % 2 == 1 });
	for (int r = 0; r < repeats; r++) {
		swapped = r % 2 == 0 ? bf_rng_below(&rng, 2) == 1 : !swapped;
		shuffle(order, nbench, &rng);
		for (int i = 0; i < nbench; i++)
			push_step(plan, &alloc,
			          (struct bf_plan_step){ order[i], BF_SIDE_BOTH,
			                                 r, false, swapped });
	}
	free(order);
}

void bf_plan_build_mode(struct bf_plan *plan, bool duet, int nbench,
                        int repeats, int warmup, bool interleave, uint64_t seed)
{
	if (duet)
		bf_plan_build_duet(plan, nbench, repeats, warmup, seed);
	else
		bf_plan_build(plan, nbench, repeats, warmup, interleave, seed);
}

void bf_plan_release(struct bf_plan *plan)
{
	if (!plan)
		return;
	BF_FREE(plan->steps);
	plan->n = 0;
}
