#include "benchfarm/plugin.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"
#include "report_util.h"

/*
 * junit: "back to the pass/fail world". junit.xml has one <testsuite>
 * per benchmark suite and one <testcase> per benchmark and metric; a
 * regression is a <failure type="regression">, an improvement or no
 * change passes, with the numbers in <system-out>. What was not measured
 * is an <error type="infrastructure">, never a failure or a pass, and
 * the run's infrastructure failures get a suite of their own, so a test
 * dashboard shows them apart. Valid against the Jenkins/Ant JUnit schema
 * (tests/fixtures/report/junit.xsd).
 */

/*
 * XML 1.0 text or attribute value. The document is UTF-8 already
 * (jansson checked it); characters XML 1.0 forbids (C0 controls but tab,
 * line feed and carriage return; U+FFFE and U+FFFF) become U+FFFD. In
 * attributes, tab and line breaks become references so they survive
 * attribute-value normalisation.
 */
static void add_xml(struct bf_buf *b, const char *s, bool attr)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			bf_buf_addstr(b, "&amp;");
		else if (c == '<')
			bf_buf_addstr(b, "&lt;");
		else if (c == '>')
			bf_buf_addstr(b, "&gt;");
		else if (c == '"' && attr)
			bf_buf_addstr(b, "&quot;");
		else if (c == '\'' && attr)
			bf_buf_addstr(b, "&apos;");
		else if ((c == '\t' || c == '\n' || c == '\r') && attr)
			bf_buf_addf(b, "&#%d;", c);
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			bf_buf_addstr(b, "\xef\xbf\xbd");
		else if (c == 0xEF && (unsigned char)s[1] == 0xBF &&
		         ((unsigned char)s[2] == 0xBE ||
		          (unsigned char)s[2] == 0xBF)) {
			bf_buf_addstr(b, "\xef\xbf\xbd");
			s += 2;
		} else
			bf_buf_addch(b, (char)c);
	}
}

static void add_attr(struct bf_buf *b, const char *name, const char *v)
{
	bf_buf_addf(b, " %s=\"", name);
	add_xml(b, v, true);
	bf_buf_addch(b, '"');
}

static bool is_failure(const json_t *r)
{
	return !strcmp(bf_json_str_or(r, "verdict", "error"), "regressed");
}

static bool is_error(const json_t *r)
{
	return !strcmp(bf_json_str_or(r, "verdict", "error"), "error");
}

/* The distinct suites, in the order they first appear. */
static json_t *suites_of(const json_t *results)
{
	json_t *names = json_array(), *r, *n;
	size_t i, j;

	json_array_foreach(results, i, r)
	{
		const char *s = bf_json_str_or(r, "benchmark", "benchfarm");
		bool seen = false;

		json_array_foreach(names, j, n) seen |=
		        !strcmp(json_string_value(n), s);
		if (!seen)
			json_array_append_new(names, json_string(s));
	}
	return names;
}

static void add_numbers(struct bf_buf *b, const json_t *r)
{
	struct bf_buf t = BF_BUF_INIT;
	const char *unit = bf_json_str_or(r, "unit", "");

	bf_buf_addf(&t, "%s: ", bf_json_str_or(r, "verdict", "error"));
	bf_rep_change(&t, r);
	bf_buf_addf(&t,
	            "\nbase median %.6g %s over %lld runs, patch median "
	            "%.6g %s over %lld runs",
	            bf_rep_num(json_object_get(r, "base"), "median"), unit,
	            (long long)json_integer_value(
	                    json_object_get(json_object_get(r, "base"), "n")),
	            bf_rep_num(json_object_get(r, "patch"), "median"), unit,
	            (long long)json_integer_value(
	                    json_object_get(json_object_get(r, "patch"), "n")));
	add_xml(b, t.buf, false);
	bf_buf_release(&t);
}

static void add_case(struct bf_buf *b, const json_t *r)
{
	struct bf_buf name = BF_BUF_INIT, msg = BF_BUF_INIT;

	bf_buf_addf(&name, "%s %s", bf_json_str_or(r, "name", "?"),
	            bf_json_str_or(r, "metric", "?"));
	bf_buf_addstr(b, "    <testcase");
	add_attr(b, "classname", bf_json_str_or(r, "benchmark", "benchfarm"));
	add_attr(b, "name", name.buf);
	bf_buf_addstr(b, ">\n");
	if (is_error(r)) {
		bf_buf_addstr(&msg, "not measured (infrastructure): ");
		bf_buf_addstr(&msg, bf_json_str_or(r, "error", "no samples"));
		bf_buf_addstr(b, "      <error type=\"infrastructure\"");
		add_attr(b, "message", msg.buf);
		bf_buf_addstr(b, "/>\n");
	} else {
		if (is_failure(r)) {
			bf_buf_addstr(&msg, "regressed: ");
			bf_rep_change(&msg, r);
			bf_buf_addstr(b, "      <failure type=\"regression\"");
			add_attr(b, "message", msg.buf);
			bf_buf_addstr(b, ">");
			add_numbers(b, r);
			bf_buf_addstr(b, "</failure>\n");
		}
		bf_buf_addstr(b, "      <system-out>");
		add_numbers(b, r);
		bf_buf_addstr(b, "</system-out>\n");
	}
	bf_buf_addstr(b, "    </testcase>\n");
	bf_buf_release(&name);
	bf_buf_release(&msg);
}

