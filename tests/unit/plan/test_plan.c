/* Unit tests for the run plan (orchestrator/job/plan.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "job/plan.h"

/* Every one of nbench benchmarks gets repeats and warmup. */
static struct bf_plan_runs *same_runs(int nbench, int repeats, int warmup)
{
	struct bf_plan_runs *runs =
	        bf_xcalloc((size_t)nbench + 1, sizeof(*runs));

	for (int b = 0; b < nbench; b++)
		runs[b] = (struct bf_plan_runs){ repeats, warmup };
	return runs;
}

static void build(struct bf_plan *p, int nbench, int repeats, int warmup,
                  bool interleave, uint64_t seed)
{
	struct bf_plan_runs *runs = same_runs(nbench, repeats, warmup);

	bf_plan_build(p, nbench, runs, interleave, seed);
	free(runs);
}

static void build_duet(struct bf_plan *p, int nbench, int repeats, int warmup,
                       uint64_t seed)
{
	struct bf_plan_runs *runs = same_runs(nbench, repeats, warmup);

	bf_plan_build_duet(p, nbench, runs, seed);
	free(runs);
}

static bool plans_equal(const struct bf_plan *a, const struct bf_plan *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct bf_plan_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->bench != y->bench || x->side != y->side ||
		    x->repeat != y->repeat || x->warmup != y->warmup)
			return false;
	}
	return true;
}

/* Index of the first measured step (warmups come before it). */
static size_t first_measured(const struct bf_plan *p)
{
	size_t i = 0;

	while (i < p->n && p->steps[i].warmup)
		i++;
	return i;
}

/*
 * Every (bench, side) has exactly `repeats` measured steps with repeat
 * indices 0..repeats-1 once each, and `warmup` warmup steps with indices
 * 0..warmup-1 once each; nothing else is in the plan.
 */
static void check_counts(const struct bf_plan *p, int nbench, int repeats,
                         int warmup)
{
	size_t cells = (size_t)nbench * 2;
	int *seen = bf_xcalloc(cells * (size_t)(repeats + 1), sizeof(int));
	int *wseen = bf_xcalloc(cells * (size_t)(warmup + 1), sizeof(int));

	assert_int_equal(p->n, (size_t)nbench * 2 * (size_t)(repeats + warmup));
	for (size_t i = 0; i < p->n; i++) {
		const struct bf_plan_step *s = &p->steps[i];
		size_t cell;

		assert_in_range(s->bench, 0, nbench - 1);
		assert_in_range(s->side, BF_SIDE_BASE, BF_SIDE_PATCH);
		cell = (size_t)s->bench * 2 + (size_t)s->side;
		if (s->warmup) {
			assert_in_range(s->repeat, 0, warmup - 1);
			wseen[cell * (size_t)warmup + (size_t)s->repeat]++;
		} else {
			assert_in_range(s->repeat, 0, repeats - 1);
			seen[cell * (size_t)repeats + (size_t)s->repeat]++;
		}
	}
	for (size_t c = 0; c < cells; c++) {
		for (int r = 0; r < repeats; r++)
			assert_int_equal(seen[c * (size_t)repeats + (size_t)r],
			                 1);
		for (int w = 0; w < warmup; w++)
			assert_int_equal(wseen[c * (size_t)warmup + (size_t)w],
			                 1);
	}
	free(seen);
	free(wseen);
}

static void test_plan__same_seed_same_plan(void **state)
{
	struct bf_plan a, b;

	(void)state;
	for (uint64_t seed = 0; seed < 20; seed++) {
		build(&a, 4, 10, 2, true, seed);
		build(&b, 4, 10, 2, true, seed);
		assert_true(plans_equal(&a, &b));
		bf_plan_release(&a);
		bf_plan_release(&b);
	}
}

static void test_plan__different_seed_different_order(void **state)
{
	enum { NSEEDS = 10 };
	struct bf_plan p[NSEEDS];

	(void)state;
	for (int i = 0; i < NSEEDS; i++)
		build(&p[i], 5, 10, 1, true, (uint64_t)i * 7919 + 1);
	for (int i = 0; i < NSEEDS; i++)
		for (int j = i + 1; j < NSEEDS; j++)
			if (plans_equal(&p[i], &p[j])) {
				print_error("seeds %d and %d give one plan\n",
				            i, j);
				fail();
			}
	for (int i = 0; i < NSEEDS; i++)
		bf_plan_release(&p[i]);
}

