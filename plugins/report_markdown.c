#include "report_markdown.h"

#include "benchfarm/plugin.h"

#include <math.h>
#include <stdio.h>
#include <strings.h>

#include "benchfarm/buf.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report_util.h"

/*
 * markdown: the review comment. Layout, for a reviewer in a hurry:
 *
 *   <!-- benchfarm:report name=CHECK -->   the marker a pipeline finds
 *   ## benchfarm: what happened, in one line
 *   what was compared, on which devices
 *   ### Regressions                         always open
 *   ### Infrastructure failures             kept apart: not results
 *   <details> every other result </details>
 *   <details> devices and health checks </details>
 *
 * Every string from the document is escaped (add_text), so no
 * benchmark name can close a table, open a link, mention a user or
 * inject HTML.
 */

#define NAME_MAX_BYTES 160 /* longer names are cut, at a UTF-8 boundary */
#define ZWSP           "\xe2\x80\x8b" /* U+200B ZERO WIDTH SPACE */

/* Order of verdicts in the tables: what needs a reviewer first. */
static int rank(const char *verdict)
{
	static const char *const order[] = { "regressed", "error", "improved",
		                             "unknown", "same" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(order); i++)
		if (!strcmp(order[i], verdict))
			return (int)i;
	return (int)BF_ARRAY_SIZE(order);
}

/*
 * Markdown-safe text, at most max bytes of s (0: all): HTML
 * metacharacters become entities, markdown punctuation is
 * backslash-escaped, control characters and line breaks become spaces,
 * and C1 controls and invisible direction overrides (bf_text_hidden_len)
 * are shown as \u{NNNN}, as on the terminal.
 * A zero-width space (U+200B) follows each '@', so no name mentions
 * anyone (an entity such as &#64; may be decoded before GitHub looks for
 * mentions; Dependabot and Renovate write "@\u200b" too), each ':'
 * before "//", so no "http://" or "https://" in a name becomes a link,
 * and the "www" of each "www." (GFM's extended autolink), in any case.
 */
static void add_text_max(struct bf_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s), hidden;
	bool cut = max && n > max;
	unsigned cp;

	if (cut) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--; /* not in the middle of a UTF-8 sequence */
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<')
			bf_buf_addstr(b, "&lt;");
		else if (c == '>')
			bf_buf_addstr(b, "&gt;");
		else if (c == '&')
			bf_buf_addstr(b, "&amp;");
		else if (c == '@' || (c == ':' && i + 2 < n &&
		                      s[i + 1] == '/' && s[i + 2] == '/'))
			bf_buf_addf(b, "%c" ZWSP, c);
		else if (i + 3 < n && !strncasecmp(s + i, "www.", 4)) {
			bf_buf_addf(b, "%.3s" ZWSP, s + i);
			i += 2; /* the '.' is next */
		} else if (c == '"')
			bf_buf_addstr(b, "&quot;");
		else if (strchr("|\\`*_[]#!~", c) && c)
			bf_buf_addf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			bf_buf_addch(b, ' ');
		else if ((hidden = bf_text_hidden_len(s + i, &cp))) {
			bf_buf_addf(b, "\\u{%04X}", cp); /* shown, not obeyed */
			i += hidden - 1;
		} else
			bf_buf_addch(b, (char)c);
	}
	if (cut)
		bf_buf_addstr(b, "…");
}

static void add_text(struct bf_buf *b, const char *s)
{
	add_text_max(b, s, 0);
}

static void add_name(struct bf_buf *b, const char *s)
{
	add_text_max(b, s, NAME_MAX_BYTES);
}

/* A commit as `0123456789ab`; anything but hex is escaped text. */
static void add_commit(struct bf_buf *b, const char *c)
{
	size_t n = strlen(c);

	if (n && strspn(c, "0123456789abcdef") == n)
		bf_buf_addf(b, "`%.12s`", c);
	else
		add_name(b, c);
}

/*
 * The marker's name inside an HTML comment: only [A-Za-z0-9._/-]; any
 * other byte (such as "--" or ">" that would end the comment) becomes '_'.
 */
