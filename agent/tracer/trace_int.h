#ifndef BF_TRACE_INT_H
#define BF_TRACE_INT_H

/* Shared between the tracer's files, not exported from the library. */
#include <stddef.h>
#include <stdint.h>

#define BF_TRACE_HIDDEN \
	__attribute__((visibility("hidden"), no_instrument_function))

/*
 * The objects section of the trace file (format.h) without its count:
 * *buf_out (malloc'd, caller frees; NULL when empty) holds *len_out
 * bytes of *n_out entries. Out of memory gives fewer entries, never a
 * broken one. Cannot fail otherwise.
 */
BF_TRACE_HIDDEN void bf_trace__objects(unsigned char **buf_out, size_t *len_out,
                                       uint32_t *n_out);

#endif /* BF_TRACE_INT_H */