/* Benchmarks are shuffled inside a repeat, not always run in order. */
static void test_plan__benchmark_order_varies(void **state)
{
	struct bf_plan p;
	bool varied = false;
	int prev_first = -1;

	(void)state;
	build(&p, 6, 20, 0, true, 42);
	for (size_t i = 0; i < p.n; i += 12) {
		bool in_order = true;

		for (size_t k = 0; k < 6; k++)
			if (p.steps[i + 2 * k].bench != (int)k)
				in_order = false;
		if (!in_order ||
		    (prev_first >= 0 && p.steps[i].bench != prev_first))
			varied = true;
		prev_first = p.steps[i].bench;
	}
	assert_true(varied);
	bf_plan_release(&p);
}

static void test_plan__warmups_first_and_marked(void **state)
{
	const bool modes[] = { true, false };

	(void)state;
	for (size_t m = 0; m < BF_ARRAY_SIZE(modes); m++) {
		struct bf_plan p;
		size_t k;

		build(&p, 3, 4, 2, modes[m], 9);
		k = first_measured(&p);
		/* 3 benchmarks, 2 sides, 2 warmups each. */
		assert_int_equal(k, 12);
		for (size_t i = k; i < p.n; i++)
			assert_false(p.steps[i].warmup);
		check_counts(&p, 3, 4, 2);
		bf_plan_release(&p);
	}
}

static void test_plan__no_warmup(void **state)
{
	struct bf_plan p;

	(void)state;
	build(&p, 2, 4, 0, true, 1);
	assert_int_equal(first_measured(&p), 0);
	check_counts(&p, 2, 4, 0);
	bf_plan_release(&p);
}

static void test_plan__exact_repeats_per_side(void **state)
{
	(void)state;
	for (int nbench = 1; nbench <= 5; nbench++)
		for (int repeats = 1; repeats <= 7; repeats++)
			for (int il = 0; il < 2; il++) {
				struct bf_plan p;

				build(&p, nbench, repeats, 1, il,
				      (uint64_t)(nbench * 100 + repeats));
				check_counts(&p, nbench, repeats, 1);
				bf_plan_release(&p);
			}
}

/*
 * With interleaving, measured steps come in adjacent pairs: the same
 * benchmark and repeat, base and patch in some order; repeats in order.
 */
static void check_interleaved(const struct bf_plan *p)
{
	size_t k = first_measured(p);
	int last_repeat = 0;

	assert_int_equal((p->n - k) % 2, 0);
	for (size_t i = k; i < p->n; i += 2) {
		const struct bf_plan_step *a = &p->steps[i],
		                          *b = &p->steps[i + 1];

		assert_int_equal(a->bench, b->bench);
		assert_int_equal(a->repeat, b->repeat);
		assert_int_not_equal(a->side, b->side);
		assert_true(a->repeat >= last_repeat);
		last_repeat = a->repeat;
	}
}

static void test_plan__interleave_pairs_adjacent(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct bf_plan p;

		build(&p, 4, 6, 1, true, seed);
		check_interleaved(&p);
		bf_plan_release(&p);
	}
}

/* Which side runs first in (bench, repeat); -1 when not found. */
static int first_side(const struct bf_plan *p, int bench, int repeat)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->steps[i].warmup && p->steps[i].bench == bench &&
		    p->steps[i].repeat == repeat)
			return p->steps[i].side;
	return -1;
}

static void check_balanced(const struct bf_plan *p, int nbench, int repeats)
{
	for (int b = 0; b < nbench; b++)
		for (int r = 0; r + 1 < repeats; r += 2) {
			int base_first =
			        (first_side(p, b, r) == BF_SIDE_BASE) +
			        (first_side(p, b, r + 1) == BF_SIDE_BASE);

			if (base_first != 1) {
				print_error(
				        "bench %d repeats %d,%d: base first "
				        "%d times\n",
				        b, r, r + 1, base_first);
				fail();
			}
		}
}

static void test_plan__interleave_balanced_blocks(void **state)
{
	bool seen[2] = { false, false };

	(void)state;
	for (uint64_t seed = 0; seed < 40; seed++) {
		struct bf_plan p;

		build(&p, 3, 10, 0, true, seed);
		check_balanced(&p, 3, 10);
		seen[first_side(&p, 0, 0)] = true;
		bf_plan_release(&p);
	}
	/* The block order (AB BA or BA AB) comes from the seed. */
	assert_true(seen[BF_SIDE_BASE]);
	assert_true(seen[BF_SIDE_PATCH]);
}

static void test_plan__no_interleave_base_then_patch(void **state)
{
	struct bf_plan p;
	size_t k;

	(void)state;
	build(&p, 3, 5, 1, false, 77);
	check_counts(&p, 3, 5, 1);
	k = first_measured(&p);
	/* The first half of the measured runs is base, the rest patch. */
	for (size_t i = k; i < p.n; i++)
		assert_int_equal(p.steps[i].side, i < k + (p.n - k) / 2
		                                          ? BF_SIDE_BASE
		                                          : BF_SIDE_PATCH);
	bf_plan_release(&p);
}

