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

/* The most repeats (or warmups) any benchmark has. */
static int most(const struct bf_plan_runs *runs, int nbench, bool warmup)
{
	int m = 0;

	for (int b = 0; b < nbench; b++) {
		int n = warmup ? runs[b].warmup : runs[b].repeats;

		m = n > m ? n : m;
	}
	return m;
}

/*
 * The benchmarks that have a repeat r into active, in a random order of
 * them; their number. The order drawn is the one a plan of that many
 * benchmarks draws, so equal counts give the plan of one common count.
 */
static int draw_active(int *active, int *order, const struct bf_plan_runs *runs,
                       int nbench, int r, struct bf_rng *rng)
{
	int n = 0, *in = active + nbench;

	for (int b = 0; b < nbench; b++)
		if (r < runs[b].repeats)
			in[n++] = b;
	shuffle(order, n, rng);
	for (int i = 0; i < n; i++)
		active[i] = in[order[i]];
	return n;
}

void bf_plan_build(struct bf_plan *plan, int nbench,
                   const struct bf_plan_runs *runs, bool interleave,
                   uint64_t seed)
{
	size_t cells = (size_t)(nbench ? nbench : 1);
	int *order = bf_xcalloc(cells, sizeof(int));
	int *active = bf_xcalloc(cells * 2, sizeof(int));
	int nwarm = most(runs, nbench, true), nrep = most(runs, nbench, false);
	struct bf_rng rng;
	size_t alloc = 0;
	int first = BF_SIDE_BASE, n;

	plan->steps = NULL;
	plan->n = 0;
	bf_rng_seed(&rng, seed);
	for (int w = 0; w < nwarm; w++)
		for (int b = 0; b < nbench; b++)
			for (int s = 0; s < 2 && w < runs[b].warmup; s++)
				push(plan, &alloc, b, (s + w) % 2, w, true);
	for (int s = 0; !interleave && s < 2; s++)
		for (int r = 0; r < nrep; r++)
			for (int b = 0; b < nbench; b++)
				if (r < runs[b].repeats)
					push(plan, &alloc, b, s, r, false);
	for (int r = 0; interleave && r < nrep; r++) {
		/* Even repeats draw the order; odd ones mirror it. */
		if (r % 2 == 0)
			first = (int)bf_rng_below(&rng, 2);
		else
			first = 1 - first;
		n = draw_active(active, order, runs, nbench, r, &rng);
		for (int i = 0; i < n; i++) {
			push(plan, &alloc, active[i], first, r, false);
			push(plan, &alloc, active[i], 1 - first, r, false);
		}
	}
	free(order);
	free(active);
}

void bf_plan_build_duet(struct bf_plan *plan, int nbench,
                        const struct bf_plan_runs *runs, uint64_t seed)
{
	size_t cells = (size_t)(nbench ? nbench : 1);
	int *order = bf_xcalloc(cells, sizeof(int));
	int *active = bf_xcalloc(cells * 2, sizeof(int));
	int nwarm = most(runs, nbench, true), nrep = most(runs, nbench, false);
	struct bf_rng rng;
	size_t alloc = 0;
	bool swapped = false;
	int n;

	plan->steps = NULL;
	plan->n = 0;
	bf_rng_seed(&rng, seed);
	for (int w = 0; w < nwarm; w++)
		for (int b = 0; b < nbench; b++)
			if (w < runs[b].warmup)
				push_step(plan, &alloc,
				          (struct bf_plan_step){
				                  b, BF_SIDE_BOTH, w, true,
				                  w % 2 == 1 });
	for (int r = 0; r < nrep; r++) {
		swapped = r % 2 == 0 ? bf_rng_below(&rng, 2) == 1 : !swapped;
		n = draw_active(active, order, runs, nbench, r, &rng);
		for (int i = 0; i < n; i++)
			push_step(plan, &alloc,
			          (struct bf_plan_step){ active[i],
			                                 BF_SIDE_BOTH, r, false,
			                                 swapped });
	}
	free(order);
	free(active);
}

void bf_plan_build_mode(struct bf_plan *plan, bool duet, int nbench,
                        const struct bf_plan_runs *runs, bool interleave,
                        uint64_t seed)
{
	if (duet)
		bf_plan_build_duet(plan, nbench, runs, seed);
	else
		bf_plan_build(plan, nbench, runs, interleave, seed);
}

void bf_plan_release(struct bf_plan *plan)
{
	if (!plan)
		return;
	BF_FREE(plan->steps);
	plan->n = 0;
}
