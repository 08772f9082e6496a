#include "benchfarm/plugin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report_util.h"

/*
 * junit: "back to the pass/fail world". junit.xml has one <testsuite>
 * per benchmark suite and one <testcase> per benchmark and metric; a
 * regression is a <failure type="regression">, and so is a series one
 * side did not report (<failure type="missing">; skipped under
 * presubmit.missing_series: ignore); an improvement or no
 * change passes, with the numbers in <system-out>. A result too noisy to
 * judge (verdict "unknown") is <skipped> with the reason: it neither
 * passed nor failed. What was not measured is an <error
 * type="infrastructure">, never a failure or a pass, and the run's
 * infrastructure failures get a suite of their own, so a test dashboard
 * shows them apart. A detect result has a test case per alert (a new
 * regression fails), a bisect result one per probed commit (a bad one
 * fails).
 *
 * Every <testsuite> has time, timestamp and hostname, every <testcase> a
 * time, as dashboards expect (without them they show NaN durations): a
 * comparison interleaves the runs of every benchmark, so no benchmark
 * has a duration of its own and cases and suites say 0; <testsuites>
 * has the run's wall time. The timestamp is the result's "started"
 * (UTC, written without a zone as Ant does), else the time of
 * rendering; the hostname lists the hosts of the result's devices, else
 * "localhost". Valid against the Jenkins xunit plugin's junit-10.xsd
 * (tests/fixtures/report/junit-10.xsd).
 */

/*
 * XML 1.0 text or attribute value. Text (system-out, a failure's body)
 * is inert text first (bf_text_inert, line breaks kept): no line of it
 * can be a CI workflow command, and escape sequences, CR and direction
 * overrides are shown, not obeyed. In attributes (names, messages) C1
 * controls and direction overrides are shown as \u{NNNN} too. The
 * document is UTF-8 already (jansson checked it); characters XML 1.0
 * forbids (C0 controls but tab, line feed and carriage return; U+FFFE
 * and U+FFFF) become U+FFFD. In attributes, tab and line breaks become
 * references so they survive attribute-value normalisation.
 */
static void add_xml(struct bf_buf *b, const char *text, bool attr)
{
	char *inert =
	        attr ? bf_xstrdup(text) : bf_text_inert(text, BF_TEXT_LINES);
	size_t hidden;
	unsigned cp;

	for (const char *s = inert; *s; s++) {
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
		} else if ((hidden = bf_text_hidden_len(s, &cp))) {
			bf_buf_addf(b, "\\u{%04X}", cp); /* names too */
			s += hidden - 1;
		} else
			bf_buf_addch(b, (char)c);
	}
	free(inert);
}

static void add_attr(struct bf_buf *b, const char *name, const char *v)
{
	bf_buf_addf(b, " %s=\"", name);
	add_xml(b, v, true);
	bf_buf_addch(b, '"');
}

static bool is_failure(const json_t *r)
{
	return !strcmp(bf_rep_verdict(r), "regressed");
}

/*
 * A series one side did not report: a failure when it fails the gate
 * (bf_rep_missing_fails), else skipped with the reason.
 */
static bool is_missing(const json_t *r)
{
	return !strcmp(bf_rep_verdict(r), "missing");
}

static bool is_error(const json_t *r)
{
	return !strcmp(bf_rep_verdict(r), "error");
}

static bool is_skipped(const json_t *r)
{
	return !strcmp(bf_rep_verdict(r), "unknown");
}