static void add_marker_name(struct bf_buf *b, const char *s)
{
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '/' ||
		      c == '_' || (c == '-' && s[1] != '-')))
			c = '_';
		bf_buf_addch(b, c);
	}
}

static void add_marker(struct bf_buf *b, const char *check_name)
{
	bf_buf_addstr(b, "<!-- benchfarm:report name=");
	add_marker_name(b, check_name ? check_name : "benchfarm");
	bf_buf_addstr(b, " -->\n");
}

/* A link to the full results, only if it is an http(s) URL. */
static void add_link(struct bf_buf *b, const char *link)
{
	if (!link ||
	    (strncmp(link, "https://", 8) && strncmp(link, "http://", 7)))
		return;
	bf_buf_addstr(b, "[Full results](<");
	for (; *link; link++) {
		unsigned char c = (unsigned char)*link;

		if (c <= 0x20 || c == 0x7f || strchr("<>\"'`", c))
			bf_buf_addf(b, "%%%02X", c);
		else
			bf_buf_addch(b, (char)c);
	}
	bf_buf_addstr(b, ">)\n\n");
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long integer(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
}

static void add_value(struct bf_buf *b, double v, const char *unit)
{
	if (!isfinite(v))
		bf_buf_addstr(b, "–");
	else if (!strcmp(unit, "ns") && fabs(v) >= 1e6)
		bf_buf_addf(b, "%.3f ms", v / 1e6);
	else if (!strcmp(unit, "ns") && fabs(v) >= 1e3)
		bf_buf_addf(b, "%.3f µs", v / 1e3);
	else {
		bf_buf_addf(b, "%.4g ", v);
		add_name(b, unit);
	}
}

static void add_percent(struct bf_buf *b, double f)
{
	if (isfinite(f))
		bf_buf_addf(b, "%+.1f%%", 100 * f);
	else
		bf_buf_addstr(b, "–");
}

/*
 * Whether the results come from more than one suite: then two suites'
 * benchmarks of one name would give rows that look the same, so each
 * row names its suite in a column of its own.
 */
static bool several_suites(const json_t *results)
{
	const char *first = NULL;
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		const char *s = bf_json_str_or(r, "benchmark", "");

		if (!first)
			first = s;
		else if (strcmp(first, s))
			return true;
	}
	return false;
}

static void add_row(struct bf_buf *b, const json_t *r, bool suite)
{
	const char *unit = bf_json_str_or(r, "unit", "");
	const char *verdict = bf_json_str_or(r, "verdict", "error");
	bool bold = !strcmp(verdict, "regressed");

	bf_buf_addstr(b, "| ");
	if (suite) {
		add_name(b, bf_json_str_or(r, "benchmark", "?"));
		bf_buf_addstr(b, " | ");
	}
	add_name(b, bf_json_str_or(r, "name", "?"));
	bf_buf_addstr(b, " | ");
	add_name(b, bf_json_str_or(r, "metric", "?"));
	bf_buf_addstr(b, " | ");
	if (!strcmp(verdict, "error")) {
		bf_buf_addstr(b, "– | – | – | – | **not measured**: ");
		add_text(b, bf_json_str_or(r, "error", "see below"));
		bf_buf_addstr(b, " |\n");
		return;
	}
	add_value(b, num(json_object_get(r, "base"), "median"), unit);
	bf_buf_addstr(b, " | ");
	add_value(b, num(json_object_get(r, "patch"), "median"), unit);
	bf_buf_addstr(b, " | ");
	add_percent(b, num(r, "effect"));
	if (isfinite(num(r, "ci_low")) && isfinite(num(r, "ci_high"))) {
		bf_buf_addstr(b, " [");
		add_percent(b, num(r, "ci_low"));
		bf_buf_addstr(b, ", ");
		add_percent(b, num(r, "ci_high"));
		bf_buf_addch(b, ']');
	}
	bf_buf_addstr(b, " | ");
	if (isfinite(num(r, "p_adjusted")))
		bf_buf_addf(b, "%.3g", num(r, "p_adjusted"));
	else
		bf_buf_addstr(b, "–");
	bf_buf_addf(b, " | %s", bold ? "**" : "");
	add_name(b, verdict);
	bf_buf_addf(b, "%s |\n", bold ? "**" : "");
}

