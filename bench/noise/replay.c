/*
 * The noise study, part two: replay the recorded corpus
 * (bench/noise/replay.sh; record.sh makes the corpus, BENCHMARKS.md has
 * the table).
 *
 * A trial is a comparison made of real runs: a moving-block bootstrap
 * draws blocks of BLOCK consecutive recorded runs (interleaved: a base
 * run and the patch run made beside it; duet: one round, both sides),
 * keeps each block's order, and joins blocks until the method has its
 * runs. Each trial is judged by benchfarm's own statistics, as compare
 * judges one metric:
 *   fixed 10, fixed 30    interleaved, N runs per side: Mann-Whitney U
 *                         and the bootstrap interval (bf_compare_samples)
 *   adaptive              interleaved, 6 to 30 runs per side by blocks of
 *                         2 with O'Brien-Fleming alpha spending, the
 *                         verdict from the deciding look (bf_seq_look)
 *   duet 10, duet 30      N duet rounds: sign test and the bootstrap
 *                         interval of the median ratio (bf_compare_paired)
 *   duet same time        as many duet rounds as fit in the device time
 *                         of fixed 30, from the two cells' benchmark_s
 * at alpha 0.01 (the default) and min_effect 0.02 and 0.01 (the
 * default), by the verdict rule of compare (stats_verdict.c). Each
 * series (benchmark and metric) is judged alone: a per-metric rate, with
 * no false discovery control across metrics to lower it.
 *
 * Prints one tab-separated line per condition, shift, method,
 * min_effect and series: the verdict counts, mean runs per side, the
 * median interval width (fixed and duet), and the shift measured over
 * every recorded run of the cell.
 *
 * Usage: replay [-t TRIALS] [-s SEED] [-b BLOCK] [-c CONDITION] CORPUS
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/stats.h"
#include "benchfarm/stats_paired.h"
#include "benchfarm/stats_seq.h"

#define SAME_TIME_MAX 240 /* cap on the rounds of "duet same time" */

static const double min_effects[] = { 0.02, 0.01 };
#define N_MIN_EFFECTS 2

enum method {
	FIXED10,
	FIXED30,
	ADAPTIVE,
	ADAPTIVE_UNIT, /* adaptive, the runs every series of a run needs */
	ADAPTIVE_BENCH, /* the same for one benchmark's series */
	DUET10,
	DUET30,
	DUET_SAME,
	N_METHODS
};

static const char *const method_names[N_METHODS] = {
	"fixed 10",
	"fixed 30",
	"adaptive",
	"adaptive, whole run",
	"adaptive, per benchmark",
	"duet 10",
	"duet 30",
	"duet same time",
};

struct series {
	const char *name, *metric;
	const double *base, *patch; /* in run (round) order */
	size_t n;
};

struct tally {
	long verdicts[4]; /* by enum bf_verdict */
	long runs;
	double *width; /* per trial, NAN when undefined */
};

/*
 * Adaptive repeats stop a benchmark's runs when every series its runs
 * print is decided: per trial, the most runs any series took, and
 * whether any series said regressed (1), improved (2), or not same (4).
 */
struct unit {
	const char *name; /* NULL: every series of the run */
	int *runs[N_MIN_EFFECTS];
	unsigned char *flags[N_MIN_EFFECTS];
};

/*
 * Units of a cell: [0] the whole run, then one per benchmark name, as
 * if each benchmark of the program were a config entry of its own (run
 * with --benchmark_filter): it stops when its own series are decided.
 */
#define MAX_UNITS 64

static void unit_init(struct unit *u, const char *name, long trials)
{
	u->name = name;
	for (int e = 0; e < N_MIN_EFFECTS; e++) {
		u->runs[e] = bf_xcalloc((size_t)trials, sizeof(int));
		u->flags[e] = bf_xcalloc((size_t)trials, 1);
	}
}

