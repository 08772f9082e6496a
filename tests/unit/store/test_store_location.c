/*
 * Unit tests for the store's location (store_location.c): which backend
 * a --db / BENCHFARM_DB value names, the refusal of other URI schemes
 * (before anything is created on disk), and the display form that
 * messages use, with hostile passwords: in a URI's userinfo (with '@'
 * and ':' unencoded, or percent-encoded), in its query, in a key=value
 * string (quoted, escaped, spaced, upper case), inside a dbname that is
 * itself a connection string, and in a malformed string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "store/store.h"

static void kind_is(const char *loc, bool want_pg)
{
	struct bf_err err = BF_ERR_INIT;
	bool is_pg = !want_pg;

	if (bf_store_location_kind(&is_pg, loc, &err))
		fail_msg("%s: %s", loc, err.msg);
	if (is_pg != want_pg)
		fail_msg("%s: want %s", loc, want_pg ? "PostgreSQL" : "SQLite");
}

static void refused(const char *loc, const char *says, const char *secret)
{
	struct bf_err err = BF_ERR_INIT;
	bool is_pg = false;

	assert_int_equal(bf_store_location_kind(&is_pg, loc, &err), BF_EINVAL);
	if (says && !strstr(err.msg, says))
		fail_msg("%s: message '%s' lacks '%s'", loc, err.msg, says);
	if (secret && strstr(err.msg, secret))
		fail_msg("%s: message '%s' shows '%s'", loc, err.msg, secret);
}

static void test_location__kinds(void **state)
{
	(void)state;
	kind_is("/var/lib/benchfarm/benchfarm.db", false);
	kind_is("benchfarm.db", false);
	kind_is("sub/dir/benchfarm.db", false);
	kind_is("./postgresql:odd.db", false);
	kind_is("/tmp/a=b/benchfarm.db", false);
	kind_is("postgresql://db.example/benchfarm", true);
	kind_is("postgres://alice@db.example:5433/bf?sslmode=require", true);
	kind_is("host=/run/pg dbname=benchfarm", true);
	kind_is("service=lab", true);
	kind_is("dbname = bf", true);
}

static void test_location__other_schemes_refused(void **state)
{
	(void)state;
	refused("", "empty", NULL);
	refused("mysql://alice:s3cret@db/bf", "'mysql:...'", "s3cret");
	refused("sqlite:///tmp/x.db", "'sqlite:...'", NULL);
	refused("file:x.db", "./NAME", NULL);
	refused("postgresql:x", "postgresql://", NULL);
	refused("PostgreSQL://h/db", "'PostgreSQL:...'", NULL);
}

/* A location with an unknown scheme is refused before the directory
 * that SQLite's path would need is created. */
static void test_location__refused_creates_nothing(void **state)
{
	char dir[] = "/tmp/bf-loc-XXXXXX";
	struct bf_err err = BF_ERR_INIT;
	struct bf_store *s = NULL;
	char cwd[4096];
	struct stat st;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(bf_store_open(&s, "mysql://x/y.db", &err), BF_EINVAL);
	assert_null(s);
	assert_int_not_equal(stat("mysql:", &st), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_location__default_path_names_the_source(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	char *out = NULL;

	(void)state;
	assert_int_equal(bf_store_default_path(&out, "ftp://h/x", &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "--db: "));
	assert_null(out);
	setenv("BENCHFARM_DB", "postgresql:x", 1);
	assert_int_equal(bf_store_default_path(&out, NULL, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "BENCHFARM_DB: "));
	setenv("BENCHFARM_DB", "host=/run/pg dbname=bf", 1);
	assert_int_equal(bf_store_default_path(&out, NULL, &err), 0);
	assert_string_equal(out, "host=/run/pg dbname=bf");
	free(out);
	unsetenv("BENCHFARM_DB");
}

static void shown(const char *loc, const char *want)
{
	char *got = bf_store_location_display(loc);

	if (strcmp(got, want))
		fail_msg("%s: shown as '%s', want '%s'", loc, got, want);
	free(got);
}

/* Shown without any of the secrets (NULL-terminated). */
static void hides(const char *loc, ...)
{
	char *got = bf_store_location_display(loc);
	const char *secret;
	va_list ap;

	va_start(ap, loc);
	while ((secret = va_arg(ap, const char *)))
		if (strstr(got, secret))
			fail_msg("%s: shown as '%s', which has '%s'", loc, got,
			         secret);
	va_end(ap);
	free(got);
}

static void test_location__uri_shown_without_password(void **state)
{
	(void)state;
	shown("/var/lib/bf.db", "/var/lib/bf.db");
	shown("postgresql://db.example:5432/bf",
	      "postgresql://db.example:5432/bf");
	shown("postgresql://alice@db.example/bf",
	      "postgresql://alice@db.example/bf");
	shown("postgresql://alice:s3cret@db.example/bf",
	      "postgresql://alice:***@db.example/bf");
	shown("postgres://alice:p@ss:w@rd@db/bf", "postgres://alice:***@db/bf");
	hides("postgresql://alice:p%40ss%3Aword@db/bf", "p%40ss", "word", NULL);
	shown("postgresql://db/bf?password=s3cret&sslmode=verify-full",
	      "postgresql://db/bf?password=***&sslmode=verify-full");
	hides("postgresql://db/bf?sslmode=require&pass%77ord=x%20y", "x%20y",
	      NULL);
	hides("postgresql://db/bf?PASSWORD=s3cret", "s3cret", NULL);
	hides("postgresql://db?dbname=postgresql://u:s3cret@h/bf", "s3cret",
	      NULL);
	hides("postgresql://db?dbname=password%3Ds3cret", "s3cret", NULL);
	hides("mysql://alice:s3cret@db/bf", "s3cret", NULL);
}

static void test_location__keyvalue_shown_without_password(void **state)
{
	(void)state;
	shown("host=/run/pg dbname=bf", "host=/run/pg dbname=bf");
	shown("host=/run/pg password=s3cret dbname=bf",
	      "host=/run/pg password=*** dbname=bf");
	shown("password='se cr\\'et' user=u", "password=*** user=u");
	hides("password='se cr\\'et' user=u", "cr", "et'", NULL);
	shown("password = s3cret user=u", "password=*** user=u");
	hides("PASSWORD=s3cret", "s3cret", NULL);
	hides("user=u password=s\\ 3cret", "3cret", NULL);
	hides("dbname='postgresql://u:s3cret@h/bf' user=u", "s3cret", NULL);
	hides("dbname='host=h password=s3cret'", "s3cret", NULL);
	hides("host=h password='unterminated s3cret", "s3cret", NULL);
	hides("host=h password", "s3cret", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_location__kinds),
		cmocka_unit_test(test_location__other_schemes_refused),
		cmocka_unit_test(test_location__refused_creates_nothing),
		cmocka_unit_test(test_location__default_path_names_the_source),
		cmocka_unit_test(test_location__uri_shown_without_password),
		cmocka_unit_test(
		        test_location__keyvalue_shown_without_password),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
