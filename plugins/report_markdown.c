#include "report.h"

#include "benchfarm/plugin.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/buf.h"
#include "benchfarm/json.h"

/* Order of verdicts in the table: what needs a reviewer first. */
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
 * Markdown-safe text: HTML metacharacters become entities, markdown
 * punctuation (table pipes, emphasis, links, code) is backslash-escaped,
 * line breaks become spaces, so a name can never break the table.
 */
static void add_escaped(struct bf_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			bf_buf_addstr(b, "&lt;");
		else if (*s == '>')
			bf_buf_addstr(b, "&gt;");
		else if (*s == '&')
			bf_buf_addstr(b, "&amp;");
		else if (strchr("|\\`*_[]#!~", *s))
			bf_buf_addf(b, "\\%c", *s);
		else if (*s == '\n' || *s == '\r')
			bf_buf_addch(b, ' ');
		else
			bf_buf_addch(b, *s);
	}
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

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void add_value(struct bf_buf *b, double v, const char *unit)
{
	if (!isfinite(v))
		bf_buf_addstr(b, "–");
	else if (!strcmp(unit, "ns") && v >= 1e6)
		bf_buf_addf(b, "%.3f ms", v / 1e6);
	else if (!strcmp(unit, "ns") && v >= 1e3)
		bf_buf_addf(b, "%.3f µs", v / 1e3);
	else
		bf_buf_addf(b, "%.4g %s", v, unit);
}

static void add_row(struct bf_buf *b, const json_t *r)
{
	const char *unit = bf_json_str_or(r, "unit", "");
	const char *verdict = bf_json_str_or(r, "verdict", "error");

	bf_buf_addstr(b, "| ");
	add_escaped(b, bf_json_str_or(r, "name", "?"));
	bf_buf_addstr(b, " | ");
	add_escaped(b, bf_json_str_or(r, "metric", "?"));
	bf_buf_addstr(b, " | ");
	if (!strcmp(verdict, "error")) {
		bf_buf_addstr(b, "– | – | – | – | **error**: ");
		add_escaped(b, bf_json_str_or(r, "error", ""));
		bf_buf_addstr(b, " |\n");
		return;
	}
	add_value(b, num(json_object_get(r, "base"), "median"), unit);
	bf_buf_addstr(b, " | ");
	add_value(b, num(json_object_get(r, "patch"), "median"), unit);
	bf_buf_addf(b, " | %+.1f%% ", 100 * num(r, "effect"));
	if (isfinite(num(r, "ci_low")))
		bf_buf_addf(b, "[%+.1f%%, %+.1f%%]", 100 * num(r, "ci_low"),
		            100 * num(r, "ci_high"));
	bf_buf_addf(b, " | %.3g | %s%s%s |\n", num(r, "p_adjusted"),
	            !strcmp(verdict, "regressed") ? "**" : "", verdict,
	            !strcmp(verdict, "regressed") ? "**" : "");
}

static void add_table(struct bf_buf *b, const json_t *results)
{
	bf_buf_addstr(b, "| benchmark | metric | base | patch | change "
	                 "[95% CI] | p (adj.) | verdict |\n"
	                 "|---|---|---:|---:|---:|---:|---|\n");
	for (int k = 0; k <= 5; k++) {
		size_t i;
		json_t *r;

		json_array_foreach(
		        results, i,
		        r) if (rank(bf_json_str_or(r, "verdict", "error")) == k)
		        add_row(b, r);
	}
}

static void add_errors(struct bf_buf *b, const json_t *result)
{
	const json_t *errors = json_object_get(result, "errors");
	const char *infra = bf_json_str_or(result, "infra_error", NULL);
	const json_t *sum = json_object_get(result, "summary");
	json_int_t moved =
	        json_integer_value(json_object_get(sum, "moved_units"));
	json_int_t recon =
	        json_integer_value(json_object_get(sum, "reconnects"));
	size_t i;
	json_t *e;

	if (!infra && !json_array_size(errors) && !moved && !recon)
		return;
	bf_buf_addstr(b, "\n### Infrastructure\n\n");
	if (infra) {
		bf_buf_addstr(b, "The comparison stopped early: ");
		add_escaped(b, infra);
		bf_buf_addstr(b, "\n\n");
	}
	if (moved || recon)
		bf_buf_addf(b,
		            "Infrastructure retries, not performance: %lld "
		            "reconnect%s, %lld benchmark%s moved to another "
		            "device. Every measured run was kept once.\n\n",
		            (long long)recon, recon == 1 ? "" : "s",
		            (long long)moved, moved == 1 ? "" : "s");
	json_array_foreach(errors, i, e)
	{
		bf_buf_addstr(b, "- ");
		add_escaped(b, bf_json_str_or(e, "benchmark", "?"));
		bf_buf_addf(b, " (%s, run %lld): `%s` ",
		            bf_json_str_or(e, "side", "?"),
		            (long long)json_integer_value(
		                    json_object_get(e, "repeat")) +
		                    1,
		            bf_json_str_or(e, "code", "error"));
		add_escaped(b, bf_json_str_or(e, "message", ""));
		bf_buf_addch(b, '\n');
	}
}