static void unit_free(struct unit *u)
{
	for (int e = 0; e < N_MIN_EFFECTS; e++) {
		free(u->runs[e]);
		free(u->flags[e]);
	}
}

/* A series' verdict v after runs, at min_effect e, into unit u. */
static void unit_add(struct unit *u, int e, long t, enum bf_verdict v, int runs)
{
	if (runs > u->runs[e][t])
		u->runs[e][t] = runs;
	u->flags[e][t] |= v == BF_VERDICT_REGRESSED  ? 1
	                  : v == BF_VERDICT_IMPROVED ? 2
	                  : v != BF_VERDICT_SAME     ? 4
	                                             : 0;
}

struct opts {
	long trials;
	uint64_t seed;
	size_t block;
	const char *condition;
};

/* Values of a cell's series, as an array of doubles (owned by json). */
static double *values_of(const json_t *arr, size_t *n)
{
	double *v = bf_xcalloc(json_array_size(arr) + 1, sizeof(double));
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x) v[i] = json_number_value(x);
	*n = json_array_size(arr);
	return v;
}

/* Draw m pairs by moving blocks of len from s into b, p. */
static void draw_blocks(struct bf_rng *rng, const struct series *s, size_t len,
                        size_t m, double *b, double *p)
{
	size_t k = 0;

	if (len > s->n)
		len = s->n;
	while (k < m) {
		size_t start = (size_t)bf_rng_below(rng, s->n - len + 1);

		for (size_t j = 0; j < len && k < m; j++, k++) {
			b[k] = s->base[start + j];
			p[k] = s->patch[start + j];
		}
	}
}

/*
 * The generator of trial t of cell c: every series of a cell draws the
 * same blocks, as one run prints them all.
 */
static void trial_rng(struct bf_rng *rng, uint64_t seed, size_t c, long t)
{
	bf_rng_seed(rng, seed * 0x9e3779b97f4a7c15u ^ ((uint64_t)c << 32) ^
	                         (uint64_t)t);
}

static void count(struct tally *t, long trial, enum bf_verdict v, int runs,
                  double width)
{
	t->verdicts[v]++;
	t->runs += runs;
	if (t->width)
		t->width[trial] = width;
}

static enum bf_verdict adaptive(const struct bf_seq_design *d, const double *b,
                                const double *p, double min_effect, int *runs)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_seq_look l;

	if (bf_seq_first_decision(&l, d, b, p, min_effect, &err))
		return BF_VERDICT_UNKNOWN;
	*runs = (int)l.nb;
	if (l.decision == BF_SEQ_DIFFERENT)
		return l.low > 0 ? BF_VERDICT_REGRESSED : BF_VERDICT_IMPROVED;
	return l.decision == BF_SEQ_SAME ? BF_VERDICT_SAME : BF_VERDICT_UNKNOWN;
}

/* Judge n pairs as method m at every min_effect; tallies t[min_effect]. */
static void judge(struct tally *t, long trial, bool paired, const double *b,
                  const double *p, size_t n, uint64_t seed)
{
	struct bf_compare_opts o = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result r;
	struct bf_err err = BF_ERR_INIT;
	int ret;

	o.seed = seed;
	ret = paired ? bf_compare_paired(&r, b, p, n, &o, &err)
	             : bf_compare_samples(&r, b, n, p, n, &o, &err);
	for (int e = 0; e < N_MIN_EFFECTS; e++) {
		o.min_effect = min_effects[e];
		count(&t[e], trial,
		      ret ? BF_VERDICT_UNKNOWN : bf_compare_verdict(&r, &o),
		      (int)n, ret ? NAN : r.ci_high - r.ci_low);
	}
}

