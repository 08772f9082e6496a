#ifndef BF_CPUUSAGE_H
#define BF_CPUUSAGE_H

#include <sys/types.h>

#include "benchfarm/common.h"

struct bf_err;

/*
 * CPU usage of a process and its waited-for children from
 * /proc/PID/stat, as Lyft's article describes it
 * ("CPU usage metrics from /proc/stat", Lyft engineering):
 *
 *   cpuTimeSec     = (utime + stime + cutime + cstime) / clockSpeedHz
 *   processTimeSec = uptimeSec - starttime / clockSpeedHz
 *   relAvgUsage    = (cpuTimeSec2 - cpuTimeSec1)
 *                    / (processTimeSec2 - processTimeSec1) / numCores
 *
 * clockSpeedHz is sysconf(_SC_CLK_TCK), numCores the online cores and
 * uptime CLOCK_BOOTTIME, the clock starttime counts from. Usage is a
 * fraction (0.25 = a quarter of all cores), not a percentage.
 */

/* The fields of /proc/PID/stat the method needs (proc(5) numbering). */
struct bf_proc_stat {
	int64_t pid; /* (1) */
	char state; /* (3) R, S, Z, ... */
	uint64_t utime; /* (14) clock ticks in user mode */
	uint64_t stime; /* (15) clock ticks in kernel mode */
	uint64_t cutime; /* (16) waited-for children, user mode */
	uint64_t cstime; /* (17) waited-for children, kernel mode */
	uint64_t starttime; /* (22) clock ticks after boot at fork */
};

/* One reading of /proc/PID/stat and the uptime it was taken at. */
struct bf_cpu_snapshot {
	struct bf_proc_stat stat;
	double uptime_s; /* CLOCK_BOOTTIME seconds when stat was read */
};

/*
 * Parse the text of /proc/PID/stat (len bytes, need not be
 * NUL-terminated). The command name in parentheses may hold spaces and
 * parentheses, so fields are counted from the last ')'. Garbage, a
 * truncated line or a negative tick count is BF_EINVAL naming what is
 * wrong. Cannot fail otherwise.
 */
int bf_proc_stat_parse(struct bf_proc_stat *out, const char *text, size_t len,
                       struct bf_err *err);

/*
 * Read /proc/PID/stat of a live or not yet reaped process and stamp it
 * with the current uptime. BF_ENOTFOUND when the process is gone,
 * BF_ESYS when unreadable, BF_EINVAL when unparsable.
 */
int bf_cpu_snapshot_take(struct bf_cpu_snapshot *out, pid_t pid,
                         struct bf_err *err);

/*
 * The snapshot of the moment st's process started: no CPU time yet, at
 * uptime starttime / clk_tck (Lyft's processTimeSec = 0). Usage from it
 * to a later snapshot is the average since launch. Cannot fail.
 */
void bf_cpu_snapshot_launch(struct bf_cpu_snapshot *out,
                            const struct bf_proc_stat *st, long clk_tck);

/* Lyft's cpuTimeSec of s. Cannot fail. */
double bf_cpu_time_s(const struct bf_cpu_snapshot *s, long clk_tck);

/* Lyft's processTimeSec of s: seconds since the process started. */
double bf_cpu_process_time_s(const struct bf_cpu_snapshot *s, long clk_tck);

/*
 * Relative average CPU usage between snapshots a and b of the same
 * process (b later), as a fraction of cores cores. A pure function.
 * BF_EINVAL when the snapshots are of different processes, b is not
 * later than a, CPU time went backwards, or clk_tck or cores is not
 * positive.
 */
int bf_cpu_usage(double *out, const struct bf_cpu_snapshot *a,
                 const struct bf_cpu_snapshot *b, long clk_tck, long cores,
                 struct bf_err *err);

/*
 * A time series of snapshots taken at an interval, bounded in size. When
 * full, every other snapshot is dropped and from then on only every
 * other one offered is kept (stride doubles): usage between the kept
 * ones stays exact and evenly spaced, only the resolution halves, so a
 * long run never makes a result message too large.
 */
struct bf_cpu_series {
	struct bf_cpu_snapshot *v; /* v[0] normally the launch snapshot */
	size_t n, alloc;
	size_t max; /* keep at most this many snapshots (odd, >= 3) */
	size_t stride; /* keep one snapshot in stride offered */
	size_t pending; /* offered since the last kept one */
};

#define BF_CPU_SERIES_MAX 4097 /* 4,096 intervals, ~120 KiB of JSON */

/* max 0: BF_CPU_SERIES_MAX; rounded up to odd, at least 3. */
void bf_cpu_series_init(struct bf_cpu_series *s, size_t max);
/* Frees the snapshots; NULL is ok. */
void bf_cpu_series_release(struct bf_cpu_series *s);
/*
 * Offer a copy of snap (later than the previous one). keep: store it
 * whatever the stride (the launch and the final snapshot). Cannot fail.
 */
void bf_cpu_series_add(struct bf_cpu_series *s,
                       const struct bf_cpu_snapshot *snap, bool keep);

/*
 * Usage over interval i (between v[i] and v[i + 1], 0 <= i < n - 1)
 * into *usage, and when it ends, in seconds since v[0], into *t. Errors
 * as bf_cpu_usage.
 */
int bf_cpu_series_point(double *t, double *usage, const struct bf_cpu_series *s,
                        size_t i, long clk_tck, long cores, struct bf_err *err);

/* Seconds of CLOCK_BOOTTIME (Lyft's uptimeSec). */
double bf_cpu_uptime_s(void);

#endif /* BF_CPUUSAGE_H */
