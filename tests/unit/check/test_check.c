/*
 * Unit tests for the device checks (agent/check/check*.c): each check on
 * hand-built probe facts, Jetpack's clocks-locked rule, suppression and
 * the request fields. The fixture trees end to end: test_check_run.c;
 * throttle and waiting: test_throttle.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "check/check.h"
#include "check/throttle.h"
#include "probe/devfs.h"
#include "probe/probe.h"

/* Hand-built facts. */
static void core(struct bf_probe *p, int cpu, bool online, int64_t set,
                 const int64_t *avail, size_t navail)
{
	struct bf_probe_core *c;

	p->cores = bf_xreallocarray(p->cores, p->ncores + 1, sizeof(*c));
	c = &p->cores[p->ncores++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->online = online;
	c->min_khz = set;
	c->setspeed_khz = -1;
	c->max_khz = c->cur_khz = c->hw_min_khz = c->hw_max_khz = -1;
	if (navail) {
		c->avail_khz = bf_xcalloc(navail, sizeof(int64_t));
		memcpy(c->avail_khz, avail, navail * sizeof(int64_t));
		c->navail = navail;
	}
}

static void supply(struct bf_probe *p, const char *name, const char *type,
                   int capacity, const char *status, int online)
{
	struct bf_probe_supply *s;

	p->supplies =
	        bf_xreallocarray(p->supplies, p->nsupplies + 1, sizeof(*s));
	s = &p->supplies[p->nsupplies++];
	memset(s, 0, sizeof(*s));
	s->name = bf_xstrdup(name);
	s->type = type ? bf_xstrdup(type) : NULL;
	s->capacity = capacity;
	s->status = status ? bf_xstrdup(status) : NULL;
	s->online = online;
}

static void zone(struct bf_probe *p, const char *name, double temp)
{
	struct bf_probe_zone *z;

	p->zones = bf_xreallocarray(p->zones, p->nzones + 1, sizeof(*z));
	z = &p->zones[p->nzones++];
	z->name = bf_xstrdup(name);
	z->type = bf_xstrdup("t");
	z->temp_c = temp;
	z->valid = isfinite(temp) && temp >= BF_PROBE_TEMP_MIN &&
	           temp <= BF_PROBE_TEMP_MAX;
}

static const int64_t little[] = { 300000, 600000, 1000000, 1800000 };
static const int64_t big[] = { 500000, 1200000, 2400000 };

static void test_check__battery(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_item it;
	struct bf_probe p;

	(void)state;
	bf_probe_init(&p);
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	assert_string_equal(it.message, "no battery");
	supply(&p, "AC", "Mains", -1, NULL, 0);
	supply(&p, "BAT0", "Battery", 15, "Discharging", -1);
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(it.value == 15 && it.threshold == 25);
	assert_non_null(strstr(it.message, "below the 25% minimum"));
	/* Jetpack: strictly less than the minimum fails */
	p.supplies[1].capacity = 25;
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	o.require_charging = true;
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "charging is required"));
	p.supplies[0].online = 1; /* plugged in */
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	o.battery_min = 0;
	o.require_charging = false;
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	o.battery_min = 25;
	p.supplies[1].capacity = -1;
	p.supplies[1].capacity_bad = true;
	bf_argv_push(&p.errors, "/sys/class/power_supply/BAT0/capacity: 'x' "
	                        "is not an integer");
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "BAT0/capacity: 'x'"));
	bf_probe_release(&p);
}

static void test_check__battery_android(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_item it;
	struct bf_probe p;

	(void)state;
	bf_probe_init(&p);
	p.android = p.have_battery = true;
	p.android_battery.present = false;
	p.android_battery.capacity = 100;
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	assert_string_equal(it.message, "no battery");
	p.android_battery.present = true;
	p.android_battery.capacity = 10;
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(it.value == 10);
	p.android_battery.capacity = 90;
	p.android_battery.charging = true;
	o.require_charging = true;
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	/* dumpsys garbage and no sysfs battery: cannot decide, fails */
	p.have_battery = false;
	p.android_battery_bad = true;
	bf_argv_push(&p.errors, "'dumpsys battery': not a battery service "
	                        "dump: 'x'");
	bf_check_battery(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "not a battery service dump"));
	bf_probe_release(&p);
}

