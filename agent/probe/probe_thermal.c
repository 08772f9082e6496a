#include "probe/probe.h"

#include <math.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"

/*
 * Thermal zones: /sys/class/thermal/thermal_zoneN/{type,temp}, temp in
 * millidegrees Celsius (negative values are real: cold sensors). A value
 * outside BF_PROBE_TEMP_MIN..MAX is a broken sensor, not a temperature.
 */

#define THERMAL_DIR "/sys/class/thermal"
#define ZONE_PREFIX "thermal_zone"

/* N of "thermal_zoneN", or -1 when name is not a zone. */
static long zone_number(const char *name)
{
	size_t plen = strlen(ZONE_PREFIX);
	int64_t n;

	if (strncmp(name, ZONE_PREFIX, plen) || name[plen] < '0' ||
	    name[plen] > '9' || bf_parse_i64(&n, name + plen, NULL) ||
	    n > 100000)
		return -1;
	return (long)n;
}

static int cmp_zone(const void *a, const void *b)
{
	long x = zone_number(((const struct bf_probe_zone *)a)->name);
	long y = zone_number(((const struct bf_probe_zone *)b)->name);

	return (x > y) - (x < y);
}

static void probe_zone(struct bf_probe_zone *z, struct bf_probe *p,
                       struct bf_devfs *fs)
{
	char *path = bf_xasprintf(THERMAL_DIR "/%s/type", z->name);
	int64_t milli;

	z->temp_c = NAN;
	bf_probe__line(&z->type, p, fs, path);
	free(path);
	path = bf_xasprintf(THERMAL_DIR "/%s/temp", z->name);
	if (!bf_probe__i64(&milli, p, fs, path)) {
		z->temp_c = (double)milli / 1000.0;
		z->valid = z->temp_c >= BF_PROBE_TEMP_MIN &&
		           z->temp_c <= BF_PROBE_TEMP_MAX;
		if (!z->valid)
			bf_probe__error(p,
			                "%s: %.1f C is outside %.0f..%.0f C, a "
			                "broken sensor",
			                path, z->temp_c, BF_PROBE_TEMP_MIN,
			                BF_PROBE_TEMP_MAX);
	}
	free(path);
}

void bf_probe_thermal(struct bf_probe *p, struct bf_devfs *fs)
{
	struct bf_argv names = BF_ARGV_INIT;

	if (bf_probe__list(&names, p, fs, THERMAL_DIR))
		goto out;
	p->zones = bf_xcalloc(names.argc + 1, sizeof(*p->zones));
	for (size_t i = 0; i < names.argc; i++)
		if (zone_number(names.argv[i]) >= 0)
			p->zones[p->nzones++].name = bf_xstrdup(names.argv[i]);
	qsort(p->zones, p->nzones, sizeof(*p->zones), cmp_zone);
	for (size_t i = 0; i < p->nzones; i++)
		probe_zone(&p->zones[i], p, fs);
out:
	bf_argv_release(&names);
}
