#ifndef BF_TRACE_FORMAT_H
#define BF_TRACE_FORMAT_H

/*
 * The trace file, little-endian, written by agent/tracer/trace.c and read
 * by orchestrator/trace/trace_read.c:
 *
 *   header   "BFTRACE1", u32 version (2), u32 flags (1: partial)
 *            u64 ticks0, u64 ns0, u64 ticks1, u64 ns1   calibration pairs
 *            u32 pid, u32 nthreads, u64 maps_len, maps text (/proc/self/maps)
 *   objects  (version 2) u32 nobjects, then per loaded ELF object that
 *            has a GNU build-id: u64 lo, u64 hi (the span of its PT_LOAD
 *            segments in memory), u32 idlen (at most 64), idlen bytes
 *   thread   u32 tid, u32 flags (1: truncated), u64 count, u64 dropped,
 *            u64 truncated_at_ticks, count records
 *   record   u64 ticks, u64 addr (bit 63 set: exit)
 *
 * Ticks convert to nanoseconds by the two calibration pairs.
 */
#include <stdint.h>

#define BF_TRACE_MAGIC       "BFTRACE1"
#define BF_TRACE_VERSION     2 /* readers also take 1: no objects */
#define BF_TRACE_ID_MAX      64
#define BF_TRACE_EXIT_BIT    (1ULL << 63)
#define BF_TRACE_F_PARTIAL   1u
#define BF_TRACE_T_TRUNCATED 1u

struct bf_trace_record {
	uint64_t ticks;
	uint64_t addr;
};

#endif /* BF_TRACE_FORMAT_H */
