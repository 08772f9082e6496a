#include "job/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/sample.h"
#include "benchfarm/stats_paired.h"
#include "config/cfg.h"
#include "job/plan.h"

void bf_comparison_init(struct bf_comparison *c, int nbench)
{
	memset(c, 0, sizeof(*c));
	c->nbench = nbench;
	c->runs_ok = bf_xcalloc((size_t)nbench * 2 + 1, sizeof(int));
	c->runs_failed = bf_xcalloc((size_t)nbench * 2 + 1, sizeof(int));
	c->samples = json_array();
	c->errors = json_array();
}

void bf_comparison_release(struct bf_comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct bf_series *s = &c->series[i];

		free(s->name);
		free(s->metric);
		free(s->unit);
		free(s->side[0].v);
		free(s->side[1].v);
		free(s->swapped.v);
		free(s->error);
	}
	free(c->series);
	bf_index_release(&c->index);
	free(c->runs_ok);
	free(c->runs_failed);
	free(c->design);
	free(c->last_look);
	free(c->stop);
	json_decref(c->samples);
	json_decref(c->errors);
	memset(c, 0, sizeof(*c));
}

static void values_push(struct bf_values *v, double x)
{
	if (v->n == v->alloc) {
		v->alloc = v->alloc ? v->alloc * 2 : 16;
		v->v = bf_xreallocarray(v->v, v->alloc, sizeof(double));
	}
	v->v[v->n++] = x;
}

/* Which metrics count, and their direction (the config's rule). */
static bool metric_wanted(const struct bf_cfg_benchmark *b,
                          const struct bf_sample *x, bool *higher)
{
	return bf_cfg_metric_wanted(b, x->metric, x->unit, higher);
}

static size_t series_hash(int bench, const char *name, const char *metric)
{
	size_t h = bf_hash_str(BF_HASH_INIT ^ (size_t)bench, name);

	h = (h ^ 0xff) * (size_t)1099511628211ULL; /* a byte no name holds */
	return bf_hash_str(h, metric);
}

struct series_key {
	int bench;
	const char *name, *metric;
};

static size_t series_hash_of(const void *ctx, size_t i)
{
	const struct bf_series *s =
	        &((const struct bf_comparison *)ctx)->series[i];

	return series_hash(s->bench, s->name, s->metric);
}

static bool series_is(const void *ctx, size_t i, const void *key)
{
	const struct bf_series *s =
	        &((const struct bf_comparison *)ctx)->series[i];
	const struct series_key *k = key;

	return s->bench == k->bench && !strcmp(s->name, k->name) &&
	       !strcmp(s->metric, k->metric);
}

static struct bf_series *find_series(struct bf_comparison *c, int bench,
                                     const struct bf_sample *x, bool higher)
{
	static const struct bf_index_ops ops = { series_hash_of, series_is };
	struct series_key key = { bench, x->benchmark, x->metric };
	struct bf_series *s;
	size_t *slot;

	slot = bf_index_slot(&c->index, c->n,
	                     series_hash(bench, x->benchmark, x->metric), &ops,
	                     c, &key);
	if (*slot)
		return &c->series[*slot - 1];
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? c->alloc * 2 : 16;
		c->series = bf_xreallocarray(c->series, c->alloc,
		                             sizeof(*c->series));
	}
	s = &c->series[c->n++];
	memset(s, 0, sizeof(*s));
	s->bench = bench;
	s->name = bf_xstrdup(x->benchmark);
	s->metric = bf_xstrdup(x->metric);
	s->unit = bf_xstrdup(x->unit);
	s->higher_is_better = higher;
	s->missing = -1;
	*slot = c->n;
	return s;
}

/* A run's rows ordered by (benchmark, metric), then as printed. */
static int cmp_row(const void *a, const void *b)
{
	const struct bf_sample *x = *(const struct bf_sample *const *)a;
	const struct bf_sample *y = *(const struct bf_sample *const *)b;
	int d = strcmp(x->benchmark, y->benchmark);

	if (!d)
		d = strcmp(x->metric, y->metric);
	return d ? d : (x > y) - (x < y);
}

