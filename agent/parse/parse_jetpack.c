#include "parse/parse.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"

/* Separates benchmark and metric in the iteration counter's keys. */
#define KEY_SEP "\x1f"

struct jp_state {
	struct bf_samples *out;
	const char *what;
	struct bf_parse__counter seen; /* samples per benchmark and metric */
	char **keys; /* the counter's names, owned */
	size_t nkeys, keys_alloc;
	size_t idx; /* index in benchmarks[], for messages */
	char *name; /* "className.name" of the current benchmark, owned */
};

/* The metric being read. */
struct jp_metric {
	const char *group; /* "metrics" or "sampledMetrics", for messages */
	const char *name; /* borrowed from the JSON */
	const char *unit; /* "ns" for time metrics, else "" */
	double scale; /* to nanoseconds for time metrics, else 1 */
	const char *key; /* counter key, owned by the state */
	bool sampled; /* from sampledMetrics: runs is an array of arrays */
};

static bool has_suffix(const char *s, const char *suffix)
{
	size_t len = strlen(s), n = strlen(suffix);

	return len > n && !strcmp(s + len - n, suffix);
}

/*
 * Jetpack names metrics in camelCase with the unit as the last word
 * (timeNs, frameDurationCpuMs, allocationCount); time units become ns.
 */
static void metric_unit(struct jp_metric *m)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = { { "Ns", 1 }, { "Us", 1e3 }, { "Ms", 1e6 } };

	m->unit = "";
	m->scale = 1;
	for (size_t i = 0; i < BF_ARRAY_SIZE(units); i++) {
		if (has_suffix(m->name, units[i].suffix)) {
			m->unit = "ns";
			m->scale = units[i].ns;
		}
	}
}

/* The counter key for the current benchmark and a metric; borrowed. */
static const char *metric_key(struct jp_state *st, const char *metric)
{
	if (st->nkeys == st->keys_alloc) {
		st->keys_alloc = st->keys_alloc ? 2 * st->keys_alloc : 16;
		st->keys = bf_xreallocarray(st->keys, st->keys_alloc,
		                            sizeof(*st->keys));
	}
	st->keys[st->nkeys] = bf_xasprintf("%s" KEY_SEP "%s", st->name, metric);
	return st->keys[st->nkeys++];
}

static void jp_state_release(struct jp_state *st)
{
	bf_parse__counter_release(&st->seen);
	for (size_t i = 0; i < st->nkeys; i++)
		free(st->keys[i]);
	BF_FREE(st->keys);
	BF_FREE(st->name);
}

/* Checks one value of a runs array (pos says where) and appends it. */
static int add_value(struct jp_state *st, const struct jp_metric *m,
                     const json_t *v, const char *pos, int iteration,
                     struct bf_err *err)
{
	const char *why = NULL;
	double x = json_is_number(v) ? json_number_value(v) * m->scale : 0;

	if (!json_is_number(v))
		why = "is not a number";
	else if (!isfinite(x))
		why = "is not a finite number";
	else if (x < 0 && *m->unit && !m->sampled)
		why = "is a negative time";
	if (why)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmark '%.100s': %s.%.100s.runs%s %s",
		                  st->what, st->name, m->group, m->name, pos,
		                  why);
	bf_samples_add(st->out, st->name, m->name, m->unit, x, iteration);
	return 0;
}

static int bad_metric(const struct jp_state *st, const struct jp_metric *m,
                      const char *why, struct bf_err *err)
{
	return bf_err_set(err, BF_EINVAL, "%s: benchmark '%.100s': %s.%.100s%s",
	                  st->what, st->name, m->group, m->name, why);
}

/* metrics.NAME: {minimum, maximum, median, runs: [v, ...]} */
static int parse_runs(struct jp_state *st, const struct jp_metric *m,
                      const json_t *runs, struct bf_err *err)
{
	const json_t *v;
	size_t i;
	char pos[32];
	int ret = 0;

	json_array_foreach(runs, i, v)
	{
		snprintf(pos, sizeof(pos), "[%zu]", i);
		ret = add_value(st, m, v, pos,
		                bf_parse__counter_next(&st->seen, m->key), err);
		if (ret)
			break;
	}
	return ret;
}

/*
 * sampledMetrics.NAME: {P50, P90, P95, P99, runs: [[v, ...], ...]}: one
 * inner array per iteration, every value in it a sample of that
 * iteration.
 */