static double cell_shift(const struct series *s, bool paired)
{
	double *d = bf_xcalloc(s->n + 1, sizeof(double));
	double v;

	if (paired) {
		for (size_t i = 0; i < s->n; i++)
			d[i] = log(s->patch[i] / s->base[i]);
		v = exp(bf_stats_median(d, s->n)) - 1;
	} else {
		v = bf_stats_median(s->patch, s->n) /
		            bf_stats_median(s->base, s->n) -
		    1;
	}
	free(d);
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the defined widths, NAN when none is. */
static double width_median(double *w, long n)
{
	long k = 0;

	for (long i = 0; i < n; i++)
		if (!isnan(w[i]))
			w[k++] = w[i];
	if (!k)
		return NAN;
	qsort(w, (size_t)k, sizeof(double), cmp_double);
	return k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
}

static void print(const char *cond, double shift, enum method m,
                  const struct series *s, struct tally *t, long trials,
                  double measured)
{
	for (int e = 0; e < N_MIN_EFFECTS; e++) {
		double w = t[e].width ? width_median(t[e].width, trials) : NAN;

		printf("%s\t%g\t%s\t%g\t%s\t%s\t%ld\t%ld\t%ld\t%ld\t%ld\t%.2f"
		       "\t%.5f\t%.5f\n",
		       cond, shift, method_names[m], min_effects[e], s->name,
		       s->metric, trials, t[e].verdicts[BF_VERDICT_REGRESSED],
		       t[e].verdicts[BF_VERDICT_IMPROVED],
		       t[e].verdicts[BF_VERDICT_SAME],
		       t[e].verdicts[BF_VERDICT_UNKNOWN],
		       (double)t[e].runs / (double)trials, w, measured);
	}
}

static void tallies_init(struct tally *t, long trials, bool widths)
{
	for (int e = 0; e < N_MIN_EFFECTS; e++) {
		memset(&t[e], 0, sizeof(t[e]));
		if (widths)
			t[e].width = bf_xcalloc((size_t)trials, sizeof(double));
	}
}

static void tallies_free(struct tally *t)
{
	for (int e = 0; e < N_MIN_EFFECTS; e++)
		free(t[e].width);
}

/* Interleaved: fixed 10, fixed 30 and adaptive on the same draws. */
static void replay_interleaved(const struct opts *o, const char *cond,
                               double shift, const struct series *s,
                               const struct bf_seq_design *d, size_t c,
                               struct unit *whole, struct unit *bench)
{
	struct tally f10[N_MIN_EFFECTS], f30[N_MIN_EFFECTS], ad[N_MIN_EFFECTS];
	double b[30], p[30], measured = cell_shift(s, false);
	struct bf_rng rng;

	tallies_init(f10, o->trials, true);
	tallies_init(f30, o->trials, true);
	tallies_init(ad, o->trials, false);
	for (long t = 0; t < o->trials; t++) {
		trial_rng(&rng, o->seed, c, t);
		draw_blocks(&rng, s, o->block, 30, b, p);
		judge(f10, t, false, b, p, 10, (uint64_t)t);
		judge(f30, t, false, b, p, 30, (uint64_t)t);
		for (int e = 0; e < N_MIN_EFFECTS; e++) {
			int runs = 0;
			enum bf_verdict v =
			        adaptive(d, b, p, min_effects[e], &runs);

			count(&ad[e], t, v, runs, NAN);
			unit_add(whole, e, t, v, runs);
			if (bench)
				unit_add(bench, e, t, v, runs);
		}
	}
	print(cond, shift, FIXED10, s, f10, o->trials, measured);
	print(cond, shift, FIXED30, s, f30, o->trials, measured);
	print(cond, shift, ADAPTIVE, s, ad, o->trials, measured);
	tallies_free(f10);
	tallies_free(f30);
	tallies_free(ad);
}

/* Duet: 10 rounds, 30 rounds, and same_time rounds. */
static void replay_duet(const struct opts *o, const char *cond, double shift,
                        const struct series *s, size_t same_time, size_t c)
{
	struct bf_rng rng;
	struct tally d10[N_MIN_EFFECTS], d30[N_MIN_EFFECTS], dst[N_MIN_EFFECTS];
	double b[SAME_TIME_MAX], p[SAME_TIME_MAX];
	size_t m = same_time > 30 ? same_time : 30;
	double measured = cell_shift(s, true);

	tallies_init(d10, o->trials, true);
	tallies_init(d30, o->trials, true);
	tallies_init(dst, o->trials, true);
	for (long t = 0; t < o->trials; t++) {
		trial_rng(&rng, o->seed, c, t);
		draw_blocks(&rng, s, o->block, m, b, p);
		judge(d10, t, true, b, p, 10, (uint64_t)t);
		judge(d30, t, true, b, p, 30, (uint64_t)t);
		judge(dst, t, true, b, p, same_time, (uint64_t)t);
	}
	print(cond, shift, DUET10, s, d10, o->trials, measured);
	print(cond, shift, DUET30, s, d30, o->trials, measured);
	print(cond, shift, DUET_SAME, s, dst, o->trials, measured);
	tallies_free(d10);
	tallies_free(d30);
	tallies_free(dst);
}

/* The cell of cells with this condition, patch and mode, or NULL. */
static const json_t *find_cell(const json_t *cells, const char *cond,
                               const char *patch, const char *mode)
{
	size_t i;
	json_t *c;

	json_array_foreach(cells, i, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "condition")),
		            cond) &&
		    !strcmp(json_string_value(json_object_get(c, "patch")),
		            patch) &&
		    !strcmp(json_string_value(json_object_get(c, "mode")),
		            mode))
			return c;
	}
	return NULL;
}

