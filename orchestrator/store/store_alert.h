#ifndef BF_STORE_ALERT_H
#define BF_STORE_ALERT_H

/* Part of store.h, which includes it: callers include store.h. */
#include "benchfarm/common.h"

struct bf_err;
struct bf_store;

/* Alerts from postsubmit step detection (store_alert.c). */

struct bf_store_alert {
	int64_t id; /* assigned by the store; ignored on add */
	char *benchmark; /* required */
	char *metric; /* required */
	char *device_class; /* devices the series ran on; NULL = "" */
	char *commit_lo; /* last commit before the step; required */
	char *commit_hi; /* first commit after the step; required */
	char *direction; /* "regressed" | "improved" */
	double size; /* relative change of the median */
	double score; /* detector score (t, step fit, ...) */
	char *status; /* open|ack|ignored; NULL = open on add */
	int64_t created_at; /* 0 on add = time(NULL) */
	int64_t group_id; /* alerts reported together; 0 = none */
	char *suite; /* config benchmark entry; may be NULL */
	char *detail; /* JSON text: detector, score, levels; may be NULL */
	char *culprit; /* the commit a bisect named; may be NULL */
};

/*
 * Store a new alert; a is borrowed. *id_out (may be NULL) gets its id.
 * Returns 0, BF_EEXISTS (same suite, benchmark, metric, device class
 * and commit range already recorded) or BF_EINVAL.
 */
int bf_store_alert_add(int64_t *id_out, struct bf_store *store,
                       const struct bf_store_alert *a, struct bf_err *err);

/*
 * Alerts with the given status (NULL: all), newest first. *out is a
 * new array of *n_out records (NULL when none); free it with
 * bf_store_alerts_free(*out, *n_out). Returns 0 or BF_EINVAL.
 */
int bf_store_alert_list(struct bf_store_alert **out, size_t *n_out,
                        struct bf_store *store, const char *status,
                        struct bf_err *err);

/*
 * Record the commit a bisect named as the cause of alert id (NULL
 * clears it). Returns 0 or BF_ENOTFOUND.
 */
int bf_store_alert_set_culprit(struct bf_store *store, int64_t id,
                               const char *culprit, struct bf_err *err);

/*
 * Narrow alert id to the step a shows (a step first seen over a wider
 * range, narrowed when commits inside it were measured): a's commit_lo,
 * commit_hi, group_id, size, score and detail replace the stored ones;
 * its status stays; its culprit becomes culprit (NULL clears it: a
 * culprit outside the new range is not the step's any more). Returns 0,
 * BF_ENOTFOUND or BF_EEXISTS (an alert over that range exists).
 */
int bf_store_alert_narrow(struct bf_store *store, int64_t id,
                          const struct bf_store_alert *a, const char *culprit,
                          struct bf_err *err);

/* Set the status of alert id. Returns 0, BF_ENOTFOUND or BF_EINVAL. */
int bf_store_alert_set_status(struct bf_store *store, int64_t id,
                              const char *status, struct bf_err *err);

/* Free one record's strings and zero it; NULL is ok. */
void bf_store_alert_release(struct bf_store_alert *a);
/* Free an array from bf_store_alert_list(); NULL is ok. */
void bf_store_alerts_free(struct bf_store_alert *alerts, size_t n);

#endif /* BF_STORE_ALERT_H */
