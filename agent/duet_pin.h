#ifndef BF_DUET_PIN_H
#define BF_DUET_PIN_H

#include <stddef.h>

/*
 * Pins the calling process to cpu for good (duet_pin.c): its affinity
 * becomes cpu alone, and a seccomp filter (with no_new_privs) makes
 * sched_setaffinity fail with EPERM for it and everything it starts, so
 * that no thread or child of it can move onto another core. Where the
 * cgroup files are hidden from it too (duet_isolate.c), it cannot leave
 * its core without a cpuset. 0, or -1 with why (what failed) in why.
 */
int bf_duet_pin(int cpu, char *why, size_t whylen);

#endif /* BF_DUET_PIN_H */
