/*
 * libbenchfarm_bench's output (agent/harness/report.c): Jetpack JSON,
 * hostile names included, read back by the agent's own parser, its
 * context fields, its numbers under a decimal-comma locale, and the
 * console table.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "harness/harness.h"
#include "parse/parse.h"

#define MS 1000000ULL
#define S  1000000000ULL

static void dummy(struct bf_bench_state *state)
{
	(void)state;
}

/* The whole of f, which the caller frees. */
static char *slurp(FILE *f, size_t *len)
{
	char *buf = malloc(1 << 16);

	assert_non_null(buf);
	rewind(f);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	buf[*len] = '\0';
	return buf;
}

static void test_harness_report__json_escape(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(
	        bf_bench__json_escape(out, sizeof(out), "a\"b\\c\n\x01z\x7f"),
	        26);
	assert_string_equal(out, "a\\\"b\\\\c\\u000a\\u0001z\\u007f");
	/* a short buffer is cut, still terminated, and the length told */
	assert_int_equal(bf_bench__json_escape(out, 4, "abcdef"), 6);
	assert_string_equal(out, "abc");
	/* valid UTF-8 stays; each byte of anything else becomes U+FFFD */
	bf_bench__json_escape(out, sizeof(out), "\xc3\xa9\xf0\x9f\x98\x80");
	assert_string_equal(out, "\xc3\xa9\xf0\x9f\x98\x80");
	bf_bench__json_escape(out, sizeof(out), "a\xc3");
	assert_string_equal(out, "a\\ufffd");
	bf_bench__json_escape(out, sizeof(out), "\xe0\x80\x80");
	assert_string_equal(out, "\\ufffd\\ufffd\\ufffd"); /* overlong */
	bf_bench__json_escape(out, sizeof(out), "\xed\xa0\x80x");
	assert_string_equal(out, "\\ufffd\\ufffd\\ufffdx"); /* surrogate */
	bf_bench__json_escape(out, sizeof(out), "\xf4\x90\x80\x80");
	assert_string_equal(out, "\\ufffd\\ufffd\\ufffd\\ufffd"); /* > 10FFFF */
}

/*
 * A hostile benchmark name and class name (quotes, backslashes, control
 * characters, invalid UTF-8) give JSON that the agent's jetpack parser
 * reads unchanged; the failed run is listed apart and gives no samples.
 */
