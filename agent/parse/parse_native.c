#include "parse/parse.h"

#include <limits.h>
#include <math.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"

/* The format this file reads; docs/formats.md is its specification. */
#define NATIVE_FORMAT  "benchfarm-native"
#define NATIVE_VERSION 1
#define UNIT_MAX       64
/* Separates benchmark and metric in the iteration counter's keys. */
#define KEY_SEP "\x1f"

struct nv_state {
	struct bf_samples *out;
	const char *what;
	struct bf_parse__counter seen; /* samples per benchmark and metric */
	char **keys; /* the counter's names, owned */
	size_t nkeys, keys_alloc;
	size_t idx; /* index in samples[], for messages */
};

static const char *const top_keys[] = { "format", "version", "samples",
	                                "context" };
static const char *const sample_keys[] = { "benchmark", "metric", "unit",
	                                   "value", "iteration" };

static bool is_known(const char *key, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return true;
	return false;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/*
 * Counts one more sample of benchmark and metric; returns the count
 * before, the default iteration.
 */
static int next_iteration(struct nv_state *st, const char *benchmark,
                          const char *metric)
{
	char *key = bf_xasprintf("%s" KEY_SEP "%s", benchmark, metric);
	int n;

	if (bf_parse__counter_get(&st->seen, key)) {
		n = bf_parse__counter_next(&st->seen, key);
		free(key);
		return n;
	}
	/* A new name: the counter borrows key, so keep it. */
	if (st->nkeys == st->keys_alloc) {
		st->keys_alloc = st->keys_alloc ? 2 * st->keys_alloc : 16;
		st->keys = bf_xreallocarray(st->keys, st->keys_alloc,
		                            sizeof(*st->keys));
	}
	st->keys[st->nkeys++] = key;
	return bf_parse__counter_next(&st->seen, key);
}

static int bad_sample(const struct nv_state *st, const char *key,
                      const char *why, struct bf_err *err)
{
	return bf_err_set(err, BF_EINVAL, "%s: samples[%zu]: '%s' %s", st->what,
	                  st->idx, key, why);
}

/*
 * sample[key] as a string of at most max bytes without control
 * characters. A missing key is an error unless optional (then ""); an
 * empty string is an error unless optional.
 */
static int get_string(const char **out, const struct nv_state *st,
                      const json_t *sample, const char *key, size_t max,
                      bool optional, struct bf_err *err)
{
	const json_t *v = json_object_get(sample, key);

	*out = "";
	if (!v && optional)
		return 0;
	if (!v)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: samples[%zu]: missing '%s'", st->what,
		                  st->idx, key);
	if (!json_is_string(v))
		return bad_sample(st, key, "is not a string", err);
	if (!json_string_length(v) && !optional)
		return bad_sample(st, key, "is empty", err);
	if (json_string_length(v) > max)
		return bad_sample(st, key, "is too long", err);
	if (has_control(json_string_value(v)))
		return bad_sample(st, key, "contains a control character", err);
	*out = json_string_value(v);
	return 0;
}

/* The value in the unit given; time units become nanoseconds. */
static int get_value(double *out, const char **unit, const struct nv_state *st,
                     const json_t *sample, struct bf_err *err)
{
	const json_t *v = json_object_get(sample, "value");
	double scale = bf_parse__ns_per_unit(*unit);
	double x;

	if (!v)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: samples[%zu]: missing 'value'", st->what,
		                  st->idx);
	if (!json_is_number(v))
		return bad_sample(st, "value", "is not a number", err);
	x = json_number_value(v) * (scale ? scale : 1);
	if (!isfinite(x))
		return bad_sample(st, "value", "is not a finite number", err);
	if (scale)
		*unit = "ns";
	*out = x;
	return 0;
}

static int get_iteration(int *out, const struct nv_state *st,
                         const json_t *sample, struct bf_err *err)
{
	const json_t *v = json_object_get(sample, "iteration");

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > INT_MAX)
		return bad_sample(st, "iteration",
		                  "is not a non-negative integer", err);
	*out = (int)json_integer_value(v);
	return 0;
}

static int check_keys(const struct nv_state *st, const json_t *sample,
                      struct bf_err *err)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)sample, key, v)
	{
		if (!is_known(key, sample_keys, BF_ARRAY_SIZE(sample_keys)))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: samples[%zu]: unknown key '%.100s' in version %d",
			        st->what, st->idx, key, NATIVE_VERSION);
	}
	return 0;
}

