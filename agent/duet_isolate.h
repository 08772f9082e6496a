#ifndef BF_DUET_ISOLATE_H
#define BF_DUET_ISOLATE_H

#include <jansson.h>
#include <sys/types.h>

#include "benchfarm/common.h"

/*
 * Keeping a duet's two runs apart (duet_isolate.c). Each run's process
 * gets its own user, PID and mount namespaces with its own /proc, so
 * that neither side can see, signal or trace the other's processes,
 * and cannot move onto the other side's core: where cgroup v2
 * delegates cpuset to the agent, its own cpuset holds only its core;
 * elsewhere its affinity is its core and a seccomp filter refuses it
 * another (duet_pin.h); the cgroup files are hidden from it either way.
 */

/* How far apart the request asks the runs to be kept ("isolation"). */
enum bf_duet_iso_mode {
	BF_DUET_ISO_NONE, /* not at all: the result says so */
	BF_DUET_ISO_BEST_EFFORT, /* what the device allows; the result says */
	BF_DUET_ISO_PROCESSES, /* own PID namespaces, or the run is refused */
	BF_DUET_ISO_FULL, /* own PID namespaces, held on cores, or refused */
};

/* What one run got. */
struct bf_duet_iso {
	bool processes; /* own user, PID and mount namespaces and /proc */
	/*
	 * It cannot leave its core: its own cpuset of that core, or its
	 * affinity pinned there for good (pinned), cgroup files hidden.
	 */
	bool cores;
	bool pinned; /* pinned: the run must not set its affinity again */
	char processes_why[200]; /* why not, when not */
	char cores_why[200];
};

/*
 * The mode named by s ("none", "best_effort", "processes", "full"; NULL:
 * best_effort) into *out; BF_EINVAL for another name.
 */
int bf_duet_iso_mode_of(enum bf_duet_iso_mode *out, const char *s);

/*
 * Where the runs' cpusets go: the cgroup v2 directory whose children
 * may have cpusets, the agent's cgroup's parent (the root cgroup when
 * the agent is in it), into dir; 0, or -1 with why (what is missing)
 * in why. Cannot fail otherwise.
 */
int bf_duet_cpuset_parent(char *dir, size_t dirlen, char *why, size_t whylen);

/*
 * In run index's child of the agent (single-threaded), before the run:
 * joins a new cpuset of cpu beside the agent's cgroup where cgroup v2
 * delegates one (bf_duet_cpuset_parent), then enters new namespaces. Returns in
 * the process that is to run: the first process of the new PID namespace, whose
 * parent (this call's caller) waits for it and exits with its status, never
 * returning; or, where a namespace cannot be made, in the calling process. *out
 * says what was reached. With mode NONE it does nothing.
 */
void bf_duet_isolate(struct bf_duet_iso *out, enum bf_duet_iso_mode mode,
                     int cpu, int index);

/*
 * The cpuset of run index, removed by the agent once the run's child
 * was waited for. Cannot fail: a directory that will not go is left.
 */
void bf_duet_cpuset_remove(int index);

/* out as the "isolation" message of a run, to precede its answer. */
json_t *bf_duet_iso_json(const struct bf_duet_iso *out, int64_t id);

/*
 * Whether out falls short of mode (PROCESSES, FULL); when it does, the
 * refusal's message into msg.
 */
bool bf_duet_iso_is_short(const struct bf_duet_iso *out,
                          enum bf_duet_iso_mode mode, char *msg, size_t msglen);

#endif /* BF_DUET_ISOLATE_H */
