#ifndef BF_COMPARE_H
#define BF_COMPARE_H

#include <jansson.h>

#include "benchfarm/common.h"
#include "benchfarm/index.h"
#include "benchfarm/stats.h"
#include "benchfarm/stats_seq.h"

struct bf_cfg;
struct bf_err;
struct bf_samples;

/*
 * The measurements of one comparison, gathered run by run, and their
 * judgement. A series is one (benchmark, metric) as the benchmark
 * program names it; each measured run contributes one value per series
 * and side: the median of that run's iterations, so that repetitions
 * inside one process do not count as independent runs.
 */
struct bf_values {
	double *v;
	size_t n, alloc;
};

struct bf_series {
	int bench; /* index of the config benchmark that produced it */
	char *name; /* benchmark name in the output, e.g. "BM_sort/64" */
	char *metric; /* e.g. "real_time" */
	char *unit;
	bool higher_is_better;
	struct bf_values side[2]; /* per-run values, base and patch */
	struct bf_compare_result result;
	bool judged; /* result is valid */
	char *error; /* why it could not be judged, or NULL */
	/*
	 * The side that reported nothing of a series the other side did
	 * report (BF_SIDE_BASE or BF_SIDE_PATCH), -1 when both did: its
	 * verdict is "missing", never "not measured", so that a patch that
	 * renames or drops its slowed benchmark cannot pass as one whose
	 * other benchmarks were measured.
	 */
	int missing;
	/* adaptive repeats: its latest look, and whether it decided */
	struct bf_seq_look seq;
	bool seq_looked, seq_decided;
	/*
	 * Duet: per round, whether base ran on the second core; and how
	 * much slower the second core ran (bf_paired_core_effect), with
	 * its p-value, when cores is true.
	 */
	struct {
		bool *v;
		size_t n, alloc;
	} swapped;
	bool cores;
	double core_effect, core_p;
	/*
	 * Judged between two identical builds, this series' verdict
	 * (regressed or improved) was the machine's and is now unknown;
	 * has_machine_verdict says so.
	 */
	bool has_machine_verdict;
	enum bf_verdict machine_verdict;
	/*
	 * Whether its verdict decides the gate (the benchmark's gate:,
	 * bf_cfg_metric_gates), set by bf_comparison_judge(). The others'
	 * verdicts are reported and counted as ungated.
	 */
	bool gated;
	/* how many series its p-value was corrected with (judged ones) */
	size_t family;
};

struct bf_comparison {
	struct bf_series *series;
	size_t n, alloc;
	/* series by (bench, name, metric): a run may print thousands */
	struct bf_index index;
	int nbench;
	int *runs_ok; /* [bench * 2 + side]: measured runs that worked */
	int *runs_failed; /* [bench * 2 + side] */
	json_t *samples; /* every raw sample, for the JSON result */
	json_t *errors; /* every failed run */
	/*
	 * Adaptive repeats (compare_seq.c): the design, and per benchmark
	 * the last look taken (-1: none) and why its runs stopped.
	 */
	struct bf_seq_design *design; /* NULL: a fixed number of runs */
	/*
	 * Duet mode: both sides of a round are added together, only when
	 * both worked, so side[0].v[i] and side[1].v[i] are one round's
	 * pair, judged on their ratios (bf_compare_paired).
	 */
	bool paired;
	double alpha, min_effect; /* as bf_comparison_judge() judged */
	double seq_min_effect;
	int *last_look; /* [bench] */
	enum bf_seq_decision *stop; /* [bench]; BF_SEQ_OPEN: not stopped */
};

void bf_comparison_init(struct bf_comparison *c, int nbench);
void bf_comparison_release(struct bf_comparison *c);

/* Adds the samples of one measured run (s is borrowed). */
void bf_comparison_add_run(struct bf_comparison *c, const struct bf_cfg *cfg,
                           int bench, int side, int repeat,
                           const struct bf_samples *s);

/*
 * Duet: after both sides of a round of bench were added, records which
 * core each side had (swapped: base on the second) for every series of
 * the round.
 */
void bf_comparison_add_round(struct bf_comparison *c, int bench, bool swapped);

