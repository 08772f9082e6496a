#include "parse/parse.h"

#include <math.h>

#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "benchfarm/utf8.h"

#define EXPECTED   "expected 'name value [unit]'"
#define MAX_FIELDS 3
#define VALUE_MAX  64 /* longest number text we accept */
#define UNIT_MAX   64

struct field {
	const char *p; /* into the text, not NUL-terminated */
	size_t len;
};

struct lines_state {
	struct bf_samples *out;
	const char *what;
	size_t lineno; /* 1-based */
	struct bf_parse__counter seen; /* names borrowed from out */
};

static bool is_sep(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether s[0..n) is well-formed UTF-8. */
static bool valid_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k;

	for (size_t i = 0; i < n; i += k)
		if (!(k = bf_utf8_len(p + i, n - i)))
			return false;
	return true;
}

/*
 * Control characters (NUL included) would end up in names and reports,
 * and bytes that are not UTF-8 cannot be carried in the JSON of samples
 * (they would be dropped, silently, further on).
 */
static int check_chars(const struct lines_state *st, const char *line, size_t n,
                       struct bf_err *err)
{
	if (!valid_utf8(line, n))
		return bf_err_set(err, BF_EINVAL,
		                  "%s:%zu: " EXPECTED
		                  ": the line is not valid UTF-8",
		                  st->what, st->lineno);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s:%zu: " EXPECTED
			        ": control character 0x%02x in column %zu",
			        st->what, st->lineno, c, i + 1);
	}
	return 0;
}

/* Splits at runs of blanks; returns the count, MAX_FIELDS + 1 for more. */
static size_t split(struct field *f, const char *line, size_t n)
{
	size_t count = 0, i = 0;

	while (i < n) {
		size_t start;

		while (i < n && is_sep(line[i]))
			i++;
		if (i == n)
			break;
		if (count == MAX_FIELDS)
			return MAX_FIELDS + 1;
		start = i;
		while (i < n && !is_sep(line[i]))
			i++;
		f[count].p = line + start;
		f[count].len = i - start;
		count++;
	}
	return count;
}

static int bad_line(const struct lines_state *st, const char *why,
                    const struct field *f, struct bf_err *err)
{
	int len = f && f->len < 40 ? (int)f->len : 40;

	if (f)
		return bf_err_set(err, BF_EINVAL,
		                  "%s:%zu: " EXPECTED ": '%.*s' %s", st->what,
		                  st->lineno, len, f->p, why);
	return bf_err_set(err, BF_EINVAL, "%s:%zu: " EXPECTED ": %s", st->what,
	                  st->lineno, why);
}

static int add_sample(struct lines_state *st, const struct field *f, size_t nf,
                      struct bf_err *err)
{
	char name[BF_PARSE_NAME_MAX + 1], num[VALUE_MAX + 1];
	char unit[UNIT_MAX + 1] = "";
	struct bf_sample *x;
	double value, scale;

	if (nf < 2)
		return bad_line(st, "missing value", NULL, err);
	if (nf > MAX_FIELDS)
		return bad_line(st, "more than 3 fields", NULL, err);
	if (f[0].len > BF_PARSE_NAME_MAX)
		return bf_err_set(err, BF_EINVAL,
		                  "%s:%zu: " EXPECTED
		                  ": name longer than %d bytes",
		                  st->what, st->lineno, BF_PARSE_NAME_MAX);
	if (f[1].len > VALUE_MAX)
		return bad_line(st, "is too long for a number", &f[1], err);
	if (nf == 3 && f[2].len > UNIT_MAX)
		return bad_line(st, "is too long for a unit", &f[2], err);
	memcpy(name, f[0].p, f[0].len);
	name[f[0].len] = '\0';
	memcpy(num, f[1].p, f[1].len);
	num[f[1].len] = '\0';
	if (nf == 3) {
		memcpy(unit, f[2].p, f[2].len);
		unit[f[2].len] = '\0';
	}
	if (bf_parse_double(&value, num, false, NULL))
		return bad_line(st, "is not a finite number", &f[1], err);
	scale = bf_parse__ns_per_unit(unit);
	if (scale)
		value *= scale;
	if (!isfinite(value)) /* finite, but not in nanoseconds */
		return bad_line(st, "is too large in nanoseconds", &f[1], err);
	bf_samples_add(st->out, name, "value", scale ? "ns" : unit, value, 0);
	x = &st->out->v[st->out->n - 1];
	x->iteration = bf_parse__counter_next(&st->seen, x->benchmark);
	return 0;
}

static int parse_line(struct lines_state *st, const char *line, size_t n,
                      struct bf_err *err)
{
	struct field f[MAX_FIELDS];
	size_t nf, i = 0;
	int ret;

	if (n && line[n - 1] == '\r')
		n--;
	while (i < n && is_sep(line[i]))
		i++;
	if (i == n || line[i] == '#')
		return 0;
	ret = check_chars(st, line, n, err);
	if (ret)
		return ret;
	nf = split(f, line, n);
	return add_sample(st, f, nf, err);
}

int bf_parse_lines(struct bf_samples *out, const char *text, size_t len,
                   const char *what, struct bf_err *err)
{
	struct lines_state st = { .out = out, .seen = BF_PARSE__COUNTER_INIT };
	size_t n0 = out->n, pos = 0;
	int ret = 0;

	st.what = what ? what : "output";
	if (len > BF_PARSE_INPUT_MAX) {
		ret = bf_err_set(err, BF_ETOOBIG,
		                 "%s: %zu bytes exceed the limit of %zu bytes",
		                 st.what, len, BF_PARSE_INPUT_MAX);
		goto out;
	}
	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		st.lineno++;
		ret = parse_line(&st, text + pos, n, err);
		pos += n + 1;
	}
	if (!ret && out->n == n0)
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s: no samples (" EXPECTED " lines)",
		                 st.what);
out:
	bf_parse__counter_release(&st.seen);
	if (ret)
		bf_parse__samples_truncate(out, n0);
	return ret;
}
