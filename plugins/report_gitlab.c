#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "report_markdown.h"
#include "report_util.h"

#define GL_NOTE_MAX 1000000 /* a note, in characters */

/*
 * gitlab: the merge-request note and the metrics report.
 *
 * gitlab-note.md  the note body: the review comment with its marker, so
 *                 the pipeline edits its own note (plugins/ci/gitlab),
 *                 and the review.link line, cut at a line to GitLab's
 *                 limit for a note (1,000,000 characters; a longer one is
 *                 refused whole): what the pipeline posts, never the
 *                 uncut report.md
 * metrics.txt     GitLab's metrics report (artifacts:reports:metrics),
 *                 OpenMetrics text: per result the patch's median and the
 *                 change against the base, labelled by suite, benchmark,
 *                 metric and unit; GitLab shows how each moved against
 *                 the target branch's pipeline. Ends with "# EOF".
 *
 * A detect result (postsubmit alerts, kind "detect") has the same two
 * files: the note is the markdown report of its alerts, and metrics.txt
 * has per alert benchfarm_alert_change_ratio (its size: 0.1 is 10%
 * larger) and benchfarm_alert_new (1 for an alert this run raised and
 * nobody ignored, else 0), labelled by suite, benchmark, metric, unit,
 * direction and commit (the first commit after the change: one series
 * can have alerts at two commits), ratios to 4 significant digits.
 *
 * A bisect result (kind "bisect"): the note is the bisect's report
 * (the markdown report's), and metrics.txt has benchfarm_bisect_culprits
 * (1 for a culprit, the number of candidates, 0 for none) labelled by
 * suite, series, metric and direction.
 *
 * Metrics whose value is not finite are left out: OpenMetrics allows
 * NaN, GitLab's widget compares strings and would show it as a change.
 *
 * For the same reason values are rounded to what the data supports, so
 * that noise does not make every metric "changed": to one digit below
 * the leading digit of the result's uncertainty, the half-width of the
 * confidence interval of its change (ci_low, ci_high), in the value's
 * units (times the base median for a median); at least 2 and at most 6
 * significant digits, 4 when the result has no interval. 54,130 ns with
 * an interval of +8% to +17% on a base of 48,200 is "54100".
 */

/*
 * A label value: backslash, double quote and line feed escaped as
 * OpenMetrics says; other control characters become spaces. '#' becomes
 * the fullwidth U+FF03: GitLab's parser (Gitlab::Ci::Parsers::Metrics::
 * Generic) cuts every line at its first '#', even inside quotes, and the
 * rest would fail to parse as shell words, failing the whole report.
 */
static void add_label(struct bf_buf *b, const char *name, const char *v)
{
	bf_buf_addf(b, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\')
			bf_buf_addstr(b, "\\\\");
		else if (*v == '"')
			bf_buf_addstr(b, "\\\"");
		else if (*v == '\n')
			bf_buf_addstr(b, "\\n");
		else if (*v == '#')
			bf_buf_addstr(b, "\xef\xbc\x83"); /* U+FF03 */
		else if ((unsigned char)*v < 0x20 || *v == 0x7f)
			bf_buf_addch(b, ' '); /* OpenMetrics escapes no other */
		else
			bf_buf_addch(b, *v);
	}
	bf_buf_addch(b, '"');
}

/* A label and the key of the result (or alert) its value is read from. */
struct label {
	const char *name;
	const char *key;
};

static const struct label result_labels[] = {
	{ "suite", "benchmark" },
	{ "benchmark", "name" },
	{ "metric", "metric" },
	{ "unit", "unit" },
};

/* an alert's: one series can have alerts at two commits */
static const struct label alert_labels[] = {
	{ "suite", "suite" },         { "benchmark", "benchmark" },
	{ "metric", "metric" },       { "unit", "unit" },
	{ "direction", "direction" }, { "commit", "commit_hi" },
};

static const struct label bisect_labels[] = {
	{ "suite", "benchmark" },
	{ "series", "series" },
	{ "metric", "metric" },
	{ "direction", "direction" },
};

/* {name="value",...} of the n labels l, read from o ("" when absent). */
static void add_labels(struct bf_buf *b, const json_t *o, const struct label *l,
                       size_t n)
{
	bf_buf_addch(b, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			bf_buf_addch(b, ',');
		add_label(b, l[i].name, bf_json_str_or(o, l[i].key, ""));
	}
	bf_buf_addch(b, '}');
}

struct family {
	const char *name;
	const char *help;
	double (*value)(const json_t *r);
	bool relative; /* the uncertainty is the CI's, not times the base */
};

static double patch_median(const json_t *r)
{
	return bf_rep_num(json_object_get(r, "patch"), "median");
}

static double base_median(const json_t *r)
{
	return bf_rep_num(json_object_get(r, "base"), "median");
}

static double effect(const json_t *r)
{
	return bf_rep_num(r, "effect");
}

static double regressed(const json_t *r)
{
	const char *v = bf_rep_verdict(r);

	if (!strcmp(v, "error") || !strcmp(v, "missing"))
		return NAN; /* not measured: no value, not a zero */
	return !strcmp(v, "regressed");
}

static const struct family families[] = {
	{ "benchfarm_patch_median", "median of the patch's runs, in unit",
	  patch_median, false },
	{ "benchfarm_base_median", "median of the base's runs, in unit",
	  base_median, false },
	{ "benchfarm_change_ratio",
	  "change of the median against the base (0.1: 10% larger)", effect,
	  true },
	{ "benchfarm_regressed", "1 when the benchmark regressed, else 0",
	  regressed, true },
};

#define SIG_MIN     2
#define SIG_MAX     6
#define SIG_DEFAULT 4 /* without a confidence interval */

