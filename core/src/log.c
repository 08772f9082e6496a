#include "benchfarm/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/text.h"

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
 * One log entry is one line of inert text (bf_text_add_inert): what a
 * benchmark or device prints (a stderr tail, say) can neither start a
 * CI workflow command nor drive the terminal.
 */
void bf_log(int level, const char *fmt, ...)
{
	static const char *const names[] = { "", "error", "warning", "info",
		                             "debug" };
	va_list ap;
	char *msg, *line;

	if (level > bf_log_level_current || level <= BF_LOG_QUIET)
		return;
	if (level > BF_LOG_DEBUG)
		level = BF_LOG_DEBUG;
	va_start(ap, fmt);
	msg = bf_xvasprintf(fmt, ap);
	va_end(ap);
	line = bf_text_inert(msg, 0);
	fprintf(stderr, "%s: %s: %s\n", log_prog, names[level], line);
	free(line);
	free(msg);
}
