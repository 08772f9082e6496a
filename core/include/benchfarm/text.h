#ifndef BF_TEXT_H
#define BF_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "benchfarm/common.h"

struct bf_buf;

/*
 * Inert text: how every string a device, an agent or a benchmark
 * supplied (check ids and messages, benchmark names, stderr tails) is
 * printed to a terminal or a CI log, so that it can neither drive the
 * terminal nor start a CI command nor reorder what is shown around it:
 *
 * - a line feed becomes " | " (one line), or stays with BF_TEXT_LINES;
 * - other C0 controls (carriage return, ESC, ...) and DEL become \xNN,
 *   a tab stays;
 * - C1 controls (U+0080 to U+009F: CSI and the like) and the invisible
 *   direction controls (U+061C, U+200E, U+200F, U+202A to U+202E,
 *   U+2066 to U+2069: "Trojan Source") become \u{NNNN};
 * - a byte that starts no well-formed UTF-8 sequence becomes \xNN;
 * - "::" at the start of the text or (with BF_TEXT_LINES) of a line,
 *   after blanks, becomes ":" U+200B ":", so no line is a GitHub
 *   Actions workflow command ("::error::", "::set-output") and a human
 *   still reads it unchanged.
 */
#define BF_TEXT_LINES 1 /* keep line feeds (a multi-line block) */

void bf_text_add_inert(struct bf_buf *b, const char *s, int flags);

/* s as inert text (bf_text_add_inert); caller frees. */
char *bf_text_inert(const char *s, int flags);

/*
 * The number of bytes of the C1 control or invisible direction control
 * at s (2 or 3), or 0 when s starts none: for renderers with an escape
 * of their own (markdown), which must show such characters, not keep
 * them. *cp gets the code point.
 */
size_t bf_text_hidden_len(const char *s, unsigned *cp);

/*
 * printf into b, to f, where every %s argument is inert text
 * (bf_text_add_inert, flags 0: one line, "::" at its start broken) and
 * the format itself is kept as it is: how a command prints a table or
 * a line of names that a benchmark, a device or a store supplied, so
 * that no call site can forget one. A precision cuts the argument
 * before it is escaped, at a character's start; a width pads what is
 * shown. The conversions of C11 printf but %n and wide strings (a
 * programming error: BF_BUG). bf_text_printf returns the bytes written
 * or -1.
 */
void bf_text_addf(struct bf_buf *b, const char *fmt, ...) BF_PRINTF(2, 3);
void bf_text_vaddf(struct bf_buf *b, const char *fmt, va_list ap)
        BF_PRINTF(2, 0);
int bf_text_printf(FILE *f, const char *fmt, ...) BF_PRINTF(2, 3);

#endif /* BF_TEXT_H */
