/*
 * What the parser tests share (parse_helpers.h): reading fixtures,
 * finding and checking samples, parsing that must succeed or fail,
 * running a real benchmark program, reproducible noise.
 */
#include "unit/parse/parse_helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "benchfarm/err.h"
#include "parse/parse.h"

const struct parse_fixture fixtures[] = {
	{ "jetpack", "tests/fixtures/jetpack/g5_example.json" },
	{ "jetpack", "tests/fixtures/jetpack/g3_example.json" },
	{ "jetpack", "tests/fixtures/jetpack/g1_minimal.json" },
	{ "jetpack", "tests/fixtures/jetpack/sampled_metrics.json" },
	{ "hyperfine", "tests/fixtures/hyperfine/two_commands.json" },
	{ "hyperfine", "tests/fixtures/hyperfine/params_failures.json" },
	{ "hyperfine", "tests/fixtures/hyperfine/single_run.json" },
	{ "native", "tests/fixtures/native/basic.json" },
	{ "gbench", "tests/fixtures/gbench/repetitions.json" },
	{ "lines", "tests/fixtures/lines/basic.txt" },
};
const size_t nfixtures = BF_ARRAY_SIZE(fixtures);

void read_fixture(struct bf_buf *b, const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	bf_buf_init(b, 0);
	if (bf_buf_read_file(b, path, &err))
		fail_msg(
		        "cannot read fixture (run from the repository root): %s",
		        err.msg);
}

json_t *load_json(const char *path)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);

	if (!root)
		fail_msg("%s:%d: %s", path, je.line, je.text);
	return root;
}

const struct bf_sample *find_sample(const struct bf_samples *s,
                                    const char *bench, const char *metric,
                                    int iteration)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].benchmark, bench) &&
		    !strcmp(s->v[i].metric, metric) &&
		    s->v[i].iteration == iteration)
			return &s->v[i];
	return NULL;
}

size_t count_samples(const struct bf_samples *s, const char *bench,
                     const char *metric)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += !strcmp(s->v[i].benchmark, bench) &&
		     (!metric || !strcmp(s->v[i].metric, metric));
	return n;
}

void expect_sample(const struct bf_samples *s, const char *bench,
                   const char *metric, const char *unit, int iteration,
                   double value)
{
	const struct bf_sample *x = find_sample(s, bench, metric, iteration);

	if (!x)
		fail_msg("no sample %s %s #%d", bench, metric, iteration);
	assert_string_equal(x->unit, unit);
	if (x->value != value)
		fail_msg("%s %s #%d: got %.17g, expected %.17g", bench, metric,
		         iteration, x->value, value);
}

void expect_nth(const struct bf_samples *s, size_t i, const char *bench,
                const char *metric, const char *unit, int iteration,
                double value)
{
	assert_true(i < s->n);
	assert_string_equal(s->v[i].benchmark, bench);
	assert_string_equal(s->v[i].metric, metric);
	assert_string_equal(s->v[i].unit, unit);
	assert_int_equal(s->v[i].iteration, iteration);
	if (s->v[i].value != value)
		fail_msg("sample %zu: got %.17g, expected %.17g", i,
		         s->v[i].value, value);
}

void expect_iterations(const struct bf_samples *s, size_t from,
                       const char *bench, const char *metric, const char *unit,
                       const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_nth(s, from + i, bench, metric, unit, (int)i, v[i]);
}

void parse_ok(struct bf_samples *out, const char *format, const char *text,
              size_t len)
{
	struct bf_err err = BF_ERR_INIT;
	int ret = bf_parse_output(out, format, text, len, "test", &err);

	if (ret)
		fail_msg("parse failed (%d): %s", ret, err.msg);
}

void parse_fixture(struct bf_samples *out, const char *format, const char *path)
{
	struct bf_buf b;
	struct bf_err err = BF_ERR_INIT;
	int ret;

	read_fixture(&b, path);
	ret = bf_parse_output(out, format, b.buf, b.len, path, &err);
	bf_buf_release(&b);
	if (ret)
		fail_msg("parse of %s failed (%d): %s", path, ret, err.msg);
}

void expect_fail(const char *format, const char *text, size_t len,
                 const char *what, int code, const char *want)
{
	struct bf_samples out = BF_SAMPLES_INIT;
	struct bf_err err = BF_ERR_INIT;
	int ret;

	bf_samples_add(&out, "keep", "value", "", 1.0, 0);
	ret = bf_parse_output(&out, format, text, len, what, &err);
	if (ret != code || err.code != code || !strstr(err.msg, want))
		fail_msg("%s: got %d '%s', expected %d with '%s'", format, ret,
		         err.msg, code, want);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0].benchmark, "keep");
	assert_string_equal(out.v[0].metric, "value");
	assert_true(out.v[0].value == 1.0);
	bf_samples_release(&out);
}

void expect_einval(const char *format, const char *text, const char *want)
{
	expect_fail(format, text, strlen(text), "test", BF_EINVAL, want);
}

void run_or_fail(struct bf_spawn_result *res, const char *const *argv,
                 double timeout_s, const char *hint)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	char how[64];
	int ret;

	opts.argv = argv;
	opts.timeout_s = timeout_s;
	opts.out_max = 16 * 1024 * 1024;
	ret = bf_spawn_run(res, &opts, &err);
	if (ret)
		fail_msg("%s: %s", err.msg, hint);
	if (!bf_spawn_is_success(res)) {
		bf_spawn_describe(res, timeout_s, how, sizeof(how));
		fail_msg("'%s' %s: %s\n%.2000s", argv[0], how, hint,
		         res->err.buf);
	}
}

uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}
