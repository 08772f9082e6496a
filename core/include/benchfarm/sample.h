#ifndef BF_SAMPLE_H
#define BF_SAMPLE_H

#include "benchfarm/common.h"

/*
 * One measured number, as parsers produce it and the protocol carries
 * it. Time metrics are normalised to nanoseconds ("ns") by the parsers,
 * so that a base and a patch run with different time units compare.
 */
struct bf_sample {
	char *benchmark; /* e.g. "BM_sort/1024"; owned */
	char *metric; /* e.g. "real_time"; owned */
	char *unit; /* e.g. "ns"; owned, "" when unitless */
	double value;
	int iteration; /* index within one run (repetition), 0-based */
};

/* A growable array of samples that owns its strings. */
struct bf_samples {
	struct bf_sample *v;
	size_t n;
	size_t alloc;
};

#define BF_SAMPLES_INIT    \
	{                  \
		NULL, 0, 0 \
	}

void bf_samples_init(struct bf_samples *s);
/* Frees every sample and the array; NULL is ok. */
void bf_samples_release(struct bf_samples *s);
/* Appends copies of the strings. Cannot fail (aborts on OOM). */
void bf_samples_add(struct bf_samples *s, const char *benchmark,
                    const char *metric, const char *unit, double value,
                    int iteration);

/*
 * Whether unit names an amount that cannot be below 0: a time (ns, us,
 * µs, ms, s), a size (B, bytes, KB, KiB, ... TiB), a count
 * (instructions, cycles, count) or a rate (any unit ending "/s"). The
 * parsers refuse a negative value in such a unit, as its ratio to a
 * negative base would point the wrong way. unit NULL or "" (unitless):
 * false. Cannot fail.
 */
bool bf_unit_is_amount(const char *unit);

#endif /* BF_SAMPLE_H */
