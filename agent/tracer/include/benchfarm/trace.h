#ifndef BENCHFARM_TRACE_H
#define BENCHFARM_TRACE_H

/*
 * libbenchfarm_trace: function tracing for C and C++ built with
 * -finstrument-functions. Every function entry and exit appends one
 * 16-byte record (timestamp, function address) to the calling thread's
 * preallocated buffer: no lock, no allocation, no system call on that
 * path. Buffers are written to the trace file at exit, at
 * bf_trace_flush() and at bf_trace_stop().
 *
 * Environment (read when the library loads):
 *   BENCHFARM_TRACE=FILE        start tracing at load, write FILE
 *   BENCHFARM_TRACE_RECORDS=N   records per thread (default 1048576);
 *                               a full buffer stops that thread's
 *                               recording and the file says where
 *   BENCHFARM_TRACE_THREADS=N   threads traced at most (default 64)
 *   BENCHFARM_TRACE_ONLY=TEXT   record only functions in mappings whose
 *                               path contains TEXT (a library, or the
 *                               program's own name), as mapped at
 *                               bf_trace_start: libraries loaded later
 *                               are not recorded. To select functions,
 *                               use `benchfarm trace ... --only FUNC`.
 *   BENCHFARM_TRACE_PREFAULT=0  do not fault in a thread's whole buffer
 *                               when it starts recording (the default
 *                               does, so page faults do not distort the
 *                               times, at the price of RECORDS * 16
 *                               bytes of memory per traced thread)
 *
 * `benchfarm trace fold|top|chrome|svg|diff FILE` reads the file.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* Start (again) writing to path (NULL: $BENCHFARM_TRACE). 0 or -1. */
int bf_trace_start(const char *path);
/* Stop recording and write the file. 0 or -1 (errno set). */
int bf_trace_stop(void);
/* Write what is recorded so far; recording goes on. 0 or -1. */
int bf_trace_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* BENCHFARM_TRACE_H */
