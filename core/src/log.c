#include "benchfarm/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"

int bf_log_level_current = BF_LOG_WARN;
static const char *log_prog = "benchfarm";

void bf_log_set_level(int level)
{
	bf_log_level_current = level;
}

void bf_log_set_prog(const char *prog)
{
	log_prog = prog;
}

/*
 * One log entry is one line: a line break in the message (a device's
 * stderr tail, say) becomes " | " and other control characters \xNN, so
 * what a benchmark prints can neither start a CI workflow command
 * ("::error::" at the start of a line) nor drive the terminal.
 */
static void put_one_line(FILE *f, const char *msg)
{
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p == '\n')
			fputs(" | ", f);
		else if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

void bf_log(int level, const char *fmt, ...)
{
	static const char *const names[] = { "", "error", "warning", "info",
		                             "debug" };
	va_list ap;
	char *msg;

	if (level > bf_log_level_current || level <= BF_LOG_QUIET)
		return;
	if (level > BF_LOG_DEBUG)
		level = BF_LOG_DEBUG;
	va_start(ap, fmt);
	msg = bf_xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s: ", log_prog, names[level]);
	put_one_line(stderr, msg);
	fputc('\n', stderr);
	free(msg);
}
