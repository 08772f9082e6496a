#ifndef BF_JOB_DISAGREE_H
#define BF_JOB_DISAGREE_H

#include "benchfarm/json.h"

/*
 * Where a benchmark's time and its counters tell different stories. For
 * each benchmark of the config, each of its time metrics (unit "ns",
 * other than the task_clock_ns counter) is set beside one counter: the
 * instructions when the results have them, else task_clock_ns (the CPU
 * time of the benchmark's processes). They disagree when one has a
 * verdict (regressed or improved) and the other does not have the same
 * one. results is a comparison's "results" array; the answer is the
 * "disagreements" array: {benchmark, name, time_metric, time_verdict,
 * time_effect, counter, counter_verdict, counter_effect, meaning}, with
 * meaning what such a disagreement usually means. Cannot fail.
 */
json_t *bf_disagreements_json(const json_t *results);

#endif /* BF_JOB_DISAGREE_H */
