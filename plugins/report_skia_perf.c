#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "report_util.h"

/*
 * skia-perf: Skia Perf's ingestion format, version 1, for the patch
 * side of a comparison, so a team that keeps its dashboards in Perf
 * ingests benchfarm's numbers without a converter.
 *
 *   {"version": 1, "git_hash": PATCH, "key": {"device": D, "source":
 *    "benchfarm"}, "results": [{"key": {"suite": S, "test": NAME,
 *    "metric": M, "units": U}, "measurements": {"stat": [{"value":
 *    "median", "measurement": X}, ...]}}], "links": {...}}
 *
 * Perf's keys and values are restricted to [A-Za-z0-9._-]: any other
 * byte becomes '_', as Perf's own ForceValid does; an empty value
 * becomes "_". Statistics that are not finite numbers are left out, and
 * a result without any (not measured) is left out.
 */

static char *valid(const char *s)
{
	struct bf_buf b = BF_BUF_INIT;

	for (; *s; s++) {
		char c = *s;

		bf_buf_addch(&b, ((c >= 'a' && c <= 'z') ||
		                  (c >= 'A' && c <= 'Z') ||
		                  (c >= '0' && c <= '9') || c == '.' ||
		                  c == '_' || c == '-')
		                         ? c
		                         : '_');
	}
	if (!b.len)
		bf_buf_addch(&b, '_');
	return bf_buf_detach(&b, NULL);
}

static void set_valid(json_t *obj, const char *key, const char *value)
{
	char *v = valid(value);

	json_object_set_new(obj, key, json_string(v));
	free(v);
}

static json_t *stats(const json_t *side)
{
	static const char *const names[] = { "median", "min", "max", "mean",
		                             "stddev" };
	json_t *arr = json_array();

	for (size_t i = 0; i < BF_ARRAY_SIZE(names); i++) {
		double v = bf_rep_num(side, names[i]);

		if (isfinite(v))
			json_array_append_new(arr, json_pack("{s:s, s:f}",
			                                     "value", names[i],
			                                     "measurement", v));
	}
	return arr;
}

static int skia_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	const json_t *results, *dev;
	json_t *doc, *key, *out_results, *res, *links;
	size_t i;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	key = json_object();
	dev = json_array_get(json_object_get(result, "devices"), 0);
	set_valid(key, "device", bf_json_str_or(dev, "name", "unknown"));
	set_valid(key, "source", o->check_name ? o->check_name : "benchfarm");
	out_results = json_array();
	json_array_foreach(results, i, res)
	{
		json_t *st = stats(json_object_get(res, "patch")), *k;

		if (!json_array_size(st)) {
			json_decref(st);
			continue;
		}
		k = json_object();
		set_valid(k, "suite", bf_json_str_or(res, "benchmark", ""));
		set_valid(k, "test", bf_json_str_or(res, "name", ""));
		set_valid(k, "metric", bf_json_str_or(res, "metric", ""));
		set_valid(k, "units", bf_json_str_or(res, "unit", ""));
		json_array_append_new(out_results,
		                      json_pack("{s:o, s:{s:o}}", "key", k,
		                                "measurements", "stat", st));
	}
	doc = json_pack(
	        "{s:i, s:s, s:o, s:o}", "version", 1, "git_hash",
	        bf_json_str_or(json_object_get(result, "patch"), "commit", ""),
	        "key", key, "results", out_results);
	links = json_object();
	if (o->link &&
	    json_object_set_new(links, "benchfarm", json_string(o->link))) {
		json_decref(links);
		links = NULL; /* fails below */
	}
	/* takes links, even when doc is NULL */
	if (json_object_set_new(doc, "links", links)) {
		json_decref(doc);
		doc = NULL;
	}
	return bf_rep_add_json(bf_report_add_output(r, "skia-perf.json"), doc,
	                       "skia-perf.json", err);
}

const struct bf_plugin bf_plugin_skia_perf = {
	.abi = BF_PLUGIN_ABI,
	.name = "skia-perf",
	.summary = "Skia Perf ingestion JSON (format version 1)",
	.kinds = "compare",
	.run = skia_run,
};
