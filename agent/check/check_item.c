#include "check/check.h"

#include <stdarg.h>
#include <stdio.h>

#include "probe/probe.h"

/*
 * What every check_*.c file writes its outcome with; below all of them,
 * so that check_eval.c can call the evaluators of the other files.
 */

void bf_check__set(struct bf_check_item *it, enum bf_check_status status,
                   double value, double threshold, const char *fmt, ...)
{
	va_list ap;

	it->status = status;
	it->value = value;
	it->threshold = threshold;
	va_start(ap, fmt);
	vsnprintf(it->message, sizeof(it->message), fmt, ap);
	va_end(ap);
}

const char *bf_check__probe_error(const struct bf_probe *p, const char *needle)
{
	for (size_t i = 0; i < p->errors.argc; i++)
		if (strstr(p->errors.argv[i], needle))
			return p->errors.argv[i];
	return "";
}
