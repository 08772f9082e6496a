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

int bf_parse_output(struct bf_samples *out, const char *format,
                    const char *text, size_t len, const char *what,
                    struct bf_err *err)
{
	const struct bf_parser *p = bf_parser_find(format);
	char known[128];
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
	 * Every parser refuses values that are not finite; this is the
	 * guard for all of them, since a sample the protocol cannot encode
	 * would end the agent's session and mark its device bad.
	 */
	for (size_t i = 0; i < out->n; i++)
		if (!isfinite(out->v[i].value))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: benchmark '%.100s' %s: the value is "
			        "not a finite number",
			        what, out->v[i].benchmark, out->v[i].metric);
	return 0;
}