/*
 * Whether series s's duet rounds show one core slower than the other by
 * more than min_effect, at significance alpha: a neighbour on one core
 * (or cores that differ), which swings every round's ratio by that much.
 */
bool bf_series_cores_differ(const struct bf_series *s, double alpha,
                            double min_effect);

/* Records a failed run: code and message as the agent or transport said. */
void bf_comparison_add_error(struct bf_comparison *c, const struct bf_cfg *cfg,
                             int bench, int side, int repeat, const char *code,
                             const char *message);

/*
 * Judge every series (Mann-Whitney U, bootstrap interval, then
 * Benjamini-Hochberg across all of them) with cfg's alpha and
 * min_effect, overridden by alpha/min_effect when >= 0. Cannot fail:
 * series that cannot be judged get an error text.
 */
void bf_comparison_judge(struct bf_comparison *c, const struct bf_cfg *cfg,
                         double alpha, double min_effect, uint64_t seed);

/*
 * Adaptive repeats: looks after min, min + 2, ..., max runs per side
 * (one per interleaved block), alpha and min_effect as the verdicts
 * use them. BF_EINVAL when the looks cannot be planned.
 */
int bf_comparison_adaptive(struct bf_comparison *c, int min, int max,
                           double alpha, double min_effect, struct bf_err *err);

/* The look due after `runs` runs per side, or -1 (none, or fixed mode). */
int bf_comparison_look_at(const struct bf_comparison *c, int runs);

/*
 * Look k at bench's series (under the job's lock): each series not yet
 * decided is looked at; true when every one of them is decided, or at
 * the last look: the benchmark's runs stop. A series with fewer than 2
 * values on a side stays open.
 */
bool bf_comparison_look(struct bf_comparison *c, int bench, int k);

/*
 * Step i of plan (bench's unit) was done: when it ends a repeat at a
 * planned look, look (bf_comparison_look). True when the benchmark's
 * runs stop there; false in fixed mode.
 */
struct bf_plan;
bool bf_comparison_stops_after(struct bf_comparison *c, int bench,
                               const struct bf_plan *plan, size_t i);

/*
 * Adaptive verdicts (after bf_comparison_judge's summaries): each
 * series' verdict, effect and interval from its sequential decision,
 * not from a fixed test of the stopped sample.
 */
void bf_comparison_judge_seq(struct bf_comparison *c);

/* The result's "adaptive" object (new reference); NULL in fixed mode. */
json_t *bf_comparison_adaptive_json(const struct bf_comparison *c,
                                    const struct bf_cfg *cfg);
/* A series' "sequential" object (new reference). */
json_t *bf_series_seq_json(const struct bf_comparison *c,
                           const struct bf_series *s);

/*
 * Base and patch were the same build: any difference between them is
 * the machine's (code alignment, load, heat), so no series may be
 * called regressed or improved. Each such verdict becomes unknown, and
 * the series keeps what it would have been (machine_verdict). Call
 * after bf_comparison_judge. Returns how many changed.
 */
int bf_comparison_same_build(struct bf_comparison *c);

/*
 * Counts of verdicts and of series/runs with errors; missing: series
 * one side did not report (not counted in errors).
 */
/*
 * A comparison's verdicts: regressed and improved count the series
 * that gate; ungated, the regressed or improved series that do not.
 */
struct bf_tally {
	int regressed, improved, same, unknown, errors, measured, missing;
	int ungated;
};
void bf_comparison_tally(struct bf_tally *out, const struct bf_comparison *c);

/* The "results" array of the JSON result (new reference). */
json_t *bf_comparison_results_json(const struct bf_comparison *c,
                                   const struct bf_cfg *cfg);

/*
 * The benchmarks whose runs were too few for any verdict on one of
 * their gating series: with that many runs a side (rounds, in duet), a
 * change seen in one series of the benchmark's gating family cannot
 * reach an adjusted p below alpha. [{benchmark, runs, family, least_p,
 * alpha, min_runs}] (new reference; empty when there are none).
 */
json_t *bf_comparison_underpowered_json(const struct bf_comparison *c,
                                        const struct bf_cfg *cfg);

/* JSON number, or null for NaN and infinities (new reference). */
json_t *bf_json_real_or_null(double v);

#endif /* BF_COMPARE_H */
