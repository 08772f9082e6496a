#ifndef BF_STORE_COPY_H
#define BF_STORE_COPY_H

/* Part of store.h, which includes it: callers include store.h. */
#include "benchfarm/common.h"

struct bf_err;
struct bf_store;

/* Copying a store into another (store_copy.c). */

#define BF_STORE_COPY_TABLES 5

/*
 * What a copy did with one table's rows: source, the rows the source
 * has; copied, those added to the destination; present, those the
 * destination had already (matched by their natural key: a device by
 * name, a run by kind, start time, device, commits, config digest and
 * seed, its samples and checks with it, an alert by its unique key);
 * dest_before and dest_after, the destination's rows before and after.
 */
struct bf_store_copy_table {
	const char *name; /* "devices", "runs", "samples", "checks", "alerts" */
	int64_t source, copied, present, dest_before, dest_after;
};

struct bf_store_copy_result {
	struct bf_store_copy_table t[BF_STORE_COPY_TABLES]; /* in that order */
};

/*
 * Called after each row of table: done of total handled. For a progress
 * line; it must not use the stores.
 */
typedef void bf_store_copy_progress_fn(const char *table, int64_t done,
                                       int64_t total, void *payload);

/*
 * Copy src's devices (with their pinned host keys and settings, idle:
 * leases are not copied), runs with their samples and checks, the
 * checks of no run, and alerts into dst, skipping each row dst already
 * has, so that a second copy adds nothing and dst's other rows stay.
 * src is only read. dst's writes are one write transaction: on failure
 * nothing is added. *out is filled (counted inside the transaction) on
 * success; progress may be NULL. Returns 0 or the store's error, naming
 * the store and the row.
 */
int bf_store_copy(struct bf_store_copy_result *out, struct bf_store *dst,
                  struct bf_store *src, bf_store_copy_progress_fn *progress,
                  void *payload, struct bf_err *err);

/*
 * Whether a table's counts agree: every source row copied or present,
 * and the destination grew by exactly the rows copied.
 */
bool bf_store_copy_matches(const struct bf_store_copy_table *t);

#endif /* BF_STORE_COPY_H */
