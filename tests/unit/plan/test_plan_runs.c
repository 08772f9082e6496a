/*
 * Unit tests for plans whose benchmarks have repeats and warmup of their
 * own (orchestrator/job/plan.c): a benchmark's repeats: and warmup: in
 * the config, measure: instructions' 3 and 0 beside timed benchmarks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "job/plan.h"

/* A timed benchmark, an instructions one, one with its own counts. */
static const struct bf_plan_runs mixed[] = { { 10, 1 }, { 3, 0 }, { 5, 2 } };
#define NMIXED 3

/* Counts of (bench, side, repeat) steps, measured and warmup. */
struct tally {
	int seen[NMIXED][2][16];
	int wseen[NMIXED][2][4];
};

static void tally(struct tally *t, const struct bf_plan *p)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < p->n; i++) {
		const struct bf_plan_step *s = &p->steps[i];

		assert_in_range(s->bench, 0, NMIXED - 1);
		assert_in_range(s->side, BF_SIDE_BASE, BF_SIDE_PATCH);
		if (s->warmup) {
			assert_in_range(s->repeat, 0, 3);
			t->wseen[s->bench][s->side][s->repeat]++;
		} else {
			assert_in_range(s->repeat, 0, 15);
			t->seen[s->bench][s->side][s->repeat]++;
		}
	}
}

/*
 * Each benchmark's sides have exactly its own repeats (indices 0 to
 * repeats - 1, once each) and its own warmups; nothing else.
 */
static void check_counts(const struct bf_plan *p)
{
	struct tally t;
	size_t total = 0;

	tally(&t, p);
	for (int b = 0; b < NMIXED; b++) {
		total += 2 * (size_t)(mixed[b].repeats + mixed[b].warmup);
		for (int s = 0; s < 2; s++) {
			for (int r = 0; r < 16; r++)
				assert_int_equal(t.seen[b][s][r],
				                 r < mixed[b].repeats);
			for (int w = 0; w < 4; w++)
				assert_int_equal(t.wseen[b][s][w],
				                 w < mixed[b].warmup);
		}
	}
	assert_int_equal(p->n, total);
}

static size_t first_measured(const struct bf_plan *p)
{
	size_t i = 0;

	while (i < p->n && p->steps[i].warmup)
		i++;
	return i;
}

