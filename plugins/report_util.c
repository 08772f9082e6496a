#include "report_util.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "benchfarm/json.h"

int bf_rep_results(const json_t **out, const json_t *result, struct bf_err *err)
{
	const json_t *r = json_object_get(result, "results");

	if (!json_is_array(r))
		return bf_err_set(err, BF_EINVAL,
		                  "the result has no \"results\" array (is it "
		                  "the JSON of 'benchfarm compare --json'?)");
	*out = r;
	return 0;
}

const char *bf_rep_verdict(const json_t *r)
{
	const char *v = bf_json_str_or(r, "verdict", "error");

	if (json_is_false(json_object_get(r, "gated")) &&
	    (!strcmp(v, "regressed") || !strcmp(v, "improved")))
		return "ungated";
	return v;
}

size_t bf_rep_count(const json_t *results, const char *verdict)
{
	size_t i, n = 0;
	json_t *r;

	json_array_foreach(results, i, r) n +=
	        !strcmp(bf_rep_verdict(r), verdict);
	return n;
}

bool bf_rep_has_infra(const json_t *result)
{
	const json_t *s = json_object_get(result, "summary");

	return strcmp(bf_json_str_or(result, "status", "ok"), "ok") ||
	       json_array_size(json_object_get(result, "errors")) ||
	       json_integer_value(json_object_get(s, "errors")) ||
	       json_integer_value(json_object_get(s, "failed_runs")) ||
	       bf_rep_count(json_object_get(result, "results"), "error");
}

const json_t *bf_rep_devices_out(const json_t *result)
{
	const json_t *out = json_object_get(result, "devices_out");

	return json_array_size(out) ? out : NULL;
}

void bf_rep_add_device_out(struct bf_buf *b, const json_t *dev)
{
	bf_buf_addf(b, "%s (%s%s): %s", bf_json_str_or(dev, "name", "?"),
	            bf_json_str_or(dev, "health", "?"),
	            json_is_true(json_object_get(dev, "skipped"))
	                    ? ", skipped for this run"
	                    : "",
	            bf_json_str_or(dev, "why", ""));
}

bool bf_rep_compared_nothing(const json_t *results)
{
	return !json_array_size(results);
}

bool bf_rep_all_clear(const json_t *result, const json_t *results)
{
	return !bf_rep_has_infra(result) && !bf_rep_compared_nothing(results) &&
	       !bf_rep_count(results, "regressed") &&
	       !bf_rep_count(results, "unknown") &&
	       !(bf_rep_missing_fails(result) &&
	         bf_rep_count(results, "missing"));
}

void bf_rep_add_no_regressions(struct bf_buf *b, const json_t *results,
                               bool cap)
{
	size_t unknown = bf_rep_count(results, "unknown");

	if (unknown && unknown == json_array_size(results)) {
		bf_buf_addf(b,
		            "%cot conclusive: too few or too noisy samples to "
		            "tell",
		            cap ? 'N' : 'n');
		return;
	}
	bf_buf_addf(b, "%co regressions", cap ? 'N' : 'n');
	if (unknown)
		bf_buf_addf(b, ", %zu not conclusive", unknown);
}

bool bf_rep_fail_on_regression(const json_t *result)
{
	const json_t *set = json_object_get(result, "settings");

	return strcmp(bf_json_str_or(set, "fail_on", "regression"), "never");
}

bool bf_rep_missing_counts(const json_t *result)
{
	const json_t *set = json_object_get(result, "settings");

	return strcmp(bf_json_str_or(set, "missing_series", "fail"), "ignore");
}

bool bf_rep_missing_fails(const json_t *result)
{
	return bf_rep_fail_on_regression(result) &&
	       bf_rep_missing_counts(result);
}

size_t bf_rep_count_failing(const json_t *result, const json_t *results)
{
	return bf_rep_count(results, "regressed") +
	       (bf_rep_missing_fails(result) ? bf_rep_count(results, "missing")
	                                     : 0);
}

void bf_rep_add_missing(struct bf_buf *b, const json_t *r)
{
	const char *side = bf_json_str_or(r, "missing", "");

	bf_buf_addf(b, "missing on the %s side",
	            !strcmp(side, "base") ? "base" : "patch");
}