/*
 * The rows whose verdict ranks within [lo, hi], in rank order; with a
 * suite column when the results come from several suites.
 */
static size_t add_table(struct bf_buf *b, const json_t *results, int lo, int hi)
{
	bool suite = several_suites(results);
	size_t rows = 0;

	for (int k = lo; k <= hi; k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			if (rank(bf_json_str_or(r, "verdict", "error")) != k)
				continue;
			if (!rows++)
				bf_buf_addf(
				        b,
				        "| %sbenchmark | metric | base | "
				        "patch | change [95%% CI] | p "
				        "(adj.) | verdict |\n"
				        "|%s---|---|---:|---:|---:|---:|---|"
				        "\n",
				        suite ? "suite | " : "",
				        suite ? "---|" : "");
			add_row(b, r, suite);
		}
	}
	return rows;
}

static void add_infra(struct bf_buf *b, const json_t *result)
{
	const json_t *errors = json_object_get(result, "errors");
	const char *infra = bf_json_str_or(result, "infra_error", NULL);
	const json_t *sum = json_object_get(result, "summary");
	long long moved = integer(sum, "moved_units");
	long long recon = integer(sum, "reconnects");
	size_t i;
	json_t *e;

	if (!bf_rep_has_infra(result) && !moved && !recon)
		return;
	bf_buf_addstr(b, "### Infrastructure failures\n\n"
	                 "These are failures of the lab, the build or the "
	                 "benchmark run, not performance results: what they "
	                 "touched was not compared.\n\n");
	if (infra) {
		bf_buf_addstr(b, "- The comparison stopped early: ");
		add_text(b, infra);
		bf_buf_addch(b, '\n');
	}
	/* only what happened: one device has nowhere to move anything */
	if (moved || recon) {
		bf_buf_addstr(b, "- Retries: ");
		if (recon)
			bf_buf_addf(b, "%lld reconnect%s%s", recon,
			            plural(recon), moved ? ", " : "");
		if (moved)
			bf_buf_addf(b,
			            "%lld benchmark%s moved to another device",
			            moved, plural(moved));
		bf_buf_addstr(b, "; every measured run was kept once.\n");
	}
	json_array_foreach(errors, i, e)
	{
		bf_buf_addstr(b, "- ");
		add_name(b, bf_json_str_or(e, "benchmark", "?"));
		bf_buf_addstr(b, " (");
		add_name(b, bf_json_str_or(e, "side", "?"));
		bf_buf_addstr(b, ", ");
		bf_rep_add_run(b, e);
		bf_buf_addstr(b, ", ");
		add_name(b, bf_json_str_or(e, "code", "error"));
		bf_buf_addstr(b, "): ");
		add_text(b, bf_json_str_or(e, "message", ""));
		bf_buf_addch(b, '\n');
	}
	bf_buf_addch(b, '\n');
}

/* One device's facts: what a reviewer needs to trust the numbers. */
static void add_device(struct bf_buf *b, const json_t *d)
{
	const json_t *info = json_object_get(d, "info");
	const json_t *cpu = json_object_get(info, "cpu");
	const json_t *load = json_object_get(info, "load");

	bf_buf_addstr(b, "- **");
	add_name(b, bf_json_str_or(d, "name", "?"));
	bf_buf_addstr(b, "**");
	if (json_is_true(json_object_get(d, "failed")))
		bf_buf_addstr(b, " (failed during the run)");
	bf_buf_addstr(b, ": ");
	add_name(b, bf_json_str_or(cpu, "model", "unknown CPU"));
	bf_buf_addstr(b, ", ");
	add_name(b, bf_json_str_or(info, "arch", "?"));
	bf_buf_addstr(b, ", kernel ");
	add_name(b, bf_json_str_or(info, "kernel", "?"));
	if (json_is_integer(json_object_get(info, "cpus_online")))
		bf_buf_addf(b, ", %lld cores online",
		            integer(info, "cpus_online"));
	if (json_is_boolean(json_object_get(cpu, "clocks_locked")))
		bf_buf_addf(b, ", clocks %s",
		            json_is_true(json_object_get(cpu, "clocks_locked"))
		                    ? "locked"
		                    : "not locked");
	if (isfinite(num(load, "avg1")))
		bf_buf_addf(b, ", load %.2f", num(load, "avg1"));
	bf_buf_addch(b, '\n');
}

