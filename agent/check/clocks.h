#ifndef BF_CLOCKS_H
#define BF_CLOCKS_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_devfs;
struct bf_err;

/*
 * Locking CPU clocks the way Jetpack's lockClocks.sh does it
 * (androidx.benchmark's gradle plugin script), through a devfs
 * so that fixture trees stand in for /sys in tests:
 *
 *   1. every core online (cpuN/online = 1), governor "userspace";
 *   2. then per core: target = the lowest available frequency that is at
 *      least 50% of cpuinfo_max_freq, written to scaling_max_freq,
 *      scaling_min_freq and scaling_setspeed, and read back.
 *
 * Unlike the script (whose undo is a reboot), the settings each core had
 * before (online, governor, min, max, and the set speed of a core that
 * was already on "userspace") are recorded in a state file before
 * anything changes, and unlock restores exactly those.
 */

#define BF_CLOCKS_TARGET_PERCENT 50 /* Jetpack's CPU_TARGET_FREQ_PERCENT */
#define BF_CLOCKS_CPU_DIR        "/sys/devices/system/cpu"

/*
 * Jetpack's choice of frequency for a core, in kHz, exactly as the
 * script computes it: the threshold is in whole MHz, floor(max_khz * 50
 * / 100000), and a frequency qualifies when its whole MHz (freq / 1000,
 * truncated) are at least that. The lowest qualifying one wins.
 *
 * Without a frequency table (navail 0, the file is missing: drivers
 * with continuous ranges) the reference gives no rule and the script
 * would write 0; we write the threshold itself, threshold * 1000 kHz,
 * and the kernel's userspace governor settles on the lowest frequency at
 * or above it (CPUFREQ_RELATION_L). *from_table tells which case it
 * was. BF_EINVAL when max_khz is not positive or no available frequency
 * reaches the threshold. A pure function.
 */
int bf_clocks_target_khz(int64_t *out, bool *from_table, int64_t max_khz,
                         const int64_t *avail, size_t navail,
                         struct bf_err *err);

/* What one core had before locking. */
struct bf_clocks_core {
	int cpu; /* N of cpuN */
	int online; /* 1, 0, or -1: no online file (cannot go offline) */
	char *governor; /* NULL: cpufreq settings not recorded */
	int64_t min_khz; /* scaling_min_freq */
	int64_t max_khz; /* scaling_max_freq */
	int64_t setspeed_khz; /* scaling_setspeed on "userspace", else -1 */
};

struct bf_clocks_state {
	char *device; /* the devfs description it was taken from */
	struct bf_clocks_core *cores; /* by cpu number */
	size_t n;
};

/* The state in memory and in its file: clocks_state.c. */
void bf_clocks_state_init(struct bf_clocks_state *st);
/* Frees everything; NULL is ok. */
void bf_clocks_state_release(struct bf_clocks_state *st);
/*
 * Append a core with nothing recorded yet (online -1, governor NULL,
 * setspeed -1). Borrowed; valid until the next add. Cannot fail.
 */
struct bf_clocks_core *bf_clocks_state_add(struct bf_clocks_state *st, int cpu);

/*
 * Read the current settings of every core under BF_CLOCKS_CPU_DIR into
 * st (initialised by this call; release it even on failure). Changes
 * nothing. A core that is offline may lack its cpufreq files: its
 * governor stays NULL. Errors name the file.
 */
int bf_clocks_capture(struct bf_clocks_state *st, struct bf_devfs *fs,
                      struct bf_err *err);

/*
 * Put back what c recorded: scaling_min/max_freq (in an order the kernel
 * accepts), the set speed of a core that was on "userspace", then the
 * governor. Nothing when its cpufreq was not recorded.
 */
int bf_clocks_restore_core(struct bf_devfs *fs, const struct bf_clocks_core *c,
                           struct bf_err *err);
/* Write cpuN/online. */
int bf_clocks_set_online(struct bf_devfs *fs, int cpu, bool online,
                         struct bf_err *err);

/*
 * {"cpu": N, key: {"online", "governor", "min_khz", "max_khz"}} for a
 * report ("was" before locking, "restored_to" when unlocking; online is
 * null where the core has no online file): a new reference.
 */
json_t *bf_clocks_core_json(const struct bf_clocks_core *c, const char *key);

/*
 * Lock the clocks of fs, recording the previous settings in state_path
 * first. When state_path exists already (locked before), the settings
 * it holds are kept, never overwritten, and only gaps are filled in.
 *
 * *report is set, on failure too, to a new JSON object saying what was
 * done ("state": "saved" or "kept"; "cores": per core what it was and
 * what it was set to; "locked"; "error"), for the caller to print and
 * decref. Everything that can be checked is checked before the first
 * write; after it, a failure leaves the state file for
 * bf_clocks_unlock to undo the rest. Errors name the file that failed.
 */
int bf_clocks_lock(json_t **report, struct bf_devfs *fs, const char *state_path,
                   struct bf_err *err);

/*
 * The state file (clocks_state.c) is JSON, written atomically with mode 0600.
 * Load is BF_ENOTFOUND when there is none and BF_ECORRUPT, naming the file,
 * when it is not one of ours.
 */
int bf_clocks_state_load(struct bf_clocks_state *st, const char *path,
                         struct bf_err *err);
int bf_clocks_state_save(const struct bf_clocks_state *st, const char *path,
                         struct bf_err *err);

/*
 * Restore the settings recorded in state_path and remove it. Without a
 * state file there is nothing to do: 0, with "restored": false in the
 * report. When a write fails the other cores are still restored, the
 * state file is kept for another attempt, and the first failure is
 * returned. *report as for bf_clocks_lock.
 */
int bf_clocks_unlock(json_t **report, struct bf_devfs *fs,
                     const char *state_path, struct bf_err *err);

#endif /* BF_CLOCKS_H */
