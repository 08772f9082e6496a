#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/json.h"
#include "benchfarm/sha256.h"
#include "report_util.h"

/*
 * skia-perf: Skia Perf's ingestion format, version 1, so a team that
 * keeps its dashboards in Perf ingests benchfarm's numbers without a
 * converter.
 *
 *   {"version": 1, "git_hash": H, ["issue": I, "patchset": P,]
 *    "key": {"device": D, "source": "benchfarm"}, "results": [{"key":
 *    {"suite": S, "test": NAME, "metric": M, "units": U}, "measurements":
 *    {"stat": [{"value": "median", "measurement": X}, ...]}}],
 *    "links": {...}}
 *
 * Perf places a file by its git_hash, which must be a commit of the
 * branch it follows; a file whose commit it cannot find is retried, then
 * dropped. So:
 *
 *   run      (postsubmit: `benchfarm postsubmit` on a commit of the
 *            branch) git_hash is that commit; the statistics are those of
 *            its runs. This is the data Perf plots.
 *   compare  (presubmit) measures an unmerged patch, which Perf knows
 *            only as a trybot result: git_hash is the base (the commit
 *            the patch applies to), with "issue" (the change) and
 *            "patchset" beside it, the statistics the patch side's. The
 *            change comes from $BENCHFARM_PERF_ISSUE and
 *            $BENCHFARM_PERF_PATCHSET, else review.gerrit.change or
 *            --gerrit-change (CHANGE,PATCHSET), else the CI: Gerrit
 *            Trigger and Zuul's $GERRIT_CHANGE_NUMBER and
 *            $GERRIT_PATCHSET_NUMBER, a GitHub pull request
 *            ($GITHUB_REF refs/pull/N/...), a GitLab merge request
 *            ($CI_MERGE_REQUEST_IID), a Jenkins change request
 *            ($CHANGE_ID); on those three the patchset is the patch
 *            commit. Without a change the result is refused, saying
 *            so: a file Perf would drop is worse than none.
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

#define ISSUE_ENV    "BENCHFARM_PERF_ISSUE"
#define PATCHSET_ENV "BENCHFARM_PERF_PATCHSET"
#define ID_MAX       64 /* bytes of an issue or a patchset */

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

/*
 * A run result's statistics, in the shape of a compare side: median (the
 * result's own), min, max, mean and the sample standard deviation of
 * its values. Caller decrefs.
 */
static json_t *run_side(const json_t *res)
{
	const json_t *values = json_object_get(res, "values"), *v;
	double min = INFINITY, max = -INFINITY, sum = 0, sq = 0, mean;
	size_t i, n = 0;
	json_t *side = json_object();

	json_array_foreach(values, i, v)
	{
		double x = json_number_value(v);

		if (!json_is_number(v) || !isfinite(x))
			continue;
		min = x < min ? x : min;
		max = x > max ? x : max;
		sum += x;
		n++;
	}
	if (isfinite(bf_rep_num(res, "median")))
		json_object_set_new(side, "median",
		                    json_real(bf_rep_num(res, "median")));
	if (!n)
		return side;
	mean = sum / (double)n;
	json_array_foreach(values, i, v)
	{
		double x = json_number_value(v);

		if (json_is_number(v) && isfinite(x))
			sq += (x - mean) * (x - mean);
	}
	json_object_set_new(side, "min", json_real(min));
	json_object_set_new(side, "max", json_real(max));
	json_object_set_new(side, "mean", json_real(mean));
	if (n > 1)
		json_object_set_new(side, "stddev",
		                    json_real(sqrt(sq / (double)(n - 1))));
	return side;
}

/* An issue or patchset: 1 to ID_MAX bytes of [A-Za-z0-9._-]. */
static bool valid_id(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= ID_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._-") == n;
}

static bool digits(const char *s)
{
	return s && *s && strlen(s) <= 20 &&
	       strspn(s, "0123456789") == strlen(s);
}

/*
 * The change a comparison measured (see the top), into issue and ps;
 * the number N of refs/pull/N/... into issue.
 */
static int trybot(struct bf_buf *issue, struct bf_buf *ps, const json_t *result,
                  const struct bf_report_opts *o, const struct bf_host *h,
                  struct bf_err *err)
{
#define ENV(n) (h->getenv ? h->getenv(n) : NULL)
	const char *i = ENV(ISSUE_ENV), *p = ENV(PATCHSET_ENV), *ref;
	const char *commit =
	        bf_json_str_or(json_object_get(result, "patch"), "commit", "");
	const char *c = o->gerrit_change ? strchr(o->gerrit_change, ',') : NULL;