/* Seconds of device time per run (interleaved) or round (duet). */
static double per_run_s(const json_t *cell, bool duet)
{
	double n = (double)json_integer_value(json_object_get(cell, "repeats"));

	return json_number_value(json_object_get(cell, "benchmark_s")) /
	       (duet ? n : 2 * n);
}

/* A unit's adaptive line: most runs, and any series' verdict. */
static void print_unit(const char *cond, double shift, struct unit *u,
                       long trials)
{
	const struct series all = { u->name ? u->name : "(all)", "(all)", NULL,
		                    NULL, 0 };
	struct tally t[N_MIN_EFFECTS];

	tallies_init(t, trials, false);
	for (int e = 0; e < N_MIN_EFFECTS; e++)
		for (long k = 0; k < trials; k++) {
			unsigned f = u->flags[e][k];

			count(&t[e], k,
			      f & 1   ? BF_VERDICT_REGRESSED
			      : f & 2 ? BF_VERDICT_IMPROVED
			      : f & 4 ? BF_VERDICT_UNKNOWN
			              : BF_VERDICT_SAME,
			      u->runs[e][k], NAN);
		}
	print(cond, shift, u->name ? ADAPTIVE_BENCH : ADAPTIVE_UNIT, &all, t,
	      trials, NAN);
}

/* The unit of benchmark name in units (adding it), or NULL when full. */
static struct unit *unit_of(struct unit *units, int *n, const char *name,
                            long trials)
{
	for (int i = 1; i < *n; i++)
		if (!strcmp(units[i].name, name))
			return &units[i];
	if (*n == MAX_UNITS)
		return NULL;
	unit_init(&units[*n], name, trials);
	return &units[(*n)++];
}