static int parse_sampled_runs(struct jp_state *st, const struct jp_metric *m,
                              const json_t *runs, struct bf_err *err)
{
	const json_t *inner, *v;
	size_t i, j;
	char pos[48];
	int iteration, ret = 0;

	json_array_foreach(runs, i, inner)
	{
		if (!json_is_array(inner)) {
			snprintf(pos, sizeof(pos), ".runs[%zu] is not an array",
			         i);
			return bad_metric(st, m, pos, err);
		}
		iteration = bf_parse__counter_next(&st->seen, m->key);
		json_array_foreach(inner, j, v)
		{
			snprintf(pos, sizeof(pos), "[%zu][%zu]", i, j);
			ret = add_value(st, m, v, pos, iteration, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int parse_metric(struct jp_state *st, const char *group,
                        const char *name, const json_t *obj, struct bf_err *err)
{
	struct jp_metric m = { .group = group,
		               .name = name,
		               .sampled = !strcmp(group, "sampledMetrics") };
	const json_t *runs = json_object_get(obj, "runs");

	if (!*name || strlen(name) > BF_PARSE_NAME_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmark '%.100s': %s: metric name empty or longer than %d bytes",
		        st->what, st->name, group, BF_PARSE_NAME_MAX);
	if (!json_is_object(obj))
		return bad_metric(st, &m, " is not an object", err);
	if (!runs)
		return bad_metric(
		        st, &m, ": missing 'runs' (the per-measurement values)",
		        err);
	if (!json_is_array(runs))
		return bad_metric(st, &m, ".runs is not an array", err);
	metric_unit(&m);
	m.key = metric_key(st, name);
	if (m.sampled)
		return parse_sampled_runs(st, &m, runs, err);
	return parse_runs(st, &m, runs, err);
}

/* Every metric of metrics or sampledMetrics; required says which. */
static int parse_group(struct jp_state *st, const json_t *row,
                       const char *group, bool required, struct bf_err *err)
{
	const json_t *obj = json_object_get(row, group);
	const char *key;
	json_t *v;
	int ret = 0;

	if ((!obj || json_is_null(obj)) && !required)
		return 0;
	if (!json_is_object(obj))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmark '%.100s': %s '%s'", st->what,
		                  st->name, obj ? "non-object" : "missing",
		                  group);
	json_object_foreach((json_t *)obj, key, v)
	{
		ret = parse_metric(st, group, key, v, err);
		if (ret)
			break;
	}
	return ret;
}

/* row[key] as a non-empty string, or an error naming the field. */
static int get_name_part(const char **out, const struct jp_state *st,
                         const json_t *row, const char *key, struct bf_err *err)
{
	const json_t *v = json_object_get(row, key);
	const char *why = NULL;

	if (!v)
		why = "missing";
	else if (!json_is_string(v))
		why = "non-string";
	else if (!json_string_length(v))
		why = "empty";
	if (why)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmarks[%zu]: %s '%s' (not Jetpack benchmark JSON?)",
		        st->what, st->idx, why, key);
	*out = json_string_value(v);
	return 0;
}

/*
 * The benchmark name is "className.name"; name already carries the
 * parameters ("parseJson[size=1024]"), as Jetpack writes it.
 */
static int set_name(struct jp_state *st, const json_t *row, struct bf_err *err)
{
	const char *name = NULL, *cls = NULL;
	size_t len;
	int ret;

	ret = get_name_part(&name, st, row, "name", err);
	if (!ret)
		ret = get_name_part(&cls, st, row, "className", err);
	if (ret)
		return ret;
	len = strlen(cls) + 1 + strlen(name);
	if (len > BF_PARSE_NAME_MAX)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchmarks[%zu]: name of %zu bytes exceeds the limit of %d",
		        st->what, st->idx, len, BF_PARSE_NAME_MAX);
	free(st->name);
	st->name = bf_xasprintf("%s.%s", cls, name);
	return 0;
}

static int parse_benchmarks(struct jp_state *st, const json_t *root,
                            struct bf_err *err)
{
	const json_t *rows = json_object_get(root, "benchmarks");
	const json_t *row;
	int ret = 0;

	if (!json_is_object(root) || !json_is_array(rows))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: not Jetpack benchmark JSON: no 'benchmarks' array",
		        st->what);
	json_array_foreach(rows, st->idx, row)
	{
		if (!json_is_object(row))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: benchmarks[%zu] is not an object",
			        st->what, st->idx);
		ret = set_name(st, row, err);
		if (!ret)
			ret = parse_group(st, row, "metrics", true, err);
		if (!ret)
			ret = parse_group(st, row, "sampledMetrics", false,
			                  err);
		if (ret)
			break;
	}
	return ret;
}

static int jp_doc(void *state, const json_t *root, struct bf_err *err)
{
	struct jp_state *st = state;
	size_t n0 = st->out->n;
	int ret = parse_benchmarks(st, root, err);

	if (!ret && st->out->n == n0)
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s: no benchmark results (no 'runs' values)",
		                 st->what);
	return ret;
}

static const struct bf_parse__json_format jetpack_json = {
	"Jetpack benchmark JSON",
	NULL,
	jp_doc,
};

int bf_parse_jetpack(struct bf_samples *out, const char *text, size_t len,
                     const char *what, struct bf_err *err)
{
	struct jp_state st = { .out = out, .seen = BF_PARSE__COUNTER_INIT };
	int ret;

	st.what = what ? what : "output";
	ret = bf_parse__json(out, text, len, st.what, &jetpack_json, &st, err);
	jp_state_release(&st);
	return ret;
}
