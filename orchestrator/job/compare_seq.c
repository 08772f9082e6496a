#include "job/compare.h"

#include <math.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "config/cfg.h"
#include "job/plan.h"

/*
 * Adaptive repeats (runs.repeats: auto): after each interleaved block
 * of a benchmark (2 runs per side), a look of the group-sequential
 * design (stats_seq.h) at every series of that benchmark. A series is
 * decided once its repeated confidence interval lies beyond
 * min_effect (different) or inside it (same), and stays decided; the
 * benchmark's runs stop when all its series are decided, or at
 * max_repeats. The verdicts come from these decisions, never from a
 * fixed test of the stopped sample (that would spend alpha again).
 */

int bf_comparison_adaptive(struct bf_comparison *c, int min, int max,
                           double alpha, double min_effect, struct bf_err *err)
{
	struct bf_seq_design *d = bf_xcalloc(1, sizeof(*d));
	int ret = bf_seq_plan_looks(d, min, max, 2, err);

	if (ret) {
		free(d);
		return ret;
	}
	bf_seq_design_boundaries(d, alpha);
	c->design = d;
	c->seq_min_effect = min_effect;
	c->last_look = bf_xcalloc((size_t)c->nbench + 1, sizeof(int));
	c->stop = bf_xcalloc((size_t)c->nbench + 1, sizeof(*c->stop));
	for (int b = 0; b < c->nbench; b++)
		c->last_look[b] = -1;
	return 0;
}

int bf_comparison_look_at(const struct bf_comparison *c, int runs)
{
	if (!c->design)
		return -1;
	for (int k = 0; k < c->design->nlooks; k++)
		if (c->design->n[k] == runs)
			return k;
	return -1;
}

bool bf_comparison_look(struct bf_comparison *c, int bench, int k)
{
	bool all = true, any = false, different = false;
	struct bf_err err = BF_ERR_INIT;

	c->last_look[bench] = k;
	for (size_t i = 0; i < c->n; i++) {
		struct bf_series *s = &c->series[i];
		struct bf_seq_look l;

		if (s->bench != bench)
			continue;
		any = true;
		if (s->seq_decided) {
			different |= s->seq.decision == BF_SEQ_DIFFERENT;
			continue;
		}
		if (bf_seq_look(&l, c->design, k, s->side[0].v, s->side[0].n,
		                s->side[1].v, s->side[1].n, c->seq_min_effect,
		                &err)) {
			all = false;
			continue;
		}
		s->seq = l;
		s->seq_looked = true;
		s->seq_decided = l.decision == BF_SEQ_DIFFERENT ||
		                 l.decision == BF_SEQ_SAME;
		different |= l.decision == BF_SEQ_DIFFERENT;
		all &= s->seq_decided;
	}
	if (any && all)
		c->stop[bench] = different ? BF_SEQ_DIFFERENT : BF_SEQ_SAME;
	else if (k == c->design->nlooks - 1)
		c->stop[bench] = BF_SEQ_MAX_REACHED;
	return c->stop[bench] != BF_SEQ_OPEN;
}

bool bf_comparison_stops_after(struct bf_comparison *c, int bench,
                               const struct bf_plan *plan, size_t i)
{
	const struct bf_plan_step *st = &plan->steps[i];
	int k;

	if (!c->design || st->warmup ||
	    (i + 1 < plan->n && plan->steps[i + 1].repeat == st->repeat))
		return false;
	k = bf_comparison_look_at(c, st->repeat + 1);
	return k >= 0 && bf_comparison_look(c, bench, k);
}

void bf_comparison_judge_seq(struct bf_comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct bf_series *s = &c->series[i];
		struct bf_compare_result *r = &s->result;
		bool higher;

		if (!s->judged)
			continue;
		r->p_adjusted = r->p_value;
		if (!s->seq_looked) {
			r->verdict = BF_VERDICT_UNKNOWN;
			r->ci_low = r->ci_high = NAN;
			continue;
		}
		r->effect = expm1(s->seq.estimate);
		r->ci_low = expm1(s->seq.low);
		r->ci_high = expm1(s->seq.high);
		higher = s->seq.low > 0;
		if (s->seq.decision == BF_SEQ_SAME)
			r->verdict = BF_VERDICT_SAME;
		else if (s->seq.decision != BF_SEQ_DIFFERENT)
			r->verdict = BF_VERDICT_UNKNOWN;
		else
			r->verdict = higher == s->higher_is_better
			                     ? BF_VERDICT_IMPROVED
			                     : BF_VERDICT_REGRESSED;
	}
}

json_t *bf_series_seq_json(const struct bf_comparison *c,
                           const struct bf_series *s)
{
	const struct bf_seq_look *l = &s->seq;

	if (!s->seq_looked)
		return json_pack("{s:s, s:n}", "decision", "open", "look");
	return json_pack("{s:s, s:i, s:i, s:I, s:I, s:o, s:o, s:o, s:o, s:f}",
	                 "decision", bf_seq_decision_name(l->decision), "look",
	                 l->look + 1, "runs_per_side", c->design->n[l->look],
	                 "base_values", (json_int_t)l->nb, "patch_values",
	                 (json_int_t)l->np, "log_ratio",
	                 bf_json_real_or_null(l->estimate), "log_low",
	                 bf_json_real_or_null(l->low), "log_high",
	                 bf_json_real_or_null(l->high), "quantile",
	                 bf_json_real_or_null(l->q), "nominal_alpha",
	                 c->design->nominal[l->look]);
}

json_t *bf_comparison_adaptive_json(const struct bf_comparison *c,
                                    const struct bf_cfg *cfg)
{
	const struct bf_seq_design *d = c->design;
	json_t *looks = json_array(), *benches = json_array();

	if (!d)
		return NULL;
	for (int k = 0; k < d->nlooks; k++)
		json_array_append_new(
		        looks,
		        json_pack("{s:i, s:f, s:f, s:f}", "runs_per_side",
		                  d->n[k], "alpha_spent", d->spent[k], "z",
		                  d->z[k], "nominal_alpha", d->nominal[k]));
	for (int b = 0; b < c->nbench; b++) {
		int k = c->last_look[b];

		if (k < 0 && !c->runs_ok[b * 2] && !c->runs_ok[b * 2 + 1])
			continue;
		json_array_append_new(
		        benches,
		        json_pack("{s:s, s:{s:i, s:i}, s:i, s:s}", "benchmark",
		                  cfg->benchmarks[b].name, "runs", "base",
		                  c->runs_ok[b * 2], "patch",
		                  c->runs_ok[b * 2 + 1], "looks", k + 1, "stop",
		                  bf_seq_decision_name(c->stop[b])));
	}
	return json_pack("{s:s, s:i, s:i, s:f, s:f, s:o, s:o}", "rule",
	                 "group-sequential, Lan-DeMets O'Brien-Fleming "
	                 "spending, repeated confidence intervals",
	                 "min_repeats", d->n[0], "max_repeats",
	                 d->n[d->nlooks - 1], "alpha", d->alpha, "min_effect",
	                 c->seq_min_effect, "looks", looks, "benchmarks",
	                 benches);
}
