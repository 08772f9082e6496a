#include "report_markdown_int.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "benchfarm/common.h"
#include "benchfarm/json.h"
#include "report_util.h"

/*
 * The markdown reporter's tables: a comparison's results (one table per
 * section of the document), a detect's alerts and a bisect's probes.
 * Every cell from the document is escaped text (report_markdown_text.c).
 */

/* Order of verdicts in the tables: what needs a reviewer first. */
static int rank(const char *verdict)
{
	static const char *const order[] = { "regressed", "missing", "error",
		                             "improved",  "unknown", "same",
		                             "ungated" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(order); i++)
		if (!strcmp(order[i], verdict))
			return (int)i;
	return (int)BF_ARRAY_SIZE(order);
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
	const char *gate = bf_rep_verdict(r);
	bool bold = !strcmp(gate, "regressed");

	bf_buf_addstr(b, "| ");
	if (suite)
		bf_md_cell(b, r, "benchmark");
	bf_md_cell(b, r, "name");
	bf_md_cell(b, r, "metric");
	if (!strcmp(verdict, "error")) {
		bf_buf_addstr(b, "– | – | – | – | **not measured**: ");
		bf_md_text(b, bf_json_str_or(r, "error", "see below"));
		bf_buf_addstr(b, " |\n");
		return;
	}
	if (!strcmp(verdict, "missing")) {
		struct bf_buf m = BF_BUF_INIT;

		bf_rep_add_missing(&m, r);
		bf_buf_addstr(b, "– | – | – | – | **");
		bf_md_text(b, m.buf);
		bf_buf_addstr(b, "**: ");
		bf_md_text(b, bf_json_str_or(r, "error", ""));
		bf_buf_addstr(b, " |\n");
		bf_buf_release(&m);
		return;
	}
	bf_md_value(b, bf_rep_num(json_object_get(r, "base"), "median"), unit);
	bf_buf_addstr(b, " | ");
	bf_md_value(b, bf_rep_num(json_object_get(r, "patch"), "median"), unit);
	bf_buf_addstr(b, " | ");
	bf_rep_add_effect(b, r, "–");
	bf_buf_addstr(b, " | ");
	if (isfinite(bf_rep_num(r, "p_adjusted")))
		bf_buf_addf(b, "%.3g", bf_rep_num(r, "p_adjusted"));
	else
		bf_buf_addstr(b, "–");
	bf_buf_addf(b, " | %s", bold ? "**" : "");
	bf_md_name(b, verdict);
	if (!strcmp(gate, "ungated"))
		bf_buf_addstr(b, " (not gated)");
	bf_buf_addf(b, "%s |\n", bold ? "**" : "");
}