double bf_rep_num(const json_t *r, const char *key)
{
	const json_t *v = json_object_get(r, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

void bf_rep_title(struct bf_buf *b, const json_t *r)
{
	bf_buf_addf(b, "%s/%s %s", bf_json_str_or(r, "benchmark", "?"),
	            bf_json_str_or(r, "name", "?"),
	            bf_json_str_or(r, "metric", "?"));
}

const char *bf_rep_repo_path(const char *path)
{
	const char *f = path;

	if (!f)
		return NULL;
	while (!strncmp(f, "./", 2))
		f += 2;
	if (!*f || *f == '/' || strlen(f) > 4096)
		return NULL;
	for (const char *p = f; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return NULL;
	for (const char *p = f; p; p = strchr(p, '/')) {
		p += *p == '/';
		if (!strncmp(p, "..", 2) && (!p[2] || p[2] == '/'))
			return NULL;
	}
	return f;
}

const char *bf_rep_source_file(const json_t *r, long *line)
{
	const json_t *src = json_object_get(r, "source");
	const char *f = bf_rep_repo_path(bf_json_str_or(src, "file", NULL));
	json_int_t l = json_integer_value(json_object_get(src, "line"));

	*line = f && l > 0 && l <= INT_MAX ? (long)l : 0;
	return f;
}

const char *bf_rep_source(const json_t *result, const json_t *r, long *line)
{
	const char *file = bf_rep_source_file(r, line);

	return file ? file
	            : bf_rep_repo_path(bf_json_str_or(result, "config", NULL));
}

static void add_pct(struct bf_buf *b, double f, const char *missing)
{
	if (isfinite(f))
		bf_buf_addf(b, "%+.1f%%", 100 * f);
	else
		bf_buf_addstr(b, missing);
}

void bf_rep_add_run(struct bf_buf *b, const json_t *e)
{
	const json_t *rep = json_object_get(e, "repeat");

	if (!json_is_integer(rep))
		bf_buf_addstr(b, "run ?");
	else if (json_integer_value(rep) < 0)
		bf_buf_addstr(b, "warmup");
	else
		bf_buf_addf(b, "run %lld",
		            (long long)json_integer_value(rep) + 1);
}

void bf_rep_add_effect(struct bf_buf *b, const json_t *r, const char *missing)
{
	add_pct(b, bf_rep_num(r, "effect"), missing);
	if (isfinite(bf_rep_num(r, "ci_low")) &&
	    isfinite(bf_rep_num(r, "ci_high"))) {
		bf_buf_addstr(b, " [");
		add_pct(b, bf_rep_num(r, "ci_low"), missing);
		bf_buf_addstr(b, ", ");
		add_pct(b, bf_rep_num(r, "ci_high"), missing);
		bf_buf_addch(b, ']');
	}
}

void bf_rep_change(struct bf_buf *b, const json_t *r)
{
	bf_rep_add_effect(b, r, "?");
	if (isfinite(bf_rep_num(r, "p_adjusted")))
		bf_buf_addf(b, ", p %.3g", bf_rep_num(r, "p_adjusted"));
}

void bf_rep_add_cut(struct bf_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max) {
		bf_buf_add(b, s, n);
		return;
	}
	n = max;
	while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	bf_buf_add(b, s, n);
	bf_buf_addstr(b, "…");
}

int bf_rep_add_json(struct bf_buf *out, json_t *doc, const char *what,
                    struct bf_err *err)
{
	char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER)
	                 : NULL;

	json_decref(doc);
	if (!text)
		return bf_err_set(err, BF_EINVAL,
		                  "cannot encode %s: a text in it is not UTF-8",
		                  what);
	bf_buf_addstr(out, text);
	bf_buf_addch(out, '\n');
	free(text);
	return 0;
}

static size_t utf8_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* How many times needle occurs in s. */
static long count(const char *s, const char *needle)
{
	long n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

char *bf_rep_cut_markdown(const char *md, size_t max, bool chars,
                          const char *note)
{
	static const char close[] = "\n</details>\n";
	struct bf_buf b = BF_BUF_INIT;
	size_t len = strlen(md), keep = 0, room;
	long open;

	if ((chars ? utf8_chars(md, len) : len) <= max) {
		bf_buf_add(&b, md, len);
		return bf_buf_detach(&b, NULL);
	}
	/* room for the note and one closing tag per <details>, in bytes */
	room = strlen(note) + (size_t)count(md, "<details>") * strlen(close);
	room = room < max ? max - room : 0;
	for (size_t i = 0, n = 0; i < len; i++) {
		n += !chars || ((unsigned char)md[i] & 0xC0) != 0x80;
		if (n > room)
			break;
		if (md[i] == '\n')
			keep = i + 1;
	}
	bf_buf_add(&b, md, keep);
	open = count(b.buf, "<details>") - count(b.buf, "</details>");
	while (open-- > 0)
		bf_buf_addstr(&b, close);
	bf_buf_addstr(&b, note);
	return bf_buf_detach(&b, NULL);
}

/* ---- bisect results ---- */

static const char *bisect_state(const json_t *result, size_t *n)
{
	const json_t *cand = json_object_get(result, "candidates");

	*n = json_array_size(cand);
	if (json_is_string(json_object_get(result, "culprit")))
		return "culprit";
	return *n ? "candidates" : "none";
}

/* "micro alpha value regressed" (raw). */
static void add_bisect_series(struct bf_buf *b, const json_t *result)
{
	bf_buf_addf(b, "%s %s %s %s", bf_json_str_or(result, "benchmark", "?"),
	            bf_json_str_or(result, "series", "?"),
	            bf_json_str_or(result, "metric", "?"),
	            bf_json_str_or(result, "direction", "?"));
}

char *bf_rep_bisect_title(const json_t *result)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t n;
	const char *st = bisect_state(result, &n);

	if (!strcmp(st, "culprit"))
		bf_buf_addf(&b, "culprit %.12s: ",
		            bf_json_str_or(result, "culprit", "?"));
	else if (!strcmp(st, "candidates"))
		bf_buf_addf(&b, "culprit among %zu commits: ", n);
	if (strcmp(st, "none"))
		add_bisect_series(&b, result);
	else if (json_is_string(json_object_get(result, "direction")))
		bf_buf_addstr(&b, "no culprit: no commit of the range could be "
		                  "judged");
	else
		bf_buf_addf(&b,
		            "no culprit: no change between %.12s and %.12s "
		            "to bisect",
		            bf_json_str_or(result, "good", "?"),
		            bf_json_str_or(result, "bad", "?"));
	return bf_buf_detach(&b, NULL);
}

const char *bf_rep_bisect_conclusion(const json_t *result)
{
	size_t n;
	const char *dir = bf_json_str_or(result, "direction", "");

	if (!strcmp(bisect_state(result, &n), "none"))
		return "neutral";
	if (!strcmp(dir, "regressed"))
		return "failure";
	return !strcmp(dir, "improved") ? "success" : "neutral";
}

void bf_rep_detect_over(struct bf_buf *b, const json_t *result)
{
	const json_t *m = json_object_get(result, "measured");

	if (json_is_integer(m))
		bf_buf_addf(b, " over %lld measured commits",
		            (long long)json_integer_value(m));
	else
		bf_buf_addf(b, " over %lld commits",
		            (long long)json_integer_value(
		                    json_object_get(result, "commits")));
}

void bf_rep_repeats(struct bf_rep_repeats *r, const json_t *settings)
{
	const json_t *list = json_object_get(settings, "benchmarks"), *a, *x;
	size_t i, k, n, best = 0;

	r->most = json_integer_value(json_object_get(settings, "repeats"));
	r->lo = r->hi = r->most;
	/* on a tie, the runs' own count */
	json_array_foreach(list, k, x) best +=
	        json_integer_value(json_object_get(x, "repeats")) == r->most;
	json_array_foreach(list, i, a)
	{
		long long v = json_integer_value(json_object_get(a, "repeats"));

		r->lo = i && r->lo < v ? r->lo : v;
		r->hi = i && r->hi > v ? r->hi : v;
		n = 0;
		json_array_foreach(list, k, x) n +=
		        json_integer_value(json_object_get(x, "repeats")) == v;
		if (n > best) {
			best = n;
			r->most = v;
		}
	}
}
