/*
 * Every detector, at its defaults, on the held-in corpus of real
 * histories: per series, the documented steps found at their commit,
 * one commit off, or missed, and the alerts at no documented step per
 * 100 commits. Usage: history_score [-v] FILE.hist... (-v lists each
 * alert). bench/history_corpus.sh builds and runs it.
 *
 * Then the head of the branch: each documented step seen as it lands,
 * the series cut k commits after it (k = 1 to 12, the step's commit
 * included), and the least k at which each detector names the step at
 * its commit, and keeps doing so up to 12 (a detector that finds it and
 * then moves it elsewhere has not found it yet).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "corpus.h"

static const enum bf_detector order[] = { BF_DETECT_POOLED, BF_DETECT_JETPACK,
	                                  BF_DETECT_SKIA, BF_DETECT_PERFHERDER,
	                                  BF_DETECT_EDIVISIVE };

static void list_alerts(const struct hc_series *s,
                        const struct bf_detect_params *p)
{
	struct bf_change *ch = NULL;
	size_t nch = 0;
	struct bf_err err = { 0 };

	if (bf_detect_series_reps(&ch, &nch, p, s->v, s->off, s->n, &err))
		return;
	for (size_t i = 0; i < nch; i++)
		printf("    alert %s at %zu (%.12s): %+.1f%% score %.2f\n",
		       bf_detector_name(p->detector), ch[i].index,
		       s->commit[ch[i].index], 100 * ch[i].size, ch[i].score);
	free(ch);
}

/* Whether p finds s's step j at its commit in the first n commits. */
static int found_in(const struct hc_series *s, size_t j, size_t n,
                    const struct bf_detect_params *p)
{
	struct bf_change *ch = NULL;
	size_t nch = 0;
	struct bf_err err = { 0 };
	int hit = 0;

	if (bf_detect_series_reps(&ch, &nch, p, s->v, s->off, n, &err))
		return 0;
	for (size_t i = 0; i < nch; i++)
		hit |= ch[i].index == s->step[j];
	free(ch);
	return hit;
}

static void head_table(const struct hc_corpus *c)
{
	printf("\nthe newest commits: commits from a documented step on "
	       "(the step's included) before each detector names it at "
	       "its commit\n");
	printf("%-28s %-12s", "series", "step");
	for (size_t d = 0; d < sizeof(order) / sizeof(order[0]); d++)
		printf(" %10s", bf_detector_name(order[d]));
	printf("\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct hc_series *s = &c->s[i];

		for (size_t j = 0; j < s->nsteps; j++) {
			printf("%-28s %-12.12s", s->name,
			       s->commit[s->step[j]]);
			for (size_t d = 0; d < sizeof(order) / sizeof(order[0]);
			     d++) {
				struct bf_detect_params p;
				size_t first = 0;

				bf_detect_params_default(&p, order[d]);
				for (size_t k = 12; k >= 1; k--) {
					size_t n = s->step[j] + k;

					if (n > s->n || !found_in(s, j, n, &p))
						break;
					first = k;
				}
				if (first)
					printf(" %10zu", first);
				else
					printf(" %10s", "> 12");
			}
			printf("\n");
		}
	}
}

int main(int argc, char **argv)
{
	struct hc_corpus c = { NULL, 0 };
	char err[512];
	int verbose = argc > 1 && !strcmp(argv[1], "-v");

	for (int i = 1 + verbose; i < argc; i++) {
		if (hc_load(&c, argv[i], err, sizeof(err))) {
			fprintf(stderr, "history_score: %s\n", err);
			return 2;
		}
	}
	printf("%-10s %-28s %7s %6s %5s %5s %6s %7s %9s\n", "detector",
	       "series", "commits", "steps", "exact", "near", "missed",
	       "alerts", "false/100");
	for (size_t d = 0; d < sizeof(order) / sizeof(order[0]); d++) {
		struct bf_detect_params p;

		bf_detect_params_default(&p, order[d]);
		for (size_t i = 0; i < c.n; i++) {
			const struct hc_series *s = &c.s[i];
			struct hc_score sc;

			if (hc_score(&sc, s, &p))
				return 1;
			printf("%-10s %-28s %7zu %6zu %5zu %5zu %6zu %7zu "
			       "%9.2f\n",
			       bf_detector_name(order[d]), s->name, s->n,
			       s->nsteps, sc.exact, sc.near, sc.missed,
			       sc.alerts,
			       100.0 * (double)sc.false_alerts / (double)s->n);
			if (verbose)
				list_alerts(s, &p);
		}
	}
	head_table(&c);
	hc_release(&c);
	return 0;
}
