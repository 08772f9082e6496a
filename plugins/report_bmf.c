#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "benchfarm/sha256.h"
#include "report_util.h"

/*
 * bmf: Bencher Metric Format, the patch side of a comparison, for
 * `bencher run --adapter json`:
 *
 *   {"SUITE/NAME": {"METRIC": {"value": MEDIAN, "lower_value": MIN,
 *                              "upper_value": MAX}}}
 *
 * The benchmark name is the suite and the name joined by '/'; the
 * measure is the metric's name (Bencher makes a measure of any slug).
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

/*
 * Adds res to doc under "SUITE/NAME" and its metric; a result without a
 * finite median is left out. -1 when a key is not UTF-8.
 */
static int add_result(json_t *doc, const json_t *res)
{
	const json_t *patch = json_object_get(res, "patch");
	double med = bf_rep_num(patch, "median");
	struct bf_buf name = BF_BUF_INIT;
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
	m = json_pack("{s:f}", "value", med);
	if (isfinite(bf_rep_num(patch, "min")))
		json_object_set_new(m, "lower_value",
		                    json_real(bf_rep_num(patch, "min")));
	if (isfinite(bf_rep_num(patch, "max")))
		json_object_set_new(m, "upper_value",
		                    json_real(bf_rep_num(patch, "max")));
	ret = json_object_set_new(bench, bf_json_str_or(res, "metric", "value"),
	                          m);
out:
	bf_buf_release(&name);
	return ret;
}

static int bmf_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *results;
	json_t *doc, *res;
	size_t i;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, bf_report_result(r), err)))
		return ret;
	doc = json_object();
	json_array_foreach(results, i, res)
	{
		if (add_result(doc, res)) {
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
	.kinds = "compare",
	.run = bmf_run,
};