/* Checks that did not pass, once per device and id (the last word). */
static void add_checks(struct bf_buf *b, const json_t *result)
{
	const json_t *checks = json_object_get(result, "checks");
	long long rounds = 0;
	size_t i, j, shown = 0;
	json_t *c, *d;

	json_array_foreach(checks, i, c) if (integer(c, "block") + 1 > rounds)
	        rounds = integer(c, "block") + 1;
	if (!json_array_size(checks))
		return;
	json_array_foreach(checks, i, c)
	{
		const char *id = bf_json_str_or(c, "id", "?");
		const char *dev = bf_json_str_or(c, "device", "?");
		bool later = false;

		if (!strcmp(bf_json_str_or(c, "status", ""), "pass") ||
		    !strcmp(bf_json_str_or(c, "status", ""), "skip"))
			continue;
		for (j = i + 1; (d = json_array_get(checks, j)); j++)
			later |= !strcmp(bf_json_str_or(d, "id", ""), id) &&
			         !strcmp(bf_json_str_or(d, "device", ""), dev);
		if (later)
			continue;
		if (!shown++)
			bf_buf_addf(b,
			            "\nHealth checks (before each of %lld "
			            "block%s) that did not pass:\n\n",
			            rounds, plural(rounds));
		bf_buf_addstr(b, "- ");
		add_name(b, dev);
		bf_buf_addstr(b, " ");
		add_name(b, id);
		bf_buf_addstr(b, " ");
		add_name(b, bf_json_str_or(c, "status", "?"));
		bf_buf_addstr(b, ": ");
		add_text(b, bf_json_str_or(c, "message", ""));
		bf_buf_addch(b, '\n');
	}
	if (!shown)
		bf_buf_addf(b,
		            "\nEvery health check passed before each of %lld "
		            "block%s.\n",
		            rounds, plural(rounds));
}

static void add_devices_section(struct bf_buf *b, const json_t *result)
{
	const json_t *devices = json_object_get(result, "devices");
	size_t i;
	json_t *d;

	bf_buf_addf(b,
	            "<details><summary>Devices and health checks (%zu "
	            "device%s)</summary>\n\n",
	            json_array_size(devices),
	            plural((long long)json_array_size(devices)));
	json_array_foreach(devices, i, d) add_device(b, d);
	add_checks(b, result);
	bf_buf_addstr(b, "\n</details>\n");
}

