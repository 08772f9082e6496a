#ifndef BF_COUNTERS_H
#define BF_COUNTERS_H

#include "benchfarm/buf.h"
#include "benchfarm/json.h"
#include "benchfarm/sample.h"

struct bf_err;

/*
 * A run result's "counters" (the agent's perf_event_open counts, or
 * cachegrind's totals under `measure: instructions`): an array of
 * {"metric", "unit", "value"} or {"metric", "unit", "unavailable":
 * "unavailable on this device: why"}. Each value is one more sample of
 * the run, of benchmark (the config's benchmark name), iteration 0, so
 * that it is stored and compared like the benchmark's own metrics;
 * an unavailable event is never a sample.
 */

/*
 * Appends the values of result's "counters" to out; none when it has
 * no "counters" (an older agent). When unavailable is not NULL, it
 * receives one "metric: why" line per unavailable event, appended.
 * BF_EPROTO naming the entry when one is malformed (nothing appended).
 */
int bf_counters_samples(struct bf_samples *out, const json_t *result,
                        const char *benchmark, struct bf_buf *unavailable,
                        struct bf_err *err);

/*
 * Appends counter sample c (one of bf_counters_samples's) to s, the
 * run's samples as the benchmark printed them. A counter's series holds
 * what was measured and nothing a benchmark can print into: when s
 * already has a sample of c's benchmark and metric, one the benchmark
 * printed itself (a counter named "task_clock_ns" beside the kernel's),
 * BF_EINVAL naming both and nothing is appended.
 */
int bf_counters_add(struct bf_samples *s, const struct bf_sample *c,
                    struct bf_err *err);

/*
 * True for the counters that are often 0 in every run of a benchmark
 * (context_switches, cpu_migrations): their relative change is then
 * undefined, so they are compared only when a benchmark's metrics:
 * names them.
 */
bool bf_counter_often_zero(const char *metric);

#endif /* BF_COUNTERS_H */
