#ifndef BF_INFO_H
#define BF_INFO_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_probe;

/*
 * Device facts as JSON, for `benchfarm-agent info` and the protocol
 * `info` request (under "info"). Unknown values are null. Fields:
 * agent, device, root, hostname, kernel, arch, cpus_online, aslr,
 * cpu {model, possible, present, online, isolated, boost, boost_source,
 * clocks_locked, governor_performance, cores [{cpu, online, governor,
 * scaling_{min,max,cur,setspeed}_khz, cpuinfo_{min,max}_khz,
 * available_khz}]}, thermal [{zone, type, temp_c, valid}],
 * power_supplies [{name, type, capacity, status, online}], memory
 * {total_kb, available_kb}, load {avg1, avg5, avg15, runnable,
 * threads}, android {battery, thermal_status, properties} (adb only),
 * unavailable [device paths], errors [messages naming files].
 */

/* The info object of p; root as given (NULL for adb). A new reference. */
json_t *bf_info_json(const struct bf_probe *p, const char *root);

#endif /* BF_INFO_H */
