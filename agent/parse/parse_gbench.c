#include "parse/parse.h"

#include <limits.h>
#include <math.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"

/*
 * Stands in for the bare NaN and Infinity tokens that Google Benchmark
 * writes for non-finite counters and that no JSON parser accepts.
 */
#define NONFINITE_MARK "~"

/* Row fields that are not user counters. */
static const char *const std_fields[] = {
	"name",
	"run_name",
	"run_type",
	"family_index",
	"per_family_instance_index",
	"repetitions",
	"repetition_index",
	"threads",
	"iterations",
	"real_time",
	"cpu_time",
	"time_unit",
	"aggregate_name",
	"aggregate_unit",
	"error_occurred",
	"error_message",
	"skipped",
	"skip_message",
	"label",
};

/* Name suffixes of aggregate rows in versions without run_type. */
static const char *const old_aggregates[] = {
	"_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS",
};

enum row_kind { ROW_ITERATION, ROW_AGGREGATE, ROW_FAILED };

struct gb_state {
	struct bf_samples *out;
	const char *what;
	struct bf_parse__counter seen; /* rows per name, names borrowed */
	size_t kept; /* rows that gave samples */
	size_t failed; /* rows with error_occurred or skipped */
	size_t aggregates;
	const char *first_failed; /* borrowed from the JSON */
	const char *first_message;
};

static size_t nonfinite_token(const char *p, size_t left)
{
	static const char *const tokens[] = { "-Infinity", "Infinity", "-NaN",
		                              "NaN" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(tokens); i++) {
		size_t n = strlen(tokens[i]);

		if (n <= left && !memcmp(p, tokens[i], n))
			return n;
	}
	return 0;
}

/*
 * Returns a copy of text with each NaN/Infinity token outside strings
 * replaced by the string NONFINITE_MARK padded to the same length (so
 * that parse errors keep their line and column), or NULL when there is
 * none. Caller frees.
 */
static char *replace_nonfinite(const char *text, size_t len)
{
	char *copy = NULL;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		size_t n;

		if (in_str) {
			if (text[i] == '\\')
				i++;
			else if (text[i] == '"')
				in_str = false;
			continue;
		}
		if (text[i] == '"') {
			in_str = true;
			continue;
		}
		if (!strchr("-NI", text[i]) || !text[i])
			continue;
		n = nonfinite_token(text + i, len - i);
		if (!n)
			continue;
		if (!copy) {
			copy = bf_xmalloc(len + 1);
			memcpy(copy, text, len);
			copy[len] = '\0';
		}
		memset(copy + i, ' ', n);
		memcpy(copy + i, "\"" NONFINITE_MARK "\"", 3);
		i += n - 1;
	}
	return copy;
}

static bool is_std_field(const char *key)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(std_fields); i++)
		if (!strcmp(std_fields[i], key))
			return true;
	return false;
}

/* Old versions mark aggregates only by a suffix on a name seen before. */
static bool is_old_aggregate(const struct gb_state *st, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < BF_ARRAY_SIZE(old_aggregates); i++) {
		size_t n = strlen(old_aggregates[i]);
		char *base;
		bool seen;

		if (len <= n || strcmp(name + len - n, old_aggregates[i]))
			continue;
		base = bf_xstrndup(name, len - n);
		seen = bf_parse__counter_get(&st->seen, base) > 0;
		free(base);
		if (seen)
			return true;
	}
	return false;
}

static enum row_kind row_kind(const struct gb_state *st, const json_t *row)
{
	const char *type = bf_json_str_or(row, "run_type", NULL);
	const char *name = bf_json_str_or(row, "name", "");

	if (type && !strcmp(type, "aggregate"))
		return ROW_AGGREGATE;
	if (!type && (json_object_get(row, "aggregate_name") ||
	              is_old_aggregate(st, name)))
		return ROW_AGGREGATE;
	if (json_is_true(json_object_get(row, "error_occurred")) ||
	    json_is_true(json_object_get(row, "skipped")))
		return ROW_FAILED;
	return ROW_ITERATION;
}

static void note_failed(struct gb_state *st, const json_t *row)
{
	const char *msg = bf_json_str_or(row, "error_message", NULL);

	st->failed++;
	if (st->first_failed)
		return;
	st->first_failed = bf_json_str_or(row, "name", "?");
	st->first_message =
	        msg ? msg : bf_json_str_or(row, "skip_message", "skipped");
}

static int check_name(const struct gb_state *st, const char *name,
                      const char *kind, size_t idx, struct bf_err *err)
{
	size_t len = strlen(name);

	if (!len)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmarks[%zu]: empty %s", st->what,
		                  idx, kind);
	if (len > BF_PARSE_NAME_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmarks[%zu]: %s of %zu bytes exceeds the limit of %d",
		        st->what, idx, kind, len, BF_PARSE_NAME_MAX);
	return 0;
}

/* Reads a time field as nanoseconds; cpu_time may be missing. */
static int get_time(double *out, bool *found, const json_t *row,
                    const char *key, double scale, const char *name,
                    const struct gb_state *st, struct bf_err *err)
{
	const json_t *v = json_object_get(row, key);
	const char *why = NULL;

	*found = v != NULL;
	if (!v)
		return 0;
	if (json_is_string(v) && !strcmp(json_string_value(v), NONFINITE_MARK))
		why = "is not a finite number";
	else if (!json_is_number(v))
		why = "is not a number";
	else if (json_number_value(v) < 0)
		why = "is negative";
	else if (!isfinite(json_number_value(v) * scale))
		why = "is too large in nanoseconds";
	if (why)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmark '%.100s': '%s' %s", st->what,
		                  name, key, why);
	*out = json_number_value(v) * scale;
	return 0;
}

