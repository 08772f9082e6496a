#include "postsubmit/bisect.h"

#include <math.h>
#include <string.h>

#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "job/compare.h"

/*
 * Which series a bisect follows, and why (the rule is in bisect.h):
 * the clearest change between good and bad, not the largest.
 */

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

double bf_bisect_clarity(const json_t *series)
{
	double e = num(series, "effect"), lo = num(series, "ci_low"),
	       hi = num(series, "ci_high"), half;

	if (!(e > -1 && lo > -1 && hi >= lo))
		return NAN; /* also any NaN */
	half = (log1p(hi) - log1p(lo)) / 2;
	if (half > 0)
		return fabs(log1p(e)) / half;
	return e != 0 ? INFINITY : NAN;
}

/* Whether a is clearer than b (b may be NULL). */
static bool clearer(const json_t *a, const json_t *b)
{
	double ca = bf_bisect_clarity(a), cb;

	if (!b)
		return true;
	cb = bf_bisect_clarity(b);
	if (isnan(ca) || isnan(cb))
		return !isnan(ca) && isnan(cb);
	if (ca != cb)
		return ca > cb;
	/* both without noise: the larger change */
	return fabs(num(a, "effect")) > fabs(num(b, "effect"));
}

static bool is_change(const json_t *r)
{
	const char *v = bf_json_str_or(r, "verdict", "");

	return !strcmp(v, "regressed") || !strcmp(v, "improved");
}

json_t *bf_bisect_choose(json_t **runner_up_out, const json_t *result,
                         const char *name, const char *metric, bool need_change)
{
	json_t *best = NULL, *second = NULL, *r;
	size_t i;

	json_array_foreach(json_object_get(result, "results"), i, r)
	{
		if ((name && strcmp(bf_json_str_or(r, "name", ""), name)) ||
		    (metric && strcmp(bf_json_str_or(r, "metric", ""), metric)))
			continue;
		if (need_change && !is_change(r))
			continue;
		if (clearer(r, best)) {
			second = best;
			best = r;
		} else if (clearer(r, second)) {
			second = r;
		}
	}
	if (runner_up_out)
		*runner_up_out = second;
	return best;
}

/* One series as the choice shows it. */
static json_t *series_json(const json_t *s)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "series",
	                 bf_json_str_or(s, "name", ""), "metric",
	                 bf_json_str_or(s, "metric", ""), "effect",
	                 bf_json_real_or_null(num(s, "effect")), "ci_low",
	                 bf_json_real_or_null(num(s, "ci_low")), "ci_high",
	                 bf_json_real_or_null(num(s, "ci_high")), "clarity",
	                 bf_json_real_or_null(bf_bisect_clarity(s)));
}

json_t *bf_bisect_choice_json(const json_t *chosen, const json_t *runner_up,
                              bool named)
{
	json_t *c = series_json(chosen);

	json_object_set_new(c, "rule",
	                    json_string(named ? "named" : "clearest"));
	json_object_set_new(c, "runner_up",
	                    runner_up ? series_json(runner_up) : json_null());
	return c;
}

json_t *bf_bisect_endpoints_json(const json_t *result)
{
	json_t *arr = json_array();
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(result, "results"), i, r)
	{
		json_t *e = series_json(r);

		json_object_set_new(
		        e, "verdict",
		        json_string(bf_json_str_or(r, "verdict", "?")));
		json_array_append_new(arr, e);
	}
	return arr;
}

/* "48.1 times", or "no noise" for an interval of no width. */
static void print_clarity(FILE *f, const json_t *s)
{
	const json_t *c = json_object_get(s, "clarity");
	double e = num(s, "effect");

	bf_text_printf(f, "%+.1f%% [%+.1f%%, %+.1f%%], ", 100 * e,
	               100 * num(s, "ci_low"), 100 * num(s, "ci_high"));
	if (json_is_number(c))
		bf_text_printf(
		        f,
		        "its log change %.3g times the interval's half-width",
		        json_number_value(c));
	else if (isfinite(e) && json_is_number(json_object_get(s, "ci_low")))
		fputs("an interval of no width", f);
	else
		fputs("no interval", f);
}

void bf_bisect_choice_print(FILE *f, const json_t *choice)
{
	const char *rule = bf_json_str_or(choice, "rule", "");
	const json_t *ru = json_object_get(choice, "runner_up");

	if (!strcmp(rule, "score")) {
		bf_text_printf(f, "  %s alert over this range, %s score %.3g: ",
		               json_is_object(ru) ? "the surest" : "the only",
		               bf_json_str_or(choice, "detector", "?"),
		               num(choice, "score"));
		print_clarity(f, choice);
		if (json_is_object(ru))
			bf_text_printf(f, "; runner-up %s %s, score %.3g",
			               bf_json_str_or(ru, "series", "?"),
			               bf_json_str_or(ru, "metric", "?"),
			               num(ru, "score"));
		fputc('\n', f);
		return;
	}
	bf_text_printf(f, "  %s: ",
	               !strcmp(rule, "named") ? "named with --series/--metric"
	                                      : "the clearest change");
	print_clarity(f, choice);
	if (json_is_object(ru)) {
		bf_text_printf(f, "; runner-up %s %s: ",
		               bf_json_str_or(ru, "series", "?"),
		               bf_json_str_or(ru, "metric", "?"));
		print_clarity(f, ru);
	} else if (!strcmp(rule, "clearest")) {
		fputs("; no other series changed", f);
	}
	fputc('\n', f);
}

bool bf_bisect_explains(const json_t *result, const char *name,
                        const char *metric, const char *direction)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(result, "endpoints"), i, e)
	{
		if (!strcmp(bf_json_str_or(e, "series", ""), name) &&
		    !strcmp(bf_json_str_or(e, "metric", ""), metric))
			return !strcmp(bf_json_str_or(e, "verdict", ""),
			               direction);
	}
	return false;
}