static void add_compare_header(struct bf_buf *b, const json_t *result)
{
	const json_t *res = json_object_get(result, "results");
	const json_t *set = json_object_get(result, "settings");
	const json_t *base = json_object_get(result, "base");
	const json_t *patch = json_object_get(result, "patch");
	const json_t *devices = json_object_get(result, "devices");
	size_t reg = bf_rep_count(res, "regressed");
	size_t imp = bf_rep_count(res, "improved");
	size_t i;
	json_t *d;

	bf_buf_addstr(b, "## benchfarm: ");
	if (bf_rep_has_infra(result)) {
		bf_buf_addstr(b, "incomplete, infrastructure failures");
		if (reg)
			bf_buf_addf(b, "; %zu regression%s", reg,
			            plural((long long)reg));
		else if (bf_rep_compared_nothing(res))
			bf_buf_addstr(b, "; nothing was compared");
		else
			bf_buf_addstr(b, "; nothing regressed among what was "
			                 "measured");
	} else if (reg) {
		bf_buf_addf(b, "%zu regression%s", reg, plural((long long)reg));
	} else if (bf_rep_compared_nothing(res)) {
		bf_buf_addstr(b, "nothing was compared");
	} else {
		bf_rep_add_no_regressions(b, res, false);
	}
	if (imp)
		bf_buf_addf(b, ", %zu improvement%s", imp,
		            plural((long long)imp));
	bf_buf_addstr(b, "\n\nbase ");
	add_commit(b, bf_json_str_or(base, "commit", "?"));
	bf_buf_addstr(b, " → patch ");
	add_commit(b, bf_json_str_or(patch, "commit", "?"));
	if (json_is_string(json_object_get(patch, "subject"))) {
		bf_buf_addstr(b, " (");
		add_name(b, bf_json_str_or(patch, "subject", ""));
		bf_buf_addch(b, ')');
	}
	bf_buf_addf(b, ", %lld runs per side%s on ", integer(set, "repeats"),
	            json_is_false(json_object_get(set, "interleave"))
	                    ? ""
	                    : " interleaved");
	if (!json_array_size(devices))
		bf_buf_addstr(b, "no device");
	json_array_foreach(devices, i, d)
	{
		if (i)
			bf_buf_addstr(b, ", ");
		add_name(b, bf_json_str_or(d, "name", "?"));
	}
	bf_buf_addf(b, "; seed %lld.\n\n", integer(set, "seed"));
}

/* compare --trace: where the flame graphs are, or why there are none. */
static void add_trace(struct bf_buf *b, const json_t *trace)
{
	const char *svg = bf_json_str_or(trace, "diff_svg", NULL);
	const char *slash;

	if (!trace)
		return;
	bf_buf_addstr(b, "Where the time went in ");
	add_name(b, bf_json_str_or(trace, "benchmark", "?"));
	if (svg) {
		slash = strrchr(svg, '/');
		bf_buf_addstr(b, ": the differential flame graph ");
		add_name(b, slash ? slash + 1 : svg);
		bf_buf_addstr(b, " in the report directory (red: slower in the "
		                 "patch, blue: faster; traced on the machine "
		                 "that ran benchfarm, after the measured "
		                 "runs).\n\n");
	} else {
		bf_buf_addstr(b, ": no trace, ");
		add_text(b, bf_json_str_or(trace, "error", "unknown error"));
		bf_buf_addstr(b, "\n\n");
	}
}

static void add_compare(struct bf_buf *b, const json_t *result,
                        const char *link)
{
	const json_t *res = json_object_get(result, "results");
	size_t rest = json_array_size(res) - bf_rep_count(res, "regressed") -
	              bf_rep_count(res, "error") -
	              bf_rep_count(res, "improved");

	add_compare_header(b, result);
	if (json_is_true(json_object_get(result, "same_commit")))
		bf_buf_addstr(b, "**Base and patch are the same commit**: an "
		                 "A/A run, so every difference below is "
		                 "noise.\n\n");
	add_link(b, link);
	if (bf_rep_count(res, "regressed")) {
		bf_buf_addstr(b, "### Regressions\n\n");
		add_table(b, res, 0, 0);
		bf_buf_addch(b, '\n');
	}
	add_infra(b, result);
	if (bf_rep_count(res, "error")) {
		bf_buf_addstr(b, "Not measured:\n\n");
		add_table(b, res, 1, 1);
		bf_buf_addch(b, '\n');
	}
	/* an improvement is news too: shown, not folded with the rest */
	if (bf_rep_count(res, "improved")) {
		bf_buf_addstr(b, "### Improvements\n\n");
		add_table(b, res, 2, 2);
		bf_buf_addch(b, '\n');
	}
	if (rest) {
		bf_buf_addf(b,
		            "<details><summary>%zu other result%s (%zu same, "
		            "%zu unknown)</summary>\n\n",
		            rest, plural((long long)rest),
		            bf_rep_count(res, "same"),
		            bf_rep_count(res, "unknown"));
		add_table(b, res, 3, 5);
		bf_buf_addstr(b, "\n</details>\n");
	}
	add_trace(b, json_object_get(result, "trace"));
	add_devices_section(b, result);
}