static int parse_sample(struct nv_state *st, const json_t *sample,
                        struct bf_err *err)
{
	const char *bench = NULL, *metric = NULL, *unit = NULL;
	double value = 0;
	int iteration, ret;

	if (!json_is_object(sample))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: samples[%zu] is not an object", st->what,
		                  st->idx);
	ret = check_keys(st, sample, err);
	if (!ret)
		ret = get_string(&bench, st, sample, "benchmark",
		                 BF_PARSE_NAME_MAX, false, err);
	if (!ret)
		ret = get_string(&metric, st, sample, "metric",
		                 BF_PARSE_NAME_MAX, false, err);
	if (!ret)
		ret = get_string(&unit, st, sample, "unit", UNIT_MAX, true,
		                 err);
	if (!ret)
		ret = get_value(&value, &unit, st, sample, err);
	if (ret)
		return ret;
	iteration = next_iteration(st, bench, metric);
	ret = get_iteration(&iteration, st, sample, err);
	if (!ret)
		bf_samples_add(st->out, bench, metric, unit, value, iteration);
	return ret;
}

/* format and version come first: they decide how to read the rest. */
static int check_header(const struct nv_state *st, const json_t *root,
                        struct bf_err *err)
{
	const json_t *format = json_object_get(root, "format");
	const json_t *version = json_object_get(root, "version");

	if (!json_is_object(root) || !json_is_string(format))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: not benchfarm-native JSON: no 'format' string",
		        st->what);
	if (strcmp(json_string_value(format), NATIVE_FORMAT))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: 'format' is '%.100s', expected '" NATIVE_FORMAT
		        "'",
		        st->what, json_string_value(format));
	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: %s 'version' (expected a positive integer)",
		        st->what, version ? "bad" : "missing");
	if (json_integer_value(version) > NATIVE_VERSION)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: benchfarm-native version %" JSON_INTEGER_FORMAT
		        " is newer than this agent reads (%d); upgrade benchfarm-agent",
		        st->what, json_integer_value(version), NATIVE_VERSION);
	return 0;
}

static int check_body(const struct nv_state *st, const json_t *root,
                      struct bf_err *err)
{
	const json_t *samples = json_object_get(root, "samples");
	const json_t *context = json_object_get(root, "context");
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)root, key, v)
	{
		if (!is_known(key, top_keys, BF_ARRAY_SIZE(top_keys)))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: unknown key '%.100s' in version %d",
			        st->what, key, NATIVE_VERSION);
	}
	if (context && !json_is_object(context))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: 'context' is not an object", st->what);
	if (!json_is_array(samples))
		return bf_err_set(err, BF_EINVAL, "%s: %s 'samples' array",
		                  st->what, samples ? "non-array" : "missing");
	if (!json_array_size(samples))
		return bf_err_set(err, BF_EINVAL, "%s: 'samples' is empty",
		                  st->what);
	return 0;
}

static int parse_document(struct nv_state *st, const json_t *root,
                          struct bf_err *err)
{
	const json_t *samples = json_object_get(root, "samples");
	const json_t *sample;
	int ret = check_header(st, root, err);

	if (!ret)
		ret = check_body(st, root, err);
	if (ret)
		return ret;
	json_array_foreach(samples, st->idx, sample)
	{
		ret = parse_sample(st, sample, err);
		if (ret)
			break;
	}
	return ret;
}

static int nv_doc(void *state, const json_t *root, struct bf_err *err)
{
	return parse_document(state, root, err);
}

static const struct bf_parse__json_format native_json = {
	"benchfarm-native JSON",
	NULL,
	nv_doc,
};

int bf_parse_native(struct bf_samples *out, const char *text, size_t len,
                    const char *what, struct bf_err *err)
{
	struct nv_state st = { .out = out, .seen = BF_PARSE__COUNTER_INIT };
	int ret;

	st.what = what ? what : "output";
	ret = bf_parse__json(out, text, len, st.what, &native_json, &st, err);
	bf_parse__counter_release(&st.seen);
	for (size_t i = 0; i < st.nkeys; i++)
		free(st.keys[i]);
	free(st.keys);
	return ret;
}