static void test_harness_report__json_read_by_agent_parser(void **state)
{
	long long args[] = { 3, 4 };
	struct bf_bench_entry ok = { (char *)"evil\"q\\b\nl\x01\xff/3/4", dummy,
		                     args, 2 };
	struct bf_bench_entry bad = { (char *)"broken", dummy, NULL, 0 };
	double runs[] = { 12.5, 10.25, 11 };
	struct bf_bench_result r[2];
	struct bf_bench_context c;
	struct bf_samples s = BF_SAMPLES_INIT;
	struct bf_err err = { 0 };
	FILE *f = tmpfile();
	size_t len;
	char *text;

	(void)state;
	memset(r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	snprintf(c.device, sizeof(c.device), "host\"1");
	r[0].e = &ok;
	r[0].runs = runs;
	r[0].nruns = 3;
	r[0].warmup_iterations = 42;
	r[0].repeat_iterations = 10;
	r[0].total_ns = 123;
	r[0].slept_ns = 90 * S + 700 * MS;
	r[1].e = &bad;
	r[1].error = "stopped at the time cap";
	r[1].timed_out = true;
	assert_non_null(f);
	assert_int_equal(bf_bench__write_json(f, &c, r, 2, "cls\xfe"), 0);
	text = slurp(f, &len);
	fclose(f);
	assert_non_null(strstr(
	        text,
	        "\"name\": \"evil\\\"q\\\\b\\u000al\\u0001\\ufffd/3/4\""));
	assert_non_null(
	        strstr(text, "\"params\": {\"arg0\": \"3\", \"arg1\": \"4\"}"));
	assert_non_null(strstr(text, "\"minimum\": 10.25,"));
	assert_non_null(strstr(text, "\"median\": 11,"));
	assert_non_null(strstr(text, "\"thermalThrottleSleepSeconds\": 90\n"));
	assert_non_null(strstr(text, "\"device\": \"host\\\"1\""));
	assert_non_null(strstr(
	        text,
	        "{\"name\": \"broken\", \"error\": \"stopped at the time cap\", \"timedOut\": true}"));
	assert_int_equal(bf_parse_jetpack(&s, text, len, "t", &err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(
	        s.v[0].benchmark,
	        "cls\xef\xbf\xbd.evil\"q\\b\nl\x01\xef\xbf\xbd/3/4");
	assert_string_equal(s.v[0].metric, "timeNs");
	assert_string_equal(s.v[0].unit, "ns");
	assert_true(s.v[0].value == 12.5 && s.v[2].value == 11);
	assert_int_equal(s.v[2].iteration, 2);
	bf_samples_release(&s);
	free(text);
}

/* Write the context c with no result; the caller frees the text. */
static char *context_json(const struct bf_bench_context *c)
{
	FILE *f = tmpfile();
	size_t len;
	char *text;

	assert_non_null(f);
	assert_int_equal(bf_bench__write_json(f, c, NULL, 0, "c"), 0);
	text = slurp(f, &len);
	fclose(f);
	return text;
}

/*
 * The context fields BenchmarkData.Context requires, and Jetpack's
 * osCodenameAbbreviated: the codename's first character, the build id's
 * on a release build.
 */
static void test_harness_report__json_context_fields(void **state)
{
	struct bf_bench_context c;
	char *text;

	(void)state;
	memset(&c, 0, sizeof(c));
	snprintf(c.brand, sizeof(c.brand), "google");
	snprintf(c.build_id, sizeof(c.build_id), "AP2A.240805.005");
	snprintf(c.build_type, sizeof(c.build_type), "user");
	snprintf(c.codename, sizeof(c.codename), "REL");
	c.sdk = 34;
	text = context_json(&c);
	assert_non_null(strstr(text, "\"brand\": \"google\",\n"));
	assert_non_null(strstr(text, "\"id\": \"AP2A.240805.005\",\n"));
	assert_non_null(strstr(text, "\"type\": \"user\",\n"));
	assert_non_null(strstr(text, "\"version\": {\n        \"codename\": "
	                             "\"REL\",\n        \"sdk\": 34\n      }"));
	assert_non_null(strstr(text, "\"artMainlineVersion\": -1,\n"));
	assert_non_null(strstr(text, "\"osCodenameAbbreviated\": \"A\",\n"));
	assert_non_null(strstr(text, "\"compilationMode\": \"unknown\",\n"));
	free(text);
	snprintf(c.codename, sizeof(c.codename), "Baklava");
	text = context_json(&c);
	assert_non_null(strstr(text, "\"osCodenameAbbreviated\": \"B\",\n"));
	free(text);
	/* a character is not cut, a quote is escaped */
	snprintf(c.codename, sizeof(c.codename),
	         "\xc3\xa9"
	         "clair");
	text = context_json(&c);
	assert_non_null(
	        strstr(text, "\"osCodenameAbbreviated\": \"\xc3\xa9\",\n"));
	free(text);
	snprintf(c.codename, sizeof(c.codename), "\"q");
	text = context_json(&c);
	assert_non_null(strstr(text, "\"osCodenameAbbreviated\": \"\\\"\",\n"));
	free(text);
}

/*
 * A locale with a decimal comma: an installed one, else de_DE compiled
 * by localedef (libc-bin; its source from Debian's locales package,
 * ci/deps.sh) into dir and found through LOCPATH. NULL when neither.
 */
static const char *comma_locale(const char *dir)
{
	static const char *const installed[] = { "de_DE.UTF-8", "de_DE.utf8",
		                                 "fr_FR.UTF-8", "nl_NL.UTF-8" };
	char out[4096];
	const char *set = NULL;
	int status;
	pid_t pid;

	for (size_t i = 0; i < sizeof(installed) / sizeof(*installed); i++)
		if ((set = setlocale(LC_NUMERIC, installed[i])))
			return set;
	snprintf(out, sizeof(out), "%s/de_DE.UTF-8", dir);
	pid = fork();
	if (pid == 0) {
		execlp("localedef", "localedef", "-i", "de_DE", "-f", "UTF-8",
		       out, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)
		return NULL; /* 1 is a warning: the locale is written */
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.UTF-8");
}

/* Under a locale with a decimal comma the numbers keep their point. */
static void test_harness_report__json_ignores_locale(void **state)
{
	struct bf_bench_entry e = { (char *)"x", dummy, NULL, 0 };
	double runs[] = { 1.5 };
	struct bf_bench_result r;
	struct bf_bench_context c;
	struct bf_err err;
	char dir[] = "/tmp/bf-locale-XXXXXX";
	FILE *f;
	size_t len;
	char *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* no comma locale means the test cannot test: a failure, not a skip */
	assert_non_null(comma_locale(dir));
	assert_string_equal(localeconv()->decimal_point, ",");
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	r.e = &e;
	r.runs = runs;
	r.nruns = 1;
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(bf_bench__write_json(f, &c, &r, 1, "c"), 0);
	setlocale(LC_NUMERIC, "C");
	unsetenv("LOCPATH");
	assert_int_equal(bf_fs_rmtree(dir, &err), 0);
	text = slurp(f, &len);
	fclose(f);
	assert_non_null(strstr(text, "\"runs\": [1.5]"));
	free(text);
}

static void test_harness_report__table(void **state)
{
	struct bf_bench_entry e = { (char *)"tbl", dummy, NULL, 0 };
	double runs[] = { 2, 4, 3 };
	struct bf_bench_result r;
	FILE *f = tmpfile();
	size_t len;
	char *text;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.e = &e;
	r.runs = runs;
	r.nruns = 3;
	r.repeat_iterations = 7;
	r.warmup_iterations = 31;
	assert_non_null(f);
	bf_bench__table_header(f);
	bf_bench__table_row(f, &r);
	r.error = "crashed";
	bf_bench__table_row(f, &r);
	text = slurp(f, &len);
	fclose(f);
	assert_non_null(strstr(text, "benchmark "));
	/* median, min, max, cv (stddev 1 / mean 3), iterations, warmup */
	assert_non_null(strstr(text, "tbl "));
	assert_non_null(strstr(text, " 3.0 "));
	assert_non_null(strstr(text, " 2.0 "));
	assert_non_null(strstr(text, " 4.0 "));
	assert_non_null(strstr(text, "33.33%"));
	assert_non_null(strstr(text, "         7       31\n"));
	assert_non_null(strstr(text, "crashed\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness_report__json_escape),
		cmocka_unit_test(
		        test_harness_report__json_read_by_agent_parser),
		cmocka_unit_test(test_harness_report__json_ignores_locale),
		cmocka_unit_test(test_harness_report__table),
		cmocka_unit_test(test_harness_report__json_context_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
