#include "report_markdown.h"

#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/json.h"
#include "report_markdown_int.h"
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
 * Every string from the document is escaped (bf_md_text in
 * report_markdown_text.c), so no benchmark name can close a table, open a
 * link, mention a user or inject HTML. The tables are
 * report_markdown_table.c's; this file places them in the document.
 */

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

static long long integer(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
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

	if (!bf_rep_has_infra(result) && !moved && !recon &&
	    !bf_rep_devices_out(result))
		return;
	bf_buf_addstr(b, "### Infrastructure failures\n\n"
	                 "These are failures of the lab, the build or the "
	                 "benchmark run, not performance results: what they "
	                 "touched was not compared.\n\n");
	if (infra) {
		bf_buf_addstr(b, "- The comparison stopped early: ");
		bf_md_text(b, infra);
		bf_buf_addch(b, '\n');
	}
	json_array_foreach(bf_rep_devices_out(result), i, e)
	{
		struct bf_buf t = BF_BUF_INIT;

		bf_rep_add_device_out(&t, e);
		bf_buf_addstr(b, "- Device out of the pool: ");
		bf_md_text(b, t.buf);
		bf_buf_addch(b, '\n');
		bf_buf_release(&t);
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
		bf_md_name(b, bf_json_str_or(e, "benchmark", "?"));
		bf_buf_addstr(b, " (");
		bf_md_name(b, bf_json_str_or(e, "side", "?"));
		bf_buf_addstr(b, ", ");
		bf_rep_add_run(b, e);
		bf_buf_addstr(b, ", ");
		bf_md_name(b, bf_json_str_or(e, "code", "error"));
		bf_buf_addstr(b, "): ");
		bf_md_text(b, bf_json_str_or(e, "message", ""));
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
	bf_md_name(b, bf_json_str_or(d, "name", "?"));
	bf_buf_addstr(b, "**");
	if (json_is_true(json_object_get(d, "failed")))
		bf_buf_addstr(b, " (failed during the run)");
	bf_buf_addstr(b, ": ");
	bf_md_name(b, bf_json_str_or(cpu, "model", "unknown CPU"));
	bf_buf_addstr(b, ", ");
	bf_md_name(b, bf_json_str_or(info, "arch", "?"));
	bf_buf_addstr(b, ", kernel ");
	bf_md_name(b, bf_json_str_or(info, "kernel", "?"));
	if (json_is_integer(json_object_get(info, "cpus_online")))
		bf_buf_addf(b, ", %lld cores online",
		            integer(info, "cpus_online"));
	if (json_is_boolean(json_object_get(cpu, "clocks_locked")))
		bf_buf_addf(b, ", clocks %s",
		            json_is_true(json_object_get(cpu, "clocks_locked"))
		                    ? "locked"
		                    : "not locked");
	if (isfinite(bf_rep_num(load, "avg1")))
		bf_buf_addf(b, ", load %.2f", bf_rep_num(load, "avg1"));
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
		bf_md_name(b, dev);
		bf_buf_addstr(b, " ");
		bf_md_name(b, id);
		bf_buf_addstr(b, " ");
		bf_md_name(b, bf_json_str_or(c, "status", "?"));
		bf_buf_addstr(b, ": ");
		bf_md_text(b, bf_json_str_or(c, "message", ""));
		bf_buf_addch(b, '\n');
	}
	if (!shown)
		bf_buf_addf(b,
		            "\nEvery health check passed before each of %lld "
		            "block%s.\n",
		            rounds, plural(rounds));
}

/*
 * Devices found to be one machine: measured at once they would be each
 * other's load, so the reader learns whether they were.
 */