static int add_times(struct gb_state *st, const json_t *row, const char *name,
                     int iteration, struct bf_err *err)
{
	const char *unit = bf_json_str_or(row, "time_unit", NULL);
	double scale = unit ? bf_parse__ns_per_unit(unit) : 0;
	double real = 0, cpu = 0;
	bool has_real, has_cpu;
	int ret;

	if (!scale)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmark '%.100s': %s time_unit '%.20s' (expected ns, us, ms or s)",
		        st->what, name, unit ? "unknown" : "missing",
		        unit ? unit : "");
	ret = get_time(&real, &has_real, row, "real_time", scale, name, st,
	               err);
	if (!ret)
		ret = get_time(&cpu, &has_cpu, row, "cpu_time", scale, name, st,
		               err);
	if (ret)
		return ret;
	if (!has_real)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmark '%.100s': missing 'real_time'",
		                  st->what, name);
	bf_samples_add(st->out, name, "real_time", "ns", real, iteration);
	if (has_cpu)
		bf_samples_add(st->out, name, "cpu_time", "ns", cpu, iteration);
	return 0;
}

static const char *counter_unit(const char *key)
{
	static const char suffix[] = "_per_second";
	size_t len = strlen(key), n = sizeof(suffix) - 1;

	return len > n && !strcmp(key + len - n, suffix) ? "/s" : "";
}

static int add_counters(struct gb_state *st, const json_t *row,
                        const char *name, int iteration, struct bf_err *err)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)row, key, v)
	{
		if (is_std_field(key) || !json_is_number(v))
			continue;
		if (strlen(key) > BF_PARSE_NAME_MAX)
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: benchmark '%.100s': counter name exceeds %d bytes",
			        st->what, name, BF_PARSE_NAME_MAX);
		bf_samples_add(st->out, name, key, counter_unit(key),
		               json_number_value(v), iteration);
	}
	return 0;
}

static int get_iteration(int *out, const struct gb_state *st, const json_t *row,
                         const char *name, int count, struct bf_err *err)
{
	const json_t *v = json_object_get(row, "repetition_index");

	if (!v) {
		*out = count;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > INT_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmark '%.100s': 'repetition_index' is not a non-negative integer",
		        st->what, name);
	*out = (int)json_integer_value(v);
	return 0;
}

static int parse_row(struct gb_state *st, const json_t *row, size_t idx,
                     struct bf_err *err)
{
	const json_t *jname = json_object_get(row, "name");
	const char *name;
	int count, iteration = 0, ret;

	if (!json_is_string(jname))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmarks[%zu]: %s 'name'", st->what,
		                  idx, jname ? "non-string" : "missing");
	name = json_string_value(jname);
	ret = check_name(st, name, "name", idx, err);
	if (ret)
		return ret;
	count = bf_parse__counter_next(&st->seen, name);
	ret = get_iteration(&iteration, st, row, name, count, err);
	if (!ret)
		ret = add_times(st, row, name, iteration, err);
	if (!ret)
		ret = add_counters(st, row, name, iteration, err);
	if (!ret)
		st->kept++;
	return ret;
}

static int parse_rows(struct gb_state *st, const json_t *root,
                      struct bf_err *err)
{
	const json_t *rows = json_object_get(root, "benchmarks");
	const json_t *row;
	size_t idx;
	int ret = 0;

	if (!json_is_object(root) || !json_is_array(rows))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: not Google Benchmark JSON: no 'benchmarks' array",
		        st->what);
	json_array_foreach(rows, idx, row)
	{
		if (!json_is_object(row))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: benchmarks[%zu] is not an object",
			        st->what, idx);
		switch (row_kind(st, row)) {
		case ROW_AGGREGATE:
			st->aggregates++;
			break;
		case ROW_FAILED:
			note_failed(st, row);
			break;
		case ROW_ITERATION:
			ret = parse_row(st, row, idx, err);
			break;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Every row was skipped: say why, so that the report is actionable. */
static int no_results(const struct gb_state *st, struct bf_err *err)
{
	if (st->failed)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: all %zu benchmark runs failed; first '%.100s': %.100s",
		        st->what, st->failed, st->first_failed,
		        st->first_message);
	if (st->aggregates)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: only aggregate rows (mean, median, ...), no repetitions; do not pass --benchmark_report_aggregates_only",
		        st->what);
	return bf_err_set(err, BF_EINVAL, "%s: no benchmark results", st->what);
}

static int gb_doc(void *state, const json_t *root, struct bf_err *err)
{
	struct gb_state *st = state;
	int ret = parse_rows(st, root, err);

	return ret || st->kept ? ret : no_results(st, err);
}

static const struct bf_parse__json_format gbench_json = {
	"Google Benchmark JSON",
	replace_nonfinite,
	gb_doc,
};

int bf_parse_gbench(struct bf_samples *out, const char *text, size_t len,
                    const char *what, struct bf_err *err)
{
	struct gb_state st = { .out = out, .seen = BF_PARSE__COUNTER_INIT };
	int ret;

	st.what = what ? what : "output";
	ret = bf_parse__json(out, text, len, st.what, &gbench_json, &st, err);
	bf_parse__counter_release(&st.seen);
	return ret;
}
