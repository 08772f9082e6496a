#ifndef BF_ANDROID_RUN_H
#define BF_ANDROID_RUN_H

#include "benchfarm/common.h"
#include "benchfarm/sample.h"

struct bf_devfs;
struct bf_err;

/*
 * Running a Jetpack Microbenchmark on an Android device through adb
 * (docs/android.md). The test APK must already be installed.
 */

/* Cap on the instrumentation output kept from one run. */
#define BF_ANDROID_INSTRUMENT_OUT_MAX ((size_t)16 * 1024 * 1024)

/*
 * Runs `am instrument -w -r -e androidx.benchmark.output.enable true
 * [extra_args] test_runner` through `adb shell` on fs (an adb devfs),
 * then reads the benchmarkData.json the run wrote and appends its
 * samples to out (parser "jetpack").
 *
 * test_runner is "PACKAGE/RUNNER", e.g.
 * "com.example.benchmark.test/androidx.benchmark.junit4.AndroidBenchmarkRunner".
 * extra_args (NULL or NULL-terminated) holds key, value pairs passed as
 * `-e key value`; keys of [A-Za-z0-9_.]; values of [A-Za-z0-9_./:=,+@%-].
 * timeout_s bounds the instrumentation (0: 3600 s); on timeout the
 * package is force-stopped.
 *
 * The JSON is the one announced as additionalTestOutputFile_* in the
 * run-end result. When nothing is announced (older libraries), the
 * output directory (additionalTestOutputDir, else
 * /sdcard/Android/media/PACKAGE) is searched for *benchmarkData.json;
 * stale copies there are deleted before the run, so a run that writes
 * nothing (dry run) is never reported with an older run's numbers.
 *
 * Returns 0 with samples appended; on failure out is unchanged:
 * BF_EINVAL for a bad runner or argument; BF_EPROTO when the device
 * disconnects or the instrumentation output ends before its final
 * INSTRUMENTATION_CODE (never partial results); BF_ETIMEOUT; BF_ERROR
 * when the instrumentation fails (INSTRUMENTATION_FAILED, a process
 * crash, FAILURES!!!, a non-OK result code), the message naming the
 * first failing test; BF_ENOTFOUND when the run wrote no JSON; the
 * parser's BF_EINVAL for a malformed JSON.
 */
int bf_android_run_jetpack(struct bf_samples *out, struct bf_devfs *fs,
                           const char *test_runner,
                           const char *const *extra_args, double timeout_s,
                           struct bf_err *err);

#endif /* BF_ANDROID_RUN_H */
