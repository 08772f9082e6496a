#include "benchfarm/plugin.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "benchfarm/sha256.h"
#include "report_util.h"

/*
 * bmf: Bencher Metric Format, for `bencher run --adapter json`: the patch
 * side of a comparison, or the commit of a postsubmit run (kind "run",
 * the numbers Bencher tracks on a branch):
 *
 *   {"SUITE/NAME": {"MEASURE": {"value": MEDIAN, "lower_value": MIN,
 *                               "upper_value": MAX}}}
 *
 * The benchmark name is the suite and the name joined by '/'. The
 * measure is the metric's name (Bencher makes a measure of any slug it
 * does not know), except where that name is one of Bencher's built-in
 * measures, whose units are fixed: "latency" is nanoseconds, so a time
 * in s, ms, us or µs is converted to ns; "throughput" is operations per
 * second, so a rate in any other unit (MB/s, B/s) goes to a measure of
 * its own, "throughput-" and the unit as a slug ("throughput-mb-s"),
 * never onto ops/s; a latency in a unit that is not a time likewise.
 * A result without a finite median (not measured) is left out; bounds
 * that are not finite are left out. Bencher refuses a benchmark name
 * over 1,024 bytes (and with it the whole file): a longer one is cut at
 * a character and ends in "~" and 16 hex digits of its SHA-256, so that
 * two long names that differ only at their ends stay two benchmarks.
 */

#define BMF_NAME_MAX 1024 /* bytes */

