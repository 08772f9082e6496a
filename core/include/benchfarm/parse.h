#ifndef BF_PARSE_H
#define BF_PARSE_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * Strict number parsing: the whole string must be one number, with no
 * leading or trailing whitespace or garbage and within range. On error
 * *out is unchanged and BF_EINVAL is returned with a message naming s.
 */
int bf_parse_i64(int64_t *out, const char *s, struct bf_err *err);
int bf_parse_u64(uint64_t *out, const char *s, struct bf_err *err);
/*
 * A decimal number (strtod's hexadecimal "0x10" is rejected); rejects
 * NaN and infinities unless allow_nonfinite.
 */
int bf_parse_double(double *out, const char *s, bool allow_nonfinite,
                    struct bf_err *err);
/* Parses s into an int within [min, max]. */
int bf_parse_int_range(int *out, const char *s, int min, int max,
                       struct bf_err *err);

#endif /* BF_PARSE_H */