/* The significant digits v supports with uncertainty u (see the top). */
static int sig_digits(double v, double u)
{
	int n;

	if (!isfinite(u) || u <= 0)
		return SIG_DEFAULT;
	if (v == 0)
		return 1;
	n = (int)floor(log10(fabs(v))) - (int)floor(log10(u)) + 2;
	return n < SIG_MIN ? SIG_MIN : n > SIG_MAX ? SIG_MAX : n;
}

/* v rounded to sig significant digits, in the shortest form. */
static void add_rounded(struct bf_buf *b, double v, int sig)
{
	char tmp[64];

	snprintf(tmp, sizeof(tmp), "%.*e", sig - 1, v);
	v = strtod(tmp, NULL);
	/* a short decimal comes back whole from 15 digits; never "-0" */
	bf_buf_addf(b, "%.15g", v == 0 ? 0.0 : v);
}

/* v rounded to what r's interval supports. */
static void add_value(struct bf_buf *b, double v, const json_t *r,
                      const struct family *f)
{
	double u = (bf_rep_num(r, "ci_high") - bf_rep_num(r, "ci_low")) / 2;

	if (!f->relative)
		u *= fabs(base_median(r));
	add_rounded(b, v, sig_digits(v, u));
}

static void add_metrics(struct bf_buf *b, const json_t *results)
{
	for (size_t f = 0; f < BF_ARRAY_SIZE(families); f++) {
		size_t i;
		json_t *r;

		bf_buf_addf(b, "# TYPE %s gauge\n# HELP %s %s\n",
		            families[f].name, families[f].name,
		            families[f].help);
		json_array_foreach(results, i, r)
		{
			double v = families[f].value(r);

			if (!isfinite(v))
				continue;
			bf_buf_addstr(b, families[f].name);
			add_labels(b, r, result_labels,
			           BF_ARRAY_SIZE(result_labels));
			bf_buf_addch(b, ' ');
			add_value(b, v, r, &families[f]);
			bf_buf_addch(b, '\n');
		}
	}
	bf_buf_addstr(b, "# EOF\n");
}

/* One sample of an alert's family: name{labels} value. */
static void add_alert_sample(struct bf_buf *b, const char *family,
                             const json_t *a, double v)
{
	bf_buf_addstr(b, family);
	add_labels(b, a, alert_labels, BF_ARRAY_SIZE(alert_labels));
	bf_buf_addch(b, ' ');
	add_rounded(b, v, SIG_DEFAULT);
	bf_buf_addch(b, '\n');
}

static void add_alert_metrics(struct bf_buf *b, const json_t *alerts)
{
	size_t i;
	json_t *a;

	bf_buf_addstr(b, "# TYPE benchfarm_alert_change_ratio gauge\n"
	                 "# HELP benchfarm_alert_change_ratio change of the "
	                 "series at the alert (0.1: 10% larger)\n");
	json_array_foreach(alerts, i, a)
	{
		if (isfinite(bf_rep_num(a, "size")))
			add_alert_sample(b, "benchfarm_alert_change_ratio", a,
			                 bf_rep_num(a, "size"));
	}
	bf_buf_addstr(b, "# TYPE benchfarm_alert_new gauge\n"
	                 "# HELP benchfarm_alert_new 1 when this run raised "
	                 "the alert and it is not ignored, else 0\n");
	json_array_foreach(alerts, i, a)
	{
		add_alert_sample(
		        b, "benchfarm_alert_new", a,
		        json_is_true(json_object_get(a, "new")) &&
		                !json_is_true(json_object_get(a, "ignored")));
	}
	bf_buf_addstr(b, "# EOF\n");
}

static void add_bisect_metrics(struct bf_buf *b, const json_t *result)
{
	size_t n = json_is_string(json_object_get(result, "culprit"))
	                   ? 1
	                   : json_array_size(
	                             json_object_get(result, "candidates"));

	bf_buf_addstr(b, "# TYPE benchfarm_bisect_culprits gauge\n"
	                 "# HELP benchfarm_bisect_culprits commits the bisect "
	                 "could not tell apart as the change's (1: the "
	                 "culprit)\nbenchfarm_bisect_culprits");
	add_labels(b, result, bisect_labels, BF_ARRAY_SIZE(bisect_labels));
	bf_buf_addf(b, " %zu\n# EOF\n", n);
}

static int gitlab_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const struct bf_report_opts *o = bf_report_opts(r);
	const json_t *results;
	char *md, *cut;
	int ret;

	bool detect = !strcmp(bf_json_str_or(result, "kind", ""), "detect");
	bool bisect = !strcmp(bf_json_str_or(result, "kind", ""), "bisect");

	(void)payload;
	if (!detect && !bisect && (ret = bf_rep_results(&results, result, err)))
		return ret;
	md = bf_report_markdown_named(result, o->check_name, o->link);
	cut = bf_rep_cut_markdown(md, GL_NOTE_MAX, true,
	                          "\n…(cut to GitLab's limit for a note; the "
	                          "whole result is the job's JSON)\n");
	bf_buf_addstr(bf_report_add_output(r, "gitlab-note.md"), cut);
	free(cut);
	free(md);
	if (bisect)
		add_bisect_metrics(bf_report_add_output(r, "metrics.txt"),
		                   result);
	else if (detect)
		add_alert_metrics(bf_report_add_output(r, "metrics.txt"),
		                  json_object_get(result, "alerts"));
	else
		add_metrics(bf_report_add_output(r, "metrics.txt"), results);
	return 0;
}

const struct bf_plugin bf_plugin_gitlab = {
	.abi = BF_PLUGIN_ABI,
	.name = "gitlab",
	.summary = "merge-request note and OpenMetrics metrics.txt",
	.kinds = "compare,detect,bisect",
	.run = gitlab_run,
};
