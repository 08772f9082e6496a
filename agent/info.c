#include "info.h"

#include <math.h>

#include "benchfarm/alloc.h"
#include "check/check.h"
#include "probe/probe.h"

static json_t *int_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *tristate(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static json_t *cpulist(const struct bf_cpulist *l)
{
	char *s;
	json_t *v;

	if (!l->known)
		return json_null();
	s = bf_cpulist_format(l);
	v = json_string(s);
	free(s);
	return v;
}

static json_t *strings(const struct bf_argv *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->argc; i++)
		json_array_append_new(arr, bf_probe_json_text(a->argv[i]));
	return arr;
}

static json_t *core_json(const struct bf_probe_core *c)
{
	json_t *avail = c->navail ? json_array() : json_null();

	for (size_t i = 0; i < c->navail; i++)
		json_array_append_new(
		        avail, json_integer((json_int_t)c->avail_khz[i]));
	return json_pack("{s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
	                 "cpu", c->cpu, "online", c->online, "governor",
	                 bf_probe_json_text(c->governor), "scaling_min_khz",
	                 int_or_null(c->min_khz), "scaling_max_khz",
	                 int_or_null(c->max_khz), "scaling_cur_khz",
	                 int_or_null(c->cur_khz), "scaling_setspeed_khz",
	                 int_or_null(c->setspeed_khz), "cpuinfo_min_khz",
	                 int_or_null(c->hw_min_khz), "cpuinfo_max_khz",
	                 int_or_null(c->hw_max_khz), "available_khz", avail);
}

static json_t *cpu_json(const struct bf_probe *p)
{
	json_t *cores = json_array();

	for (size_t i = 0; i < p->ncores; i++)
		json_array_append_new(cores, core_json(&p->cores[i]));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:o}",
	                 "model", bf_probe_json_text(p->cpu_model), "possible",
	                 cpulist(&p->possible), "present", cpulist(&p->present),
	                 "online", cpulist(&p->online), "isolated",
	                 cpulist(&p->isolated), "boost", tristate(p->boost),
	                 "boost_source", bf_probe_json_text(p->boost_source),
	                 "clocks_locked",
	                 p->ncores && bf_check_clocks_are_locked(p, NULL, 0),
	                 "governor_performance",
	                 bf_check_governor_is_performance(p), "cores", cores);
}

static json_t *thermal_json(const struct bf_probe *p)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < p->nzones; i++) {
		const struct bf_probe_zone *z = &p->zones[i];

		json_array_append_new(
		        arr,
		        json_pack("{s:o, s:o, s:o, s:b}", "zone",
		                  bf_probe_json_text(z->name), "type",
		                  bf_probe_json_text(z->type), "temp_c",
		                  real_or_null(z->temp_c), "valid", z->valid));
	}
	return arr;
}

static json_t *power_json(const struct bf_probe *p)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < p->nsupplies; i++) {
		const struct bf_probe_supply *s = &p->supplies[i];

		json_array_append_new(
		        arr, json_pack("{s:o, s:o, s:o, s:o, s:o}", "name",
		                       bf_probe_json_text(s->name), "type",
		                       bf_probe_json_text(s->type), "capacity",
		                       int_or_null(s->capacity), "status",
		                       bf_probe_json_text(s->status), "online",
		                       tristate(s->online)));
	}
	return arr;
}

static json_t *android_json(const struct bf_probe *p)
{
	const struct bf_android_battery *b = &p->android_battery;
	json_t *battery = json_null();

	if (p->have_battery)
		battery = json_pack(
		        "{s:b, s:o, s:b, s:o, s:o}", "present", b->present,
		        "capacity", int_or_null(b->capacity), "charging",
		        b->charging, "status", bf_probe_json_text(b->status),
		        "temp_c", real_or_null(b->temp_c));
	return json_pack("{s:o, s:o, s:O}", "battery", battery,
	                 "thermal_status", int_or_null(p->thermal_status),
	                 "properties", p->props ? p->props : json_null());
}

json_t *bf_info_json(const struct bf_probe *p, const char *root)
{
	json_t *info =
	        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "agent",
	                  BF_VERSION, "device", bf_probe_json_text(p->device),
	                  "root", bf_probe_json_text(root), "hostname",
	                  bf_probe_json_text(p->hostname), "kernel",
	                  bf_probe_json_text(p->kernel), "arch",
	                  bf_probe_json_text(p->arch), "cpus_online",
	                  int_or_null(bf_probe_online_count(p)), "aslr",
	                  int_or_null(p->aslr));

	json_object_set_new(info, "machine_id",
	                    bf_probe_json_text(p->machine_id));
	json_object_set_new(info, "boot_id", bf_probe_json_text(p->boot_id));
	json_object_set_new(info, "cpu", cpu_json(p));
	json_object_set_new(info, "thermal", thermal_json(p));
	json_object_set_new(info, "power_supplies", power_json(p));
	json_object_set_new(info, "memory",
	                    json_pack("{s:o, s:o}", "total_kb",
	                              int_or_null(p->mem_total_kb),
	                              "available_kb",
	                              int_or_null(p->mem_available_kb)));
	json_object_set_new(info, "load",
	                    json_pack("{s:o, s:o, s:o, s:o, s:o}", "avg1",
	                              real_or_null(p->load1), "avg5",
	                              real_or_null(p->load5), "avg15",
	                              real_or_null(p->load15), "runnable",
	                              int_or_null(p->runnable), "threads",
	                              int_or_null(p->threads)));
	if (p->android)
		json_object_set_new(info, "android", android_json(p));
	json_object_set_new(info, "unavailable", strings(&p->unavailable));
	json_object_set_new(info, "errors", strings(&p->errors));
	return info;
}
