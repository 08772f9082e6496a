#include "benchfarm/sample.h"

#include <string.h>

#include "benchfarm/alloc.h"

void bf_samples_init(struct bf_samples *s)
{
	s->v = NULL;
	s->n = 0;
	s->alloc = 0;
}

void bf_samples_release(struct bf_samples *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].benchmark);
		free(s->v[i].metric);
		free(s->v[i].unit);
	}
	free(s->v);
	bf_samples_init(s);
}

void bf_samples_add(struct bf_samples *s, const char *benchmark,
                    const char *metric, const char *unit, double value,
                    int iteration)
{
	struct bf_sample *x;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 16;
		s->v = bf_xreallocarray(s->v, s->alloc, sizeof(*s->v));
	}
	x = &s->v[s->n++];
	x->benchmark = bf_xstrdup(benchmark);
	x->metric = bf_xstrdup(metric);
	x->unit = bf_xstrdup(unit ? unit : "");
	x->value = value;
	x->iteration = iteration;
}

bool bf_unit_is_amount(const char *unit)
{
	static const char *const amounts[] = {
		"ns",    "us",  "\xc2\xb5s", "\xce\xbcs",    "ms",
		"s",     "B",   "bytes",     "byte",         "KB",
		"kB",    "KiB", "MB",        "MiB",          "GB",
		"GiB",   "TB",  "TiB",       "instructions", "cycles",
		"count",
	};
	size_t len = unit ? strlen(unit) : 0;

	if (len >= 2 && !strcmp(unit + len - 2, "/s"))
		return true;
	for (size_t i = 0; i < BF_ARRAY_SIZE(amounts) && len; i++)
		if (!strcmp(amounts[i], unit))
			return true;
	return false;
}
