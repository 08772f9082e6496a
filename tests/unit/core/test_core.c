/* Unit tests for core: err, alloc, buf, parse, argv, json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/index.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/parse.h"
#include "benchfarm/text.h"
#include "benchfarm/utf8.h"

static void test_err__set_formats_and_returns_code(void **state)
{
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_err_set(&err, BF_EINVAL, "bad '%s'", "x"),
	                 BF_EINVAL);
	assert_int_equal(err.code, BF_EINVAL);
	assert_string_equal(err.msg, "bad 'x'");
	assert_int_equal(bf_err_set(NULL, BF_ETIMEOUT, "ignored"), BF_ETIMEOUT);
}

static void test_err__sys_appends_strerror(void **state)
{
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	errno = ENOENT;
	assert_int_equal(bf_err_sys(&err, "cannot open '%s'", "f"), BF_ESYS);
	assert_non_null(strstr(err.msg, "cannot open 'f': "));
	assert_non_null(strstr(err.msg, "No such file"));
}

static void test_err__prefix_and_truncation(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	char big[600];

	(void)state;
	bf_err_set(&err, BF_EINVAL, "inner");
	bf_err_prefix(&err, "outer %d", 1);
	assert_string_equal(err.msg, "outer 1: inner");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bf_err_set(&err, BF_EINVAL, "%s", big);
	assert_int_equal(strlen(err.msg), BF_ERR_SIZE - 1);
	assert_string_equal(bf_strerror(BF_ENOTFOUND), "not found");
	assert_string_equal(bf_strerror(-999), "unknown error");
}

static void test_buf__append_grow_detach(void **state)
{
	struct bf_buf b = BF_BUF_INIT;
	char *s;
	size_t len;

	(void)state;
	assert_string_equal(b.buf, "");
	for (int i = 0; i < 1000; i++)
		assert_int_equal(bf_buf_addf(&b, "%d,", i % 10), 0);
	assert_int_equal(b.len, 2000);
	assert_int_equal(b.buf[b.len], '\0');
	assert_memory_equal(b.buf, "0,1,2,", 6);
	s = bf_buf_detach(&b, &len);
	assert_int_equal(len, 2000);
	assert_string_equal(b.buf, "");
	free(s);
}

static void test_buf__cap_rejects_and_keeps_content(void **state)
{
	struct bf_buf b;

	(void)state;
	bf_buf_init(&b, 8);
	assert_int_equal(bf_buf_addstr(&b, "12345"), 0);
	assert_int_equal(bf_buf_addstr(&b, "6789"), BF_ETOOBIG);
	assert_string_equal(b.buf, "12345");
	assert_int_equal(bf_buf_addf(&b, "%s", "abcd"), BF_ETOOBIG);
	assert_int_equal(bf_buf_addstr(&b, "678"), 0);
	assert_string_equal(b.buf, "12345678");
	assert_int_equal(bf_buf_addch(&b, 'x'), BF_ETOOBIG);
	bf_buf_release(&b);
	assert_int_equal(b.max, 8);
}

static void test_buf__read_file_errors(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	char path[] = "/tmp/bf-test-XXXXXX";
	struct bf_buf b;
	int fd;

	(void)state;
	bf_buf_init(&b, 4);
	assert_int_equal(bf_buf_read_file(&b, "/nonexistent/x", &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "123456", 6), 6);
	close(fd);
	assert_int_equal(bf_buf_read_file(&b, path, &err), BF_ETOOBIG);
	assert_non_null(strstr(err.msg, "larger than 4 bytes"));
	bf_buf_release(&b);
	bf_buf_init(&b, 0);
	assert_int_equal(bf_buf_read_file(&b, path, &err), 0);
	assert_string_equal(b.buf, "123456");
	bf_buf_release(&b);
	unlink(path);
}

static void test_parse__i64_strict(void **state)
{
	int64_t v = 7;

	(void)state;
	assert_int_equal(bf_parse_i64(&v, "-42", NULL), 0);
	assert_int_equal(v, -42);
	assert_int_equal(bf_parse_i64(&v, "9223372036854775807", NULL), 0);
	assert_int_equal(v, INT64_MAX);
	v = 7;
	assert_int_equal(bf_parse_i64(&v, "9223372036854775808", NULL),
	                 BF_EINVAL);
	assert_int_equal(bf_parse_i64(&v, "", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_i64(&v, " 1", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_i64(&v, "1 ", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_i64(&v, "12abc", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_i64(&v, "1.5", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_i64(&v, NULL, NULL), BF_EINVAL);
	assert_int_equal(v, 7);
}

static void test_parse__u64_rejects_sign(void **state)
{
	uint64_t v = 3;

	(void)state;
	assert_int_equal(bf_parse_u64(&v, "18446744073709551615", NULL), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(bf_parse_u64(&v, "-1", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_u64(&v, "+1", NULL), BF_EINVAL);
	assert_int_equal(bf_parse_u64(&v, "18446744073709551616", NULL),
	                 BF_EINVAL);
}

static void test_parse__double(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	double d = 0;

	(void)state;
	assert_int_equal(bf_parse_double(&d, "1.5e3", false, NULL), 0);
	assert_true(d == 1500.0);
	assert_int_equal(bf_parse_double(&d, "nan", false, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "'nan'"));
	assert_int_equal(bf_parse_double(&d, "inf", false, NULL), BF_EINVAL);
	assert_int_equal(bf_parse_double(&d, "inf", true, NULL), 0);
	assert_int_equal(bf_parse_double(&d, "1e999", true, NULL), BF_EINVAL);
	assert_int_equal(bf_parse_double(&d, "3 ms", false, NULL), BF_EINVAL);
	assert_int_equal(bf_parse_double(&d, ".", false, NULL), BF_EINVAL);
	/* strtod reads these as 16 and 8; they are not decimal numbers */
	d = 7;
	assert_int_equal(bf_parse_double(&d, "0x10", false, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "'0x10' is not a number"));
	assert_int_equal(bf_parse_double(&d, "-0X1p3", true, NULL), BF_EINVAL);
	assert_int_equal(bf_parse_double(&d, "+0x1", false, NULL), BF_EINVAL);
	assert_true(d == 7);
	assert_int_equal(bf_parse_double(&d, "0.5", false, NULL), 0);
	assert_int_equal(bf_parse_double(&d, "-0", false, NULL), 0);
}

