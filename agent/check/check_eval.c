#include "check/check.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "probe/probe.h"

/*
 * The checks that need nothing but probed facts. A check that cannot
 * decide because its input is bad fails and quotes the bad file; one
 * that can decide from the rest warns about the bad part.
 */

static bool supply_is_battery(const struct bf_probe_supply *s)
{
	return s->type && !strcmp(s->type, "Battery");
}

/* Plugged in: a battery charging or full, or an external supply online. */
static bool local_charging(const struct bf_probe *p)
{
	for (size_t i = 0; i < p->nsupplies; i++) {
		const struct bf_probe_supply *s = &p->supplies[i];

		if (supply_is_battery(s) && s->status &&
		    (!strcmp(s->status, "Charging") ||
		     !strcmp(s->status, "Full")))
			return true;
		if (!supply_is_battery(s) && s->online == 1)
			return true;
	}
	return false;
}

/* The lowest battery: 0 found, 1 none, -1 a capacity is unreadable. */
static int local_battery(const struct bf_probe_supply **out,
                         const struct bf_probe *p)
{
	int ret = 1;

	*out = NULL;
	for (size_t i = 0; i < p->nsupplies; i++) {
		const struct bf_probe_supply *s = &p->supplies[i];

		if (!supply_is_battery(s))
			continue;
		if (s->capacity_bad || s->capacity < 0) {
			*out = s;
			return -1;
		}
		if (!*out || s->capacity < (*out)->capacity)
			*out = s;
		ret = 0;
	}
	return ret;
}

static void battery_verdict(struct bf_check_item *it, int capacity,
                            bool charging, const char *status,
                            const struct bf_check_opts *opts)
{
	bool low = opts->battery_min > 0 && capacity < opts->battery_min;
	bool unplugged = opts->require_charging && !charging;
	const char *how = charging ? "charging" : "not charging";
	const char *st = status ? status : "unknown";
	double v = capacity, min = opts->battery_min;

	if (low && unplugged)
		bf_check__set(
		        it, BF_CHECK_FAIL, v, min,
		        "battery at %d%%, below the %d%% minimum, and not charging ('%s') though charging is required",
		        capacity, opts->battery_min, st);
	else if (low)
		bf_check__set(
		        it, BF_CHECK_FAIL, v, min,
		        "battery at %d%%, below the %d%% minimum (%s, '%s')",
		        capacity, opts->battery_min, how, st);
	else if (unplugged)
		bf_check__set(
		        it, BF_CHECK_FAIL, v, min,
		        "battery not charging ('%s', at %d%%) though charging is required",
		        st, capacity);
	else
		bf_check__set(it, BF_CHECK_PASS, v, min,
		              "battery at %d%% (minimum %d%%), %s ('%s')",
		              capacity, opts->battery_min, how, st);
}

void bf_check_battery(struct bf_check_item *it, const struct bf_probe *p,
                      const struct bf_check_opts *opts)
{
	const struct bf_android_battery *ab = &p->android_battery;
	const struct bf_probe_supply *s;
	char needle[128];
	int found;

	it->id = BF_CHECK_BATTERY;
	if (opts->battery_min <= 0 && !opts->require_charging) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN,
		              "battery check disabled (battery_min 0)");
	} else if (p->have_battery && !ab->present) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN, "no battery");
	} else if (p->have_battery && ab->capacity < 0) {
		bf_check__set(it, BF_CHECK_FAIL, NAN, opts->battery_min,
		              "the device did not report its battery level");
	} else if (p->have_battery) {
		battery_verdict(it, ab->capacity, ab->charging, ab->status,
		                opts);
	} else if ((found = local_battery(&s, p)) > 0 &&
	           p->android_battery_bad) {
		bf_check__set(it, BF_CHECK_FAIL, NAN, opts->battery_min,
		              "cannot read the battery: %s",
		              bf_check__probe_error(p, "dumpsys battery"));
	} else if (found > 0) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN, "no battery");
	} else if (found < 0) {
		snprintf(needle, sizeof(needle), "/%s/capacity", s->name);
		bf_check__set(it, BF_CHECK_FAIL, NAN, opts->battery_min,
		              "battery '%s' has no readable capacity: %s",
		              s->name, bf_check__probe_error(p, needle));
	} else {
		battery_verdict(it, s->capacity, local_charging(p), s->status,
		                opts);
	}
}

/*
 * The possible and online sets, from the lists or the cpuN dirs. The
 * online list may name more CPUs than the other sources (a device with
 * only that file): its set is sized for it too.
 */
