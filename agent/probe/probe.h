#ifndef BF_PROBE_H
#define BF_PROBE_H

#include <jansson.h>

#include "benchfarm/argv.h"
#include "benchfarm/common.h"
#include "probe/probe_android.h"

struct bf_devfs;
struct bf_err;

/*
 * Device facts for `info` and `check`, read through a bf_devfs (a
 * sysroot or adb), so fixture trees stand in for a device's /sys and
 * /proc. Probing never stops at a bad file: a missing file is "not
 * available" (its device path goes to `unavailable`), a garbage,
 * truncated or unreadable one leaves that field unknown and adds a
 * message naming the file to `errors`.
 *
 * Unknown numbers are -1 (counts, kHz, percent), NAN (temperatures,
 * load) or NULL (strings), as each field says.
 */

#define BF_PROBE_CPU_MAX 4096 /* CPU numbers must be below this */

/* A set of CPU numbers from a kernel range list such as "0-3,5". */
struct bf_cpulist {
	int *cpus; /* ascending, no duplicates; NULL when n is 0 */
	size_t n;
	bool known; /* false when the file was missing or bad */
};

/*
 * Parse a range list strictly: comma-separated N or N-M with N <= M,
 * decimal digits only, numbers below BF_PROBE_CPU_MAX, one optional
 * trailing newline; "" is the empty set. out is overwritten (release it
 * first) and left empty on error. BF_EINVAL names the bad part.
 */
int bf_cpulist_parse(struct bf_cpulist *out, const char *s, struct bf_err *err);
bool bf_cpulist_has(const struct bf_cpulist *l, int cpu);
/* Back to the kernel's form ("0-3,5"); caller frees. Cannot fail. */
char *bf_cpulist_format(const struct bf_cpulist *l);
void bf_cpulist_release(struct bf_cpulist *l);

/* One /sys/devices/system/cpu/cpuN directory. */
struct bf_probe_core {
	int cpu; /* N */
	bool online; /* the online list, else cpuN/online != "0" */
	char *governor; /* scaling_governor, NULL unknown */
	int64_t min_khz, max_khz, cur_khz; /* scaling_*_freq, -1 unknown */
	int64_t setspeed_khz; /* scaling_setspeed, -1 unknown/unsupported */
	int64_t hw_min_khz, hw_max_khz; /* cpuinfo_{min,max}_freq, -1 */
	int64_t *avail_khz; /* scaling_available_frequencies, ascending */
	size_t navail; /* 0 when unknown */
};

struct bf_probe_zone {
	char *name; /* "thermal_zone0" */
	char *type; /* NULL unknown */
	double temp_c; /* NAN unknown */
	bool valid; /* temp_c read and within BF_PROBE_TEMP_MIN..MAX */
};

#define BF_PROBE_TEMP_MIN (-50.0) /* degrees C; outside is a bad sensor */
#define BF_PROBE_TEMP_MAX 200.0

struct bf_probe_supply {
	char *name; /* "BAT0", "AC" */
	char *type; /* "Battery", "Mains", "USB"; NULL unknown */
	int capacity; /* percent 0..100, -1 unknown */
	char *status; /* "Charging", "Discharging", "Full"; NULL unknown */
	int online; /* 1, 0, -1 unknown */
	bool capacity_bad; /* capacity present but unreadable or garbage */
};

struct bf_probe {
	char *device; /* fs->desc, for messages */
	bool host; /* the device is this machine */
	char *hostname, *kernel, *arch, *cpu_model; /* NULL unknown */
	/*
	 * Which machine this is, for telling two devices that are one
	 * machine (NULL unknown): /etc/machine-id (on Android the
	 * property ro.serialno) and /proc/sys/kernel/random/boot_id, both
	 * read through the sysroot or adb.
	 */
	char *machine_id, *boot_id;
	int aslr; /* randomize_va_space 0..2, -1 unknown */

	struct bf_cpulist possible, present, online, isolated;
	bool cpulists_bad; /* possible or online was garbage/unreadable */
	struct bf_probe_core *cores; /* ascending by cpu */
	size_t ncores;
	int boost; /* turbo/boost 1 on, 0 off, -1 unknown */
	char *boost_source; /* the file that said so, NULL unknown */
	bool boost_bad;