static void test_plan__zero_benchmarks(void **state)
{
	struct bf_plan p;

	(void)state;
	build(&p, 0, 10, 2, true, 5);
	assert_int_equal(p.n, 0);
	bf_plan_release(&p);
	build(&p, 0, 10, 2, false, 5);
	assert_int_equal(p.n, 0);
	bf_plan_release(&p);
}

static void test_plan__zero_repeats_only_warmups(void **state)
{
	struct bf_plan p;

	(void)state;
	build(&p, 2, 0, 1, true, 5);
	assert_int_equal(p.n, 4);
	for (size_t i = 0; i < p.n; i++)
		assert_true(p.steps[i].warmup);
	bf_plan_release(&p);
}

static void test_plan__odd_repeats(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 20; seed++) {
		struct bf_plan p;

		build(&p, 2, 5, 0, true, seed);
		check_counts(&p, 2, 5, 0);
		check_interleaved(&p);
		/* Pairs (0,1) and (2,3) balanced; repeat 4 stands alone. */
		check_balanced(&p, 2, 5);
		assert_true(first_side(&p, 0, 4) >= 0);
		bf_plan_release(&p);
	}
	for (uint64_t seed = 0; seed < 5; seed++) {
		struct bf_plan p;

		build(&p, 3, 1, 0, true, seed);
		check_counts(&p, 3, 1, 0);
		check_interleaved(&p);
		bf_plan_release(&p);
	}
}

static void test_plan__release_twice_and_side_names(void **state)
{
	struct bf_plan p;

	(void)state;
	build(&p, 1, 2, 0, true, 1);
	bf_plan_release(&p);
	assert_null(p.steps);
	assert_int_equal(p.n, 0);
	bf_plan_release(&p);
	bf_plan_release(NULL);
	assert_string_equal(bf_side_name(BF_SIDE_BASE), "base");
	assert_string_equal(bf_side_name(BF_SIDE_PATCH), "patch");
}

/*
 * Duet: one step per round holding both sides, warmup rounds first,
 * every benchmark once per round, the cores' sides swapped in balanced
 * pairs of rounds (one round each way in rounds 2k, 2k+1), same seed
 * same plan.
 */
static void test_plan__duet_rounds(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 20; seed++) {
		struct bf_plan p, q;
		int seen[3][6] = { { 0 } };

		build_duet(&p, 3, 6, 2, seed);
		assert_int_equal(p.n, 3 * 2 + 3 * 6);
		for (size_t i = 0; i < p.n; i++) {
			const struct bf_plan_step *st = &p.steps[i];

			assert_int_equal(st->side, BF_SIDE_BOTH);
			assert_true(st->warmup == (i < 6));
			if (st->warmup)
				continue;
			/* rounds in order, each benchmark once a round */
			assert_int_equal(st->repeat, (int)(i - 6) / 3);
			seen[st->bench][st->repeat]++;
		}
		for (int b = 0; b < 3; b++)
			for (int r = 0; r < 6; r++)
				assert_int_equal(seen[b][r], 1);
		for (int r = 0; r < 6; r += 2)
			assert_true(p.steps[6 + 3 * r].swapped !=
			            p.steps[6 + 3 * (r + 1)].swapped);
		build_duet(&q, 3, 6, 2, seed);
		assert_true(plans_equal(&p, &q));
		for (size_t i = 0; i < p.n; i++)
			assert_true(p.steps[i].swapped == q.steps[i].swapped);
		bf_plan_release(&p);
		bf_plan_release(&q);
	}
	assert_string_equal(bf_side_name(BF_SIDE_BOTH), "both");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan__same_seed_same_plan),
		cmocka_unit_test(test_plan__different_seed_different_order),
		cmocka_unit_test(test_plan__benchmark_order_varies),
		cmocka_unit_test(test_plan__warmups_first_and_marked),
		cmocka_unit_test(test_plan__no_warmup),
		cmocka_unit_test(test_plan__exact_repeats_per_side),
		cmocka_unit_test(test_plan__interleave_pairs_adjacent),
		cmocka_unit_test(test_plan__interleave_balanced_blocks),
		cmocka_unit_test(test_plan__no_interleave_base_then_patch),
		cmocka_unit_test(test_plan__zero_benchmarks),
		cmocka_unit_test(test_plan__zero_repeats_only_warmups),
		cmocka_unit_test(test_plan__odd_repeats),
		cmocka_unit_test(test_plan__release_twice_and_side_names),
		cmocka_unit_test(test_plan__duet_rounds),
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