/* Groups of equal rows, in the order their first row was printed. */
struct group {
	size_t start, len; /* in the sorted rows */
	const struct bf_sample *first;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

void bf_comparison_add_run(struct bf_comparison *c, const struct bf_cfg *cfg,
                           int bench, int side, int repeat,
                           const struct bf_samples *s)
{
	const struct bf_cfg_benchmark *b = &cfg->benchmarks[bench];
	const struct bf_sample **rows = bf_xcalloc(s->n + 1, sizeof(*rows));
	struct group *groups = bf_xcalloc(s->n + 1, sizeof(*groups));
	double *vals = bf_xcalloc(s->n + 1, sizeof(double));
	size_t ngroups = 0;

	c->runs_ok[bench * 2 + side]++;
	for (size_t i = 0; i < s->n; i++) {
		const struct bf_sample *x = &s->v[i];

		json_array_append_new(
		        c->samples,
		        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:f}",
		                  "benchmark", b->name, "name", x->benchmark,
		                  "metric", x->metric, "unit", x->unit, "side",
		                  bf_side_name(side), "repeat", repeat,
		                  "iteration", x->iteration, "value",
		                  x->value));
	}
	/*
	 * One value per series for this run: the median of its rows. Rows
	 * are grouped by sorting, series found by hash: a run that prints
	 * 100,000 names costs n log n, not n squared.
	 */
	for (size_t i = 0; i < s->n; i++)
		rows[i] = &s->v[i];
	qsort(rows, s->n, sizeof(*rows), cmp_row);
	for (size_t i = 0; i < s->n; i++) {
		if (i && !strcmp(rows[i]->benchmark, rows[i - 1]->benchmark) &&
		    !strcmp(rows[i]->metric, rows[i - 1]->metric)) {
			groups[ngroups - 1].len++;
			continue;
		}
		groups[ngroups++] = (struct group){ i, 1, rows[i] };
	}
	qsort(groups, ngroups, sizeof(*groups), cmp_group);
	for (size_t g = 0; g < ngroups; g++) {
		struct bf_series *series;
		bool higher;

		if (!metric_wanted(b, groups[g].first, &higher))
			continue;
		for (size_t k = 0; k < groups[g].len; k++)
			vals[k] = rows[groups[g].start + k]->value;
		series = find_series(c, bench, groups[g].first, higher);
		values_push(&series->side[side],
		            bf_stats_median(vals, groups[g].len));
	}
	free(rows);
	free(groups);
	free(vals);
}

void bf_comparison_add_round(struct bf_comparison *c, int bench, bool swapped)
{
	for (size_t i = 0; i < c->n; i++) {
		struct bf_series *s = &c->series[i];

		if (s->bench != bench || s->swapped.n >= s->side[0].n)
			continue;
		if (s->swapped.n == s->swapped.alloc) {
			s->swapped.alloc =
			        s->swapped.alloc ? s->swapped.alloc * 2 : 16;
			s->swapped.v = bf_xreallocarray(
			        s->swapped.v, s->swapped.alloc, sizeof(bool));
		}
		s->swapped.v[s->swapped.n++] = swapped;
	}
}

bool bf_series_cores_differ(const struct bf_series *s, double alpha,
                            double min_effect)
{
	return s->cores && s->core_p < alpha &&
	       fabs(s->core_effect) > min_effect;
}

void bf_comparison_add_error(struct bf_comparison *c, const struct bf_cfg *cfg,
                             int bench, int side, int repeat, const char *code,
                             const char *message)
{
	c->runs_failed[bench * 2 + side]++;
	json_array_append_new(
	        c->errors, json_pack("{s:s, s:s, s:i, s:s, s:s}", "benchmark",
	                             cfg->benchmarks[bench].name, "side",
	                             bf_side_name(side), "repeat", repeat,
	                             "code", code, "message", message));
}

static void judge_one(struct bf_series *s, const struct bf_compare_opts *o,
                      bool paired)
{
	struct bf_compare_opts opts = *o;
	struct bf_err err = BF_ERR_INIT;

	if (!s->side[0].n || !s->side[1].n) {
		s->missing = s->side[0].n ? BF_SIDE_PATCH : BF_SIDE_BASE;
		s->error = bf_xasprintf(
		        "the %s reports this series and the %s does not "
		        "(renamed, left out, or failing on that side)",
		        bf_side_name(!s->missing), bf_side_name(s->missing));
		return;
	}
	opts.higher_is_better = s->higher_is_better;
	if (paired && s->side[0].n != s->side[1].n) {
		s->error = bf_xasprintf("duet rounds do not pair up: %zu base "
		                        "and %zu patch values (a side's output "
		                        "left the series out of some rounds)",
		                        s->side[0].n, s->side[1].n);
		return;
	}
	if (paired) {
		if (bf_compare_paired(&s->result, s->side[0].v, s->side[1].v,
		                      s->side[0].n, &opts, &err)) {
			s->error = bf_xstrdup(err.msg);
			return;
		}
		/* too few rounds of either kind: nothing to say of the cores */
		s->cores = s->swapped.n == s->side[0].n &&
		           !bf_paired_core_effect(&s->core_effect, &s->core_p,
		                                  s->side[0].v, s->side[1].v,
		                                  s->swapped.v, s->side[0].n,
		                                  &err);
	} else if (bf_compare_samples(&s->result, s->side[0].v, s->side[0].n,
	                              s->side[1].v, s->side[1].n, &opts,
	                              &err)) {
		s->error = bf_xstrdup(err.msg);
		return;
	}
	s->judged = true;
}