static void add_machines(struct bf_buf *b, const json_t *result)
{
	const json_t *machines = json_object_get(result, "machines");
	size_t i;
	json_t *m;

	json_array_foreach(machines, i, m)
	{
		const json_t *names = json_object_get(m, "devices");
		size_t k;
		json_t *n;

		bf_buf_addstr(b, "- One machine: ");
		json_array_foreach(names, k, n)
		{
			bf_buf_addstr(b, k ? ", " : "");
			bf_md_name(b, json_string_value(n));
		}
		bf_buf_addstr(b, " (the same ");
		bf_md_text(b, bf_json_str_or(m, "same", "?"));
		if (!strcmp(bf_json_str_or(m, "ran", ""), "one at a time"))
			bf_buf_addstr(b, "); they ran one at a time.\n");
		else
			bf_buf_addstr(b, "); they ran at once, each the "
			                 "other's load (devices.same_machine: "
			                 "parallel).\n");
	}
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
	add_machines(b, result);
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
	size_t all = bf_rep_count(res, "missing");
	/* under missing_series: ignore they are said after the verdict */
	size_t miss = bf_rep_missing_counts(result) ? all : 0;
	size_t i;
	json_t *d;

	bf_buf_addstr(b, "## benchfarm: ");
	if (bf_rep_has_infra(result)) {
		bf_buf_addstr(b, "incomplete, infrastructure failures");
		if (reg)
			bf_buf_addf(b, "; %zu regression%s", reg,
			            plural((long long)reg));
		else if (miss)
			bf_buf_addstr(b, "; ");
		else if (bf_rep_compared_nothing(res))
			bf_buf_addstr(b, "; nothing was compared");
		else
			bf_buf_addstr(b, "; nothing regressed among what was "
			                 "measured");
	} else if (reg) {
		bf_buf_addf(b, "%zu regression%s", reg, plural((long long)reg));
	} else if (!miss && bf_rep_compared_nothing(res)) {
		bf_buf_addstr(b, "nothing was compared");
	} else if (!miss) {
		bf_rep_add_no_regressions(b, res, false);
	}
	if (all)
		bf_buf_addf(b, "%s%zu series missing on one side",
		            reg || !miss ? ", " : "", all);
	if (imp)
		bf_buf_addf(b, ", %zu improvement%s", imp,
		            plural((long long)imp));
	bf_buf_addstr(b, "\n\nbase ");
	bf_md_commit(b, bf_json_str_or(base, "commit", "?"));
	bf_buf_addstr(b, " → patch ");
	bf_md_commit(b, bf_json_str_or(patch, "commit", "?"));
	if (json_is_string(json_object_get(patch, "subject"))) {
		bf_buf_addstr(b, " (");
		bf_md_name(b, bf_json_str_or(patch, "subject", ""));
		bf_buf_addch(b, ')');
	}
	if (!strcmp(bf_json_str_or(set, "run_mode", ""), "duet")) {
		bf_buf_addstr(b, ", duet mode: ");
		bf_md_repeats(b, set, "rounds");
		bf_buf_addstr(b, " of base and patch at the same time on two "
		                 "cores, judged on their ratios, on ");
	} else if (!strcmp(bf_json_str_or(set, "mode", "fixed"), "adaptive")) {
		bf_buf_addf(b,
		            ", adaptive repeats (%lld to %lld runs per side)",
		            integer(set, "min_repeats"),
		            integer(set, "max_repeats"));
	} else {
		bf_buf_addstr(b, ", ");
		bf_md_repeats(b, set, "runs per side");
	}
	if (strcmp(bf_json_str_or(set, "run_mode", ""), "duet"))
		bf_buf_addf(b, "%s on ",
		            json_is_false(json_object_get(set, "interleave"))
		                    ? ""
		                    : " interleaved");
	if (!json_array_size(devices))
		bf_buf_addstr(b, "no device");
	json_array_foreach(devices, i, d)
	{
		if (i)
			bf_buf_addstr(b, ", ");
		bf_md_name(b, bf_json_str_or(d, "name", "?"));
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
	bf_md_name(b, bf_json_str_or(trace, "benchmark", "?"));
	if (svg) {
		slash = strrchr(svg, '/');
		bf_buf_addstr(b, ": the differential flame graph ");
		bf_md_name(b, slash ? slash + 1 : svg);
		bf_buf_addstr(b, " in the report directory (red: slower in the "
		                 "patch, blue: faster; traced on the machine "
		                 "that ran benchfarm, after the measured "
		                 "runs).\n\n");
	} else {
		bf_buf_addstr(b, ": no trace, ");
		bf_md_text(b, bf_json_str_or(trace, "error", "unknown error"));
		bf_buf_addstr(b, "\n\n");
	}
}

/*
 * Adaptive repeats: the runs each benchmark took and why they stopped,
 * so a reader knows a short run was decided, not cut off.
 */
static void add_adaptive(struct bf_buf *b, const json_t *result)
{
	const json_t *a = json_object_get(result, "adaptive");
	const json_t *u;
	size_t i;

	if (!json_array_size(json_object_get(a, "benchmarks")))
		return;
	bf_buf_addstr(b, "Runs taken (adaptive repeats, group-sequential "
	                 "test):\n\n");
	json_array_foreach(json_object_get(a, "benchmarks"), i, u)
	{
		const json_t *runs = json_object_get(u, "runs");
		const char *stop = bf_json_str_or(u, "stop", "open");

		bf_buf_addstr(b, "- ");
		bf_md_name(b, bf_json_str_or(u, "benchmark", "?"));
		bf_buf_addf(b, ": %lld base, %lld patch runs; ",
		            integer(runs, "base"), integer(runs, "patch"));
		if (!strcmp(stop, "different"))
			bf_buf_addstr(b, "stopped: a change beyond the "
			                 "threshold\n");
		else if (!strcmp(stop, "same"))
			bf_buf_addstr(b, "stopped: the same within the "
			                 "threshold\n");
		else if (!strcmp(stop, "max_reached"))
			bf_buf_addstr(b, "reached the maximum undecided (no "
			                 "verdict where still open)\n");
		else
			bf_buf_addstr(b, "stopped before a decision\n");
	}
	bf_buf_addch(b, '\n');
}

/* One side of a disagreement: "value regressed (+95.0%)". */
static void add_side(struct bf_buf *b, const json_t *d, const char *metric,
                     const char *verdict, const char *effect)
{
	const json_t *e = json_object_get(d, effect);

	bf_md_name(b, bf_json_str_or(d, metric, ""));
	bf_buf_addch(b, ' ');
	bf_md_text(b, bf_json_str_or(d, verdict, ""));
	bf_buf_addstr(b, " (");
	bf_md_percent(b, json_is_number(e) ? json_number_value(e) : NAN);
	bf_buf_addch(b, ')');
}

/* Where a benchmark's time and its counters tell different stories. */
static void add_disagreements(struct bf_buf *b, const json_t *result)
{
	const json_t *all = json_object_get(result, "disagreements");
	const json_t *d;
	size_t i;

	if (!json_array_size(all))
		return;
	bf_buf_addstr(b, "### Time and counters disagree\n\n");
	json_array_foreach(all, i, d)
	{
		bf_buf_addstr(b, "- **");
		bf_md_name(b, bf_json_str_or(d, "benchmark", ""));
		bf_buf_addstr(b, "** ");
		bf_md_name(b, bf_json_str_or(d, "name", ""));
		bf_buf_addstr(b, ": ");
		add_side(b, d, "time_metric", "time_verdict", "time_effect");
		bf_buf_addstr(b, ", but ");
		add_side(b, d, "counter", "counter_verdict", "counter_effect");
		bf_buf_addstr(b, ". ");
		bf_md_text(b, bf_json_str_or(d, "meaning", ""));
		bf_buf_addstr(b, ".\n");
	}
	bf_buf_addch(b, '\n');
}

static void add_compare(struct bf_buf *b, const json_t *result,
                        const char *link)
{
	const json_t *res = json_object_get(result, "results");
	size_t rest = json_array_size(res) - bf_rep_count(res, "regressed") -
	              bf_rep_count(res, "missing") -
	              bf_rep_count(res, "error") -
	              bf_rep_count(res, "improved");

	add_compare_header(b, result);
	if (json_is_true(json_object_get(result, "same_commit")))
		bf_buf_addstr(b, "**Base and patch are the same commit**: an "
		                 "A/A run, so every difference below is "
		                 "noise.\n\n");
	else if (json_is_true(json_object_get(result, "same_build")))
		bf_buf_addstr(b, "**Same build**: base and patch ship the same "
		                 "code, so any difference below is the "
		                 "machine; no benchmark is called regressed or "
		                 "improved.\n\n");
	add_link(b, link);
	bf_md_duet_isolation(b, json_object_get(result, "settings"));
	bf_md_underpowered(b, result);
	if (bf_rep_count(res, "regressed")) {
		bf_buf_addstr(b, "### Regressions\n\n");
		bf_md_results_table(b, res, 0, 0);
		bf_buf_addch(b, '\n');
	}
	/* a series one side did not report: renamed, dropped, or crashing */
	if (bf_rep_count(res, "missing")) {
		bf_buf_addf(b, "### Missing on one side%s\n\n",
		            bf_rep_missing_fails(result)
		                    ? " (fails like a regression)"
		                    : " (presubmit.missing_series: ignore)");
		bf_md_results_table(b, res, 1, 1);
		bf_buf_addch(b, '\n');
	}
	add_infra(b, result);
	if (bf_rep_count(res, "error")) {
		bf_buf_addstr(b, "Not measured:\n\n");
		bf_md_results_table(b, res, 2, 2);
		bf_buf_addch(b, '\n');
	}
	/* an improvement is news too: shown, not folded with the rest */
	if (bf_rep_count(res, "improved")) {
		bf_buf_addstr(b, "### Improvements\n\n");
		bf_md_results_table(b, res, 3, 3);
		bf_buf_addch(b, '\n');
	}
	add_disagreements(b, result);
	bf_md_duet_cores(b, res);
	if (rest) {
		size_t ungated = bf_rep_count(res, "ungated");

		bf_buf_addf(b,
		            "<details><summary>%zu other result%s (%zu same, "
		            "%zu unknown",
		            rest, plural((long long)rest),
		            bf_rep_count(res, "same"),
		            bf_rep_count(res, "unknown"));
		if (ungated)
			bf_buf_addf(b,
			            ", %zu changed in a metric that does not "
			            "gate",
			            ungated);
		bf_buf_addstr(b, ")</summary>\n\n");
		bf_md_results_table(b, res, 4, 6);
		bf_buf_addstr(b, "\n</details>\n");
	}
	add_adaptive(b, result);
	add_trace(b, json_object_get(result, "trace"));
	add_devices_section(b, result);
}

/*
 * Environment shifts: series that moved between two measurements of
 * one build, listed apart from the alerts with the checks' evidence.
 */
static void add_env_shifts(struct bf_buf *b, const json_t *shifts)
{
	const json_t *e, *s, *ch;
	size_t i, k;

	if (!json_array_size(shifts))
		return;
	bf_buf_addstr(b, "Environment shifts, not code (the same build "
	                 "measured before and after):\n\n");
	json_array_foreach(shifts, i, e)
	{
		const json_t *ev = json_object_get(e, "evidence");
		const json_t *series = json_object_get(e, "series");

		bf_buf_addstr(b, "- ");
		bf_md_commit(b, bf_json_str_or(e, "commit_lo", "?"));
		bf_buf_addstr(b, " → ");
		bf_md_commit(b, bf_json_str_or(e, "commit_hi", "?"));
		bf_buf_addf(b, ": %zu series moved", json_array_size(series));
		json_array_foreach(series, k, s)
		{
			bf_buf_addstr(b, k ? ", " : " (");
			bf_md_name(b, bf_json_str_or(s, "benchmark", "?"));
			bf_buf_addch(b, ' ');
			bf_md_name(b, bf_json_str_or(s, "metric", "?"));
			bf_buf_addf(b, " %+.1f%%",
			            100 * json_number_value(
			                          json_object_get(s, "size")));
		}
		if (json_array_size(series))
			bf_buf_addch(b, ')');
		if (json_is_object(ev))
			bf_buf_addf(b, "; measured %lld s apart",
			            integer(ev, "gap_s"));
		json_array_foreach(json_object_get(ev, "checks"), k, ch)
		{
			bf_buf_addstr(b, "; ");
			bf_md_name(b, bf_json_str_or(ch, "check", "?"));
			bf_buf_addf(b, " %.3g → %.3g",
			            json_number_value(
			                    json_object_get(ch, "before")),
			            json_number_value(
			                    json_object_get(ch, "after")));
		}
		bf_buf_addstr(b, "\n");
	}
	bf_buf_addch(b, '\n');
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
	bf_md_name(b, bf_json_str_or(result, "detector", "?"));
	bf_buf_addstr(b, " on device class ");
	bf_md_name(b, bf_json_str_or(result, "device_class", "?"));
	bf_buf_addf(b, ", %lld series.\n\n", integer(result, "series"));
	add_link(b, link);
	bf_md_alerts_table(b, alerts);
	add_env_shifts(b, json_object_get(result, "environment_shifts"));
	if (json_array_size(supp)) {
		bf_buf_addstr(b, "Suppressed, not regressions:\n\n");
		json_array_foreach(supp, i, a)
		{
			bf_buf_addstr(b, "- ");
			bf_md_commit(b, bf_json_str_or(a, "commit", "?"));
			bf_buf_addstr(b, ": ");
			bf_md_text(b, bf_json_str_or(a, "reason", ""));
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
	bf_md_name(b, bf_json_str_or(result, "benchmark", "?"));
	if (json_is_string(json_object_get(result, "series"))) {
		bf_buf_addstr(b, " / ");
		bf_md_name(b, bf_json_str_or(result, "series", "?"));
		bf_buf_addch(b, ' ');
		bf_md_name(b, bf_json_str_or(result, "metric", "?"));
	}
	if (json_is_string(json_object_get(result, "culprit"))) {
		bf_buf_addstr(b, ": culprit ");
		bf_md_commit(b, bf_json_str_or(result, "culprit", "?"));
	} else if (json_array_size(cand)) {
		bf_buf_addf(b, ": %zu candidate%s, no single culprit",
		            json_array_size(cand),
		            plural((long long)json_array_size(cand)));
	} else {
		bf_buf_addstr(b, ": no culprit, the change did not reproduce");
	}
	bf_buf_addstr(b, "\n\ngood ");
	bf_md_commit(b, bf_json_str_or(result, "good", "?"));
	bf_buf_addstr(b, " → bad ");
	bf_md_commit(b, bf_json_str_or(result, "bad", "?"));
	bf_buf_addf(b, ", %lld commits", integer(result, "commits"));
	if (json_is_string(json_object_get(result, "direction"))) {
		bf_buf_addstr(b, ", ");
		bf_md_name(b, bf_json_str_or(result, "direction", "?"));
	}
	bf_buf_addstr(b, ".\n\n");
	add_link(b, link);
	json_array_foreach(cand, i, p)
	{
		bf_buf_addstr(b, i ? ", " : "Candidates: ");
		bf_md_commit(b, json_is_string(p) ? json_string_value(p) : "?");
	}
	if (json_array_size(cand))
		bf_buf_addstr(b, "\n\n");
	bf_md_probes_table(b, probes);
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