/* detect: the alerts of a postsubmit run and what was suppressed. */
static void add_detect(struct bf_buf *b, const json_t *result, const char *link)
{
	const json_t *alerts = json_object_get(result, "alerts");
	const json_t *supp = json_object_get(result, "suppressed");
	size_t i, fresh = 0;
	json_t *a;

	json_array_foreach(alerts, i, a) fresh +=
	        json_is_true(json_object_get(a, "new")) &&
	        !json_is_true(json_object_get(a, "ignored"));
	bf_buf_addf(b, "## benchfarm: %zu new alert%s", fresh,
	            plural((long long)fresh));
	bf_rep_detect_over(b, result);
	bf_buf_addstr(b, "\n\n");
	bf_buf_addstr(b, "Detector ");
	add_name(b, bf_json_str_or(result, "detector", "?"));
	bf_buf_addstr(b, " on device class ");
	add_name(b, bf_json_str_or(result, "device_class", "?"));
	bf_buf_addf(b, ", %lld series.\n\n", integer(result, "series"));
	add_link(b, link);
	if (json_array_size(alerts)) {
		bf_buf_addstr(b, "| benchmark | metric | commits | change | "
		                 "direction | score | state |\n"
		                 "|---|---|---|---:|---|---:|---|\n");
		json_array_foreach(alerts, i, a)
		{
			bf_buf_addstr(b, "| ");
			add_name(b, bf_json_str_or(a, "suite", "?"));
			bf_buf_addstr(b, " / ");
			add_name(b, bf_json_str_or(a, "benchmark", "?"));
			bf_buf_addstr(b, " | ");
			add_name(b, bf_json_str_or(a, "metric", "?"));
			bf_buf_addstr(b, " | ");
			add_commit(b, bf_json_str_or(a, "commit_lo", "?"));
			bf_buf_addstr(b, "..");
			add_commit(b, bf_json_str_or(a, "commit_hi", "?"));
			bf_buf_addstr(b, " | ");
			add_percent(b, num(a, "size"));
			bf_buf_addstr(b, " | ");
			add_name(b, bf_json_str_or(a, "direction", "?"));
			bf_buf_addf(b, " | %.3g | %s |\n", num(a, "score"),
			            json_is_true(json_object_get(a, "ignored"))
			                    ? "ignored"
			            : json_is_true(json_object_get(a, "new"))
			                    ? "new"
			                    : "known");
		}
		bf_buf_addch(b, '\n');
	}
	if (json_array_size(supp)) {
		bf_buf_addstr(b, "Suppressed, not regressions:\n\n");
		json_array_foreach(supp, i, a)
		{
			bf_buf_addstr(b, "- ");
			add_commit(b, bf_json_str_or(a, "commit", "?"));
			bf_buf_addstr(b, ": ");
			add_text(b, bf_json_str_or(a, "reason", ""));
			bf_buf_addch(b, '\n');
		}
	}
}

