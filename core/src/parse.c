#include "benchfarm/parse.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "benchfarm/err.h"

/* strtoll and friends accept leading space; we do not. */
static bool starts_ok(const char *s)
{
	return s && *s && !strchr(" \t\r\n\v\f", *s);
}

int bf_parse_i64(int64_t *out, const char *s, struct bf_err *err)
{
	long long v;
	char *end;

	if (!starts_ok(s))
		return bf_err_set(err, BF_EINVAL, "'%s' is not an integer",
		                  s ? s : "");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return bf_err_set(err, BF_EINVAL, "'%s' is not an integer", s);
	if (errno == ERANGE)
		return bf_err_set(err, BF_EINVAL, "'%s' is out of range", s);
	*out = (int64_t)v;
	return 0;
}

int bf_parse_u64(uint64_t *out, const char *s, struct bf_err *err)
{
	unsigned long long v;
	char *end;

	if (!starts_ok(s) || *s == '-' || *s == '+')
		return bf_err_set(err, BF_EINVAL,
		                  "'%s' is not a non-negative integer",
		                  s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return bf_err_set(err, BF_EINVAL,
		                  "'%s' is not a non-negative integer", s);
	if (errno == ERANGE)
		return bf_err_set(err, BF_EINVAL, "'%s' is out of range", s);
	*out = (uint64_t)v;
	return 0;
}

/* strtod's hexadecimal form ("0x10", "-0X1p3"): not a decimal number. */
static bool is_hex(const char *s)
{
	s += *s == '-' || *s == '+';
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

int bf_parse_double(double *out, const char *s, bool allow_nonfinite,
                    struct bf_err *err)
{
	double v;
	char *end;

	if (!starts_ok(s) || is_hex(s))
		return bf_err_set(err, BF_EINVAL, "'%s' is not a number",
		                  s ? s : "");
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return bf_err_set(err, BF_EINVAL, "'%s' is not a number", s);
	if (!allow_nonfinite && !isfinite(v))
		return bf_err_set(err, BF_EINVAL, "'%s' is not a finite number",
		                  s);
	if (errno == ERANGE && isinf(v))
		return bf_err_set(err, BF_EINVAL, "'%s' is out of range", s);
	*out = v;
	return 0;
}

int bf_parse_int_range(int *out, const char *s, int min, int max,
                       struct bf_err *err)
{
	int64_t v;
	int ret = bf_parse_i64(&v, s, err);

	if (ret)
		return ret;
	if (v < min || v > max)
		return bf_err_set(err, BF_EINVAL,
		                  "'%s' is out of range (%d to %d)", s, min,
		                  max);
	*out = (int)v;
	return 0;
}
