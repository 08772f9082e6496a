#include "benchfarm/text.h"

#include <stdlib.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/utf8.h"

#define ZWSP "\xe2\x80\x8b" /* U+200B ZERO WIDTH SPACE */

size_t bf_text_hidden_len(const char *s, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = bf_utf8_len(p, SIZE_MAX);
	unsigned c;

	if (n == 2)
		c = (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
	else if (n == 3)
		c = (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
	else
		return 0;
	if ((c >= 0x80 && c <= 0x9f) || c == 0x61c || c == 0x200e ||
	    c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069)) {
		if (cp)
			*cp = c;
		return n;
	}
	return 0;
}

void bf_text_add_inert(struct bf_buf *b, const char *s, int flags)
{
	const unsigned char *p = (const unsigned char *)s;
	int line_start = 1; /* only blanks since the line began */

	while (*p) {
		size_t n = bf_utf8_len(p, SIZE_MAX);
		unsigned cp;

		if (*p == '\n') {
			bf_buf_addstr(b, flags & BF_TEXT_LINES ? "\n" : " | ");
			line_start = flags & BF_TEXT_LINES;
			p++;
			continue;
		}
		if (line_start && p[0] == ':' && p[1] == ':') {
			bf_buf_addstr(b, ":" ZWSP);
			line_start = 0;
			p++;
			continue;
		}
		if (*p != ' ' && *p != '\t')
			line_start = 0;
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f || !n) {
			bf_buf_addf(b, "\\x%02x", *p);
			p++;
		} else if ((n = bf_text_hidden_len((const char *)p, &cp))) {
			bf_buf_addf(b, "\\u{%04X}", cp);
			p += n;
		} else {
			n = bf_utf8_len(p, SIZE_MAX);
			bf_buf_add(b, p, n);
			p += n;
		}
	}
}

char *bf_text_inert(const char *s, int flags)
{
	struct bf_buf b = BF_BUF_INIT;

	bf_text_add_inert(&b, s, flags);
	return bf_buf_detach(&b, NULL);
}
