#include "benchfarm/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
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

/*
 * The printf conversions bf_text_vaddf passes through: one spec (flags,
 * width, precision, length, conversion) of at most this many bytes.
 */
#define SPEC_MAX 32

struct spec {
	char flags[8];
	int width; /* -1: none */
	int prec; /* -1: none */
	char len[3]; /* "", "hh", "h", "l", "ll", "j", "z", "t", "L" */
	char conv;
};

/* Parse the spec after a '%' at *fmt; *fmt left after its conversion. */
static void spec_parse(struct spec *sp, const char **fmt, va_list *ap)
{
	const char *p = *fmt;
	size_t n = 0;

	memset(sp, 0, sizeof(*sp));
	sp->width = sp->prec = -1;
	while (*p && strchr("-+ #0", *p) && n < sizeof(sp->flags) - 1)
		sp->flags[n++] = *p++;
	if (*p == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->width = -sp->width;
			if (n < sizeof(sp->flags) - 1)
				sp->flags[n++] = '-';
		}
		p++;
	} else {
		for (sp->width = *p >= '0' && *p <= '9' ? 0 : -1;
		     *p >= '0' && *p <= '9'; p++)
			sp->width = sp->width * 10 + (*p - '0');
	}
	if (*p == '.') {
		p++;
		sp->prec = 0;
		if (*p == '*') {
			sp->prec = va_arg(*ap, int);
			p++;
		}
		for (; *p >= '0' && *p <= '9'; p++)
			sp->prec = sp->prec * 10 + (*p - '0');
	}
	for (n = 0; *p && strchr("hljztL", *p) && n < sizeof(sp->len) - 1;)
		sp->len[n++] = *p++;
	sp->conv = *p;
	if (*p)
		p++;
	*fmt = p;
}

/* The spec back as a printf format, with length replaced by len. */
static void spec_format(char *out, const struct spec *sp, const char *len)
{
	char w[16] = "", pr[16] = "";

	if (sp->width >= 0)
		snprintf(w, sizeof(w), "%d", sp->width);
	if (sp->prec >= 0)
		snprintf(pr, sizeof(pr), ".%d", sp->prec);
	snprintf(out, SPEC_MAX, "%%%s%s%s%s%c", sp->flags, w, pr, len,
	         sp->conv);
}

/*
 * A %s argument: at most prec bytes of s (cut at a character's start),
 * inert, padded with blanks to width.
 */
static void add_string(struct bf_buf *b, const struct spec *sp, const char *s)
{
	size_t n = s ? strlen(s) : 6;
	char *cut, *shown;
	size_t pad = 0;

	if (!s)
		s = "(null)";
	if (sp->prec >= 0 && (size_t)sp->prec < n) {
		n = (size_t)sp->prec;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	cut = bf_xstrndup(s, n);
	shown = bf_text_inert(cut, 0);
	if (sp->width >= 0 && strlen(shown) < (size_t)sp->width)
		pad = (size_t)sp->width - strlen(shown);
	if (!strchr(sp->flags, '-'))
		bf_buf_addf(b, "%*s", (int)pad, "");
	bf_buf_addstr(b, shown);
	if (strchr(sp->flags, '-'))
		bf_buf_addf(b, "%*s", (int)pad, "");
	free(shown);
	free(cut);
}

/*
 * One conversion other than %s and %%: its argument taken by its type
 * and printed as printf prints it (the format is built here, from a
 * spec parsed above, so it is not a literal).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void add_other(struct bf_buf *b, const struct spec *sp, va_list *ap)
{
	char f[SPEC_MAX];
	bool is_signed = sp->conv == 'd' || sp->conv == 'i';

	if (!sp->conv)
		BF_BUG("bf_text_vaddf: the format ends inside a conversion");
	if (strchr("diouxX", sp->conv)) {
		spec_format(f, sp, "j");
		if (is_signed) {
			intmax_t v =
			        !strcmp(sp->len, "l") ? va_arg(*ap, long)
			        : !strcmp(sp->len, "ll")
			                ? va_arg(*ap, long long)
			        : !strcmp(sp->len, "j") ? va_arg(*ap, intmax_t)
			        : !strcmp(sp->len, "z")
			                ? (intmax_t)va_arg(*ap, size_t)
			        : !strcmp(sp->len, "t") ? va_arg(*ap, ptrdiff_t)
			                                : va_arg(*ap, int);
			bf_buf_addf(b, f, v);
		} else {
			uintmax_t v =
			        !strcmp(sp->len, "l")
			                ? va_arg(*ap, unsigned long)
			        : !strcmp(sp->len, "ll")
			                ? va_arg(*ap, unsigned long long)
			        : !strcmp(sp->len, "j") ? va_arg(*ap, uintmax_t)
			        : !strcmp(sp->len, "z") ? va_arg(*ap, size_t)
			        : !strcmp(sp->len, "t")
			                ? (uintmax_t)va_arg(*ap, ptrdiff_t)
			                : va_arg(*ap, unsigned);
			bf_buf_addf(b, f, v);
		}
	} else if (strchr("fFeEgGaA", sp->conv)) {
		if (!strcmp(sp->len, "L")) {
			spec_format(f, sp, "L");
			bf_buf_addf(b, f, va_arg(*ap, long double));
		} else {
			spec_format(f, sp, "");
			bf_buf_addf(b, f, va_arg(*ap, double));
		}
	} else if (sp->conv == 'c' && !*sp->len) {
		spec_format(f, sp, "");
		bf_buf_addf(b, f, va_arg(*ap, int));
	} else if (sp->conv == 'p') {
		spec_format(f, sp, "");
		bf_buf_addf(b, f, va_arg(*ap, void *));
	} else {
		BF_BUG("bf_text_vaddf: unsupported conversion '%%%s%c'",
		       sp->len, sp->conv);
	}
}
#pragma GCC diagnostic pop

void bf_text_vaddf(struct bf_buf *b, const char *fmt, va_list ap)
{
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		struct spec sp;

		if (!pct) {
			bf_buf_addstr(b, fmt);
			break;
		}
		bf_buf_add(b, fmt, (size_t)(pct - fmt));
		fmt = pct + 1;
		if (*fmt == '%') {
			bf_buf_addch(b, '%');
			fmt++;
			continue;
		}
		spec_parse(&sp, &fmt, &aq);
		if (sp.conv == 's' && !*sp.len)
			add_string(b, &sp, va_arg(aq, const char *));
		else
			add_other(b, &sp, &aq);
	}
	va_end(aq);
}

void bf_text_addf(struct bf_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bf_text_vaddf(b, fmt, ap);
	va_end(ap);
}

int bf_text_printf(FILE *f, const char *fmt, ...)
{
	struct bf_buf b = BF_BUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	bf_text_vaddf(&b, fmt, ap);
	va_end(ap);
	ret = fwrite(b.buf, 1, b.len, f) == b.len ? (int)b.len : -1;
	bf_buf_release(&b);
	return ret;
}