static void core_sets(struct bf_cpulist *poss, struct bf_cpulist *onl,
                      const struct bf_probe *p)
{
	const struct bf_cpulist *src = p->possible.known  ? &p->possible
	                               : p->present.known ? &p->present
	                                                  : NULL;

	poss->cpus =
	        bf_xcalloc(p->ncores + (src ? src->n : 0) + 1, sizeof(int));
	onl->cpus = bf_xcalloc(p->ncores + (src ? src->n : 0) + p->online.n + 1,
	                       sizeof(int));
	if (src) {
		memcpy(poss->cpus, src->cpus, src->n * sizeof(int));
		poss->n = src->n;
	}
	for (size_t i = 0; i < p->ncores; i++) {
		if (!src)
			poss->cpus[poss->n++] = p->cores[i].cpu;
		if (!p->online.known && p->cores[i].online)
			onl->cpus[onl->n++] = p->cores[i].cpu;
	}
	if (p->online.known) {
		memcpy(onl->cpus, p->online.cpus, p->online.n * sizeof(int));
		onl->n = p->online.n;
	}
}

void bf_check_cores(struct bf_check_item *it, const struct bf_probe *p,
                    const struct bf_check_opts *opts)
{
	struct bf_cpulist poss = { 0 }, onl = { 0 }, off = { 0 };
	char *s_poss = NULL, *s_onl = NULL, *s_off = NULL;
	const char *why;

	it->id = BF_CHECK_CORES;
	if (p->cpulists_bad) {
		why = bf_check__probe_error(p,
		                            "/sys/devices/system/cpu/online");
		if (!*why)
			why = bf_check__probe_error(
			        p, "/sys/devices/system/cpu/possible");
		bf_check__set(it, BF_CHECK_FAIL, NAN, NAN,
		              "cannot tell which cores are online: %s", why);
		return;
	}
	core_sets(&poss, &onl, p);
	off.cpus = bf_xcalloc(poss.n + 1, sizeof(int));
	for (size_t i = 0; i < poss.n; i++)
		if (!bf_cpulist_has(&onl, poss.cpus[i]))
			off.cpus[off.n++] = poss.cpus[i];
	s_poss = bf_cpulist_format(&poss);
	s_onl = bf_cpulist_format(&onl);
	s_off = bf_cpulist_format(&off);
	if (!poss.n)
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN,
		              "the CPU core lists are not available");
	else if (!off.n)
		bf_check__set(it, BF_CHECK_PASS, (double)onl.n, (double)poss.n,
		              "all %zu possible cores online (%s)", poss.n,
		              s_poss);
	else
		bf_check__set(it,
		              opts->require_all_cores ? BF_CHECK_FAIL
		                                      : BF_CHECK_WARN,
		              (double)onl.n, (double)poss.n,
		              "cpu %s offline: online '%s' of possible '%s'",
		              s_off, s_onl, s_poss);
	free(s_poss);
	free(s_onl);
	free(s_off);
	bf_cpulist_release(&poss);
	bf_cpulist_release(&onl);
	bf_cpulist_release(&off);
}

/* The hottest valid zone, or NULL; *nbad gets the unreadable ones. */
static const struct bf_probe_zone *hottest(const struct bf_probe *p,
                                           size_t *nvalid, size_t *nbad,
                                           const struct bf_probe_zone **bad)
{
	const struct bf_probe_zone *hot = NULL;

	*nvalid = *nbad = 0;
	*bad = NULL;
	for (size_t i = 0; i < p->nzones; i++) {
		const struct bf_probe_zone *z = &p->zones[i];

		if (!z->valid) {
			*bad = *bad ? *bad : z;
			++*nbad;
			continue;
		}
		++*nvalid;
		if (!hot || z->temp_c > hot->temp_c)
			hot = z;
	}
	return hot;
}

static size_t count_above(const struct bf_probe *p, double limit)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nzones; i++)
		n += p->zones[i].valid && p->zones[i].temp_c > limit;
	return n;
}

