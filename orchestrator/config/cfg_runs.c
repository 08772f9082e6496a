#include "config/cfg_int.h"

#include <string.h>

#include "benchfarm/err.h"

/*
 * How many runs each benchmark gets: the rules that tie runs.repeats,
 * runs.warmup and a benchmark's own repeats: and warmup: together, once
 * every key is loaded. A rule broken is said at the key that breaks it.
 */

/* A benchmark's repeats: a fixed count, as runs.repeats' number. */
static const struct bf_cfg__field bench_repeats =
        BF_CFG__INT_KEY("repeats", 0, 2, BF_CFG_MAX_REPEATS);

int bf_cfg__load_bench_repeats(struct bf_cfg__ld *ld, yaml_node_t *node,
                               void *member, const char *path)
{
	if (node->type == YAML_SCALAR_NODE &&
	    !strcmp(bf_cfg__scalar(node), "auto"))
		return bf_cfg__error(
		        ld, node,
		        "'%s' must be a number of runs per side, 2 to %d: "
		        "'auto' is a value of 'runs.repeats' only, which "
		        "makes every benchmark adaptive",
		        path, BF_CFG_MAX_REPEATS);
	return bf_cfg__get_value(ld, &bench_repeats, node, member, path);
}

/*
 * repeats: auto needs max_repeats >= min_repeats, and interleaving (it
 * decides after each interleaved block; without interleaving every
 * base run comes before every patch run).
 */
static int check_adaptive(struct bf_cfg__ld *ld, yaml_node_t *runs,
                          const struct bf_cfg *cfg)
{
	yaml_node_t *at;

	if (!cfg->runs.adaptive || !runs)
		return 0;
	if (cfg->runs.duet) {
		at = bf_cfg__find_key(ld, runs, "mode");
		return bf_cfg__error(
		        ld, at ? at : runs,
		        "'runs.mode: duet' takes a fixed number of "
		        "rounds: set 'runs.repeats' to a number, "
		        "not 'auto' (adaptive repeats are not "
		        "available in duet mode)");
	}
	if (cfg->runs.max_repeats < cfg->runs.min_repeats) {
		at = bf_cfg__find_key(ld, runs, "max_repeats");
		return bf_cfg__error(ld, at ? at : runs,
		                     "'runs.max_repeats' (%d) must be at least "
		                     "'runs.min_repeats' (%d)",
		                     cfg->runs.max_repeats,
		                     cfg->runs.min_repeats);
	}
	if (!cfg->runs.interleave) {
		at = bf_cfg__find_key(ld, runs, "repeats");
		return bf_cfg__error(ld, at ? at : runs,
		                     "'runs.repeats: auto' decides after each "
		                     "interleaved block: it needs "
		                     "'runs.interleave: true'");
	}
	return 0;
}

/* Whether the runs mapping sets key. */
static bool runs_sets(struct bf_cfg__ld *ld, yaml_node_t *runs, const char *key)
{
	return runs && runs->type == YAML_MAPPING_NODE &&
	       bf_cfg__find_key(ld, runs, key);
}

/*
 * Counts under cachegrind do not vary from run to run: when every
 * benchmark has measure: instructions, runs.repeats and runs.warmup
 * not given default to 3 and 0.
 */
static void instructions_defaults(struct bf_cfg__ld *ld, yaml_node_t *runs,
                                  struct bf_cfg *cfg)
{
	for (size_t i = 0; i < cfg->nbenchmarks; i++)
		if (cfg->benchmarks[i].measure != BF_MEASURE_INSTRUCTIONS)
			return;
	if (!cfg->nbenchmarks)
		return;
	if (!runs_sets(ld, runs, "repeats"))
		cfg->runs.repeats = BF_CFG_INSTRUCTIONS_REPEATS;
	if (!runs_sets(ld, runs, "warmup"))
		cfg->runs.warmup = BF_CFG_INSTRUCTIONS_WARMUP;
}

/*
 * Each benchmark's repeats and warmup: its own key; else runs.repeats
 * and runs.warmup when the file sets them; else 3 and 0 under measure:
 * instructions, the runs' defaults for the rest. Its own repeats: with
 * runs.repeats: auto is refused: adaptive repeats decide every
 * benchmark's count. Every benchmark is looked at, so that one run
 * names every error; the first is returned.
 */
static int bench_counts(struct bf_cfg__ld *ld, yaml_node_t *root,
                        yaml_node_t *runs, struct bf_cfg *cfg)
{
	yaml_node_t *seq = bf_cfg__find_key(ld, root, "benchmarks");
	bool repeats_set = runs_sets(ld, runs, "repeats");
	bool warmup_set = runs_sets(ld, runs, "warmup");
	int ret = 0;

	for (size_t i = 0; seq && i < cfg->nbenchmarks; i++) {
		struct bf_cfg_benchmark *b = &cfg->benchmarks[i];
		yaml_node_t *item = bf_cfg__item(ld, seq, i);
		yaml_node_t *own = bf_cfg__find_key(ld, item, "repeats");
		bool instr = b->measure == BF_MEASURE_INSTRUCTIONS;

		if (own && cfg->runs.adaptive)
			ret = bf_cfg__error(
			        ld, own,
			        "'benchmarks[%zu].repeats' cannot be given "
			        "with 'runs.repeats: auto': adaptive repeats "
			        "decide every benchmark's count (between "
			        "'runs.min_repeats' and 'runs.max_repeats'); "
			        "remove it, or set 'runs.repeats' to a number",
			        i);
		if (!own)
			b->repeats = repeats_set || !instr
			                     ? cfg->runs.repeats
			                     : BF_CFG_INSTRUCTIONS_REPEATS;
		if (!bf_cfg__find_key(ld, item, "warmup"))
			b->warmup = warmup_set || !instr
			                    ? cfg->runs.warmup
			                    : BF_CFG_INSTRUCTIONS_WARMUP;
	}
	return ret;
}

int bf_cfg__runs_rules(struct bf_cfg__ld *ld, yaml_node_t *root,
                       struct bf_cfg *cfg)
{
	yaml_node_t *runs = bf_cfg__find_key(ld, root, "runs");
	int ret, r;

	instructions_defaults(ld, runs, cfg);
	ret = bench_counts(ld, root, runs, cfg);
	r = check_adaptive(ld, runs, cfg);
	return ret ? ret : r;
}
