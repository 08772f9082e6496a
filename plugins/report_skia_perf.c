#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/json.h"
#include "benchfarm/sha256.h"
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
 * becomes "_". Two results that would then share one key (BM_x/8 and
 * BM_x|8 both become BM_x_8) would overwrite each other in Perf: their
 * tests get "_" and 8 hex digits of the SHA-256 of their own names, so
 * each keeps a key of its own (names that do not collide are unchanged).
 * Statistics that are not finite numbers are left out, and a result
 * without any (not measured) is left out.
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

/* The Perf key of res as one string: suite, test and metric made valid. */
static char *key_text(const json_t *res)
{
	char *a = valid(bf_json_str_or(res, "benchmark", ""));
	char *b = valid(bf_json_str_or(res, "name", ""));
	char *c = valid(bf_json_str_or(res, "metric", ""));
	struct bf_buf k = BF_BUF_INIT;

	bf_buf_addf(&k, "%s,%s,%s", a, b, c);
	free(a);
	free(b);
	free(c);
	return bf_buf_detach(&k, NULL);
}

/*
 * The keys that two results with different names would share: an object
 * of key_text -> true for each. Caller decrefs.
 */
static json_t *colliding_keys(const json_t *results)
{
	json_t *first = json_object(), *clash = json_object(), *res;
	size_t i;

	json_array_foreach(results, i, res)
	{
		char *k = key_text(res);
		const char *name = bf_json_str_or(res, "name", "");
		const char *seen = json_string_value(json_object_get(first, k));

		if (!seen)
			json_object_set_new(first, k, json_string(name));
		else if (strcmp(seen, name))
			json_object_set_new(clash, k, json_true());
		free(k);
	}
	json_decref(first);
	return clash;
}

/* The test of a colliding result: its valid name, "_", 8 hex digits. */
static void set_test_apart(json_t *k, const char *name)
{
	unsigned char digest[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1], *v = valid(name);
	struct bf_buf b = BF_BUF_INIT;

	bf_sha256(digest, name, strlen(name));
	bf_sha256_hex(hex, digest);
	bf_buf_addf(&b, "%s_%.8s", v, hex);
	json_object_set_new(k, "test", json_string(b.buf));
	bf_buf_release(&b);
	free(v);
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
	json_t *doc, *key, *out_results, *res, *links, *clash;
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
	clash = colliding_keys(results);
	json_array_foreach(results, i, res)
	{
		json_t *st = stats(json_object_get(res, "patch")), *k;
		char *kt;

		if (!json_array_size(st)) {
			json_decref(st);
			continue;
		}
		k = json_object();
		set_valid(k, "suite", bf_json_str_or(res, "benchmark", ""));
		kt = key_text(res);
		if (json_object_get(clash, kt))
			set_test_apart(k, bf_json_str_or(res, "name", ""));
		else
			set_valid(k, "test", bf_json_str_or(res, "name", ""));
		free(kt);
		set_valid(k, "metric", bf_json_str_or(res, "metric", ""));
		set_valid(k, "units", bf_json_str_or(res, "unit", ""));
		json_array_append_new(out_results,
		                      json_pack("{s:o, s:{s:o}}", "key", k,
		                                "measurements", "stat", st));
	}
	json_decref(clash);
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
