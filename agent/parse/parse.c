#include "parse/parse.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/err.h"

static const struct bf_parser parsers[] = {
	{ "gbench", bf_parse_gbench },
	{ "jetpack", bf_parse_jetpack }, /* parse_jetpack.c */
	{ "hyperfine", bf_parse_hyperfine }, /* parse_hyperfine.c */
	{ "native", bf_parse_native }, /* parse_native.c, docs/formats.md */
	{ "lines", bf_parse_lines },
};

const struct bf_parser *bf_parser_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < BF_ARRAY_SIZE(parsers); i++)
		if (!strcmp(parsers[i].name, name))
			return &parsers[i];
	return NULL;
}

void bf_parser_list(char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < BF_ARRAY_SIZE(parsers) && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
		                 parsers[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int check_value(const struct bf_sample *x, const char *what,
                       bool amounts, struct bf_err *err)
{
	if (!isfinite(x->value))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmark '%.100s' %s: the value is "
		                  "not a finite number",
		                  what, x->benchmark, x->metric);
	if (amounts && x->value < 0 && bf_unit_is_amount(x->unit))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmark '%.100s' %s: %g %s is negative: a time, size, count or rate cannot be below 0 (the benchmark's output is wrong)",
		        what, x->benchmark, x->metric, x->value, x->unit);
	return 0;
}

int bf_parse_output(struct bf_samples *out, const char *format,
                    const char *text, size_t len, const char *what,
                    struct bf_err *err)
{
	const struct bf_parser *p = bf_parser_find(format);
	char known[128];
	size_t n0 = out->n;
	int ret;

	if (!what)
		what = "output";
	if (!p) {
		bf_parser_list(known, sizeof(known));
		return bf_err_set(err, BF_EINVAL,
		                  "%s: unknown output format '%s' (known: %s)",
		                  what, format ? format : "", known);
	}
	if (len > BF_PARSE_INPUT_MAX)
		return bf_err_set(err, BF_ETOOBIG,
		                  "%s: %zu bytes exceed the limit of %zu bytes",
		                  what, len, BF_PARSE_INPUT_MAX);
	if ((ret = p->parse(out, text, len, what, err)))
		return ret;
	/*
	 * The guard for every parser: a value that is not finite (the
	 * protocol cannot encode it: it would end the agent's session and
	 * mark its device bad), and a negative time, size, count or rate
	 * (bf_unit_is_amount: its ratio to a negative base points the
	 * wrong way). Jetpack checks its own: its sampledMetrics may be
	 * negative (a frame's overrun), and compare refuses those.
	 */
	for (size_t i = n0; i < out->n && !ret; i++)
		ret = check_value(&out->v[i], what, strcmp(p->name, "jetpack"),
		                  err);
	if (ret)
		bf_parse__samples_truncate(out, n0);
	return ret;
}