/* bisect: the culprit (or what is left), and every probed commit. */
static void add_bisect(struct bf_buf *b, const json_t *result, const char *link)
{
	const json_t *probes = json_object_get(result, "probes");
	const json_t *cand = json_object_get(result, "candidates");
	size_t i;
	json_t *p;

	bf_buf_addstr(b, "## benchfarm: bisect of ");
	add_name(b, bf_json_str_or(result, "benchmark", "?"));
	if (json_is_string(json_object_get(result, "series"))) {
		bf_buf_addstr(b, " / ");
		add_name(b, bf_json_str_or(result, "series", "?"));
		bf_buf_addch(b, ' ');
		add_name(b, bf_json_str_or(result, "metric", "?"));
	}
	if (json_is_string(json_object_get(result, "culprit"))) {
		bf_buf_addstr(b, ": culprit ");
		add_commit(b, bf_json_str_or(result, "culprit", "?"));
	} else if (json_array_size(cand)) {
		bf_buf_addf(b, ": %zu candidate%s, no single culprit",
		            json_array_size(cand),
		            plural((long long)json_array_size(cand)));
	} else {
		bf_buf_addstr(b, ": no culprit, the change did not reproduce");
	}
	bf_buf_addstr(b, "\n\ngood ");
	add_commit(b, bf_json_str_or(result, "good", "?"));
	bf_buf_addstr(b, " → bad ");
	add_commit(b, bf_json_str_or(result, "bad", "?"));
	bf_buf_addf(b, ", %lld commits", integer(result, "commits"));
	if (json_is_string(json_object_get(result, "direction"))) {
		bf_buf_addstr(b, ", ");
		add_name(b, bf_json_str_or(result, "direction", "?"));
	}
	bf_buf_addstr(b, ".\n\n");
	add_link(b, link);
	json_array_foreach(cand, i, p)
	{
		bf_buf_addstr(b, i ? ", " : "Candidates: ");
		add_commit(b, json_is_string(p) ? json_string_value(p) : "?");
	}
	if (json_array_size(cand))
		bf_buf_addstr(b, "\n\n");
	if (!json_array_size(probes))
		return;
	bf_buf_addstr(b, "| commit | verdict | change [95% CI] | outcome |\n"
	                 "|---|---|---:|---|\n");
	json_array_foreach(probes, i, p)
	{
		const json_t *s = json_object_get(p, "series");

		bf_buf_addstr(b, "| ");
		add_commit(b, bf_json_str_or(p, "commit", "?"));
		bf_buf_addstr(b, " | ");
		add_name(b, bf_json_str_or(p, "verdict", "?"));
		bf_buf_addstr(b, " | ");
		add_percent(b, num(s, "effect"));
		if (isfinite(num(s, "ci_low")) && isfinite(num(s, "ci_high"))) {
			bf_buf_addstr(b, " [");
			add_percent(b, num(s, "ci_low"));
			bf_buf_addstr(b, ", ");
			add_percent(b, num(s, "ci_high"));
			bf_buf_addch(b, ']');
		}
		bf_buf_addstr(b, " | ");
		add_name(b, bf_json_str_or(p, "outcome", "?"));
		if (json_is_string(json_object_get(p, "reason"))) {
			bf_buf_addstr(b, ": ");
			add_text(b, bf_json_str_or(p, "reason", ""));
		}
		bf_buf_addstr(b, " |\n");
	}
}

static char *render(const json_t *result, const char *check_name,
                    const char *link)
{
	struct bf_buf b = BF_BUF_INIT;
	const char *kind = bf_json_str_or(result, "kind", "");

	add_marker(&b, check_name);
	if (!strcmp(kind, "detect"))
		add_detect(&b, result, link);
	else if (!strcmp(kind, "bisect"))
		add_bisect(&b, result, link);
	else
		add_compare(&b, result, link);
	return bf_buf_detach(&b, NULL);
}

char *bf_report_markdown_named(const json_t *result, const char *check_name,
                               const char *link)
{
	return render(result, check_name, link);
}

static int markdown_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r), *results;
	const struct bf_report_opts *o = bf_report_opts(r);
	char *md;
	int ret;

	(void)payload;
	/* a compare result without its results array is not one */
	if (!strcmp(bf_json_str_or(result, "kind", ""), "compare") &&
	    (ret = bf_rep_results(&results, result, err)))
		return ret;
	md = render(result, o->check_name, o->link);
	bf_buf_addstr(bf_report_add_output(r, "report.md"), md);
	free(md);
	return 0;
}

const struct bf_plugin bf_plugin_markdown = {
	.abi = BF_PLUGIN_ABI,
	.name = "markdown",
	.summary = "the review comment body (GitHub, GitLab, Gerrit)",
	.kinds = "compare,detect,bisect",
	.run = markdown_run,
};