static void add_suite(struct bf_buf *b, const char *suite,
                      const json_t *results)
{
	size_t i, tests = 0, failures = 0, errors = 0;
	json_t *r;

	json_array_foreach(results, i, r)
	{
		if (strcmp(bf_json_str_or(r, "benchmark", "benchfarm"), suite))
			continue;
		tests++;
		failures += is_failure(r);
		errors += is_error(r);
	}
	bf_buf_addstr(b, "  <testsuite");
	add_attr(b, "name", suite);
	bf_buf_addf(b,
	            " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
	            "skipped=\"0\">\n",
	            tests, failures, errors);
	json_array_foreach(
	        results, i,
	        r) if (!strcmp(bf_json_str_or(r, "benchmark", "benchfarm"),
	                       suite)) add_case(b, r);
	bf_buf_addstr(b, "  </testsuite>\n");
}

/* The run's infrastructure failures, one error each. */
static size_t add_infra_suite(struct bf_buf *b, const json_t *result)
{
	const json_t *errors = json_object_get(result, "errors");
	const char *stopped = bf_json_str_or(result, "infra_error", NULL);
	size_t n = json_array_size(errors) + (stopped != NULL), i;
	json_t *e;

	if (!n)
		return 0;
	bf_buf_addf(b,
	            "  <testsuite name=\"benchfarm.infrastructure\" "
	            "tests=\"%zu\" failures=\"0\" errors=\"%zu\" "
	            "skipped=\"0\">\n",
	            n, n);
	if (stopped) {
		bf_buf_addstr(b, "    <testcase classname=\"benchfarm."
		                 "infrastructure\" name=\"stopped early\">\n"
		                 "      <error type=\"infrastructure\"");
		add_attr(b, "message", stopped);
		bf_buf_addstr(b, "/>\n    </testcase>\n");
	}
	json_array_foreach(errors, i, e)
	{
		struct bf_buf name = BF_BUF_INIT;

		bf_buf_addf(&name, "%s %s ",
		            bf_json_str_or(e, "benchmark", "?"),
		            bf_json_str_or(e, "side", "?"));
		bf_rep_add_run(&name, e);
		bf_buf_addstr(b, "    <testcase classname=\"benchfarm."
		                 "infrastructure\"");
		add_attr(b, "name", name.buf);
		bf_buf_addstr(b, ">\n      <error");
		add_attr(b, "type", bf_json_str_or(e, "code", "infra"));
		add_attr(b, "message", bf_json_str_or(e, "message", ""));
		bf_buf_addstr(b, "/>\n    </testcase>\n");
		bf_buf_release(&name);
	}
	bf_buf_addstr(b, "  </testsuite>\n");
	return n;
}

static int junit_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const json_t *results;
	struct bf_buf body = BF_BUF_INIT, *out;
	size_t i, infra, tests = 0, failures = 0, errors = 0;
	json_t *suites, *s, *res;
	int ret;

	(void)payload;
	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	json_array_foreach(results, i, res)
	{
		tests++;
		failures += is_failure(res);
		errors += is_error(res);
	}
	suites = suites_of(results);
	json_array_foreach(suites, i, s)
	        add_suite(&body, json_string_value(s), results);
	json_decref(suites);
	infra = add_infra_suite(&body, result);
	out = bf_report_add_output(r, "junit.xml");
	bf_buf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                   "<testsuites");
	add_attr(out, "name",
	         bf_report_opts(r)->check_name ? bf_report_opts(r)->check_name
	                                       : "benchfarm");
	bf_buf_addf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
	            tests + infra, failures, errors + infra);
	if (body.len)
		bf_buf_add(out, body.buf, body.len);
	bf_buf_addstr(out, "</testsuites>\n");
	bf_buf_release(&body);
	return 0;
}

const struct bf_plugin bf_plugin_junit = {
	.abi = BF_PLUGIN_ABI,
	.name = "junit",
	.summary = "JUnit XML: a regression is a failing test case",
	.kinds = "compare",
	.run = junit_run,
};