static void test_parse__int_range(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	int v = 0;

	(void)state;
	assert_int_equal(bf_parse_int_range(&v, "10", 2, 10, NULL), 0);
	assert_int_equal(v, 10);
	assert_int_equal(bf_parse_int_range(&v, "11", 2, 10, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "2 to 10"));
}

static void test_argv__push_and_display(void **state)
{
	struct bf_argv a = BF_ARGV_INIT, b;
	const char *v[] = { "x y", "it's", NULL };
	char *s;

	(void)state;
	bf_argv_push(&a, "make");
	bf_argv_pushf(&a, "-j%d", 2);
	bf_argv_pushv(&a, v);
	bf_argv_push(&a, "");
	assert_int_equal(a.argc, 5);
	assert_null(a.argv[5]);
	s = bf_argv_to_display(&a);
	assert_string_equal(s, "make -j2 'x y' 'it'\\''s' ''");
	free(s);
	bf_argv_copy(&b, &a);
	bf_argv_release(&a);
	assert_int_equal(b.argc, 5);
	assert_string_equal(b.argv[2], "x y");
	bf_argv_release(&b);
	assert_null(b.argv);
}

static void test_alloc__strlcpy_and_asprintf(void **state)
{
	char small[4];
	char *s;

	(void)state;
	assert_int_equal(bf_strlcpy(small, "abcdef", sizeof(small)), 6);
	assert_string_equal(small, "abc");
	s = bf_xasprintf("%s-%03d", "a", 7);
	assert_string_equal(s, "a-007");
	free(s);
	s = bf_xstrndup("hello", 3);
	assert_string_equal(s, "hel");
	bf_memzero(s, 3);
	assert_int_equal(s[0], 0);
	free(s);
}

static void test_json__parse_error_has_location(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *text = "{\"a\": 1,\n \"a\": 2}";
	json_t *v = NULL;

	(void)state;
	assert_int_equal(bf_json_parse(&v, text, strlen(text), "in.json", &err),
	                 BF_EINVAL);
	assert_null(v);
	assert_non_null(strstr(err.msg, "in.json:2:"));
	assert_non_null(strstr(err.msg, "duplicate"));
	text = "{\"a\": 1";
	assert_int_equal(bf_json_parse(&v, text, strlen(text), "t", &err),
	                 BF_EINVAL);
}