/* name cut to BMF_NAME_MAX bytes when longer (see above). */
static void fit_name(struct bf_buf *name)
{
	unsigned char digest[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	size_t keep = BMF_NAME_MAX - 17;

	if (name->len <= BMF_NAME_MAX)
		return;
	bf_sha256(digest, name->buf, name->len);
	bf_sha256_hex(hex, digest);
	while (keep && ((unsigned char)name->buf[keep] & 0xC0) == 0x80)
		keep--; /* not in the middle of a UTF-8 sequence */
	name->len = keep;
	name->buf[keep] = '\0';
	bf_buf_addf(name, "~%.16s", hex);
}

/* s lower-cased, '_' and ' ' as '-': how Bencher's slugs compare. */
static bool slug_is(const char *s, const char *slug)
{
	for (; *s && *slug; s++, slug++) {
		char c = (char)tolower((unsigned char)*s);

		if (c == '_' || c == ' ')
			c = '-';
		if (c != *slug)
			return false;
	}
	return !*s && !*slug;
}

/* unit as a slug: [a-z0-9] kept (lower-cased), runs of others one '-'. */
static void add_unit_slug(struct bf_buf *b, const char *unit)
{
	bool dash = false;

	for (; *unit; unit++) {
		unsigned char c = (unsigned char)*unit;

		if (isalnum(c) && c < 0x80) {
			if (dash && b->len && b->buf[b->len - 1] != '-')
				bf_buf_addch(b, '-');
			bf_buf_addch(b, (char)tolower(c));
			dash = false;
		} else {
			dash = true;
		}
	}
}

/* Nanoseconds per unit of a time, 0 when unit is not one. */
static double ns_per(const char *unit)
{
	static const struct {
		const char *unit;
		double ns;
	} times[] = { { "ns", 1 },
		      { "us", 1e3 },
		      { "\xc2\xb5s", 1e3 },
		      { "ms", 1e6 },
		      { "s", 1e9 } };

	for (size_t i = 0; i < BF_ARRAY_SIZE(times); i++)
		if (!strcmp(unit, times[i].unit))
			return times[i].ns;
	return 0;
}

/* Whether unit is operations (or items) per second. */
static bool ops_rate(const char *unit)
{
	static const char *const ops[] = {
		"",     "/s",      "1/s",          "ops/s",
		"op/s", "items/s", "iterations/s", "Hz"
	};

	for (size_t i = 0; i < BF_ARRAY_SIZE(ops); i++)
		if (!strcmp(unit, ops[i]))
			return true;
	return false;
}

/*
 * The measure of res into m and the factor its values are multiplied
 * by (see the top).
 */
static double measure(struct bf_buf *m, const json_t *res)
{
	const char *metric = bf_json_str_or(res, "metric", "value");
	const char *unit = bf_json_str_or(res, "unit", "");
	bool latency = slug_is(metric, "latency");

	if (latency && ns_per(unit)) {
		bf_buf_addstr(m, "latency");
		return ns_per(unit);
	}
	if (latency || (slug_is(metric, "throughput") && !ops_rate(unit))) {
		bf_buf_addstr(m, latency ? "latency-" : "throughput-");
		add_unit_slug(m, unit);
		if (m->buf[m->len - 1] == '-')
			bf_buf_addstr(m, "unknown-unit");
		return 1;
	}
	bf_buf_addstr(m, metric);
	return 1;
}

/*
 * A run result's median, min and max in the shape of a compare side.
 * Caller decrefs.
 */
static json_t *run_side(const json_t *res)
{
	double min = INFINITY, max = -INFINITY;
	json_t *side = json_object(), *v;
	size_t i;

	json_array_foreach(json_object_get(res, "values"), i, v)
	{
		double x = json_number_value(v);

		if (json_is_number(v) && isfinite(x)) {
			min = x < min ? x : min;
			max = x > max ? x : max;
		}
	}
	json_object_set_new(side, "median",
	                    json_real(bf_rep_num(res, "median")));
	if (isfinite(min)) {
		json_object_set_new(side, "min", json_real(min));
		json_object_set_new(side, "max", json_real(max));
	}
	return side;
}

/*
 * Adds res to doc under "SUITE/NAME" and its measure; a result without a
 * finite median is left out. side: its statistics (median, min, max).
 * -1 when a key is not UTF-8.
 */
static int add_result(json_t *doc, const json_t *res, const json_t *side)
{
	double med = bf_rep_num(side, "median"), f;
	struct bf_buf name = BF_BUF_INIT, ms = BF_BUF_INIT;
	json_t *bench, *m;
	int ret = 0;

	if (!isfinite(med))
		return 0;
	bf_buf_addf(&name, "%s/%s", bf_json_str_or(res, "benchmark", "?"),
	            bf_json_str_or(res, "name", "?"));
	fit_name(&name);
	bench = json_object_get(doc, name.buf);
	if (!bench) {
		bench = json_object();
		/* on failure set_new has dropped bench */
		if (json_object_set_new(doc, name.buf, bench)) {
			ret = -1;
			goto out;
		}
	}
	f = measure(&ms, res);
	m = json_pack("{s:f}", "value", med * f);
	if (isfinite(bf_rep_num(side, "min")))
		json_object_set_new(m, "lower_value",
		                    json_real(bf_rep_num(side, "min") * f));
	if (isfinite(bf_rep_num(side, "max")))
		json_object_set_new(m, "upper_value",
		                    json_real(bf_rep_num(side, "max") * f));
	ret = json_object_set_new(bench, ms.buf, m);
out:
	bf_buf_release(&name);
	bf_buf_release(&ms);
	return ret;
}

static int bmf_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r), *results;
	bool run = !strcmp(bf_json_str_or(result, "kind", ""), "run");
	json_t *doc, *res;
	size_t i;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	doc = json_object();
	json_array_foreach(results, i, res)
	{
		json_t *side = run ? run_side(res) : NULL;
		int bad = add_result(
		        doc, res, run ? side : json_object_get(res, "patch"));

		json_decref(side);
		if (bad) {
			json_decref(doc);
			doc = NULL;
			break;
		}
	}
	return bf_rep_add_json(bf_report_add_output(r, "bmf.json"), doc,
	                       "bmf.json", err);
}

const struct bf_plugin bf_plugin_bmf = {
	.abi = BF_PLUGIN_ABI,
	.name = "bmf",
	.summary = "Bencher Metric Format JSON",
	.kinds = "compare,run",
	.run = bmf_run,
};
