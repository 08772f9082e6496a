#include "check/clocks.h"

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"

/*
 * The state file between lock-clocks and unlock-clocks (clocks.h), what
 * every core had before locking: {"version": 1, "device": "sysroot '/'",
 * "cores": [{"cpu": 0, "online": 1 or 0 or null, "governor": "schedutil"
 * or null, "min_khz": N, "max_khz": N, "setspeed_khz": N or null}]}.
 * This file only reads and writes it; clocks.c locks and unlocks.
 */
#define STATE_VERSION 1

void bf_clocks_state_init(struct bf_clocks_state *st)
{
	memset(st, 0, sizeof(*st));
}

void bf_clocks_state_release(struct bf_clocks_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		free(st->cores[i].governor);
	free(st->cores);
	free(st->device);
	bf_clocks_state_init(st);
}

struct bf_clocks_core *bf_clocks_state_add(struct bf_clocks_state *st, int cpu)
{
	struct bf_clocks_core *c;

	st->cores = bf_xreallocarray(st->cores, st->n + 1, sizeof(*c));
	c = &st->cores[st->n++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->online = -1;
	c->setspeed_khz = -1;
	return c;
}

/* An integer member of a state core, or -1 for null. */
static int state_i64(int64_t *out, const json_t *o, const char *key,
                     bool nullable)
{
	const json_t *v = json_object_get(o, key);

	if (nullable && json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

static int state_core(struct bf_clocks_state *st, const json_t *o)
{
	const json_t *gov = json_object_get(o, "governor");
	struct bf_clocks_core *c;
	int64_t cpu, online;

	if (!json_is_object(o) || state_i64(&cpu, o, "cpu", false) ||
	    cpu > 1 << 20 || state_i64(&online, o, "online", true) ||
	    online > 1 || !(json_is_null(gov) || json_is_string(gov)))
		return -1;
	c = bf_clocks_state_add(st, (int)cpu);
	c->online = (int)online;
	if (json_is_null(gov))
		return 0;
	if (state_i64(&c->min_khz, o, "min_khz", false) ||
	    state_i64(&c->max_khz, o, "max_khz", false) ||
	    state_i64(&c->setspeed_khz, o, "setspeed_khz", true))
		return -1;
	c->governor = bf_xstrdup(json_string_value(gov));
	return 0;
}

int bf_clocks_state_load(struct bf_clocks_state *st, const char *path,
                         struct bf_err *err)
{
	json_t *doc = NULL, *cores, *o;
	int64_t version = 0;
	const char *device;
	size_t i;
	int ret;

	bf_clocks_state_init(st);
	if (!bf_fs_exists(path))
		return bf_err_set(err, BF_ENOTFOUND, "no clock state in '%s'",
		                  path);
	if ((ret = bf_json_load_file(&doc, path, err)))
		return ret == BF_EINVAL ? BF_ECORRUPT : ret;
	cores = json_object_get(doc, "cores");
	if (bf_json_get_int(&version, doc, "version", "state", NULL) ||
	    version != STATE_VERSION ||
	    bf_json_get_str(&device, doc, "device", "state", NULL) ||
	    !json_is_array(cores)) {
		ret = -1;
		goto out;
	}
	st->device = bf_xstrdup(device);
	json_array_foreach(cores, i, o)
	{
		if ((ret = state_core(st, o)))
			break;
	}
out:
	json_decref(doc);
	if (ret) {
		bf_clocks_state_release(st);
		ret = bf_err_set(err, BF_ECORRUPT,
		                 "'%s' is not a benchfarm clock state file "
		                 "(version %d)",
		                 path, STATE_VERSION);
	}
	return ret;
}

static json_t *i64_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

int bf_clocks_state_save(const struct bf_clocks_state *st, const char *path,
                         struct bf_err *err)
{
	json_t *cores = json_array(), *doc;
	int ret;

	for (size_t i = 0; i < st->n; i++) {
		const struct bf_clocks_core *c = &st->cores[i];
		json_t *o = json_pack(
		        "{s:i, s:o, s:o}", "cpu", c->cpu, "online",
		        i64_or_null(c->online), "governor",
		        c->governor ? json_string(c->governor) : json_null());

		if (c->governor)
			json_object_update_new(
			        o, json_pack("{s:I, s:I, s:o}", "min_khz",
			                     (json_int_t)c->min_khz, "max_khz",
			                     (json_int_t)c->max_khz,
			                     "setspeed_khz",
			                     i64_or_null(c->setspeed_khz)));
		json_array_append_new(cores, o);
	}
	doc = json_pack("{s:i, s:s, s:o}", "version", STATE_VERSION, "device",
	                st->device, "cores", cores);
	ret = bf_json_write_file(doc, path, true, true, err);
	json_decref(doc);
	return ret;
}
