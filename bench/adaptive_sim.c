/*
 * Adaptive repeats against fixed counts, simulated (bench/adaptive_sim.sh;
 * table in BENCHMARKS.md). Each trial draws 30 runs per side of one
 * metric: lognormal noise of a given CV, the patch slower by `shift`,
 * optionally a noisy neighbour that slows 5% of the runs by an
 * exponential amount (mean 10%). The same draws are judged three ways:
 * fixed 10 and fixed 30 runs per side (Mann-Whitney U and bootstrap
 * interval, bf_compare_samples, as compare judges a fixed count) and
 * adaptive (the default design, 6 to 30 by blocks of 2, stopping at the
 * first decided look, its verdict from that look). alpha 0.05,
 * min_effect 0.02. Prints one line per condition and method: regressed,
 * improved, same, unknown (percent of trials) and mean runs per side.
 * Usage: adaptive_sim [TRIALS] [SEED]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "benchfarm/stats_seq.h"

#define N_MAX 30

static double normal01(struct bf_rng *rng)
{
	double u1 = 1 - bf_rng_uniform(rng), u2 = bf_rng_uniform(rng);

	return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

static double draw(struct bf_rng *rng, double cv, double shift, bool noisy)
{
	double sigma = sqrt(log(1 + cv * cv));
	double v = 100 * (1 + shift) * exp(sigma * normal01(rng));

	if (noisy && bf_rng_uniform(rng) < 0.05)
		v *= 1 - 0.10 * log(1 - bf_rng_uniform(rng));
	return v;
}

struct tally {
	long regressed, improved, same, unknown, runs;
};

static void count(struct tally *t, enum bf_verdict v, int runs)
{
	t->regressed += v == BF_VERDICT_REGRESSED;
	t->improved += v == BF_VERDICT_IMPROVED;
	t->same += v == BF_VERDICT_SAME;
	t->unknown += v == BF_VERDICT_UNKNOWN;
	t->runs += runs;
}

static enum bf_verdict fixed(const double *b, const double *p, int n,
                             uint64_t seed)
{
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;

	o.seed = seed;
	if (bf_compare_samples(&r, b, (size_t)n, p, (size_t)n, &o, &err))
		return BF_VERDICT_UNKNOWN;
	return r.verdict;
}

static enum bf_verdict adaptive(const struct bf_seq_design *d, const double *b,
                                const double *p, int *runs)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_seq_look l;

	if (bf_seq_first_decision(&l, d, b, p, 0.02, &err))
		return BF_VERDICT_UNKNOWN;
	*runs = (int)l.nb;
	if (l.decision == BF_SEQ_DIFFERENT)
		return l.low > 0 ? BF_VERDICT_REGRESSED : BF_VERDICT_IMPROVED;
	return l.decision == BF_SEQ_SAME ? BF_VERDICT_SAME : BF_VERDICT_UNKNOWN;
}

static void print(const char *cond, const char *method, const struct tally *t,
                  long trials)
{
	printf("%-28s %-10s %7.2f %7.2f %7.2f %7.2f %6.1f\n", cond, method,
	       100.0 * t->regressed / trials, 100.0 * t->improved / trials,
	       100.0 * t->same / trials, 100.0 * t->unknown / trials,
	       (double)t->runs / trials);
}

int main(int argc, char **argv)
{
	static const struct {
		double cv, shift;
		bool noisy;
	} conds[] = {
		{ 0.002, 0, false },    { 0.002, 0.02, false },
		{ 0.002, 0.05, false }, { 0.01, 0, false },
		{ 0.01, 0.02, false },  { 0.01, 0.05, false },
		{ 0.03, 0, false },     { 0.03, 0.02, false },
		{ 0.03, 0.05, false },  { 0.01, 0, true },
		{ 0.01, 0.05, true },
	};
	long trials = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	struct bf_seq_design d;
	struct bf_err err = BF_ERR_INIT;

	if (trials < 1 || bf_seq_plan_looks(&d, 6, 30, 2, &err)) {
		fprintf(stderr, "usage: adaptive_sim [TRIALS] [SEED]\n");
		return 2;
	}
	bf_seq_design_boundaries(&d, 0.05);
	printf("%-28s %-10s %7s %7s %7s %7s %6s\n", "condition", "method",
	       "regr%", "impr%", "same%", "unkn%", "runs");
	for (size_t c = 0; c < sizeof(conds) / sizeof(conds[0]); c++) {
		struct tally f10 = { 0 }, f30 = { 0 }, ad = { 0 };
		struct bf_rng rng;
		char cond[64];

		bf_rng_seed(&rng, seed * 1000 + c);
		for (long t = 0; t < trials; t++) {
			double b[N_MAX], p[N_MAX];
			int runs = 0;
			enum bf_verdict v;

			for (int i = 0; i < N_MAX; i++) {
				b[i] = draw(&rng, conds[c].cv, 0,
				            conds[c].noisy);
				p[i] = draw(&rng, conds[c].cv, conds[c].shift,
				            conds[c].noisy);
			}
			count(&f10, fixed(b, p, 10, (uint64_t)t), 10);
			count(&f30, fixed(b, p, 30, (uint64_t)t), 30);
			v = adaptive(&d, b, p, &runs);
			count(&ad, v, runs);
		}
		snprintf(cond, sizeof(cond), "cv %.1f%% shift %+.0f%%%s",
		         100 * conds[c].cv, 100 * conds[c].shift,
		         conds[c].noisy ? " neighbour" : "");
		print(cond, "fixed 10", &f10, trials);
		print(cond, "fixed 30", &f30, trials);
		print(cond, "adaptive", &ad, trials);
	}
	return 0;
}
