#include "check/check.h"

#include <math.h>
#include <stdio.h>

#include "probe/probe.h"

/*
 * The clocks check, with Jetpack's "locked" decision (CpuInfo.kt, G3
 * onward) as the reference describes it, and one more way to pass:
 * every online core on the "performance" governor, which holds each
 * core at its highest allowed frequency (scaling_max_freq).
 */

/* Jetpack reads a missing list as [-1] and a missing speed as -1. */
static int64_t lowest_available(const struct bf_probe_core *c)
{
	return c->navail ? c->avail_khz[0] : -1;
}

static int64_t set_speed(const struct bf_probe_core *c)
{
	return c->setspeed_khz >= 0 ? c->setspeed_khz : c->min_khz;
}

static bool same_freqs(const struct bf_probe_core *a,
                       const struct bf_probe_core *b)
{
	if (a->navail != b->navail)
		return false;
	for (size_t i = 0; i < a->navail; i++)
		if (a->avail_khz[i] != b->avail_khz[i])
			return false;
	return true;
}

/* Cores in one frequency group must be set to the same speed. */
static bool group_differs(const struct bf_probe *p, char *why, size_t len)
{
	for (size_t i = 0; i < p->ncores; i++) {
		const struct bf_probe_core *a = &p->cores[i];

		for (size_t j = i + 1; a->online && j < p->ncores; j++) {
			const struct bf_probe_core *b = &p->cores[j];

			if (!b->online || !same_freqs(a, b) ||
			    set_speed(a) == set_speed(b))
				continue;
			snprintf(
			        why, len,
			        "cpu%d and cpu%d have the same frequencies but are set to %lld and %lld kHz",
			        a->cpu, b->cpu, (long long)set_speed(a),
			        (long long)set_speed(b));
			return true;
		}
	}
	return false;
}

bool bf_check_clocks_are_locked(const struct bf_probe *p, char *why,
                                size_t why_len)
{
	char scratch[BF_CHECK_MSG_SIZE];

	if (!why) {
		why = scratch;
		why_len = sizeof(scratch);
	}
	why[0] = '\0';
	if (group_differs(p, why, why_len))
		return false;
	for (size_t i = 0; i < p->ncores; i++) {
		const struct bf_probe_core *c = &p->cores[i];

		if (!c->online)
			continue;
		/*
		 * Jetpack's -1 for an unreadable file only trips the rule
		 * when both files are unreadable; one unknown value must
		 * not read as "locked" either.
		 */
		if (set_speed(c) < 0 || lowest_available(c) < 0)
			snprintf(
			        why, why_len,
			        "cpu%d: scaling_available_frequencies or scaling_min_freq unknown",
			        c->cpu);
		else if (set_speed(c) == lowest_available(c))
			snprintf(
			        why, why_len,
			        "cpu%d is set to %lld kHz, its lowest available frequency",
			        c->cpu, (long long)set_speed(c));
		else
			continue;
		return false;
	}
	return true;
}

bool bf_check_governor_is_performance(const struct bf_probe *p)
{
	size_t online = 0;

	for (size_t i = 0; i < p->ncores; i++) {
		const struct bf_probe_core *c = &p->cores[i];

		if (!c->online)
			continue;
		if (!c->governor || strcmp(c->governor, "performance"))
			return false;
		online++;
	}
	return online > 0;
}

static size_t online_cores(const struct bf_probe *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->ncores; i++)
		n += p->cores[i].online;
	return n;
}

void bf_check_clocks(struct bf_check_item *it, const struct bf_probe *p,
                     const struct bf_check_opts *opts)
{
	double threshold = opts->require_locked_clocks ? 1 : NAN;
	char why[BF_CHECK_MSG_SIZE - 64];
	size_t n = online_cores(p);

	it->id = BF_CHECK_CLOCKS;
	if (!p->ncores)
		bf_check__set(
		        it, BF_CHECK_SKIP, NAN, threshold,
		        "no CPU cores found under /sys/devices/system/cpu");
	else if (!n)
		bf_check__set(it, BF_CHECK_SKIP, NAN, threshold,
		              "no online CPU core");
	else if (bf_check_clocks_are_locked(p, why, sizeof(why)))
		bf_check__set(it, BF_CHECK_PASS, 1, threshold,
		              "clocks locked on all %zu online cores", n);
	else if (bf_check_governor_is_performance(p))
		bf_check__set(it, BF_CHECK_PASS, 1, threshold,
		              "governor 'performance' on all %zu online cores",
		              n);
	else
		bf_check__set(it,
		              opts->require_locked_clocks ? BF_CHECK_FAIL
		                                          : BF_CHECK_WARN,
		              0, threshold, "clocks are not locked: %s", why);
}
