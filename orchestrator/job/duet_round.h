#ifndef BF_DUET_ROUND_H
#define BF_DUET_ROUND_H

#include <jansson.h>

#include "benchfarm/common.h"

/*
 * What a duet round says of its two sides beyond their samples
 * (duet_round.c): whether one of them was stopped while it ran, and
 * how far apart the agent kept them (its "isolation").
 */

/*
 * A base whose share of its wall time spent neither on a CPU nor
 * waiting for one exceeds the patch's by more than this was stopped
 * (SIGSTOP, a debugger, a freezer): the patch seems faster by as much.
 */
#define BF_DUET_STOP_MARGIN 0.2

/* One side's times in a round, from its run's result. */
struct bf_duet_times {
	double wall_s; /* from its start to its end */
	double cpu_s; /* user and system time, its reaped children's too */
	double run_delay_s; /* runnable but waiting for a CPU; 0: unknown */
	long stops; /* times the agent saw it stopped or continued */
};

/* The times of run result fin ("wall_s", "user_s", "sys_s", "cpu"). */
void bf_duet_times_of(struct bf_duet_times *out, const json_t *fin);

/*
 * The share of t's wall time neither on a CPU nor waiting for one, 0
 * to 1 (0 without a wall time).
 */
double bf_duet_idle_share(const struct bf_duet_times *t);

/*
 * Which side of a round (0 base, 1 patch) was stopped, or -1: one the
 * agent saw stopped by a signal, else the base when its idle share is
 * more than BF_DUET_STOP_MARGIN above the patch's. msg says what was
 * seen.
 */
int bf_duet_stopped_side(const struct bf_duet_times t[2], char *msg,
                         size_t msglen);

/* The rounds of a job: how far apart their sides were, which stopped. */
struct bf_duet_tally {
	int rounds; /* answered by the agent */
	int processes; /* each side in its own PID namespace */
	int cores; /* each side held on its core (cpuset or pinned) */
	int stopped; /* left out: a side was stopped */
	char processes_why[256]; /* the agent's first reason for not */
	char cores_why[256];
};

/* One round's "isolation" (the agent's result; NULL: an older agent). */
void bf_duet_tally_add(struct bf_duet_tally *t, const json_t *isolation);

/*
 * The result's "duet_isolation": mode (runs.duet_isolation), rounds,
 * processes_isolated and cores_isolated (rounds), isolated (every
 * round, both), not_isolated (what was not and why, or null) and
 * stopped_rounds. New reference.
 */
json_t *bf_duet_tally_json(const struct bf_duet_tally *t, const char *mode);

#endif /* BF_DUET_ROUND_H */