size_t bf_md_results_table(struct bf_buf *b, const json_t *results, int lo,
                           int hi)
{
	bool suite = several_suites(results);
	size_t rows = 0;

	for (int k = lo; k <= hi; k++) {
		size_t i;
		json_t *r;

		json_array_foreach(results, i, r)
		{
			if (rank(bf_rep_verdict(r)) != k)
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

void bf_md_alerts_table(struct bf_buf *b, const json_t *alerts)
{
	size_t i;
	json_t *a;

	if (!json_array_size(alerts))
		return;
	bf_buf_addstr(b, "| benchmark | metric | commits | change | "
	                 "direction | score | state |\n"
	                 "|---|---|---|---:|---|---:|---|\n");
	json_array_foreach(alerts, i, a)
	{
		bf_buf_addstr(b, "| ");
		bf_md_name(b, bf_json_str_or(a, "suite", "?"));
		bf_buf_addstr(b, " / ");
		bf_md_cell(b, a, "benchmark");
		bf_md_cell(b, a, "metric");
		bf_md_commit(b, bf_json_str_or(a, "commit_lo", "?"));
		bf_buf_addstr(b, "..");
		bf_md_commit(b, bf_json_str_or(a, "commit_hi", "?"));
		bf_buf_addstr(b, " | ");
		bf_md_percent(b, bf_rep_num(a, "size"));
		bf_buf_addstr(b, " | ");
		bf_md_cell(b, a, "direction");
		bf_buf_addf(
		        b, "%.3g | %s |\n", bf_rep_num(a, "score"),
		        json_is_true(json_object_get(a, "ignored")) ? "ignored"
		        : json_is_true(json_object_get(a, "new"))   ? "new"
		                                                    : "known");
	}
	bf_buf_addch(b, '\n');
}

void bf_md_probes_table(struct bf_buf *b, const json_t *probes)
{
	size_t i;
	json_t *p;

	if (!json_array_size(probes))
		return;
	bf_buf_addstr(b, "| commit | verdict | change [95% CI] | outcome |\n"
	                 "|---|---|---:|---|\n");
	json_array_foreach(probes, i, p)
	{
		bf_buf_addstr(b, "| ");
		bf_md_commit(b, bf_json_str_or(p, "commit", "?"));
		bf_buf_addstr(b, " | ");
		bf_md_cell(b, p, "verdict");
		bf_rep_add_effect(b, json_object_get(p, "series"), "–");
		bf_buf_addstr(b, " | ");
		bf_md_name(b, bf_json_str_or(p, "outcome", "?"));
		if (json_is_string(json_object_get(p, "reason"))) {
			bf_buf_addstr(b, ": ");
			bf_md_text(b, bf_json_str_or(p, "reason", ""));
		}
		bf_buf_addstr(b, " |\n");
	}
}

void bf_md_duet_cores(struct bf_buf *b, const json_t *results)
{
	const json_t *r, *c;
	size_t i, n = 0;

	json_array_foreach(results, i, r)
	{
		c = json_object_get(r, "duet_cores");
		if (!json_is_true(json_object_get(c, "differ")))
			continue;
		if (!n++)
			bf_buf_addstr(b,
			              "### Duet: one core ran slower than the "
			              "other\n\n");
		bf_buf_addstr(b, "- **");
		bf_md_name(b, bf_json_str_or(r, "benchmark", ""));
		bf_buf_addstr(b, "** ");
		bf_md_name(b, bf_json_str_or(r, "name", ""));
		bf_buf_addch(b, ' ');
		bf_md_name(b, bf_json_str_or(r, "metric", ""));
		bf_buf_addstr(b, ": time on the second core ");
		bf_md_percent(b, json_number_value(
		                         json_object_get(c, "second_slower")));
		bf_buf_addstr(b, " against the first\n");
	}
	if (n)
		bf_buf_addstr(b,
		              "\nEach round's ratio swings by that much with "
		              "which side had which core, which hides "
		              "smaller changes. Usually another process runs "
		              "on one of the two cores (or the cores differ, "
		              "as big and little cores do): give duet two "
		              "cores nothing else uses, judge `cpu_time`, or "
		              "measure interleaved.\n\n");
}

void bf_md_duet_isolation(struct bf_buf *b, const json_t *settings)
{
	const json_t *iso = json_object_get(settings, "duet_isolation");
	const json_t *stopped = json_object_get(iso, "stopped_rounds");
	long long n =
	        json_is_integer(stopped) ? json_integer_value(stopped) : 0;
	const json_t *procs = json_object_get(iso, "processes_isolated");
	bool own_pids =
	        json_is_integer(procs) &&
	        json_integer_value(procs) ==
	                json_integer_value(json_object_get(iso, "rounds"));

	if (iso && !json_is_true(json_object_get(iso, "isolated"))) {
		bf_buf_addstr(b, own_pids ? "**Duet: the sides were not fully "
		                            "isolated**: each had its own PID "
		                            "namespace, but the patch's "
		                            "benchmark could move onto the "
		                            "base's core ("
		                          : "**Duet: the sides were not "
		                            "isolated**: the patch's benchmark "
		                            "could see and stop the base's "
		                            "process (");
		bf_md_text(b, bf_json_str_or(iso, "not_isolated", "?"));
		bf_buf_addstr(b, "). To refuse such a device for a patch you "
		                 "do not trust, set `runs.duet_isolation: "
		                 "processes` or `full`.\n\n");
	}
	if (n > 0)
		bf_buf_addf(b,
		            "**Duet: %lld round%s left out: a side was stopped "
		            "while it ran** (by a signal, or the base far less "
		            "on a CPU than the patch): %s no measurement.\n\n",
		            n, n == 1 ? "" : "s",
		            n == 1 ? "it is" : "they are");
}

void bf_md_underpowered(struct bf_buf *b, const json_t *result)
{
	const json_t *arr = json_object_get(result, "underpowered");
	size_t i;
	json_t *u;

	json_array_foreach(arr, i, u)
	{
		long long k = json_integer_value(json_object_get(u, "family"));

		bf_buf_addstr(b, "**Too few runs for a verdict on ");
		bf_md_name(b, bf_json_str_or(u, "benchmark", "?"));
		bf_buf_addf(b,
		            "**: with %lld runs a side, no change%s can reach "
		            "p < %g after correction (the least it can have is "
		            "%.3g): use at least %lld runs a side "
		            "(`runs.repeats`)",
		            (long long)json_integer_value(
		                    json_object_get(u, "runs")),
		            k > 1 ? " in one of its gating series" : "",
		            bf_rep_num(u, "alpha"), bf_rep_num(u, "least_p"),
		            (long long)json_integer_value(
		                    json_object_get(u, "min_runs")));
		if (k > 1)
			bf_buf_addf(b, ", or gate fewer of its %lld series", k);
		bf_buf_addstr(b, ".\n\n");
	}
}