/* When the run started: "started" cut to seconds, else now; UTC. */
static void add_timestamp(struct bf_buf *b, const json_t *result)
{
	const char *s = bf_json_str_or(result, "started", "");
	struct tm tm;
	time_t now;
	char t[32];

	if (strlen(s) >= 19 && s[4] == '-' && s[7] == '-' && s[10] == 'T' &&
	    s[13] == ':' && s[16] == ':' && strspn(s, "0123456789-T:") >= 19) {
		bf_buf_addf(b, " timestamp=\"%.19s\"", s);
		return;
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	bf_buf_addf(b, " timestamp=\"%s\"", t);
}

/* The hosts of the result's devices, "a,b"; "localhost" without any. */
static void add_hostname(struct bf_buf *b, const json_t *result)
{
	struct bf_buf h = BF_BUF_INIT;
	size_t i;
	json_t *d;

	json_array_foreach(json_object_get(result, "devices"), i, d)
	{
		const char *n = bf_json_str_or(json_object_get(d, "info"),
		                               "hostname", NULL);

		if (!n || !*n)
			n = bf_json_str_or(d, "name", NULL);
		if (n && *n)
			bf_buf_addf(&h, "%s%s", h.len ? "," : "", n);
	}
	add_attr(b, "hostname", h.len ? h.buf : "localhost");
	bf_buf_release(&h);
}

/* Seconds as the schema's time: digits, a point, three decimals. */
static void add_time(struct bf_buf *b, double s)
{
	bf_buf_addf(b, " time=\"%.3f\"", isfinite(s) && s > 0 ? s : 0.0);
}

/* A <testsuite> start tag with its counts, time, timestamp and host. */
static void open_suite(struct bf_buf *b, const char *name, const size_t n[4],
                       const json_t *result)
{
	bf_buf_addstr(b, "  <testsuite");
	add_attr(b, "name", name);
	bf_buf_addf(b,
	            " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
	            "skipped=\"%zu\"",
	            n[0], n[1], n[2], n[3]);
	add_time(b, 0);
	add_timestamp(b, result);
	add_hostname(b, result);
	bf_buf_addstr(b, ">\n");
}

/* <testcase classname=".." name=".." time="0.000"> */
static void open_case(struct bf_buf *b, const char *classname, const char *name)
{
	bf_buf_addstr(b, "    <testcase");
	add_attr(b, "classname", classname);
	add_attr(b, "name", name);
	add_time(b, 0);
	bf_buf_addstr(b, ">\n");
}

/* <TAG type=".." message=".."/>, or with text when text is not NULL. */
static void add_problem(struct bf_buf *b, const char *tag, const char *type,
                        const char *msg, const char *text)
{
	bf_buf_addf(b, "      <%s", tag);
	if (type)
		add_attr(b, "type", type);
	add_attr(b, "message", msg);
	if (!text) {
		bf_buf_addstr(b, "/>\n");
		return;
	}
	bf_buf_addch(b, '>');
	add_xml(b, text, false);
	bf_buf_addf(b, "</%s>\n", tag);
}

static void add_out(struct bf_buf *b, const char *text)
{
	bf_buf_addstr(b, "      <system-out>");
	add_xml(b, text, false);
	bf_buf_addstr(b, "</system-out>\n");
}

/* The distinct values of key (suites), in the order they first appear. */
static json_t *suites_of(const json_t *results, const char *key)
{
	json_t *names = json_array(), *r, *n;
	size_t i, j;

	json_array_foreach(results, i, r)
	{
		const char *s = bf_json_str_or(r, key, "benchfarm");
		bool seen = false;

		json_array_foreach(names, j, n) seen |=
		        !strcmp(json_string_value(n), s);
		if (!seen)
			json_array_append_new(names, json_string(s));
	}
	return names;
}

/* The verdict and the numbers of a result, as text, into t. */
static void numbers(struct bf_buf *t, const json_t *r)
{
	const char *unit = bf_json_str_or(r, "unit", "");

	bf_buf_addf(t, "%s: ", bf_rep_verdict(r));
	bf_rep_change(t, r);
	bf_buf_addf(t,
	            "\nbase median %.6g %s over %lld runs, patch median "
	            "%.6g %s over %lld runs",
	            bf_rep_num(json_object_get(r, "base"), "median"), unit,
	            (long long)json_integer_value(
	                    json_object_get(json_object_get(r, "base"), "n")),
	            bf_rep_num(json_object_get(r, "patch"), "median"), unit,
	            (long long)json_integer_value(
	                    json_object_get(json_object_get(r, "patch"), "n")));
}

static void add_case(struct bf_buf *b, const json_t *r, const json_t *result)
{
	struct bf_buf name = BF_BUF_INIT, msg = BF_BUF_INIT, t = BF_BUF_INIT;

	bf_buf_addf(&name, "%s %s", bf_json_str_or(r, "name", "?"),
	            bf_json_str_or(r, "metric", "?"));
	open_case(b, bf_json_str_or(r, "benchmark", "benchfarm"), name.buf);
	numbers(&t, r);
	if (is_error(r)) {
		bf_buf_addstr(&msg, "not measured (infrastructure): ");
		bf_buf_addstr(&msg, bf_json_str_or(r, "error", "no samples"));
		add_problem(b, "error", "infrastructure", msg.buf, NULL);
	} else if (is_missing(r)) {
		bf_rep_add_missing(&msg, r);
		bf_buf_addstr(&msg, ": ");
		bf_buf_addstr(&msg, bf_json_str_or(r, "error", ""));
		if (bf_rep_missing_fails(result))
			add_problem(b, "failure", "missing", msg.buf, NULL);
		else
			add_problem(b, "skipped", NULL, msg.buf, NULL);
	} else {
		if (is_failure(r)) {
			bf_buf_addstr(&msg, "regressed: ");
			bf_rep_change(&msg, r);
			add_problem(b, "failure", "regression", msg.buf, t.buf);
		} else if (is_skipped(r)) {
			bf_buf_addstr(&msg, "not conclusive: too few or too "
			                    "noisy samples to tell (");
			bf_rep_change(&msg, r);
			bf_buf_addstr(&msg, "); more repeats may decide");
			add_problem(b, "skipped", NULL, msg.buf, NULL);
		}
		add_out(b, t.buf);
	}
	bf_buf_addstr(b, "    </testcase>\n");
	bf_buf_release(&name);
	bf_buf_release(&msg);
	bf_buf_release(&t);
}

/* A compare result r in the counts n: tests, failures, errors, skipped. */
static void count_result(size_t n[4], const json_t *r, const json_t *result)
{
	bool fails = bf_rep_missing_fails(result);

	n[0]++;
	n[1] += is_failure(r) || (is_missing(r) && fails);
	n[2] += is_error(r);
	n[3] += is_skipped(r) || (is_missing(r) && !fails);
}

/*
 * The <testsuite> of the items (results or alerts) whose key is suite
 * ("benchfarm" when absent), with the counts count gives and a case each
 * by add; the counts are added to sum too when it is not NULL.
 */
static void add_suite(struct bf_buf *b, const char *suite, const json_t *result,
                      const json_t *items, const char *key,
                      void (*count)(size_t n[4], const json_t *item,
                                    const json_t *result),
                      void (*add)(struct bf_buf *b, const json_t *item,
                                  const json_t *result),
                      size_t sum[4])
{
	size_t i, n[4] = { 0, 0, 0, 0 };
	json_t *it;

	json_array_foreach(items, i, it)
	{
		if (!strcmp(bf_json_str_or(it, key, "benchfarm"), suite))
			count(n, it, result);
	}
	open_suite(b, suite, n, result);
	json_array_foreach(items, i, it)
	{
		if (!strcmp(bf_json_str_or(it, key, "benchfarm"), suite))
			add(b, it, result);
	}
	bf_buf_addstr(b, "  </testsuite>\n");
	for (i = 0; sum && i < 4; i++)
		sum[i] += n[i];
}

/*
 * The run's infrastructure failures, one error each (the count
 * returned), and its devices out of the pool, one skipped each
 * (*nskipped).
 */
static size_t add_infra_suite(struct bf_buf *b, const json_t *result,
                              size_t *nskipped)
{
	const json_t *errors = json_object_get(result, "errors");
	const char *stopped = bf_json_str_or(result, "infra_error", NULL);
	const json_t *out = bf_rep_devices_out(result);
	size_t n = json_array_size(errors) + (stopped != NULL), i;
	size_t nout = json_array_size(out);
	json_t *e;

	*nskipped = nout;
	if (!n && !nout)
		return 0;
	/* a device out is skipped: the other devices may have measured */
	open_suite(b, "benchfarm.infrastructure",
	           (const size_t[4]){ n + nout, 0, n, nout }, result);
	json_array_foreach(out, i, e)
	{
		struct bf_buf name = BF_BUF_INIT, msg = BF_BUF_INIT;

		bf_buf_addf(&name, "device %s", bf_json_str_or(e, "name", "?"));
		bf_rep_add_device_out(&msg, e);
		open_case(b, "benchfarm.infrastructure", name.buf);
		add_problem(b, "skipped", NULL, msg.buf, NULL);
		bf_buf_addstr(b, "    </testcase>\n");
		bf_buf_release(&name);
		bf_buf_release(&msg);
	}
	if (stopped) {
		open_case(b, "benchfarm.infrastructure", "stopped early");
		add_problem(b, "error", "infrastructure", stopped, NULL);
		bf_buf_addstr(b, "    </testcase>\n");
	}
	json_array_foreach(errors, i, e)
	{
		struct bf_buf name = BF_BUF_INIT;

		bf_buf_addf(&name, "%s %s ",
		            bf_json_str_or(e, "benchmark", "?"),
		            bf_json_str_or(e, "side", "?"));
		bf_rep_add_run(&name, e);
		open_case(b, "benchfarm.infrastructure", name.buf);
		add_problem(b, "error", bf_json_str_or(e, "code", "infra"),
		            bf_json_str_or(e, "message", ""), NULL);
		bf_buf_addstr(b, "    </testcase>\n");
		bf_buf_release(&name);
	}
	bf_buf_addstr(b, "  </testsuite>\n");
	return n;
}

/* A compare result: n = tests, failures, errors, skipped. */
static int compare_body(struct bf_buf *b, const json_t *result, size_t n[4],
                        struct bf_err *err)
{
	const json_t *results;
	size_t i, infra, out;
	json_t *suites, *s, *res;
	int ret;

	if ((ret = bf_rep_results(&results, result, err)))
		return ret;
	json_array_foreach(results, i, res) count_result(n, res, result);
	suites = suites_of(results, "benchmark");
	json_array_foreach(suites, i, s)
	        add_suite(b, json_string_value(s), result, results, "benchmark",
	                  count_result, add_case, NULL);
	json_decref(suites);
	infra = add_infra_suite(b, result, &out);
	n[0] += infra + out;
	n[2] += infra;
	n[3] += out;
	return 0;
}

/* A commit shortened for a test name. */
static void add_short(struct bf_buf *b, const char *commit)
{
	bf_buf_addf(b, "%.12s", commit);
}

/*
 * One alert: a new regression fails; an alert marked ignored, or one an
 * earlier run raised (known), is skipped with that reason; a new
 * improvement passes.
 */
static int alert_state(const json_t *a)
{
	if (json_is_true(json_object_get(a, "ignored")))
		return 3;
	if (!json_is_true(json_object_get(a, "new")))
		return 3;
	return !strcmp(bf_json_str_or(a, "direction", ""), "regressed");
}

/* An alert in the counts n: tests, failures, (no errors,) skipped. */
static void count_alert(size_t n[4], const json_t *a, const json_t *result)
{
	int st = alert_state(a);

	(void)result;
	n[0]++;
	n[1] += st == 1;
	n[3] += st == 3;
}

static void add_alert(struct bf_buf *b, const json_t *a, const json_t *result)
{
	struct bf_buf name = BF_BUF_INIT, t = BF_BUF_INIT;
	const json_t *detail = json_object_get(a, "detail");
	const char *culprit = bf_json_str_or(a, "culprit", NULL);
	int state = alert_state(a);

	(void)result;
	bf_buf_addf(&name, "%s %s at ", bf_json_str_or(a, "benchmark", "?"),
	            bf_json_str_or(a, "metric", "?"));
	add_short(&name, bf_json_str_or(a, "commit_lo", "?"));
	bf_buf_addstr(&name, "..");
	add_short(&name, bf_json_str_or(a, "commit_hi", "?"));
	bf_buf_addf(&t, "%s %+.1f%% between %s and %s (score %.3g",
	            bf_json_str_or(a, "direction", "?"),
	            100 * bf_rep_num(a, "size"),
	            bf_json_str_or(a, "commit_lo", "?"),
	            bf_json_str_or(a, "commit_hi", "?"),
	            bf_rep_num(a, "score"));
	if (isfinite(bf_rep_num(detail, "before")))
		bf_buf_addf(&t, "; before %.6g %s, after %.6g %s",
		            bf_rep_num(detail, "before"),
		            bf_json_str_or(a, "unit", ""),
		            bf_rep_num(detail, "after"),
		            bf_json_str_or(a, "unit", ""));
	bf_buf_addch(&t, ')');
	if (culprit)
		bf_buf_addf(&t, "; culprit %s", culprit);
	open_case(b, bf_json_str_or(a, "suite", "benchfarm"), name.buf);
	if (state == 1) {
		bf_buf_reset(&name);
		bf_buf_addstr(&name, "new alert: ");
		bf_buf_add(&name, t.buf, t.len);
		add_problem(b, "failure", "regression", name.buf, t.buf);
	} else if (state == 3) {
		add_problem(b, "skipped", NULL,
		            json_is_true(json_object_get(a, "ignored"))
		                    ? "ignored: marked as no regression"
		                    : "known: raised by an earlier run",
		            NULL);
	}
	add_out(b, t.buf);
	bf_buf_addstr(b, "    </testcase>\n");
	bf_buf_release(&name);
	bf_buf_release(&t);
}

/*
 * A detect result: a suite per benchmark suite with alerts, a case per
 * alert; without any alert one passing case says what was looked at.
 */
static int detect_body(struct bf_buf *b, const json_t *result, size_t n[4])
{
	const json_t *alerts = json_object_get(result, "alerts");
	json_t *suites = suites_of(alerts, "suite"), *s;
	size_t i;

	json_array_foreach(suites, i, s)
	        add_suite(b, json_string_value(s), result, alerts, "suite",
	                  count_alert, add_alert, n);
	json_decref(suites);
	if (!n[0]) {
		struct bf_buf name = BF_BUF_INIT;

		bf_buf_addf(&name, "no alert in %lld series",
		            (long long)json_integer_value(
		                    json_object_get(result, "series")));
		bf_rep_detect_over(&name, result);
		open_suite(b, "benchfarm.detect",
		           (const size_t[4]){ 1, 0, 0, 0 }, result);
		open_case(b, "benchfarm.detect", name.buf);
		bf_buf_addstr(b, "    </testcase>\n  </testsuite>\n");
		bf_buf_release(&name);
		n[0] = 1;
	}
	return 0;
}

/*
 * A bisect result: one suite, a case per probed commit; a bad commit
 * (it shows the change) fails, one that could not be judged or must be
 * measured again is skipped, a good one passes. The culprit, or the
 * candidates left, are the suite's output.
 */
static int bisect_body(struct bf_buf *b, const json_t *result, size_t n[4])
{
	const char *suite = bf_json_str_or(result, "benchmark", "benchfarm");
	const json_t *probes = json_object_get(result, "probes"), *p;
	struct bf_buf t = BF_BUF_INIT, name = BF_BUF_INIT;
	size_t i;

	json_array_foreach(probes, i, p)
	{
		const char *o = bf_json_str_or(p, "outcome", "");

		n[0]++;
		n[1] += !strcmp(o, "bad");
		n[3] += !strcmp(o, "skip") || !strcmp(o, "again");
	}
	open_suite(b, suite, n, result);
	json_array_foreach(probes, i, p)
	{
		const char *o = bf_json_str_or(p, "outcome", "");
		const json_t *s = json_object_get(p, "series");

		bf_buf_reset(&name);
		bf_buf_reset(&t);
		if (json_is_string(json_object_get(result, "series")))
			bf_buf_addf(&name, "%s %s at ",
			            bf_json_str_or(result, "series", "?"),
			            bf_json_str_or(result, "metric", "?"));
		add_short(&name, bf_json_str_or(p, "commit", "?"));
		bf_buf_addf(&t, "%s: %s", bf_json_str_or(p, "commit", "?"), o);
		if (json_is_object(s)) {
			bf_buf_addstr(&t, ", ");
			numbers(&t, s);
		}
		open_case(b, suite, name.buf);
		if (!strcmp(o, "bad"))
			add_problem(b, "failure", "regression", t.buf, t.buf);
		else if (!strcmp(o, "skip") || !strcmp(o, "again"))
			add_problem(b, "skipped", NULL,
			            !strcmp(o, "again")
			                    ? "not conclusive: measured again"
			                    : bf_json_str_or(p, "reason",
			                                     "skipped"),
			            NULL);
		add_out(b, t.buf);
		bf_buf_addstr(b, "    </testcase>\n");
	}
	bf_buf_reset(&t);
	if (json_is_string(json_object_get(result, "culprit")))
		bf_buf_addf(&t, "culprit: %s",
		            bf_json_str_or(result, "culprit", ""));
	else if (json_array_size(json_object_get(result, "candidates")))
		bf_buf_addf(
		        &t, "no single culprit: %zu candidates",
		        json_array_size(json_object_get(result, "candidates")));
	else
		bf_buf_addstr(&t, "no culprit: the change did not reproduce");
	bf_buf_addstr(b, "    <system-out>");
	add_xml(b, t.buf, false);
	bf_buf_addstr(b, "</system-out>\n  </testsuite>\n");
	bf_buf_release(&t);
	bf_buf_release(&name);
	return 0;
}

static int junit_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const char *kind = bf_json_str_or(result, "kind", "");
	struct bf_buf body = BF_BUF_INIT, *out;
	size_t n[4] = { 0, 0, 0, 0 };
	int ret;

	(void)payload;
	if (!strcmp(kind, "detect"))
		ret = detect_body(&body, result, n);
	else if (!strcmp(kind, "bisect"))
		ret = bisect_body(&body, result, n);
	else
		ret = compare_body(&body, result, n, err);
	if (ret) {
		bf_buf_release(&body);
		return ret;
	}
	out = bf_report_add_output(r, "junit.xml");
	bf_buf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                   "<testsuites");
	add_attr(out, "name",
	         bf_report_opts(r)->check_name ? bf_report_opts(r)->check_name
	                                       : "benchfarm");
	bf_buf_addf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\"", n[0],
	            n[1], n[2]);
	add_time(out, bf_rep_num(json_object_get(result, "summary"), "wall_s"));
	bf_buf_addstr(out, ">\n");
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
	.kinds = "compare,detect,bisect",
	.run = junit_run,
};
