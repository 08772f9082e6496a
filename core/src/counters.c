/* A run result's "counters" as samples: counters.h. */
#include "benchfarm/counters.h"

#include <math.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"

bool bf_counter_often_zero(const char *metric)
{
	return !strcmp(metric, "context_switches") ||
	       !strcmp(metric, "cpu_migrations");
}

/* NULL when entry e is well formed, else what is wrong with it. */
static const char *malformed(const json_t *e)
{
	const json_t *v = json_object_get(e, "value");
	const json_t *u = json_object_get(e, "unavailable");
	const char *m = bf_json_str_or(e, "metric", NULL);

	if (!json_is_object(e) || !m || !*m)
		return "no \"metric\" name";
	if (!json_is_string(json_object_get(e, "unit")))
		return "no \"unit\" string";
	if (!v == !u)
		return "not exactly one of \"value\" and \"unavailable\"";
	if (u && !json_is_string(u))
		return "\"unavailable\" is not a string";
	if (v && (!json_is_number(v) || !isfinite(json_number_value(v)) ||
	          json_number_value(v) < 0))
		return "\"value\" is not a count (a number, at least 0)";
	return NULL;
}

int bf_counters_samples(struct bf_samples *out, const json_t *result,
                        const char *benchmark, struct bf_buf *unavailable,
                        struct bf_err *err)
{
	const json_t *arr = json_object_get(result, "counters");
	const json_t *e;
	const char *why;
	size_t i;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return bf_err_set(err, BF_EPROTO,
		                  "result: \"counters\" is not an array");
	json_array_foreach(arr, i, e)
	{
		if ((why = malformed(e)))
			return bf_err_set(err, BF_EPROTO,
			                  "result: \"counters\"[%zu]: %s", i,
			                  why);
	}
	json_array_foreach(arr, i, e)
	{
		const char *m = bf_json_str_or(e, "metric", "");
		const json_t *v = json_object_get(e, "value");

		if (v)
			bf_samples_add(out, benchmark, m,
			               bf_json_str_or(e, "unit", ""),
			               json_number_value(v), 0);
		else if (unavailable)
			bf_buf_addf(unavailable, "%s: %s\n", m,
			            bf_json_str_or(e, "unavailable", ""));
	}
	return 0;
}

int bf_counters_add(struct bf_samples *s, const struct bf_sample *c,
                    struct bf_err *err)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].metric, c->metric) &&
		    !strcmp(s->v[i].benchmark, c->benchmark))
			return bf_err_set(
			        err, BF_EINVAL,
			        "benchmark '%s' printed a metric '%s' of its own, "
			        "the name of a counter the agent measures for it "
			        "(counters: true or metrics: names it): rename "
			        "that metric; a counter's series holds only what "
			        "was counted",
			        c->benchmark, c->metric);
	bf_samples_add(s, c->benchmark, c->metric, c->unit, c->value,
	               c->iteration);
	return 0;
}
