/*
 * sysfs and procfs parsing (agent/probe_*.c): a copy of a fixture
 * sysroot whose files get the input's pieces (split at NUL bytes), then
 * the whole probe over it, as the agent probes a device.
 */
#include "fuzz/fuzz_util.h"

#include "benchfarm/err.h"
#include "benchfarm/spawn.h"
#include "probe/devfs.h"
#include "probe/probe.h"

static const char *const files[] = {
	"sys/devices/system/cpu/online",
	"sys/devices/system/cpu/possible",
	"sys/devices/system/cpu/present",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
	"sys/devices/system/cpu/cpu1/online",
	"sys/class/thermal/thermal_zone0/temp",
	"sys/class/power_supply/BAT0/capacity",
	"sys/class/power_supply/BAT0/status",
	"proc/loadavg",
	"proc/meminfo",
	"proc/cpuinfo",
};

static char root[128];

static void write_piece(const char *rel, const uint8_t *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;
	struct bf_probe p;
	size_t k = 0, start = 0;

	if (!root[0]) {
		char src[512];
		const char *argv[] = { "cp", "-r", src, root, NULL };
		struct bf_spawn_opts o = BF_SPAWN_OPTS_INIT;
		struct bf_spawn_result res;

		snprintf(root, sizeof(root), "/tmp/bf-fuzz-sysroot-%d",
		         (int)getpid());
		snprintf(src, sizeof(src),
		         "%s/tests/fixtures/sysroot/"
		         "healthy-locked",
		         getenv("BF_SRC") ? getenv("BF_SRC") : ".");
		o.argv = argv;
		bf_spawn_result_init(&res);
		if (bf_spawn_run(&res, &o, &err) || res.exit_code)
			abort();
		bf_spawn_result_release(&res);
	}
	for (size_t i = 0; i <= size && k < sizeof(files) / sizeof(files[0]);
	     i++)
		if (i == size || !data[i]) {
			write_piece(files[k++], data + start, i - start);
			start = i + 1;
		}
	if (bf_devfs_open_local(&fs, root, &err))
		abort();
	bf_probe_all(&p, fs, 0, &err);
	bf_probe_release(&p);
	bf_devfs_free(fs);
	return 0;
}