	struct bf_probe_zone *zones;
	size_t nzones;
	struct bf_probe_supply *supplies;
	size_t nsupplies;

	int64_t mem_total_kb, mem_available_kb; /* -1 unknown */
	double load1, load5, load15; /* NAN unknown */
	int runnable, threads; /* /proc/loadavg R/T, -1 unknown */
	bool load_bad;

	bool android; /* read through adb */
	bool have_battery; /* android_battery is valid */
	bool android_battery_bad; /* dumpsys battery failed or was garbage */
	bool thermal_status_bad; /* dumpsys thermalservice likewise */
	struct bf_android_battery android_battery;
	int thermal_status; /* Android 0 none .. 6 shutdown, -1 unknown */
	json_t *props; /* getprop as an object, or NULL; owned */

	struct bf_argv unavailable; /* device paths that do not exist */
	struct bf_argv errors; /* "what was wrong", each naming the file */
};

enum bf_probe_flags {
	BF_PROBE_HOST = 1 << 0, /* fs is this machine: uname is valid */
};

/* Cannot fail. */
void bf_probe_init(struct bf_probe *p);
/* Frees everything p owns and returns it to the init state. */
void bf_probe_release(struct bf_probe *p);

/*
 * Probe everything into p (initialised by this call; release it even
 * on failure). Bad files never fail the call: see the top comment.
 * flags: enum bf_probe_flags. fs is borrowed. Returns 0; the only
 * failure is BF_EINVAL for a NULL fs.
 */
int bf_probe_all(struct bf_probe *p, struct bf_devfs *fs, unsigned flags,
                 struct bf_err *err);

/* The parts; each fills its own fields of p and records notes. */
void bf_probe_cpu(struct bf_probe *p, struct bf_devfs *fs);
void bf_probe_thermal(struct bf_probe *p, struct bf_devfs *fs);
void bf_probe_power(struct bf_probe *p, struct bf_devfs *fs);
void bf_probe_sys(struct bf_probe *p, struct bf_devfs *fs);

/*
 * The load alone, cheap to repeat while waiting for it to settle:
 * re-read /proc/loadavg (load1/5/15, runnable, threads, load_bad), and
 * the online CPU list when p does not know it yet.
 */
void bf_probe_load(struct bf_probe *p, struct bf_devfs *fs);

/*
 * Device text as a JSON string (null for NULL); bytes that do not form
 * UTF-8 become '?'. A new reference. Cannot fail.
 */
json_t *bf_probe_json_text(const char *s);

/* The number of online cores, or -1 when unknown. */
int bf_probe_online_count(const struct bf_probe *p);

/*
 * The device the agent's options name: the adb device adb, or when adb
 * is NULL the sysroot root (NULL or "/": this machine). *fs_out is the
 * caller's (bf_devfs_free); *flags_out gets BF_PROBE_HOST when the
 * sysroot is "/"; *key_out (may be NULL) a new string naming the device
 * in per-device state ("local", "adb-SERIAL"), caller frees.
 */
int bf_probe_open(struct bf_devfs **fs_out, unsigned *flags_out, char **key_out,
                  const char *root, const char *adb, struct bf_err *err);

/*
 * For the probe_*.c files (probe_read.c): read through fs, recording a missing
 * file in p->unavailable and any other failure in p->errors. Each returns 0,
 * BF_ENOTFOUND (missing) or another negative code (recorded).
 */
int bf_probe__line(char **out, struct bf_probe *p, struct bf_devfs *fs,
                   const char *path);
int bf_probe__text(char **out, struct bf_probe *p, struct bf_devfs *fs,
                   const char *path);
int bf_probe__i64(int64_t *out, struct bf_probe *p, struct bf_devfs *fs,
                  const char *path);
/* Names below dir (sorted); BF_ENOTFOUND recorded like a file. */
int bf_probe__list(struct bf_argv *names, struct bf_probe *p,
                   struct bf_devfs *fs, const char *dir);
void bf_probe__error(struct bf_probe *p, const char *fmt, ...) BF_PRINTF(2, 3);
/* The online CPU list alone, unless p knows it (for bf_probe_load). */
void bf_probe__online(struct bf_probe *p, struct bf_devfs *fs);

#endif /* BF_PROBE_H */
