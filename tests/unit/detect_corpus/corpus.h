#ifndef BF_TEST_CORPUS_H
#define BF_TEST_CORPUS_H

#include <stddef.h>

#include "benchfarm/detect.h"

/*
 * The held-in corpus of real histories (the .hist files of
 * tests/data/histories; its README has the format and where each came from):
 * series of commits with every repeat, and the documented steps expected in
 * them. Read by the detector's corpus test and by bench/history_score.c.
 */
struct hc_series {
	char *name, *unit;
	size_t n; /* commits, oldest first */
	char (*commit)[41];
	double *v; /* repeats of commit k: v[off[k] .. off[k+1]) */
	size_t *off;
	size_t nsteps; /* documented steps of 10% or more */
	size_t *step; /* commit index of each: its first new commit */
};

struct hc_corpus {
	struct hc_series *s;
	size_t n;
};

/* Appends path's series to c; 0, or -1 with err naming the line. */
int hc_load(struct hc_corpus *c, const char *path, char *err, size_t errlen);
void hc_release(struct hc_corpus *c);

/*
 * One detector on one series: documented steps found at their commit
 * (exact), one commit off (near), not found (missed); alerts more than
 * one commit from every documented step (false_alerts), of alerts.
 */
struct hc_score {
	size_t exact, near, missed, false_alerts, alerts;
};
int hc_score(struct hc_score *sc, const struct hc_series *s,
             const struct bf_detect_params *p);

#endif /* BF_TEST_CORPUS_H */