static int replay_cell(const struct opts *o, const json_t *cells,
                       const json_t *cell, const struct bf_seq_design *d,
                       size_t c)
{
	struct unit units[MAX_UNITS];
	int nunits = 1;
	const char *cond =
	        json_string_value(json_object_get(cell, "condition"));
	const char *patch = json_string_value(json_object_get(cell, "patch"));
	const char *mode = json_string_value(json_object_get(cell, "mode"));
	double shift = json_number_value(json_object_get(cell, "shift"));
	bool duet = mode && !strcmp(mode, "duet");
	size_t same_time = 30, i;
	json_t *sj;

	if (!cond || !patch || !mode)
		return -1;
	if (o->condition && strcmp(o->condition, cond))
		return 0;
	if (duet) {
		const json_t *il = find_cell(cells, cond, patch, "interleaved");
		double k = il ? 2 * 30 * per_run_s(il, false) /
		                           per_run_s(cell, true)
		              : 30;

		same_time = k < 3               ? 3
		            : k > SAME_TIME_MAX ? SAME_TIME_MAX
		                                : (size_t)lround(k);
	}
	unit_init(&units[0], NULL, o->trials);
	json_array_foreach(json_object_get(cell, "series"), i, sj)
	{
		struct series s;
		size_t nb, np;
		double *b = values_of(json_object_get(sj, "base"), &nb);
		double *p = values_of(json_object_get(sj, "patch"), &np);

		s.name = json_string_value(json_object_get(sj, "name"));
		s.metric = json_string_value(json_object_get(sj, "metric"));
		s.base = b;
		s.patch = p;
		s.n = nb < np ? nb : np;
		if (s.name && s.metric && s.n >= 2) {
			if (duet)
				replay_duet(o, cond, shift, &s, same_time, c);
			else
				replay_interleaved(o, cond, shift, &s, d, c,
				                   &units[0],
				                   unit_of(units, &nunits,
				                           s.name, o->trials));
		}
		free(b);
		free(p);
	}
	for (int k = 0; k < nunits; k++) {
		if (!duet)
			print_unit(cond, shift, &units[k], o->trials);
		unit_free(&units[k]);
	}
	return 0;
}

/* A whole decimal number of at least min in *out; -1 on garbage. */
static int num_arg(long long *out, const char *arg, long long min)
{
	char *end;

	*out = strtoll(arg, &end, 10);
	return end == arg || *end || *out < min ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { 1000, 1, 5, NULL };
	struct bf_err err = BF_ERR_INIT;
	struct bf_seq_design d;
	json_t *corpus = NULL;
	const json_t *cells;
	size_t i;
	json_t *cell;
	long long v;
	int c;

	while ((c = getopt(argc, argv, "t:s:b:c:")) != -1) {
		switch (c) {
		case 't':
			if (num_arg(&v, optarg, 1))
				goto usage;
			o.trials = (long)v;
			break;
		case 's':
			if (num_arg(&v, optarg, 0))
				goto usage;
			o.seed = (uint64_t)v;
			break;
		case 'b':
			if (num_arg(&v, optarg, 1))
				goto usage;
			o.block = (size_t)v;
			break;
		case 'c':
			o.condition = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || o.trials < 1 || o.block < 1)
		goto usage;
	if (bf_json_load_file(&corpus, argv[optind], &err)) {
		fprintf(stderr, "replay: %s\n", err.msg);
		return 1;
	}
	cells = json_object_get(corpus, "cells");
	if (!json_is_array(cells)) {
		fprintf(stderr, "replay: %s: no \"cells\" array\n",
		        argv[optind]);
		json_decref(corpus);
		return 1;
	}
	if (bf_seq_plan_looks(&d, 6, 30, 2, &err)) {
		fprintf(stderr, "replay: %s\n", err.msg);
		return 1;
	}
	bf_seq_design_boundaries(&d, 0.05);
	printf("condition\tshift\tmethod\tmin_effect\tname\tmetric\ttrials"
	       "\tregressed\timproved\tsame\tunknown\truns\twidth"
	       "\tmeasured_shift\n");
	json_array_foreach(cells, i, cell)
	{
		if (replay_cell(&o, cells, cell, &d, i)) {
			fprintf(stderr,
			        "replay: %s: cell %zu lacks condition, "
			        "patch or mode\n",
			        argv[optind], i);
			json_decref(corpus);
			return 1;
		}
	}
	json_decref(corpus);
	return 0;
usage:
	fprintf(stderr, "usage: replay [-t TRIALS] [-s SEED] [-b BLOCK] "
	                "[-c CONDITION] CORPUS\n");
	return 2;
}
