#include "parse/parse.h"

#include <math.h>

#include "benchfarm/err.h"
#include "benchfarm/json.h"

/* hyperfine always exports seconds. */
#define NS_PER_S 1e9

struct hf_state {
	struct bf_samples *out;
	const char *what;
	struct bf_parse__counter runs; /* wall_time samples per command */
	struct bf_parse__counter results; /* results per command */
	size_t idx; /* index in results[], for messages */
	const char *command; /* borrowed from the JSON */
};

/* A time in seconds as nanoseconds; why says what is wrong with it. */
static double to_ns(const json_t *v, const char **why)
{
	double ns = json_is_number(v) ? json_number_value(v) * NS_PER_S : 0;

	*why = NULL;
	if (!json_is_number(v))
		*why = "is not a number";
	else if (!isfinite(ns))
		*why = "is not a finite number";
	else if (ns < 0)
		*why = "is negative";
	return ns;
}

static int add_times(struct hf_state *st, const json_t *times,
                     struct bf_err *err)
{
	const json_t *v;
	const char *why;
	size_t i;
	double ns;

	if (!json_is_array(times))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: command '%.100s': %s 'times' (per-run wall times)",
		        st->what, st->command, times ? "non-array" : "missing");
	if (!json_array_size(times))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: command '%.100s': 'times' is empty",
		                  st->what, st->command);
	json_array_foreach(times, i, v)
	{
		ns = to_ns(v, &why);
		if (why)
			return bf_err_set(err, BF_EINVAL,
			                  "%s: command '%.100s': times[%zu] %s",
			                  st->what, st->command, i, why);
		bf_samples_add(st->out, st->command, "wall_time", "ns", ns,
		               bf_parse__counter_next(&st->runs, st->command));
	}
	return 0;
}

/*
 * exit_codes (written by Debian 12's hyperfine 1.15) are not judged: hyperfine
 * stops at a failing run unless -i says failures are expected. They are checked
 * for shape only, so that a damaged file does not pass.
 */
static int check_exit_codes(const struct hf_state *st, const json_t *row,
                            struct bf_err *err)
{
	const json_t *codes = json_object_get(row, "exit_codes");
	const json_t *v;
	size_t i, n = json_array_size(json_object_get(row, "times"));

	if (!codes)
		return 0;
	if (!json_is_array(codes))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: command '%.100s': non-array 'exit_codes'",
		        st->what, st->command);
	if (json_array_size(codes) != n)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: command '%.100s': 'exit_codes' has %zu entries for %zu times",
		        st->what, st->command, json_array_size(codes), n);
	json_array_foreach(codes, i, v)
	{
		if (!json_is_integer(v) && !json_is_null(v))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: command '%.100s': exit_codes[%zu] is not an integer",
			        st->what, st->command, i);
	}
	return 0;
}

/*
 * user and system are means over the runs (hyperfine has no per-run
 * CPU times); each gives one sample per result, when present.
 */
static int add_mean(struct hf_state *st, const json_t *row, const char *key,
                    const char *metric, int iteration, struct bf_err *err)
{
	const json_t *v = json_object_get(row, key);
	const char *why;
	double ns;

	if (!v || json_is_null(v))
		return 0;
	ns = to_ns(v, &why);
	if (why)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: command '%.100s': '%s' %s", st->what,
		                  st->command, key, why);
	bf_samples_add(st->out, st->command, metric, "ns", ns, iteration);
	return 0;
}

static int get_command(struct hf_state *st, const json_t *row,
                       struct bf_err *err)
{
	const json_t *v = json_object_get(row, "command");
	const char *why = NULL;

	if (!v)
		why = "missing 'command'";
	else if (!json_is_string(v))
		why = "non-string 'command'";
	else if (!json_string_length(v))
		why = "empty 'command'";
	if (!why && json_string_length(v) > BF_PARSE_NAME_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: results[%zu]: 'command' of %zu bytes exceeds the limit of %d",
		        st->what, st->idx, json_string_length(v),
		        BF_PARSE_NAME_MAX);
	if (why)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: results[%zu]: %s (not hyperfine JSON?)",
		                  st->what, st->idx, why);
	st->command = json_string_value(v);
	return 0;
}

static int parse_result(struct hf_state *st, const json_t *row,
                        struct bf_err *err)
{
	int ret, iteration;

	if (!json_is_object(row))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: results[%zu] is not an object", st->what,
		                  st->idx);
	ret = get_command(st, row, err);
	if (ret)
		return ret;
	iteration = bf_parse__counter_next(&st->results, st->command);
	ret = add_times(st, json_object_get(row, "times"), err);
	if (!ret)
		ret = check_exit_codes(st, row, err);
	if (!ret)
		ret = add_mean(st, row, "user", "user_time_mean", iteration,
		               err);
	if (!ret)
		ret = add_mean(st, row, "system", "system_time_mean", iteration,
		               err);
	return ret;
}

static int parse_results(struct hf_state *st, const json_t *root,
                         struct bf_err *err)
{
	const json_t *rows = json_object_get(root, "results");
	const json_t *row;
	int ret = 0;

	if (!json_is_object(root) || !json_is_array(rows))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: not hyperfine JSON: no 'results' array",
		                  st->what);
	if (!json_array_size(rows))
		return bf_err_set(err, BF_EINVAL, "%s: no benchmark results",
		                  st->what);
	json_array_foreach(rows, st->idx, row)
	{
		ret = parse_result(st, row, err);
		if (ret)
			break;
	}
	return ret;
}

static int hf_doc(void *state, const json_t *root, struct bf_err *err)
{
	return parse_results(state, root, err);
}

/* hyperfine leaves the file empty when a run fails without -i. */
static const struct bf_parse__json_format hyperfine_json = {
	"hyperfine --export-json (did a run fail?)",
	NULL,
	hf_doc,
};

int bf_parse_hyperfine(struct bf_samples *out, const char *text, size_t len,
                       const char *what, struct bf_err *err)
{
	struct hf_state st = { .out = out,
		               .runs = BF_PARSE__COUNTER_INIT,
		               .results = BF_PARSE__COUNTER_INIT };
	int ret;

	st.what = what ? what : "output";
	ret = bf_parse__json(out, text, len, st.what, &hyperfine_json, &st,
	                     err);
	bf_parse__counter_release(&st.runs);
	bf_parse__counter_release(&st.results);
	return ret;
}
