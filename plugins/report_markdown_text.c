#include "report_markdown_int.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "report_util.h"

/*
 * The markdown reporter's text: every string from the result document
 * goes through bf_md_text, so that no benchmark name can close a table,
 * open a link, mention a user or inject HTML; numbers as people read them.
 */

#define NAME_MAX_BYTES 160 /* longer names are cut, at a UTF-8 boundary */
#define ZWSP           "\xe2\x80\x8b" /* U+200B ZERO WIDTH SPACE */

/*
 * Markdown-safe text, at most max bytes of s (0: all): HTML
 * metacharacters become entities, markdown punctuation is
 * backslash-escaped, control characters and line breaks become spaces,
 * and C1 controls and invisible direction overrides (bf_text_hidden_len)
 * are shown as \u{NNNN}, as on the terminal.
 * A zero-width space (U+200B) follows each '@', so no name mentions
 * anyone (an entity such as &#64; may be decoded before GitHub looks for
 * mentions; Dependabot and Renovate write "@\u200b" too), each ':'
 * before "//", so no "http://" or "https://" in a name becomes a link,
 * and the "www" of each "www." (GFM's extended autolink), in any case.
 */
static void add_text_max(struct bf_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s), hidden;
	bool cut = max && n > max;
	unsigned cp;

	if (cut) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--; /* not in the middle of a UTF-8 sequence */
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<')
			bf_buf_addstr(b, "&lt;");
		else if (c == '>')
			bf_buf_addstr(b, "&gt;");
		else if (c == '&')
			bf_buf_addstr(b, "&amp;");
		else if (c == '@' || (c == ':' && i + 2 < n &&
		                      s[i + 1] == '/' && s[i + 2] == '/'))
			bf_buf_addf(b, "%c" ZWSP, c);
		else if (i + 3 < n && !strncasecmp(s + i, "www.", 4)) {
			bf_buf_addf(b, "%.3s" ZWSP, s + i);
			i += 2; /* the '.' is next */
		} else if (c == '"')
			bf_buf_addstr(b, "&quot;");
		else if (strchr("|\\`*_[]#!~", c) && c)
			bf_buf_addf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			bf_buf_addch(b, ' ');
		else if ((hidden = bf_text_hidden_len(s + i, &cp))) {
			bf_buf_addf(b, "\\u{%04X}", cp); /* shown, not obeyed */
			i += hidden - 1;
		} else
			bf_buf_addch(b, (char)c);
	}
	if (cut)
		bf_buf_addstr(b, "…");
}

void bf_md_text(struct bf_buf *b, const char *s)
{
	add_text_max(b, s, 0);
}

void bf_md_name(struct bf_buf *b, const char *s)
{
	add_text_max(b, s, NAME_MAX_BYTES);
}

void bf_md_commit(struct bf_buf *b, const char *c)
{
	size_t n = strlen(c);

	if (n && strspn(c, "0123456789abcdef") == n)
		bf_buf_addf(b, "`%.12s`", c);
	else
		bf_md_name(b, c);
}

void bf_md_value(struct bf_buf *b, double v, const char *unit)
{
	if (!isfinite(v))
		bf_buf_addstr(b, "–");
	else if (!strcmp(unit, "ns") && fabs(v) >= 1e6)
		bf_buf_addf(b, "%.3f ms", v / 1e6);
	else if (!strcmp(unit, "ns") && fabs(v) >= 1e3)
		bf_buf_addf(b, "%.3f µs", v / 1e3);
	else {
		bf_buf_addf(b, "%.4g ", v);
		bf_md_name(b, unit);
	}
}

void bf_md_percent(struct bf_buf *b, double f)
{
	if (isfinite(f))
		bf_buf_addf(b, "%+.1f%%", 100 * f);
	else
		bf_buf_addstr(b, "–");
}

void bf_md_cell(struct bf_buf *b, const json_t *o, const char *key)
{
	bf_md_name(b, bf_json_str_or(o, key, "?"));
	bf_buf_addstr(b, " | ");
}

void bf_md_repeats(struct bf_buf *b, const json_t *settings, const char *unit)
{
	const json_t *list = json_object_get(settings, "benchmarks"), *a;
	struct bf_rep_repeats r;
	bool first = true;
	size_t i;

	bf_rep_repeats(&r, settings);
	bf_buf_addf(b, "%lld %s", r.most, unit);
	json_array_foreach(list, i, a)
	{
		long long v = json_integer_value(json_object_get(a, "repeats"));

		if (v == r.most)
			continue;
		bf_buf_addf(b, "%s%lld for ", first ? " (" : ", ", v);
		bf_md_name(b, bf_json_str_or(a, "benchmark", "?"));
		first = false;
	}
	if (!first)
		bf_buf_addch(b, ')');
}
