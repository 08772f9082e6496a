#ifndef BF_PROBE_ANDROID_H
#define BF_PROBE_ANDROID_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_devfs;
struct bf_err;

/*
 * Android device state read through `adb shell` (a devfs opened with
 * bf_devfs_open_adb): battery from `dumpsys battery`, the platform's
 * thermal status from `dumpsys thermalservice`, build properties from
 * `getprop`. Cores and cpufreq come from sysfs through the same devfs,
 * like on Linux.
 *
 * Common to all three: on a local devfs the commands do not exist
 * (BF_ENOTFOUND, "needs an adb device"); a device that disconnects is
 * BF_EPROTO; output that does not have the documented shape (garbage,
 * a "Permission Denial" text, output cut short) is BF_EINVAL with a
 * message naming the command and the offending line. Nothing is
 * written to *out on failure.
 */

struct bf_android_battery {
	int capacity; /* percent, -1 unknown */
	bool charging;
	bool present;
	char status[32];
	double temp_c; /* NAN unknown */
};

/*
 * `dumpsys battery`. capacity = level * 100 / scale (integer, as
 * Jetpack computes it); status is the sysfs power_supply word for the
 * BatteryManager status code ("Unknown" 1, "Charging" 2, "Discharging"
 * 3, "Not charging" 4, "Full" 5); charging is status 2, or status 5
 * while AC, USB, wireless or dock power is connected; temp_c is
 * "temperature" (tenths of a degree) / 10; present is "present". A
 * device without a battery (present false) still reports its level;
 * Jetpack then counts it as 100%. Needs the header line and the
 * "status" and "level" lines; other lines (vendors add many) are
 * ignored.
 */
int bf_android_battery(struct bf_android_battery *out, struct bf_devfs *fs,
                       struct bf_err *err);

/*
 * `dumpsys thermalservice`: the "Thermal Status: N" line, 0 (none) to
 * 6 (shutdown) as PowerManager.THERMAL_STATUS_*. BF_ENOTFOUND when the
 * service does not exist (Android 9 and older).
 */
int bf_android_thermal_status(int *status_out, struct bf_devfs *fs,
                              struct bf_err *err);

/*
 * The PowerManager name of a thermal status: "none", "light",
 * "moderate", "severe", "critical", "emergency", "shutdown"; "unknown"
 * outside 0..6. Returns a static string. Cannot fail.
 */
const char *bf_android_thermal_status_name(int status);

/*
 * `getprop` ("[key]: [value]" lines) reduced to the properties behind
 * Jetpack's context.build and its emulator/root heuristics, as a new
 * object of strings keyed by property name (caller owns the reference,
 * json_decref): ro.build.fingerprint, ro.build.id, ro.build.type,
 * ro.build.tags, ro.build.version.sdk, ro.build.version.release,
 * ro.build.version.codename, ro.build.version.security_patch,
 * ro.product.brand, ro.product.device, ro.product.model,
 * ro.product.manufacturer, ro.product.name, ro.product.cpu.abi,
 * ro.hardware, ro.board.platform, ro.soc.manufacturer, ro.soc.model,
 * ro.debuggable, ro.kernel.qemu. Keys the device does not set are
 * absent. ro.build.fingerprint and ro.build.version.sdk must be
 * present (every Android build sets them); without them the output is
 * taken as cut short.
 */
int bf_android_props(json_t **out, struct bf_devfs *fs, struct bf_err *err);

#endif /* BF_PROBE_ANDROID_H */
