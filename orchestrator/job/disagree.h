#ifndef BF_JOB_DISAGREE_H
#define BF_JOB_DISAGREE_H

#include "benchfarm/json.h"

struct bf_cfg;

/*
 * Where a benchmark's time and its counters tell different stories. The
 * counters cover the benchmark's whole process, so only a benchmark
 * whose process does one fixed piece of work is looked at: not gbench or
 * jetpack (they run each benchmark for a fixed time, adapting the
 * iteration count), and with time results of one name only. Its time
 * metric (unit "ns", other than the task_clock_ns counter) is set beside
 * one counter: the instructions when the results have them, else
 * task_clock_ns (the CPU time of the benchmark's processes). They
 * disagree when one has a verdict (regressed or improved) and the other
 * is the same, or has the opposite verdict; an unknown says nothing. results is
 * a comparison's "results" array; the answer is the "disagreements" array:
 * {benchmark, name, time_metric, time_verdict, time_effect, counter,
 * counter_verdict, counter_effect, meaning}, with meaning what such a
 * disagreement usually means. Cannot fail.
 */
json_t *bf_disagreements_json(const json_t *results, const struct bf_cfg *cfg);

#endif /* BF_JOB_DISAGREE_H */
