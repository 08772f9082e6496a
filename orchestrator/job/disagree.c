/* Time and counter verdicts that disagree: disagree.h. */
#include "job/disagree.h"

#include <string.h>

#include "config/cfg.h"

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

/* Both sides measured: not an error, not missing on one side. */
static bool judged(const json_t *r)
{
	return strcmp(str(r, "verdict"), "error") &&
	       strcmp(str(r, "verdict"), "missing");
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
		    !strcmp(str(r, "metric"), metric) && judged(r))
			return r;
	}
	return NULL;
}

static bool is_time(const json_t *r)
{
	return !strcmp(str(r, "unit"), "ns") &&
	       strcmp(str(r, "metric"), "task_clock_ns") && judged(r);
}

/*
 * The benchmark's process measures one thing with a fixed amount of
 * work: its format does not run each benchmark for a fixed time
 * (gbench and jetpack adapt the iteration count, so the process's
 * counters do not follow one benchmark's speed), and its time results
 * all have one name.
 */
static bool one_fixed_work(const json_t *results, const struct bf_cfg *cfg,
                           const char *bench, const char *name)
{
	const struct bf_cfg_benchmark *b = bf_cfg_find_benchmark(cfg, bench);
	const json_t *r;
	size_t i;

	if (!b || b->format == BF_FORMAT_GBENCH ||
	    b->format == BF_FORMAT_JETPACK)
		return false;
	json_array_foreach(results, i, r)
	{
		if (!strcmp(str(r, "benchmark"), bench) && is_time(r) &&
		    strcmp(str(r, "name"), name))
			return false;
	}
	return true;
}

/* Time verdict tv and counter verdict cv tell different stories. */
static bool disagree(const char *tv, const char *cv)
{
	if (has_verdict(tv))
		return !strcmp(cv, "same") ||
		       (has_verdict(cv) && strcmp(tv, cv));
	return has_verdict(cv) && !strcmp(tv, "same");
}

static json_t *effect_of(const json_t *r)
{
	const json_t *e = json_object_get(r, "effect");

	return e ? (json_t *)e : json_null();
}

json_t *bf_disagreements_json(const json_t *results, const struct bf_cfg *cfg)
{
	json_t *out = json_array();
	const json_t *t, *c;
	size_t i;

	json_array_foreach(results, i, t)
	{
		const char *bench = str(t, "benchmark");
		const char *tv = str(t, "verdict"), *cv, *meaning;
		bool instr;

		if (!is_time(t) ||
		    !one_fixed_work(results, cfg, bench, str(t, "name")))
			continue;
		c = counter_of(results, bench, "instructions");
		instr = c != NULL;
		if (!c)
			c = counter_of(results, bench, "task_clock_ns");
		if (!c || !disagree(tv, (cv = str(c, "verdict"))))
			continue;
		if (has_verdict(tv))
			meaning = instr ? meaning_time_not_instr
			                : meaning_time_not_cpu;
		else
			meaning = instr ? meaning_instr_not_time
			                : meaning_cpu_not_time;
		json_array_append_new(
		        out,
		        json_pack(
		                "{s:s, s:s, s:s, s:s, s:O, s:s, s:s, s:O, s:s}",
		                "benchmark", bench, "name", str(t, "name"),
		                "time_metric", str(t, "metric"), "time_verdict",
		                tv, "time_effect", effect_of(t), "counter",
		                str(c, "metric"), "counter_verdict", cv,
		                "counter_effect", effect_of(c), "meaning",
		                meaning));
	}
	return out;
}