	if ((i && *i) || (p && *p)) {
		if (!valid_id(i) || !valid_id(p))
			return bf_err_set(
			        err, BF_EINVAL,
			        "$" ISSUE_ENV " and $" PATCHSET_ENV
			        " must both be set, each 1 to %d characters of "
			        "[A-Za-z0-9._-] (got '%.40s' and '%.40s')",
			        ID_MAX, i ? i : "", p ? p : "");
		bf_buf_addstr(issue, i);
		bf_buf_addstr(ps, p);
		return 0;
	}
	if (c && c > o->gerrit_change && digits(c + 1) &&
	    strspn(o->gerrit_change, "0123456789") ==
	            (size_t)(c - o->gerrit_change)) {
		bf_buf_add(issue, o->gerrit_change,
		           (size_t)(c - o->gerrit_change));
		bf_buf_addstr(ps, c + 1);
		return 0;
	}
	if (digits(ENV("GERRIT_CHANGE_NUMBER")) &&
	    digits(ENV("GERRIT_PATCHSET_NUMBER"))) {
		bf_buf_addstr(issue, ENV("GERRIT_CHANGE_NUMBER"));
		bf_buf_addstr(ps, ENV("GERRIT_PATCHSET_NUMBER"));
		return 0;
	}
	ref = ENV("GITHUB_REF");
	if (ref && !strncmp(ref, "refs/pull/", 10)) {
		size_t n = strspn(ref + 10, "0123456789");

		if (n && n <= 20 && ref[10 + n] == '/')
			bf_buf_add(issue, ref + 10, n);
	}
	if (!issue->len && digits(ENV("CI_MERGE_REQUEST_IID")))
		bf_buf_addstr(issue, ENV("CI_MERGE_REQUEST_IID"));
	if (!issue->len && digits(ENV("CHANGE_ID")))
		bf_buf_addstr(issue, ENV("CHANGE_ID"));
	if (issue->len && valid_id(commit)) {
		bf_buf_addstr(ps, commit);
		return 0;
	}
	bf_buf_reset(issue);
	return bf_err_set(
	        err, BF_EINVAL,
	        "a comparison measures an unmerged patch, which "
	        "Perf can only place as a trybot result of a change, and "
	        "no change is known: set $" ISSUE_ENV " and $" PATCHSET_ENV
	        ", or review.gerrit.change / --gerrit-change CHANGE,PATCHSET, "
	        "or run in a GitHub pull request, GitLab merge request, "
	        "Gerrit or Jenkins change job; or report the postsubmit 'run' "
	        "result of a merged commit, which Perf plots");
#undef ENV
}

static int skia_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	bool run = !strcmp(bf_json_str_or(result, "kind", ""), "run");
	struct bf_buf issue = BF_BUF_INIT, ps = BF_BUF_INIT;
	const json_t *results, *dev;
	json_t *doc, *key, *out_results, *res, *links, *clash;
	const char *hash;
	size_t i;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	if (run) {
		hash = bf_json_str_or(json_object_get(result, "commit"),
		                      "commit", "");
	} else {
		ret = trybot(&issue, &ps, result, o, bf_report_host(r), err);
		if (ret)
			return ret;
		hash = bf_json_str_or(json_object_get(result, "base"), "commit",
		                      "");
	}
	key = json_object();
	dev = json_array_get(json_object_get(result, "devices"), 0);
	set_valid(key, "device", bf_json_str_or(dev, "name", "unknown"));
	set_valid(key, "source", o->check_name ? o->check_name : "benchfarm");
	out_results = json_array();
	clash = colliding_keys(results);
	json_array_foreach(results, i, res)
	{
		json_t *side = run ? run_side(res) : NULL;
		json_t *st = stats(run ? side : json_object_get(res, "patch"));
		json_t *k;
		char *kt;

		json_decref(side);
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
	doc = json_pack("{s:i, s:s, s:o, s:o}", "version", 1, "git_hash", hash,
	                "key", key, "results", out_results);
	if (issue.len &&
	    (json_object_set_new(doc, "issue", json_string(issue.buf)) ||
	     json_object_set_new(doc, "patchset", json_string(ps.buf)))) {
		json_decref(doc);
		doc = NULL;
	}
	bf_buf_release(&issue);
	bf_buf_release(&ps);
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
	.kinds = "compare,run",
	.run = skia_run,
};
