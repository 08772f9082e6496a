/* Time and counter verdicts that disagree: disagree.h. */
#include "job/disagree.h"

#include <string.h>

static const char *const meaning_time_not_instr =
        "time changed but the instructions did not: usually system calls, "
        "I/O, the clock frequency, or contention with other work on the "
        "device";
static const char *const meaning_time_not_cpu =
        "time changed but the CPU time of the benchmark's processes did "
        "not: usually waiting (sleep, I/O, locks, blocking system calls) "
        "or contention with other work on the device";
static const char *const meaning_instr_not_time =
        "the instructions changed but time did not: the work changed but "
        "was hidden by memory stalls or parallelism";
static const char *const meaning_cpu_not_time =
        "the CPU time of the benchmark's processes changed but time did "
        "not: the work changed but was hidden by parallelism or waiting";

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static bool has_verdict(const char *v)
{
	return !strcmp(v, "regressed") || !strcmp(v, "improved");
}

/* A result judged (not an error) for benchmark bench and metric. */
static const json_t *counter_of(const json_t *results, const char *bench,
                                const char *metric)
{
	const json_t *r;
	size_t i;

	json_array_foreach(results, i, r)
	{
		if (!strcmp(str(r, "benchmark"), bench) &&
		    !strcmp(str(r, "metric"), metric) &&
		    strcmp(str(r, "verdict"), "error"))
			return r;
	}
	return NULL;
}

static bool is_time(const json_t *r)
{
	return !strcmp(str(r, "unit"), "ns") &&
	       strcmp(str(r, "metric"), "task_clock_ns") &&
	       strcmp(str(r, "verdict"), "error");
}

json_t *bf_disagreements_json(const json_t *results)
{
	json_t *out = json_array();
	const json_t *t, *c;
	size_t i;

	json_array_foreach(results, i, t)
	{
		const char *bench = str(t, "benchmark");
		const char *tv = str(t, "verdict"), *cv, *meaning;
		bool instr;

		if (!is_time(t))
			continue;
		c = counter_of(results, bench, "instructions");
		instr = c != NULL;
		if (!c)
			c = counter_of(results, bench, "task_clock_ns");
		if (!c)
			continue;
		cv = str(c, "verdict");
		if (has_verdict(tv) && strcmp(tv, cv))
			meaning = instr ? meaning_time_not_instr
			                : meaning_time_not_cpu;
		else if (has_verdict(cv) && strcmp(tv, cv))
			meaning = instr ? meaning_instr_not_time
			                : meaning_cpu_not_time;
		else
			continue;
		json_array_append_new(
		        out,
		        json_pack(
		                "{s:s, s:s, s:s, s:s, s:O, s:s, s:s, s:O, s:s}",
		                "benchmark", bench, "name", str(t, "name"),
		                "time_metric", str(t, "metric"), "time_verdict",
		                tv, "time_effect",
		                json_object_get(t, "effect")
		                        ? json_object_get(t, "effect")
		                        : json_null(),
		                "counter", str(c, "metric"), "counter_verdict",
		                cv, "counter_effect",
		                json_object_get(c, "effect")
		                        ? json_object_get(c, "effect")
		                        : json_null(),
		                "meaning", meaning));
	}
	return out;
}