static void test_plan_runs__counts_per_benchmark_and_side(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 20; seed++)
		for (int il = 0; il < 2; il++) {
			struct bf_plan p;
			size_t k;

			bf_plan_build(&p, NMIXED, mixed, il, seed);
			check_counts(&p);
			/* every warmup first: 1 + 0 + 2 a side */
			k = first_measured(&p);
			assert_int_equal(k, 6);
			for (size_t i = k; i < p.n; i++)
				assert_false(p.steps[i].warmup);
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

/*
 * Interleaved: measured steps in adjacent pairs of one benchmark and
 * repeat, the repeats in order; each benchmark's repeats 2k and 2k+1
 * run AB BA or BA AB, its own blocks balanced whatever the others'
 * counts; repeat r holds only the benchmarks that have it.
 */
static void test_plan_runs__each_benchmark_balanced(void **state)
{
	bool order_seen[2] = { false, false };

	(void)state;
	for (uint64_t seed = 0; seed < 40; seed++) {
		struct bf_plan p;
		size_t k;
		int last = 0;

		bf_plan_build(&p, NMIXED, mixed, true, seed);
		k = first_measured(&p);
		assert_int_equal((p.n - k) % 2, 0);
		for (size_t i = k; i < p.n; i += 2) {
			const struct bf_plan_step *a = &p.steps[i];
			const struct bf_plan_step *b = &p.steps[i + 1];

			assert_int_equal(a->bench, b->bench);
			assert_int_equal(a->repeat, b->repeat);
			assert_int_not_equal(a->side, b->side);
			assert_true(a->repeat >= last);
			assert_true(a->repeat < mixed[a->bench].repeats);
			last = a->repeat;
		}
		for (int b = 0; b < NMIXED; b++)
			for (int r = 0; r + 1 < mixed[b].repeats; r += 2) {
				int base_first =
				        (first_side(&p, b, r) == BF_SIDE_BASE) +
				        (first_side(&p, b, r + 1) ==
				         BF_SIDE_BASE);

				if (base_first != 1) {
					print_error(
					        "seed %d bench %d repeats "
					        "%d,%d: base first %d times\n",
					        (int)seed, b, r, r + 1,
					        base_first);
					fail();
				}
			}
		order_seen[first_side(&p, 1, 0)] = true;
		bf_plan_release(&p);
	}
	assert_true(order_seen[BF_SIDE_BASE]);
	assert_true(order_seen[BF_SIDE_PATCH]);
}

/*
 * The benchmark with 3 repeats has left after repeat 2: the last
 * 2 * (7 + 2) measured steps (repeats 3 and 4 of two benchmarks, 5 to 9
 * of one) are all the others'. Benchmarks still take turns first.
 */
static void test_plan_runs__fewer_repeats_leave_early(void **state)
{
	bool first_seen[NMIXED] = { false, false, false };

	(void)state;
	for (uint64_t seed = 0; seed < 40; seed++) {
		struct bf_plan p;
		size_t k, last3 = 0;

		bf_plan_build(&p, NMIXED, mixed, true, seed);
		k = first_measured(&p);
		for (size_t i = k; i < p.n; i++)
			if (p.steps[i].bench == 1)
				last3 = i;
		/* 2 * (3 + 3 + 3) steps in repeats 0..2: it is in them */
		assert_true(last3 < k + 18);
		for (size_t i = k + 18; i < p.n; i++)
			assert_int_not_equal(p.steps[i].bench, 1);
		first_seen[p.steps[k].bench] = true;
		bf_plan_release(&p);
	}
	for (int b = 0; b < NMIXED; b++)
		assert_true(first_seen[b]);
}

/* Warmups: each benchmark's own, round by round; none for warmup 0. */
static void test_plan_runs__warmup_per_benchmark(void **state)
{
	static const struct bf_plan_runs runs[] = { { 4, 0 }, { 4, 3 } };
	struct bf_plan p;

	(void)state;
	bf_plan_build(&p, 2, runs, true, 11);
	assert_int_equal(first_measured(&p), 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(p.steps[i].bench, 1);
		assert_int_equal(p.steps[i].repeat, (int)i / 2);
	}
	assert_int_equal(p.n, 6 + 2 * 8);
	bf_plan_release(&p);
	/* the same with no interleaving, and in duet mode (rounds) */
	bf_plan_build(&p, 2, runs, false, 11);
	assert_int_equal(first_measured(&p), 6);
	bf_plan_release(&p);
	bf_plan_build_duet(&p, 2, runs, 11);
	assert_int_equal(first_measured(&p), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(p.steps[i].bench, 1);
	bf_plan_release(&p);
}

/*
 * Plans of 3 benchmarks, 4 repeats and 1 warmup each, interleaved, as
 * bf_plan_build made them when the comparison had one count (seeds 7
 * and 8): benchmark, side (b or p) and repeat (-1 a warmup) of each
 * step.
 */
#define PLAN_SEED7                                                           \
	"0b-1 0p-1 1b-1 1p-1 2b-1 2p-1 1b0 1p0 0b0 0p0 2b0 2p0 2p1 2b1 0p1 " \
	"0b1 1p1 1b1 2p2 2b2 0p2 0b2 1p2 1b2 0b3 0p3 2b3 2p3 1b3 1p3"
#define PLAN_SEED8                                                           \
	"0b-1 0p-1 1b-1 1p-1 2b-1 2p-1 1p0 1b0 0p0 0b0 2p0 2b0 0b1 0p1 2b1 " \
	"2p1 1b1 1p1 1p2 1b2 0p2 0b2 2p2 2b2 2b3 2p3 1b3 1p3 0b3 0p3"

/*
 * Same seed, same plan; benchmarks that all have one count get the
 * plan the comparison's count gave before benchmarks had their own: a
 * recorded seed still replays its run order.
 */
static void test_plan_runs__one_count_keeps_its_plan(void **state)
{
	static const struct bf_plan_runs same[] = { { 4, 1 },
		                                    { 4, 1 },
		                                    { 4, 1 } };
	static const char *const want[] = { PLAN_SEED7, PLAN_SEED8 };
	struct bf_plan p, q;
	char got[256];

	(void)state;
	for (int s = 0; s < 2; s++) {
		size_t len = 0;

		bf_plan_build(&p, 3, same, true, (uint64_t)(7 + s));
		for (size_t i = 0; i < p.n; i++)
			len += (size_t)snprintf(
			        got + len, sizeof(got) - len, "%s%d%c%d",
			        i ? " " : "", p.steps[i].bench,
			        p.steps[i].side ? 'p' : 'b',
			        p.steps[i].warmup ? -1 : p.steps[i].repeat);
		assert_string_equal(got, want[s]);
		bf_plan_build(&q, 3, same, true, (uint64_t)(7 + s));
		assert_int_equal(p.n, q.n);
		assert_memory_equal(p.steps, q.steps, p.n * sizeof(*p.steps));
		bf_plan_release(&p);
		bf_plan_release(&q);
	}
}

/*
 * Duet: round r holds every benchmark with more than r rounds, once
 * each; rounds in order; a round's steps share their cores' sides, and
 * rounds 2k and 2k+1 swap them.
 */
static void test_plan_runs__duet_rounds_per_benchmark(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 20; seed++) {
		struct bf_plan p;
		int seen[NMIXED][16] = { { 0 } }, swapped[16];
		size_t k;
		int last = 0;

		bf_plan_build_duet(&p, NMIXED, mixed, seed);
		k = first_measured(&p);
		assert_int_equal(k, 3); /* warmup rounds: 1 + 0 + 2 */
		assert_int_equal(p.n, k + 10 + 3 + 5);
		for (int r = 0; r < 16; r++)
			swapped[r] = -1;
		for (size_t i = k; i < p.n; i++) {
			const struct bf_plan_step *st = &p.steps[i];

			assert_int_equal(st->side, BF_SIDE_BOTH);
			assert_true(st->repeat >= last);
			last = st->repeat;
			seen[st->bench][st->repeat]++;
			if (swapped[st->repeat] < 0)
				swapped[st->repeat] = st->swapped;
			assert_int_equal(swapped[st->repeat], st->swapped);
		}
		for (int b = 0; b < NMIXED; b++)
			for (int r = 0; r < 16; r++)
				assert_int_equal(seen[b][r],
				                 r < mixed[b].repeats);
		for (int r = 0; r + 1 < 10; r += 2)
			assert_int_not_equal(swapped[r], swapped[r + 1]);
		bf_plan_release(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_runs__counts_per_benchmark_and_side),
		cmocka_unit_test(test_plan_runs__each_benchmark_balanced),
		cmocka_unit_test(test_plan_runs__fewer_repeats_leave_early),
		cmocka_unit_test(test_plan_runs__warmup_per_benchmark),
		cmocka_unit_test(test_plan_runs__one_count_keeps_its_plan),
		cmocka_unit_test(test_plan_runs__duet_rounds_per_benchmark),
	};

	return cmocka_run_group_tests_name("plan_runs", tests, NULL, NULL);
}