/* Whether s is judged and of benchmark b's gating or other series. */
static bool in_family(const struct bf_series *s, size_t b, bool gated)
{
	return s->judged && (size_t)s->bench == b && s->gated == gated;
}

void bf_comparison_judge(struct bf_comparison *c, const struct bf_cfg *cfg,
                         double alpha, double min_effect, uint64_t seed)
{
	struct bf_compare_opts opts = BF_COMPARE_OPTS_INIT;
	struct bf_compare_result *all = bf_xcalloc(c->n + 1, sizeof(*all));
	size_t k = 0;

	opts.alpha = alpha >= 0 ? alpha : cfg->presubmit.alpha;
	opts.min_effect =
	        min_effect >= 0 ? min_effect : cfg->presubmit.min_effect;
	opts.seed = seed;
	c->alpha = opts.alpha;
	c->min_effect = opts.min_effect;
	for (size_t i = 0; i < c->n; i++) {
		struct bf_series *s = &c->series[i];
		struct bf_compare_opts so = opts;

		/* cachegrind's counts: the counted rule (BF_COUNTED_GAP) */
		so.counted = cfg->benchmarks[s->bench].measure ==
		             BF_MEASURE_INSTRUCTIONS;
		s->gated = bf_cfg_metric_gates(&cfg->benchmarks[s->bench],
		                               s->name, s->metric);
		judge_one(s, &so, c->paired);
	}
	/*
	 * Adaptive verdicts are each series' own sequential decision. The
	 * others are corrected in families of one benchmark's gating
	 * series, and of its other series: a reader asks of a benchmark
	 * whether what gates it moved, and a run of 40 benchmarks must not
	 * need 40 times the evidence to call one of them.
	 */
	for (size_t b = 0; !c->design && b < cfg->nbenchmarks; b++)
		for (int g = 0; g < 2; g++) {
			k = 0;
			for (size_t i = 0; i < c->n; i++)
				if (in_family(&c->series[i], b, g == 1))
					all[k++] = c->series[i].result;
			bf_compare_apply_fdr(all, k, &opts);
			for (size_t i = 0, j = 0; i < c->n; i++)
				if (in_family(&c->series[i], b, g == 1)) {
					c->series[i].result = all[j++];
					c->series[i].family = k;
				}
		}
	free(all);
	if (c->design)
		bf_comparison_judge_seq(c);
}

int bf_comparison_same_build(struct bf_comparison *c)
{
	int n = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct bf_series *s = &c->series[i];

		if (!s->judged || (s->result.verdict != BF_VERDICT_REGRESSED &&
		                   s->result.verdict != BF_VERDICT_IMPROVED))
			continue;
		s->has_machine_verdict = true;
		s->machine_verdict = s->result.verdict;
		s->result.verdict = BF_VERDICT_UNKNOWN;
		n++;
	}
	return n;
}

void bf_comparison_tally(struct bf_tally *out, const struct bf_comparison *c)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < c->n; i++) {
		const struct bf_series *s = &c->series[i];

		if (s->missing >= 0) {
			out->missing++;
			continue;
		}
		if (!s->judged) {
			out->errors++;
			continue;
		}
		out->measured++;
		if (!s->gated && (s->result.verdict == BF_VERDICT_REGRESSED ||
		                  s->result.verdict == BF_VERDICT_IMPROVED)) {
			out->ungated++;
			continue;
		}
		switch (s->result.verdict) {
		case BF_VERDICT_REGRESSED:
			out->regressed++;
			break;
		case BF_VERDICT_IMPROVED:
			out->improved++;
			break;
		case BF_VERDICT_SAME:
			out->same++;
			break;
		default:
			out->unknown++;
		}
	}
}

json_t *bf_json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct bf_summary *sum,
                         const struct bf_values *v)
{
	json_t *vals = json_array();

	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(vals, json_real(v->v[i]));
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n",
	                 (json_int_t)v->n, "median",
	                 bf_json_real_or_null(sum->median), "mean",
	                 bf_json_real_or_null(sum->mean), "stddev",
	                 bf_json_real_or_null(sum->stddev), "cv",
	                 bf_json_real_or_null(sum->cv), "min",
	                 bf_json_real_or_null(sum->min), "max",
	                 bf_json_real_or_null(sum->max), "values", vals);
}