static void test_check__cores(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_item it;
	struct bf_probe p;

	(void)state;
	bf_probe_init(&p);
	bf_check_cores(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	/* an online list alone, longer than any other source (ASan) */
	assert_int_equal(bf_cpulist_parse(&p.online, "0-7", NULL), 0);
	bf_check_cores(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	bf_cpulist_release(&p.online);
	core(&p, 0, true, -1, NULL, 0);
	core(&p, 1, false, -1, NULL, 0);
	bf_check_cores(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(it.value == 1 && it.threshold == 2);
	assert_non_null(strstr(it.message, "cpu 1 offline"));
	o.require_all_cores = false;
	bf_check_cores(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_WARN);
	o.require_all_cores = true;
	/* the lists win over the cpuN directories */
	assert_int_equal(bf_cpulist_parse(&p.possible, "0-3", NULL), 0);
	assert_int_equal(bf_cpulist_parse(&p.online, "0-3", NULL), 0);
	bf_check_cores(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_true(it.value == 4 && it.threshold == 4);
	p.cpulists_bad = true;
	bf_argv_push(&p.errors, "/sys/devices/system/cpu/online: '0-' is "
	                        "not a CPU list");
	bf_check_cores(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "online: '0-'"));
	bf_probe_release(&p);
}

static void test_check__clocks_locked_rule(void **state)
{
	struct bf_probe p;
	char why[256];

	(void)state;
	bf_probe_init(&p);
	/* big.LITTLE: each cluster pinned above its lowest step */
	core(&p, 0, true, 1000000, little, 4);
	core(&p, 1, true, 1000000, little, 4);
	core(&p, 4, true, 1200000, big, 3);
	assert_true(bf_check_clocks_are_locked(&p, why, sizeof(why)));
	/* same frequency list, different set speeds */
	p.cores[1].min_khz = 1800000;
	assert_false(bf_check_clocks_are_locked(&p, why, sizeof(why)));
	assert_non_null(strstr(why, "cpu0 and cpu1"));
	/* scaling_setspeed wins over scaling_min_freq */
	p.cores[1].setspeed_khz = 1000000;
	assert_true(bf_check_clocks_are_locked(&p, why, sizeof(why)));
	/* a core at its lowest available frequency */
	p.cores[2].min_khz = 500000;
	assert_false(bf_check_clocks_are_locked(&p, why, sizeof(why)));
	assert_non_null(strstr(why, "cpu4 is set to 500000 kHz"));
	/* ... unless it is offline */
	p.cores[2].online = false;
	assert_true(bf_check_clocks_are_locked(&p, NULL, 0));
	/* unreadable cpufreq: not locked */
	core(&p, 5, true, -1, NULL, 0);
	assert_false(bf_check_clocks_are_locked(&p, why, sizeof(why)));
	assert_non_null(strstr(why, "cpu5"));
	p.cores[3].min_khz = 1200000; /* a speed but no frequency list */
	assert_false(bf_check_clocks_are_locked(&p, why, sizeof(why)));
	bf_probe_release(&p);
}

static void test_check__clocks_check(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_item it;
	struct bf_probe p;

	(void)state;
	bf_probe_init(&p);
	bf_check_clocks(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	core(&p, 0, true, 300000, little, 4);
	bf_check_clocks(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_WARN);
	assert_true(it.value == 0 && isnan(it.threshold));
	o.require_locked_clocks = true;
	bf_check_clocks(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(it.threshold == 1);
	p.cores[0].governor = bf_xstrdup("performance");
	bf_check_clocks(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_non_null(strstr(it.message, "performance"));
	bf_probe_release(&p);
}

static void test_check__thermal(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_item it;
	struct bf_probe p;

	(void)state;
	bf_probe_init(&p);
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	zone(&p, "thermal_zone0", 45.0);
	zone(&p, "thermal_zone1", -12.5);
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_true(it.value == 45.0 && it.threshold == 70.0);
	zone(&p, "thermal_zone2", 70.0); /* at the limit is not above */
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	zone(&p, "thermal_zone3", 95.0);
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(it.value == 95.0);
	assert_non_null(strstr(it.message, "thermal_zone3 (t) at 95.0 C"));
	o.thermal_max = 100;
	zone(&p, "thermal_zone4", 250.0); /* broken sensor: ignored, warned */
	bf_argv_push(&p.errors, "/sys/class/thermal/thermal_zone4/temp: 250.0 "
	                        "C is outside -50..200 C");
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_WARN);
	assert_non_null(strstr(it.message, "thermal_zone4/temp: 250.0"));
	o.thermal_max = 0;
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	bf_probe_release(&p);
	bf_probe_init(&p);
	o.thermal_max = 70;
	zone(&p, "thermal_zone0", NAN);
	bf_check_thermal(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_non_null(strstr(it.message, "no usable thermal zone"));
	bf_probe_release(&p);
}

static void test_check__load_and_boost(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_check_item it;
	struct bf_probe p;

	(void)state;
	bf_probe_init(&p);
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	/*
	 * Right after a build on 2 cores: the 1-minute average is still
	 * 3.5 (1.75 per core, which the old rule refused), but only the
	 * agent itself is runnable. What runs now decides.
	 */
	assert_int_equal(bf_cpulist_parse(&p.online, "0-1", NULL), 0);
	p.load1 = 3.5;
	p.runnable = 1;
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_true(it.value == 0 && it.threshold == 2);
	assert_non_null(strstr(it.message, "0 runnable tasks besides ours"));
	assert_non_null(strstr(it.message, "1-minute average 3.50"));
	/* A quiet average does not hide what runs now. */
	p.load1 = 0.1;
	p.runnable = 3; /* 2 besides the agent: not more than 2 */
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	p.runnable = 4; /* 3 besides the agent, more than 2 */
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	assert_true(it.value == 3 && it.threshold == 2);
	assert_non_null(strstr(it.message,
	                       "3 runnable tasks besides ours right now, "
	                       "limit 2 (load_max 1.00 per core x 2 online "
	                       "cores)"));
	/* load_max 0.5 on 2 cores: one other task is the limit */
	o.load_max = 0.5;
	p.runnable = 2;
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	assert_non_null(strstr(it.message, "1 runnable task besides ours"));
	p.runnable = 3;
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	o.load_max = 1.0;
	p.load_bad = true;
	bf_check_load(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_FAIL);
	bf_check_boost(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_SKIP);
	p.boost = 1;
	p.boost_source = bf_xstrdup("/sys/devices/system/cpu/cpufreq/boost");
	bf_check_boost(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_WARN);
	p.boost = 0;
	bf_check_boost(&it, &p, &o);
	assert_int_equal(it.status, BF_CHECK_PASS);
	bf_probe_release(&p);
}

static void test_check__suppress(void **state)
{
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_check_result res;
	unsigned bits = 0;

	(void)state;
	assert_int_equal(
	        bf_check_suppress_parse(&bits, " cores, ,clocks,", &err), 0);
	assert_int_equal(bits,
	                 (1u << BF_CHECK_CORES) | (1u << BF_CHECK_CLOCKS));
	assert_int_equal(
	        bf_check_suppress_parse(&bits, "cores,LOW-BATTERY", &err),
	        BF_EINVAL);
	assert_non_null(strstr(err.msg, "'LOW-BATTERY'"));
	assert_int_equal(bits,
	                 (1u << BF_CHECK_CORES) | (1u << BF_CHECK_CLOCKS));
	bf_check_result_init(&res);
	res.items[BF_CHECK_CORES].status = BF_CHECK_FAIL;
	res.items[BF_CHECK_CLOCKS].status = BF_CHECK_WARN;
	res.items[BF_CHECK_THERMAL].status = BF_CHECK_FAIL;
	o.suppress = bits;
	bf_check_finish(&res, &o);
	assert_false(res.fit);
	assert_int_equal(res.items[BF_CHECK_CORES].status, BF_CHECK_WARN);
	assert_true(res.items[BF_CHECK_CORES].suppressed);
	assert_false(res.items[BF_CHECK_CLOCKS].suppressed);
	assert_int_equal(res.suppressed, 1u << BF_CHECK_CORES);
	res.items[BF_CHECK_THERMAL].status = BF_CHECK_PASS;
	bf_check_finish(&res, &o);
	assert_true(res.fit);
	bf_check_result_release(&res);
}

static void test_check__opts_from_json(void **state)
{
	static const char *const bad[] = {
		"{\"battery_min\": \"25\"}",
		"{\"battery_min\": 25.5}",
		"{\"battery_min\": 101}",
		"{\"require_charging\": 1}",
		"{\"thermal_max\": null}",
		"{\"thermal_max\": 500}",
		"{\"throttle_tolerance\": -0.1}",
		"{\"load_max\": -1}",
		"{\"wait_max\": 3601}",
		"{\"suppress\": \"cores\"}",
		"{\"suppress\": [\"cores\", 3]}",
		"{\"suppress\": [\"nope\"]}",
		"{\"load_wait\": -1}",
		"{\"load_wait\": 3601}",
		"{\"load_wait\": \"30\"}",
	};
	struct bf_check_opts o = BF_CHECK_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *req;

	(void)state;
	req = json_loads(
	        "{\"type\":\"check\",\"id\":1,\"battery_min\":50,"
	        "\"require_charging\":true,\"require_all_cores\":false,"
	        "\"require_locked_clocks\":true,\"thermal_max\":60,"
	        "\"throttle_tolerance\":0.2,\"load_max\":0.5,"
	        "\"suppress\":[\"boost\",\"load\"],\"wait_max\":30,"
	        "\"load_wait\":12}",
	        0, NULL);
	assert_int_equal(bf_check_opts_from_json(&o, req, &err), 0);
	json_decref(req);
	assert_int_equal(o.battery_min, 50);
	assert_true(o.require_charging && !o.require_all_cores);
	assert_true(o.require_locked_clocks);
	assert_true(o.thermal_max == 60 && o.throttle_tolerance == 0.2);
	assert_true(o.load_max == 0.5 && o.wait_max_s == 30);
	assert_true(o.load_wait_s == 12);
	assert_int_equal(o.suppress,
	                 (1u << BF_CHECK_BOOST) | (1u << BF_CHECK_LOAD));
	for (size_t i = 0; i < BF_ARRAY_SIZE(bad); i++) {
		struct bf_check_opts d = BF_CHECK_OPTS_INIT;

		req = json_loads(bad[i], 0, NULL);
		assert_non_null(req);
		if (bf_check_opts_from_json(&d, req, &err) != BF_EINVAL)
			fail_msg("%s should be refused", bad[i]);
		json_decref(req);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__battery),
		cmocka_unit_test(test_check__battery_android),
		cmocka_unit_test(test_check__cores),
		cmocka_unit_test(test_check__clocks_locked_rule),
		cmocka_unit_test(test_check__clocks_check),
		cmocka_unit_test(test_check__thermal),
		cmocka_unit_test(test_check__load_and_boost),
		cmocka_unit_test(test_check__suppress),
		cmocka_unit_test(test_check__opts_from_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
