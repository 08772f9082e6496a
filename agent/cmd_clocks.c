#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "check/clocks.h"
#include "check/throttle.h"
#include "probe/devfs.h"
#include "probe/probe.h"

/*
 * `lock-clocks` and `unlock-clocks`, and the state file between them
 * (clocks.h): {"version": 1, "device": "sysroot '/'", "cores": [{"cpu":
 * 0, "online": 1 or 0 or null, "governor": "schedutil" or null,
 * "min_khz": N, "max_khz": N, "setspeed_khz": N or null}]}.
 */
#define STATE_VERSION 1

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

/* Restore every core, cpufreq first (offline cores cannot take it). */
static int restore_all(struct bf_devfs *fs, const struct bf_clocks_state *st,
                       json_t *cores, struct bf_err *err)
{
	struct bf_err e = BF_ERR_INIT;
	int first = 0, ret;

	for (size_t i = 0; i < st->n; i++) {
		json_t *o = bf_clocks_core_json(&st->cores[i], "restored_to");

		ret = bf_clocks_restore_core(fs, &st->cores[i], &e);
		json_object_set_new(o, "restored", json_boolean(!ret));
		json_array_append_new(cores, o);
		if (ret && !first) {
			*err = e;
			first = ret;
		}
	}
	for (size_t i = 0; i < st->n; i++) {
		if (st->cores[i].online != 0)
			continue;
		ret = bf_clocks_set_online(fs, st->cores[i].cpu, false, &e);
		json_object_set_new(json_array_get(cores, i), "offlined",
		                    json_boolean(!ret));
		if (ret && !first) {
			*err = e;
			first = ret;
		}
	}
	return first;
}

int bf_clocks_unlock(json_t **report, struct bf_devfs *fs,
                     const char *state_path, struct bf_err *err)
{
	struct bf_clocks_state st;
	struct bf_err e = BF_ERR_INIT;
	json_t *cores = json_array();
	int ret;

	*report = json_pack("{s:s, s:s, s:s, s:o}", "action", "unlock-clocks",
	                    "device", fs->desc, "state_file", state_path,
	                    "cores", cores);
	ret = bf_clocks_state_load(&st, state_path, &e);
	if (ret == BF_ENOTFOUND) {
		json_object_set_new(*report, "restored", json_false());
		json_object_set_new(
		        *report, "message",
		        json_string("nothing to restore: the clocks "
		                    "were not locked by "
		                    "benchfarm-agent"));
		return 0;
	}
	if (!ret && strcmp(st.device, fs->desc))
		ret = bf_err_set(&e, BF_EINVAL,
		                 "'%s' holds the clocks of %s, not %s",
		                 state_path, st.device, fs->desc);
	if (!ret && !(ret = restore_all(fs, &st, cores, &e)) &&
	    unlink(state_path) < 0 && errno != ENOENT)
		ret = bf_err_sys(&e, "cannot remove '%s'", state_path);
	if (ret)
		bf_err_prefix(&e, "cannot unlock clocks (state kept in '%s')",
		              state_path);
	json_object_set_new(*report, "restored", json_boolean(!ret));
	if (ret)
		json_object_set_new(*report, "error", json_string(e.msg));
	bf_clocks_state_release(&st);
	if (ret && err)
		*err = e;
	return ret;
}

static int state_dir_opt(int opt, const char *arg, void *payload)
{
	if (opt != 'S')
		return BF_EXIT_USAGE;
	*(const char **)payload = arg;
	return -1;
}

typedef int clocks_fn(json_t **report, struct bf_devfs *fs,
                      const char *state_path, struct bf_err *err);

/* Both commands: options, the device, the state file, the report. */
static int clocks_cmd(int argc, char **argv, struct bf_agent_ctx *ctx,
                      const char *usage, clocks_fn *fn)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "root", required_argument, NULL, 'R' },
		{ "adb", required_argument, NULL, 'A' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_err err = BF_ERR_INIT;
	struct bf_devfs *fs = NULL;
	const char *dir_opt = NULL;
	char *dir = NULL, *key = NULL, *path = NULL;
	json_t *report = NULL;
	unsigned flags;
	int ret = bf_agent_getopt(argc, argv, ctx, usage, "S:", longopts,
	                          state_dir_opt, &dir_opt);

	if (ret >= 0)
		return ret;
	if (optind != argc) {
		fprintf(stderr, "usage: %s\n", usage);
		return BF_EXIT_USAGE;
	}
	if (!dir_opt && bf_throttle_state_dir(&dir, &err))
		goto out;
	if (bf_probe_open(&fs, &flags, &key, ctx, &err) ||
	    bf_fs_mkdirs(dir_opt ? dir_opt : dir, 0700, &err))
		goto out;
	path = bf_xasprintf("%s/clocks-%s.json", dir_opt ? dir_opt : dir, key);
	fn(&report, fs, path, &err);
	json_dumpf(report, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
out:
	if (err.code)
		fprintf(stderr, "benchfarm-agent: %s: %s\n", argv[0], err.msg);
	json_decref(report);
	bf_devfs_free(fs);
	free(path);
	free(key);
	free(dir);
	return err.code ? BF_EXIT_INFRA : BF_EXIT_OK;
}

int bf_agent_cmd_lock_clocks(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	return clocks_cmd(
	        argc, argv, ctx,
	        "benchfarm-agent lock-clocks [--root DIR] [--adb SERIAL] "
	        "[--state-dir DIR]\n\n"
	        "As root: brings every core online, sets the userspace "
	        "governor and pins\neach core to the lowest available "
	        "frequency at or above 50% of its\nmaximum (Jetpack's rule). "
	        "The previous settings go to\nDIR/clocks-DEVICE.json first "
	        "(default DIR: $XDG_STATE_HOME/benchfarm-agent\nor "
	        "~/.local/state/benchfarm-agent); locking again keeps them. "
	        "Prints\nwhat was done as JSON.",
	        bf_clocks_lock);
}

int bf_agent_cmd_unlock_clocks(int argc, char **argv, struct bf_agent_ctx *ctx)
{
	return clocks_cmd(argc, argv, ctx,
	                  "benchfarm-agent unlock-clocks [--root DIR] "
	                  "[--adb SERIAL] [--state-dir DIR]\n\n"
	                  "Restores the settings lock-clocks saved, exactly, "
	                  "and removes its\nstate file. Prints what was done "
	                  "as JSON.",
	                  bf_clocks_unlock);
}
