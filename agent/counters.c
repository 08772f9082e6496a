/*
 * perf_event_open counters of a benchmark run: see counters.h. The
 * events are opened one by one (not as a group: the kernel does not let
 * an inherited group be read as one), each with its times enabled and
 * running, so that a hardware event the PMU multiplexed is scaled and
 * one that never got a PMU slot is not reported as 0.
 */
#include "counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Hidden by -D_POSIX_C_SOURCE; declared as glibc and musl do. */
long syscall(long number, ...);

static const struct {
	const char *metric, *unit;
	uint32_t type;
	uint64_t config;
} events[BF_COUNTERS_N] = {
	{ "task_clock_ns", "ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "context_switches", "", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu_migrations", "", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page_faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "instructions", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cycles", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "branch_misses", "", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache_misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
};

void bf_counters_init(struct bf_counters *cs)
{
	memset(cs, 0, sizeof(*cs));
	for (int i = 0; i < BF_COUNTERS_N; i++) {
		cs->c[i].metric = events[i].metric;
		cs->c[i].unit = events[i].unit;
		cs->c[i].type = events[i].type;
		cs->c[i].config = events[i].config;
		cs->c[i].fd = -1;
		snprintf(cs->c[i].why, sizeof(cs->c[i].why),
		         "unavailable on this device: not measured");
	}
}

void bf_counter_unavailable(struct bf_counter *c, int errnum)
{
	const char *why;

	switch (errnum) {
	case ENOENT:
	case EOPNOTSUPP:
		why = c->type == PERF_TYPE_HARDWARE
		              ? "the CPU offers no such hardware event (no "
		                "PMU, or a virtual machine without one)"
		              : "the kernel has no such event";
		break;
	case EACCES:
	case EPERM:
		why = "not permitted (kernel.perf_event_paranoid, or a "
		      "seccomp filter)";
		break;
	case ENOSYS:
		why = "the kernel has no perf_event_open";
		break;
	case ENODEV:
		why = "no PMU for this event on this CPU";
		break;
	default:
		why = strerror(errnum);
		break;
	}
	c->have = false;
	snprintf(c->why, sizeof(c->why), "unavailable on this device: %s (%s)",
	         why, strerror(errnum));
}

void bf_counters_all_unavailable(struct bf_counters *cs, const char *reason)
{
	for (int i = 0; i < BF_COUNTERS_N; i++) {
		cs->c[i].have = false;
		snprintf(cs->c[i].why, sizeof(cs->c[i].why),
		         "unavailable on this device: %s", reason);
	}
}

static int open_one(const struct bf_counter *c, pid_t pid, bool user_only)
{
#ifdef SYS_perf_event_open
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = c->type;
	a.config = c->config;
	a.read_format =
	        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = 1;
	a.inherit = 1;
	a.enable_on_exec = 1;
	a.exclude_kernel = user_only;
	a.exclude_hv = user_only;
	return (int)syscall(SYS_perf_event_open, &a, (long)pid, -1L, -1L,
	                    (long)PERF_FLAG_FD_CLOEXEC);
#else
	(void)c;
	(void)pid;
	(void)user_only;
	errno = ENOSYS;
	return -1;
#endif
}

void bf_counters_open(struct bf_counters *cs, pid_t pid)
{
	for (int i = 0; i < BF_COUNTERS_N; i++) {
		struct bf_counter *c = &cs->c[i];

		c->fd = open_one(c, pid, false);
		/* an unprivileged agent may count the program's user side */
		if (c->fd < 0 && (errno == EACCES || errno == EPERM)) {
			c->fd = open_one(c, pid, true);
			c->user_only = c->fd >= 0;
		}
		if (c->fd < 0)
			bf_counter_unavailable(c, errno);
	}
}

void bf_counter_take(struct bf_counter *c, const uint64_t raw[3])
{
	if (!raw[2] && raw[1]) {
		c->have = false;
		snprintf(c->why, sizeof(c->why),
		         "unavailable on this device: the event never got a "
		         "PMU counter while the benchmark ran (all counters "
		         "taken)");
		return;
	}
	c->have = true;
	c->value = (double)raw[0];
	if (raw[2] && raw[2] < raw[1])
		c->value = (double)raw[0] * ((double)raw[1] / (double)raw[2]);
}

void bf_counters_read(struct bf_counters *cs)
{
	for (int i = 0; i < BF_COUNTERS_N; i++) {
		struct bf_counter *c = &cs->c[i];
		uint64_t raw[3];
		ssize_t n;

		if (c->fd < 0)
			continue;
		while ((n = read(c->fd, raw, sizeof(raw))) < 0 &&
		       errno == EINTR)
			;
		if (n == (ssize_t)sizeof(raw))
			bf_counter_take(c, raw);
		else
			snprintf(c->why, sizeof(c->why),
			         "unavailable on this device: reading the "
			         "event failed (%s)",
			         n < 0 ? strerror(errno) : "short read");
		close(c->fd);
		c->fd = -1;
	}
}

void bf_counters_close(struct bf_counters *cs)
{
	for (int i = 0; i < BF_COUNTERS_N; i++)
		if (cs->c[i].fd >= 0) {
			close(cs->c[i].fd);
			cs->c[i].fd = -1;
		}
}

json_t *bf_counters_json(const struct bf_counters *cs)
{
	json_t *arr = json_array();

	for (int i = 0; i < BF_COUNTERS_N; i++) {
		const struct bf_counter *c = &cs->c[i];
		json_t *o = json_pack("{s:s, s:s}", "metric", c->metric, "unit",
		                      c->unit);

		if (c->have)
			json_object_set_new(o, "value", json_real(c->value));
		else
			json_object_set_new(o, "unavailable",
			                    json_string(c->why));
		if (c->have && c->user_only)
			json_object_set_new(o, "user_only", json_true());
		json_array_append_new(arr, o);
	}
	return arr;
}
