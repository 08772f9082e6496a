#ifndef BF_UTF8_H
#define BF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s, of which
 * at most avail bytes may be read, or 0 when there is none (RFC 3629):
 * a byte that starts no sequence, a cut sequence, an overlong form, a
 * surrogate or a code point beyond U+10FFFF. For a NUL-terminated
 * string avail may be SIZE_MAX: the NUL ends any sequence.
 *
 * Inline in the header so that libbenchfarm_bench, which links nothing
 * of core, shares it with the agent's parsers and the reporters.
 */
static inline size_t bf_utf8_len(const unsigned char *s, size_t avail)
{
	size_t n;

	if (!avail)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if (i >= avail || (s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/*
 * s made well-formed UTF-8 in place: each byte that starts no sequence
 * (see bf_utf8_len) becomes '?', so the length stays. For text from
 * outside (symbol names, file paths) on its way into JSON or XML.
 */
static inline char *bf_utf8_scrub(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = bf_utf8_len(p, SIZE_MAX);

		if (!n) {
			*p = '?';
			n = 1;
		}
		p += n;
	}
	return s;
}

#endif
