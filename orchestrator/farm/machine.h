#ifndef BF_MACHINE_H
#define BF_MACHINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "benchfarm/common.h"

/*
 * Which machine a device runs on, and when two devices are one machine.
 * Two registered devices can be one computer: two sshd ports of a lab
 * host, two users of one board, containers on one kernel. Measured at
 * once they are each other's load, so a pool runs such devices one at a
 * time (devices.same_machine, job/dispatch.c).
 *
 * A device's record (the store's devices.machine) is what its agent's
 * `info` said, as JSON text: {"machine_id", "boot_id", "hostname",
 * "cpu", "kernel"}, each present only when the agent knew it. The rule
 * (bf_machine_match):
 *
 *   1. The same machine-id (/etc/machine-id; an Android phone's serial
 *      number), or the same boot id (/proc/sys/kernel/random/boot_id, a
 *      random UUID of one boot of one kernel, which containers share),
 *      on both records. Either id alone names the machine: a machine-id
 *      survives reboots between the two records, a boot id covers
 *      containers that each have a machine-id of their own.
 *   2. And no corroborating fact differs: hostname, CPU model and
 *      kernel release, each compared when both records have it. A
 *      cloned image that kept its machine-id but runs elsewhere under
 *      another hostname or kernel is another machine.
 *
 * A record without either id is never the same as any other. The rule
 * leans towards "same": taking two machines for one costs parallelism,
 * taking one machine for two costs the measurements.
 */

/* Which ids made two records one machine (bf_machine_match). */
enum bf_machine_match_flags {
	BF_MACHINE_SAME_ID = 1 << 0, /* machine-id */
	BF_MACHINE_SAME_BOOT = 1 << 1, /* boot id */
};

/*
 * The record of the machine an agent's info object (borrowed) describes:
 * a new JSON text the caller frees, or NULL when info names neither a
 * machine-id nor a boot id (an old agent, a sysroot without them).
 * Cannot fail.
 */
char *bf_machine_from_info(const json_t *info);

/*
 * Whether records a and b (texts of bf_machine_from_info; NULL or
 * unparsable: unknown) are one machine by the rule above: 0 when not,
 * else the enum bf_machine_match_flags of the ids they share.
 */
unsigned bf_machine_match(const char *a, const char *b);

/* "machine-id", "boot id" or "machine-id and boot id" for a match. */
const char *bf_machine_match_name(unsigned match);

/*
 * Group n records: group_out[i] is the index of the first record of
 * i's machine (so records of one machine share the smallest index
 * among them), and -1 for a record no other one matches. Matching is
 * made transitive: a ~ b and b ~ c put a, b and c in one group. Returns
 * the number of groups of two or more. group_out is the caller's
 * array of n.
 */
size_t bf_machine_group(int *group_out, const char *const *records, size_t n);

/*
 * The turn of one machine's devices in a job that measures on one of
 * them at a time (devices.same_machine: serial): who holds it, who held
 * it last and how many others wait for it. A worker that just gave the
 * machine back lets a waiting one go first, so the devices take turns
 * (each benchmark with its interleaved runs stays on one device, and
 * each device gets some of them). The caller keeps it under its own
 * lock; who is any pointer that names a worker.
 */
struct bf_machine_slot {
	const void *holder; /* measuring now; NULL: nobody */
	const void *last; /* who held it last */
	int waiting; /* others waiting for it */
};

#define BF_MACHINE_SLOT_INIT  \
	{                     \
		NULL, NULL, 0 \
	}

/* Whether who may take s now (or holds it already). */
bool bf_machine_slot_may_take(const struct bf_machine_slot *s, const void *who);
/* Take s for who, which bf_machine_slot_may_take allowed. */
void bf_machine_slot_take(struct bf_machine_slot *s, const void *who);
/* Give s back if who holds it; whether it did. */
bool bf_machine_slot_give_back(struct bf_machine_slot *s, const void *who);

#endif /* BF_MACHINE_H */