void bf_check_thermal(struct bf_check_item *it, const struct bf_probe *p,
                      const struct bf_check_opts *opts)
{
	const struct bf_probe_zone *hot, *bad;
	double max = opts->thermal_max, bt = p->android_battery.temp_c;
	size_t nvalid, nbad, nhot;
	char needle[128] = "";
	const char *why;

	it->id = BF_CHECK_THERMAL;
	hot = hottest(p, &nvalid, &nbad, &bad);
	if (bad)
		snprintf(needle, sizeof(needle), "/%s/", bad->name);
	why = bad ? bf_check__probe_error(p, needle) : "";
	if (max <= 0) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN,
		              "thermal check disabled (thermal_max 0)");
	} else if (p->have_battery && isfinite(bt) && bt > max &&
	           (!hot || bt >= hot->temp_c)) {
		bf_check__set(it, BF_CHECK_FAIL, bt, max,
		              "battery at %.1f C is above the %.1f C limit", bt,
		              max);
	} else if (hot && hot->temp_c > max) {
		nhot = count_above(p, max);
		bf_check__set(it, BF_CHECK_FAIL, hot->temp_c, max,
		              "%s (%s) at %.1f C is above the %.1f C limit%s",
		              hot->name, hot->type ? hot->type : "?",
		              hot->temp_c, max,
		              nhot > 1 ? ", and so are other zones" : "");
	} else if (!hot && nbad) {
		bf_check__set(it, BF_CHECK_FAIL, NAN, max,
		              "no usable thermal zone; first %s: %s", bad->name,
		              *why ? why : "no temp file");
	} else if (!hot) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, max, "no thermal zones");
	} else if (nbad) {
		bf_check__set(
		        it, BF_CHECK_WARN, hot->temp_c, max,
		        "%zu zones read, the hottest %s at %.1f C (limit %.1f C); %zu unusable, first %s: %s",
		        nvalid, hot->name, hot->temp_c, max, nbad, bad->name,
		        *why ? why : "no temp file");
	} else {
		bf_check__set(
		        it, BF_CHECK_PASS, hot->temp_c, max,
		        "%zu zones read, the hottest %s (%s) at %.1f C (limit %.1f C)",
		        nvalid, hot->name, hot->type ? hot->type : "?",
		        hot->temp_c, max);
	}
}

/*
 * Load is what is running now: /proc/loadavg's RUNNABLE, which counts
 * the reader (us) too. The 1-minute average lags a build that has just
 * ended by minutes, so it is quoted but never decides.
 */
void bf_check_load(struct bf_check_item *it, const struct bf_probe *p,
                   const struct bf_check_opts *opts)
{
	int cores = bf_probe_online_count(p), busy;
	double limit, max = opts->load_max;

	it->id = BF_CHECK_LOAD;
	if (max <= 0) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN,
		              "load check disabled (load_max 0)");
		return;
	}
	if (p->load_bad) {
		bf_check__set(it, BF_CHECK_FAIL, NAN, max,
		              "cannot read the load: %s",
		              bf_check__probe_error(p, "/proc/loadavg"));
		return;
	}
	if (p->runnable < 0) {
		bf_check__set(it, BF_CHECK_SKIP, NAN, max,
		              "/proc/loadavg is not available");
		return;
	}
	cores = cores > 0 ? cores : 1;
	limit = max * cores;
	busy = p->runnable > 0 ? p->runnable - 1 : 0;
	bf_check__set(
	        it, busy > limit ? BF_CHECK_FAIL : BF_CHECK_PASS, busy, limit,
	        "%d runnable task%s besides ours right now, limit %g (load_max %.2f per core x %d online core%s); the 1-minute average %.2f lags and does not count",
	        busy, busy == 1 ? "" : "s", limit, max, cores,
	        cores == 1 ? "" : "s", p->load1);
}

void bf_check_boost(struct bf_check_item *it, const struct bf_probe *p,
                    const struct bf_check_opts *opts)
{
	(void)opts;
	it->id = BF_CHECK_BOOST;
	if (p->boost == 1)
		bf_check__set(
		        it, BF_CHECK_WARN, 1, NAN,
		        "turbo/boost is on (%s): clocks depend on temperature and load",
		        p->boost_source);
	else if (p->boost == 0)
		bf_check__set(it, BF_CHECK_PASS, 0, NAN,
		              "turbo/boost is off (%s)", p->boost_source);
	else if (p->boost_bad)
		bf_check__set(
		        it, BF_CHECK_WARN, NAN, NAN,
		        "cannot read the turbo/boost state: %s",
		        *bf_check__probe_error(p, "/cpufreq/boost")
		                ? bf_check__probe_error(p, "/cpufreq/boost")
		                : bf_check__probe_error(p, "no_turbo"));
	else
		bf_check__set(it, BF_CHECK_SKIP, NAN, NAN,
		              "no turbo/boost control on this device");
}

void bf_check_eval(struct bf_check_result *res, const struct bf_probe *p,
                   const struct bf_check_opts *opts)
{
	struct bf_check_item *it = res->items;

	bf_check_battery(&it[BF_CHECK_BATTERY], p, opts);
	bf_check_cores(&it[BF_CHECK_CORES], p, opts);
	bf_check_clocks(&it[BF_CHECK_CLOCKS], p, opts);
	bf_check_thermal(&it[BF_CHECK_THERMAL], p, opts);
	it[BF_CHECK_THROTTLE].id = BF_CHECK_THROTTLE;
	bf_check__set(&it[BF_CHECK_THROTTLE], BF_CHECK_SKIP, NAN, NAN,
	              "not measured");
	bf_check_load(&it[BF_CHECK_LOAD], p, opts);
	bf_check_boost(&it[BF_CHECK_BOOST], p, opts);
}