static json_t *series_json(const struct bf_comparison *c,
                           const struct bf_series *s, const struct bf_cfg *cfg)
{
	const struct bf_compare_result *r = &s->result;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "benchmark",
	                      cfg->benchmarks[s->bench].name, "name", s->name,
	                      "metric", s->metric, "unit", s->unit, "better",
	                      s->higher_is_better ? "higher" : "lower");

	if (!s->judged) {
		json_object_set_new(
		        o, "verdict",
		        json_string(s->missing >= 0 ? "missing" : "error"));
		if (s->missing >= 0)
			json_object_set_new(
			        o, "missing",
			        json_string(bf_side_name(s->missing)));
		json_object_set_new(o, "error", json_string(s->error));
		return o;
	}
	json_object_set_new(o, "verdict",
	                    json_string(bf_verdict_name(r->verdict)));
	json_object_set_new(o, "gated", json_boolean(s->gated));
	json_object_set_new(o, "family", json_integer((json_int_t)s->family));
	/* the same build on both sides: what the machine alone did */
	if (s->has_machine_verdict)
		json_object_set_new(
		        o, "machine_verdict",
		        json_string(bf_verdict_name(s->machine_verdict)));
	json_object_set_new(o, "effect", bf_json_real_or_null(r->effect));
	json_object_set_new(o, "ci_low", bf_json_real_or_null(r->ci_low));
	json_object_set_new(o, "ci_high", bf_json_real_or_null(r->ci_high));
	json_object_set_new(o, "p_value", bf_json_real_or_null(r->p_value));
	json_object_set_new(o, "p_adjusted",
	                    bf_json_real_or_null(r->p_adjusted));
	json_object_set_new(o, "u", bf_json_real_or_null(r->u));
	json_object_set_new(o, "base", side_json(&r->base, &s->side[0]));
	json_object_set_new(o, "patch", side_json(&r->patch, &s->side[1]));
	if (c->design)
		json_object_set_new(o, "sequential", bf_series_seq_json(c, s));
	if (s->cores)
		json_object_set_new(
		        o, "duet_cores",
		        json_pack("{s:o, s:o, s:b}", "second_slower",
		                  bf_json_real_or_null(s->core_effect),
		                  "p_value", bf_json_real_or_null(s->core_p),
		                  "differ",
		                  bf_series_cores_differ(s, c->alpha,
		                                         c->min_effect)));
	return o;
}

json_t *bf_comparison_results_json(const struct bf_comparison *c,
                                   const struct bf_cfg *cfg)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(arr, series_json(c, &c->series[i], cfg));
	return arr;
}

/*
 * Benchmark b's gating family: its judged gating series, how many, and
 * the fewest runs a side any of them had that the U test judges (exact
 * counts need no test: SIZE_MAX when all of them are).
 */
static size_t gating_family(const struct bf_comparison *c, size_t b,
                            size_t *runs)
{
	size_t k = 0;

	*runs = SIZE_MAX;
	for (size_t i = 0; i < c->n; i++) {
		const struct bf_series *s = &c->series[i];

		if (!in_family(s, b, true))
			continue;
		k++;
		if (s->result.exact)
			continue;
		*runs = s->side[0].n < *runs ? s->side[0].n : *runs;
		*runs = s->side[1].n < *runs ? s->side[1].n : *runs;
	}
	return k;
}

json_t *bf_comparison_underpowered_json(const struct bf_comparison *c,
                                        const struct bf_cfg *cfg)
{
	json_t *arr = json_array();
	size_t runs, k;
	double least;

	/* adaptive repeats take their own runs; counts need no U test */
	for (size_t b = 0; !c->design && b < cfg->nbenchmarks; b++) {
		if (cfg->benchmarks[b].measure == BF_MEASURE_INSTRUCTIONS ||
		    !(k = gating_family(c, b, &runs)) || runs == SIZE_MAX)
			continue;
		least = bf_stats_min_p(runs, runs, c->paired) * (double)k;
		if (least < c->alpha)
			continue;
		json_array_append_new(
		        arr, json_pack("{s:s, s:I, s:I, s:f, s:f, s:I}",
		                       "benchmark", cfg->benchmarks[b].name,
		                       "runs", (json_int_t)runs, "family",
		                       (json_int_t)k, "least_p", fmin(1, least),
		                       "alpha", c->alpha, "min_runs",
		                       (json_int_t)bf_stats_min_runs(
		                               c->alpha, k, c->paired)));
	}
	return arr;
}