/* Checks that did not pass, once per id (the last round's word). */
static void add_checks(struct bf_buf *b, const json_t *result)
{
	const json_t *checks = json_object_get(result, "checks");
	long long rounds = 0;
	size_t i, j;
	json_t *c, *d;
	bool any = false;

	json_array_foreach(checks, i, c)
	{
		json_int_t blk =
		        json_integer_value(json_object_get(c, "block"));

		if (blk + 1 > rounds)
			rounds = blk + 1;
	}
	if (!json_array_size(checks))
		return;
	json_array_foreach(checks, i, c)
	{
		const char *id = bf_json_str_or(c, "id", "?");
		bool later = false;

		if (!strcmp(bf_json_str_or(c, "status", ""), "pass"))
			continue;
		for (j = i + 1; (d = json_array_get(checks, j)); j++)
			later |= !strcmp(bf_json_str_or(d, "id", ""), id);
		if (later)
			continue;
		if (!any)
			bf_buf_addf(b,
			            "\nDevice checks (before each of %lld "
			            "blocks) that did not pass:\n\n",
			            rounds);
		any = true;
		bf_buf_addf(b, "- `%s` %s: ", id,
		            bf_json_str_or(c, "status", "?"));
		add_escaped(b, bf_json_str_or(c, "message", ""));
		bf_buf_addch(b, '\n');
	}
	if (!any)
		bf_buf_addf(b,
		            "\nDevice checks passed before each of %lld "
		            "blocks.\n",
		            rounds);
}

/* "`a`, `b` (failed)": the devices that did the work. */
static void add_devices(struct bf_buf *b, const json_t *devices)
{
	size_t i;
	json_t *d;

	if (!json_array_size(devices))
		bf_buf_addstr(b, "no device");
	json_array_foreach(devices, i, d)
	{
		bf_buf_addstr(b, i ? ", `" : "`");
		add_escaped(b, bf_json_str_or(d, "name", "?"));
		bf_buf_addstr(b, json_is_true(json_object_get(d, "failed"))
		                         ? "` (failed)"
		                         : "`");
	}
}

static void add_header(struct bf_buf *b, const json_t *result,
                       const char *check_name)
{
	const json_t *s = json_object_get(result, "summary");
	const json_t *set = json_object_get(result, "settings");
	long long reg = json_integer_value(json_object_get(s, "regressed"));
	long long errs = json_integer_value(json_object_get(s, "errors")) +
	                 json_integer_value(json_object_get(s, "failed_runs"));

	bf_buf_addstr(b, "<!-- benchfarm:report name=");
	add_marker_name(b, check_name ? check_name : "benchfarm");
	bf_buf_addstr(b, " -->\n## benchfarm: ");
	if (reg)
		bf_buf_addf(b, "%lld regression%s", reg, reg == 1 ? "" : "s");
	else if (errs ||
	         !strcmp(bf_json_str_or(result, "status", ""), "infra_failure"))
		bf_buf_addstr(b, "no regression among the metrics measured; "
		                 "see the infrastructure failures");
	else
		bf_buf_addstr(b, "no regressions");
	bf_buf_addf(
	        b,
	        "\n\nbase `%.12s` → patch `%.12s`, %lld runs per side "
	        "interleaved on ",
	        bf_json_str_or(json_object_get(result, "base"), "commit", "?"),
	        bf_json_str_or(json_object_get(result, "patch"), "commit", "?"),
	        (long long)json_integer_value(json_object_get(set, "repeats")));
	add_devices(b, json_object_get(result, "devices"));
	bf_buf_addf(
	        b, ", seed %lld; %lld improved, %lld same, %lld unknown.\n\n",
	        (long long)json_integer_value(json_object_get(set, "seed")),
	        (long long)json_integer_value(json_object_get(s, "improved")),
	        (long long)json_integer_value(json_object_get(s, "same")),
	        (long long)json_integer_value(json_object_get(s, "unknown")));
}

char *bf_report_markdown(const json_t *result)
{
	return bf_report_markdown_named(result, NULL);
}

char *bf_report_markdown_named(const json_t *result, const char *check_name)
{
	struct bf_buf b = BF_BUF_INIT;

	add_header(&b, result, check_name);
	add_table(&b, json_object_get(result, "results"));
	add_checks(&b, result);
	add_errors(&b, result);
	return bf_buf_detach(&b, NULL);
}

static int markdown_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	char *md = bf_report_markdown_named(bf_report_result(r),
	                                    bf_report_opts(r)->check_name);

	(void)err;
	(void)payload;
	bf_buf_addstr(bf_report_add_output(r, "report.md"), md);
	free(md);
	return 0;
}

const struct bf_plugin bf_plugin_markdown = {
	.abi = BF_PLUGIN_ABI,
	.name = "markdown",
	.summary = "the review comment body (GitHub, GitLab, Gerrit)",
	.kinds = "compare",
	.run = markdown_run,
};
