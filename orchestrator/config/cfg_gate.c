/*
 * benchmarks[].gate: which of a benchmark's metrics decide the gate
 * (fail the compare, count as its regressions). The others are measured,
 * judged and reported the same way, but a verdict of theirs gates
 * nothing, and they are corrected for multiple testing as a family of
 * their own, so that a noisy metric kept for information does not dilute
 * the gating ones.
 *
 * primary (the default) gates the metric that measures the benchmark's
 * own work: for Google Benchmark cpu_time, except where the benchmark
 * times something cpu_time does not see (more than one thread, or
 * UseRealTime/UseManualTime, whose names hold /threads:N, /real_time or
 * /manual_time) and real_time then; Jetpack's times (timeNs,
 * frameDurationCpuMs: a name ending in a time unit), not its counts
 * (allocationCount); hyperfine's wall time; every
 * metric of the native and line formats and under measure: instructions,
 * whose metrics are what the benchmark chose to print. all gates every
 * metric; a list gates the metrics it names.
 */
#include "config/cfg_int.h"

#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"

const char *const bf_cfg__gate_words[] = { "primary", "all", NULL };

const char *bf_gate_name(enum bf_gate g)
{
	return (unsigned)g < 2 ? bf_cfg__gate_words[g] : NULL;
}

int bf_cfg__load_gate(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                      const char *path)
{
	struct bf_cfg_benchmark *b = obj;
	size_t idx;
	int ret;

	if (node->type == YAML_SEQUENCE_NODE) {
		ret = bf_cfg__get_argv(ld, node, path, BF_CFG__NONEMPTY,
		                       &b->gate_metrics);
		if (!ret)
			b->gate = BF_GATE_LIST;
		return ret;
	}
	if (node->type != YAML_SCALAR_NODE)
		return bf_cfg__want(ld, node, path,
		                    "primary, all, or a list of metric names");
	ret = bf_cfg__get_word(ld, node, path, bf_cfg__gate_words, "gate",
	                       &idx);
	if (!ret)
		b->gate = (enum bf_gate)idx;
	return ret;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* Google Benchmark's "/threads:N" with N > 1 anywhere in name. */
static bool threaded(const char *name)
{
	const char *p = name;

	while ((p = strstr(p, "/threads:"))) {
		p += strlen("/threads:");
		if (strtol(p, NULL, 10) > 1)
			return true;
	}
	return false;
}

bool bf_cfg_metric_gates(const struct bf_cfg_benchmark *b, const char *series,
                         const char *metric)
{
	if (!b || b->gate == BF_GATE_ALL)
		return true;
	if (b->gate == BF_GATE_LIST) {
		for (size_t i = 0; i < b->gate_metrics.argc; i++)
			if (!strcmp(b->gate_metrics.argv[i], metric))
				return true;
		return false;
	}
	if (b->measure == BF_MEASURE_INSTRUCTIONS)
		return true;
	switch (b->format) {
	case BF_FORMAT_GBENCH: {
		bool wall = threaded(series) || strstr(series, "/real_time") ||
		            strstr(series, "/manual_time");

		return !strcmp(metric, wall ? "real_time" : "cpu_time");
	}
	case BF_FORMAT_JETPACK:
		/* a time (timeNs, frameDurationCpuMs), not a count */
		return ends_with(metric, "Ns") || ends_with(metric, "Us") ||
		       ends_with(metric, "Ms");
	case BF_FORMAT_HYPERFINE:
		return !strcmp(metric, "wall_time");
	default:
		return true;
	}
}