static void test_json__getters(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *text = "{\"s\":\"x\",\"n\":1.5,\"i\":3}";
	const char *s = NULL;
	json_t *v = NULL;
	double d = 0;
	int64_t i = 0;

	(void)state;
	assert_int_equal(bf_json_parse(&v, text, strlen(text), "t", NULL), 0);
	assert_int_equal(bf_json_get_str(&s, v, "s", "obj", &err), 0);
	assert_string_equal(s, "x");
	assert_int_equal(bf_json_get_num(&d, v, "n", "obj", &err), 0);
	assert_true(d == 1.5);
	assert_int_equal(bf_json_get_int(&i, v, "i", "obj", &err), 0);
	assert_int_equal(i, 3);
	assert_int_equal(bf_json_get_int(&i, v, "n", "obj", &err), BF_EINVAL);
	assert_string_equal(err.msg, "obj: 'n' is not an integer");
	assert_int_equal(bf_json_get_str(&s, v, "zz", "obj", &err),
	                 BF_ENOTFOUND);
	assert_string_equal(err.msg, "obj: missing 'zz'");
	assert_string_equal(bf_json_str_or(v, "n", "def"), "def");
	json_decref(v);
}

static void test_json__write_file_private_and_atomic(void **state)
{
	char dir[] = "/tmp/bf-json-XXXXXX";
	struct bf_err err = BF_ERR_INIT;
	json_t *v = json_pack("{s:i}", "k", 1), *back = NULL;
	struct stat st;
	char *path;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = bf_xasprintf("%s/out.json", dir);
	assert_int_equal(bf_json_write_file(v, path, true, true, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(bf_json_load_file(&back, path, &err), 0);
	assert_true(json_equal(v, back));
	json_decref(back);
	unlink(path);
	free(path);
	path = bf_xasprintf("%s/missing/out.json", dir);
	assert_int_equal(bf_json_write_file(v, path, false, false, &err),
	                 BF_ESYS);
	assert_non_null(strstr(err.msg, "cannot create"));
	free(path);
	rmdir(dir);
	json_decref(v);
}

/* Runs fn with stderr redirected to a file and returns what it wrote. */
static char *capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/bf-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct bf_buf b = BF_BUF_INIT;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	assert_int_equal(bf_buf_read_file(&b, path, NULL), 0);
	unlink(path);
	return bf_buf_detach(&b, NULL);
}

static void log_some(void)
{
	bf_log_set_prog("bf-test");
	bf_log_set_level(BF_LOG_WARN);
	BF_LOG_ERR("disk '%s' full", "/x");
	BF_LOG_WARN("slow %d", 1);
	BF_LOG_INFO("not shown %d", 2);
	BF_LOG_DEBUG("not shown %d", 3);
	bf_log_set_level(BF_LOG_DEBUG);
	BF_LOG_DEBUG("shown %d", 4);
	bf_log_set_level(BF_LOG_QUIET);
	BF_LOG_ERR("quiet %d", 5);
	bf_log_set_level(BF_LOG_WARN);
	bf_log_set_prog("benchfarm");
}

static void test_log__levels_filter_and_prefix(void **state)
{
	char *out = capture_stderr(log_some);

	(void)state;
	assert_string_equal(out, "bf-test: error: disk '/x' full\n"
	                         "bf-test: warning: slow 1\n"
	                         "bf-test: debug: shown 4\n");
	free(out);
}

/* RFC 3629's table of well-formed sequences, at its edges. */
static void test_utf8__edges(void **state)
{
	static const struct {
		const char *s;
		size_t avail, want;
	} t[] = {
		{ "a", 1, 1 },
		{ "\x7f", 1, 1 },
		{ "", 1, 1 }, /* NUL is a character; callers stop at it */
		{ "a", 0, 0 },
		{ "\x80", 1, 0 }, /* continuation byte alone */
		{ "\xc1\xbf", 2, 0 }, /* overlong U+007F */
		{ "\xc2\x80", 2, 2 }, /* U+0080 */
		{ "\xc2\x80", 1, 0 }, /* cut by avail */
		{ "\xc2", SIZE_MAX, 0 }, /* cut by the NUL */
		{ "\xdf\xbf", 2, 2 },
		{ "\xe0\x9f\xbf", 3, 0 }, /* overlong U+07FF */
		{ "\xe0\xa0\x80", 3, 3 }, /* U+0800 */
		{ "\xed\x9f\xbf", 3, 3 }, /* U+D7FF */
		{ "\xed\xa0\x80", 3, 0 }, /* surrogate U+D800 */
		{ "\xef\xbf\xbf", 3, 3 },
		{ "\xef\xbf\xbf", 2, 0 },
		{ "\xf0\x8f\xbf\xbf", 4, 0 }, /* overlong U+FFFF */
		{ "\xf0\x90\x80\x80", 4, 4 }, /* U+10000 */
		{ "\xf4\x8f\xbf\xbf", 4, 4 }, /* U+10FFFF */
		{ "\xf4\x90\x80\x80", 4, 0 }, /* beyond U+10FFFF */
		{ "\xf5\x80\x80\x80", 4, 0 },
		{ "\xe2\x82\xac", SIZE_MAX, 3 }, /* the euro sign */
		{ "\xe2\x28\xac", 3, 0 }, /* bad second byte */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t got =
		        bf_utf8_len((const unsigned char *)t[i].s, t[i].avail);

		if (got != t[i].want)
			fail_msg("case %zu: %zu, want %zu", i, got, t[i].want);
	}
}

/*
 * Inert text: what an agent or benchmark says drives no terminal, starts
 * no CI command and reorders nothing, and is still readable.
 */
#define HOSTILE                                                         \
	"ok\x1b[2J\x1b]0;t\x07 cr\rlf\n::error::pwned\n  ::set-output " \
	"name=x::y\n\xe2\x80\xae"                                       \
	"evil\xc2\x9b"                                                  \
	"1m \xe2\x81\xa6\xd8\x9c\xff a::b caf\xc3\xa9 \xe2\x82\xac\t."

static void test_text__inert(void **state)
{
	char *one = bf_text_inert(HOSTILE, 0);
	char *lines = bf_text_inert(HOSTILE, BF_TEXT_LINES);

	(void)state;
	assert_string_equal(one,
	                    "ok\\x1b[2J\\x1b]0;t\\x07 cr\\x0dlf | ::error::"
	                    "pwned |   ::set-output name=x::y | "
	                    "\\u{202E}evil\\u{009B}1m \\u{2066}\\u{061C}\\xff "
	                    "a::b caf\xc3\xa9 \xe2\x82\xac\t.");
	assert_string_equal(
	        lines,
	        "ok\\x1b[2J\\x1b]0;t\\x07 cr\\x0dlf\n:\xe2\x80\x8b:error::"
	        "pwned\n  :\xe2\x80\x8b:set-output name=x::y\n"
	        "\\u{202E}evil\\u{009B}1m \\u{2066}\\u{061C}\\xff "
	        "a::b caf\xc3\xa9 \xe2\x82\xac\t.");
	/*
	 * "::" only at a line's start: mid-line it is no command, and a
	 * single line starts where the text does.
	 */
	free(one);
	one = bf_text_inert("::a", 0);
	assert_string_equal(one, ":\xe2\x80\x8b:a");
	free(one);
	free(lines);
}

/*
 * bf_text_addf: every %s argument inert and one line, whatever its
 * width or precision; the format and the other conversions as printf
 * prints them.
 */
static void test_text__addf(void **state)
{
	struct bf_buf b = BF_BUF_INIT;

	(void)state;
	bf_text_addf(&b, "  %-8s|%6s|%.3s|%.2s|%s\n", "a\x1b[2J",
	             "\xe2\x80\xae", "ab\ncd", "\xc3\xa9x", "\n::error::x");
	assert_string_equal(b.buf, "  a\\x1b[2J|\\u{202E}|ab | |\xc3\xa9|"
	                           " | ::error::x\n");
	bf_buf_reset(&b);
	/* a precision never cuts a character in two */
	bf_text_addf(&b, "%-4s|%4s|%.1s|%s", "ab", "ab", "\xc3\xa9",
	             "::set-output");
	assert_string_equal(b.buf, "ab  |  ab||:\xe2\x80\x8b:set-output");
	bf_buf_reset(&b);
	bf_text_addf(&b, "%d %5.1f%% %zu %lld %+.3g %-4u| %x %c %*s|%.*s|%-*d|",
	             -3, 12.345, (size_t)7, -9000000000LL, 0.5, 2u, 255u, 'z',
	             3, "\r", 2, "\x1bxyz", 3, 5);
	assert_string_equal(b.buf, "-3  12.3% 7 -9000000000 +0.5 2   | ff z "
	                           "\\x0d|\\x1bx|5  |");
	bf_buf_release(&b);
}

/* bf_index: items found by key through growth, collisions kept apart. */
static size_t mod8_hash(const void *ctx, size_t i)
{
	return (size_t)((const int *)ctx)[i] % 8; /* many collisions */
}

static bool int_is(const void *ctx, size_t i, const void *key)
{
	return ((const int *)ctx)[i] == *(const int *)key;
}

static void test_index__find_and_grow(void **state)
{
	static const struct bf_index_ops ops = { mod8_hash, int_is };
	struct bf_index x = BF_INDEX_INIT;
	int items[1000];
	size_t n = 0, *slot;

	(void)state;
	for (int k = 0; k < 1000; k++) {
		int key = k * 7;

		slot = bf_index_slot(&x, n, (size_t)key % 8, &ops, items, &key);
		assert_int_equal(*slot, 0); /* new */
		items[n++] = key;
		*slot = n;
		assert_true(2 * n <= x.nslots); /* at most half full */
	}
	for (int k = 999; k >= 0; k--) {
		int key = k * 7;

		slot = bf_index_slot(&x, n, (size_t)key % 8, &ops, items, &key);
		assert_int_equal(*slot, (size_t)k + 1);
	}
	{
		int key = 5; /* not a multiple of 7 */

		assert_int_equal(*bf_index_slot(&x, n, 5, &ops, items, &key),
		                 0);
	}
	bf_index_release(&x);
	assert_null(x.slots);
}

/* Scrubbing keeps well-formed text and the length, and marks the rest. */
static void test_utf8__scrub(void **state)
{
	char a[] = "caf\xc3\xa9 \xe2\x82\xac";
	char b[] = "caf\xe9/app+0x10";
	char c[] = "\xc3\xa9\xc3"; /* a cut sequence at the end */
	char d[] = "\xed\xa0\x80x"; /* a surrogate: three bytes, three marks */

	(void)state;
	assert_string_equal(bf_utf8_scrub(a), "caf\xc3\xa9 \xe2\x82\xac");
	assert_string_equal(bf_utf8_scrub(b), "caf?/app+0x10");
	assert_string_equal(bf_utf8_scrub(c), "\xc3\xa9?");
	assert_string_equal(bf_utf8_scrub(d), "???x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err__set_formats_and_returns_code),
		cmocka_unit_test(test_err__sys_appends_strerror),
		cmocka_unit_test(test_err__prefix_and_truncation),
		cmocka_unit_test(test_buf__append_grow_detach),
		cmocka_unit_test(test_buf__cap_rejects_and_keeps_content),
		cmocka_unit_test(test_buf__read_file_errors),
		cmocka_unit_test(test_parse__i64_strict),
		cmocka_unit_test(test_parse__u64_rejects_sign),
		cmocka_unit_test(test_parse__double),
		cmocka_unit_test(test_parse__int_range),
		cmocka_unit_test(test_argv__push_and_display),
		cmocka_unit_test(test_alloc__strlcpy_and_asprintf),
		cmocka_unit_test(test_json__parse_error_has_location),
		cmocka_unit_test(test_json__getters),
		cmocka_unit_test(test_json__write_file_private_and_atomic),
		cmocka_unit_test(test_log__levels_filter_and_prefix),
		cmocka_unit_test(test_utf8__edges),
		cmocka_unit_test(test_text__inert),
		cmocka_unit_test(test_text__addf),
		cmocka_unit_test(test_utf8__scrub),
		cmocka_unit_test(test_index__find_and_grow),
	};

	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
