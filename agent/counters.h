#ifndef BF_AGENT_COUNTERS_H
#define BF_AGENT_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

#include "benchfarm/common.h"
#include "benchfarm/json.h"

/*
 * Kernel counters of one run (perf_event_open): four software events
 * and four hardware ones. Each is opened on the benchmark's pid after
 * fork and before it execs (bf_spawn_opts.started), disabled, with
 * enable_on_exec and inherit: it counts the program and the children it
 * starts, from its exec to its exit, and nothing of the agent. An event
 * the device cannot count (no PMU, not permitted) is unavailable with
 * the reason, never a zero.
 */
#define BF_COUNTERS_N 8

struct bf_counter {
	const char *metric; /* "task_clock_ns", "instructions", ... */
	const char *unit; /* "ns" or "" */
	uint32_t type; /* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config; /* PERF_COUNT_SW_* or PERF_COUNT_HW_* */
	int fd; /* -1 when not open */
	bool user_only; /* opened with exclude_kernel (paranoid setting) */
	bool have; /* value is a count */
	double value; /* scaled by enabled/running when multiplexed */
	char why[160]; /* when !have: "unavailable on this device: ..." */
};

struct bf_counters {
	struct bf_counter c[BF_COUNTERS_N];
};

/* The eight events, none open, none read. */
void bf_counters_init(struct bf_counters *cs);

/* Open every event on pid (which has not exec'd yet). Cannot fail:
 * an event that does not open records why. */
void bf_counters_open(struct bf_counters *cs, pid_t pid);

/*
 * Read every open event once the program has exited and close it.
 * raw holds what read() returned for each: value, time enabled, time
 * running (PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING); a count is
 * scaled by enabled / running when the PMU multiplexed it, and an event
 * that never ran on the PMU is unavailable.
 */
void bf_counters_read(struct bf_counters *cs);

/* One event's value from its read() triple; the unit tests feed it. */
void bf_counter_take(struct bf_counter *c, const uint64_t raw[3]);

/* Why an event did not open, from perf_event_open's errno, into c->why. */
void bf_counter_unavailable(struct bf_counter *c, int errnum);

/* Mark every event unavailable with reason (e.g. on Android). */
void bf_counters_all_unavailable(struct bf_counters *cs, const char *reason);

/* Close whatever is still open. */
void bf_counters_close(struct bf_counters *cs);

/*
 * The result's "counters": [{"metric", "unit", "value"} or
 * {"metric", "unit", "unavailable"}], in the order of bf_counters_init.
 */
json_t *bf_counters_json(const struct bf_counters *cs);

#endif /* BF_AGENT_COUNTERS_H */
