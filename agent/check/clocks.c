#include "check/clocks.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "probe/devfs.h"

#define PATH_LEN  160
#define AVAIL_MAX 256 /* frequencies per core; real tables have < 64 */

int bf_clocks_target_khz(int64_t *out, bool *from_table, int64_t max_khz,
                         const int64_t *avail, size_t navail,
                         struct bf_err *err)
{
	int64_t threshold_mhz, best = -1;

	if (max_khz <= 0)
		return bf_err_set(err, BF_EINVAL,
		                  "maximum frequency %lld kHz is not positive",
		                  (long long)max_khz);
	threshold_mhz = max_khz * BF_CLOCKS_TARGET_PERCENT / 100000;
	*from_table = navail > 0;
	for (size_t i = 0; i < navail; i++)
		if (avail[i] / 1000 >= threshold_mhz &&
		    (best < 0 || avail[i] < best))
			best = avail[i];
	if (!navail)
		best = threshold_mhz * 1000;
	if (best <= 0)
		return bf_err_set(err, BF_EINVAL,
		                  "no available frequency reaches %lld MHz "
		                  "(%d%% of %lld kHz)",
		                  (long long)threshold_mhz,
		                  BF_CLOCKS_TARGET_PERCENT, (long long)max_khz);
	*out = best;
	return 0;
}

static const char *core_path(char *buf, int cpu, const char *name)
{
	snprintf(buf, PATH_LEN, BF_CLOCKS_CPU_DIR "/cpu%d/%s", cpu, name);
	return buf;
}

/* Read a file of core cpu ("cpufreq/scaling_min_freq") as an integer. */
static int core_i64(int64_t *out, struct bf_devfs *fs, int cpu,
                    const char *name, struct bf_err *err)
{
	char path[PATH_LEN];

	return bf_devfs_read_i64(out, fs, core_path(path, cpu, name), err);
}

/* Read a file of core cpu whole; BF_ENOTFOUND is no error (*found). */
static int core_text(struct bf_buf *out, bool *found, struct bf_devfs *fs,
                     int cpu, const char *name, struct bf_err *err)
{
	char path[PATH_LEN];
	int ret = bf_devfs_read(fs, core_path(path, cpu, name), out, err);

	*found = ret != BF_ENOTFOUND;
	if (!*found)
		bf_err_clear(err);
	bf_buf_rtrim(out);
	return *found ? ret : 0;
}

/* Write "TEXT\n" (as echo does) to a file of core cpu. */
static int core_write(struct bf_devfs *fs, int cpu, const char *name,
                      const char *text, struct bf_err *err)
{
	char path[PATH_LEN];
	char *line = bf_xasprintf("%s\n", text);
	int ret = bf_devfs_write(fs, core_path(path, cpu, name), line, err);

	free(line);
	return ret;
}

static int core_write_i64(struct bf_devfs *fs, int cpu, const char *name,
                          int64_t v, struct bf_err *err)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", (long long)v);
	return core_write(fs, cpu, name, text, err);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The N of every cpuN directory, sorted numerically. */
static int list_cpus(int **out, size_t *n, struct bf_devfs *fs,
                     struct bf_err *err)
{
	struct bf_argv names = BF_ARGV_INIT;
	int64_t v;
	int ret = bf_devfs_list(fs, BF_CLOCKS_CPU_DIR, &names, err);

	*n = 0;
	*out = bf_xcalloc(names.argc + 1, sizeof(int));
	for (size_t i = 0; !ret && i < names.argc; i++)
		if (!strncmp(names.argv[i], "cpu", 3) &&
		    isdigit((unsigned char)names.argv[i][3]) &&
		    !bf_parse_i64(&v, names.argv[i] + 3, NULL) && v < 1 << 20)
			(*out)[(*n)++] = (int)v;
	qsort(*out, *n, sizeof(int), cmp_int);
	if (!ret && !*n)
		ret = bf_err_set(err, BF_ENOTFOUND,
		                 "no cpuN directories in '%s'",
		                 BF_CLOCKS_CPU_DIR);
	bf_argv_release(&names);
	return ret;
}

/* The cpufreq settings of c; none recorded when it has no cpufreq. */
static int capture_freq(struct bf_clocks_core *c, struct bf_devfs *fs,
                        struct bf_err *err)
{
	struct bf_buf gov = BF_BUF_INIT;
	bool found;
	int64_t v;
	int ret = core_text(&gov, &found, fs, c->cpu,
	                    "cpufreq/scaling_governor", err);

	if (!ret && found &&
	    !(ret = core_i64(&c->min_khz, fs, c->cpu,
	                     "cpufreq/scaling_min_freq", err)) &&
	    !(ret = core_i64(&c->max_khz, fs, c->cpu,
	                     "cpufreq/scaling_max_freq", err))) {
		/* Other governors show "<unsupported>": nothing to keep. */
		if (!strcmp(gov.buf, "userspace") &&
		    !core_i64(&v, fs, c->cpu, "cpufreq/scaling_setspeed", NULL))
			c->setspeed_khz = v;
		c->governor = bf_buf_detach(&gov, NULL);
	}
	bf_buf_release(&gov);
	return ret;
}

int bf_clocks_capture(struct bf_clocks_state *st, struct bf_devfs *fs,
                      struct bf_err *err)
{
	struct bf_clocks_core *c;
	int *cpus = NULL;
	size_t n = 0;
	int64_t v;
	int ret;

	bf_clocks_state_init(st);
	st->device = bf_xstrdup(fs->desc);
	ret = list_cpus(&cpus, &n, fs, err);
	for (size_t i = 0; !ret && i < n; i++) {
		c = bf_clocks_state_add(st, cpus[i]);
		ret = core_i64(&v, fs, c->cpu, "online", err);
		/* Jetpack: offline only when it says exactly 0. */
		if (!ret)
			c->online = v == 0 ? 0 : 1;
		else if (ret == BF_ENOTFOUND)
			bf_err_clear(err);
		if (!ret || ret == BF_ENOTFOUND)
			ret = capture_freq(c, fs, err);
	}
	free(cpus);
	return ret;
}

/* A whitespace-separated list of positive frequencies (kHz). */
static int parse_freqs(int64_t *v, size_t *n, char *text, int cpu,
                       struct bf_err *err)
{
	const char *name = "cpufreq/scaling_available_frequencies";
	char path[PATH_LEN];
	char *p, *end;

	*n = 0;
	for (p = text; *p; p = end) {
		while (isspace((unsigned char)*p))
			p++;
		for (end = p; *end && !isspace((unsigned char)*end); end++)
			;
		if (end == p)
			break;
		if (*end)
			*end++ = '\0';
		if (*n == AVAIL_MAX || bf_parse_i64(&v[*n], p, NULL) ||
		    v[*n] <= 0)
			return bf_err_set(err, BF_EINVAL,
			                  "%s: '%.20s' is not a frequency",
			                  core_path(path, cpu, name), p);
		(*n)++;
	}
	return 0;
}

/* Whether text, a list of governors, names "userspace". */
static bool has_userspace(const char *text)
{
	for (const char *p = strstr(text, "userspace"); p;
	     p = strstr(p + 1, "userspace"))
		if ((p == text || isspace((unsigned char)p[-1])) &&
		    (!p[9] || isspace((unsigned char)p[9])))
			return true;
	return false;
}

/* Jetpack's frequency for core cpu into *target, its maximum into *max. */
static int plan_core(int64_t *target, int64_t *max, bool *from_table,
                     struct bf_devfs *fs, int cpu, struct bf_err *err)
{
	struct bf_buf b = BF_BUF_INIT;
	int64_t avail[AVAIL_MAX];
	size_t n = 0;
	bool found;
	int ret = core_text(&b, &found, fs, cpu,
	                    "cpufreq/scaling_available_governors", err);

	if (!ret && found && !has_userspace(b.buf))
		ret = bf_err_set(err, BF_EINVAL,
		                 "cpu%d has no userspace governor (it offers: "
		                 "%.80s)",
		                 cpu, b.buf);
	if (!ret)
		ret = core_i64(max, fs, cpu, "cpufreq/cpuinfo_max_freq", err);
	bf_buf_reset(&b);
	if (!ret)
		ret = core_text(&b, &found, fs, cpu,
		                "cpufreq/scaling_available_frequencies", err);
	if (!ret && found)
		ret = parse_freqs(avail, &n, b.buf, cpu, err);
	if (!ret && (ret = bf_clocks_target_khz(target, from_table, *max, avail,
	                                        n, err)))
		bf_err_prefix(err, "cpu%d", cpu);
	bf_buf_release(&b);
	return ret;
}

/*
 * Set scaling_min_freq..scaling_max_freq to lo..hi in an order the
 * kernel accepts from any current range: max first unless the new max
 * is below the current min (some kernels refuse min > max).
 */
static int set_range(struct bf_devfs *fs, int cpu, int64_t lo, int64_t hi,
                     struct bf_err *err)
{
	static const char min[] = "cpufreq/scaling_min_freq";
	static const char max[] = "cpufreq/scaling_max_freq";
	int64_t cur_min = 0;
	bool max_first;
	int ret;

	core_i64(&cur_min, fs, cpu, min, NULL);
	max_first = hi >= cur_min;
	ret = core_write_i64(fs, cpu, max_first ? max : min,
	                     max_first ? hi : lo, err);
	return ret ? ret
	           : core_write_i64(fs, cpu, max_first ? min : max,
	                            max_first ? lo : hi, err);
}

/* Set the governor unless it is already the one. */
static int set_governor(struct bf_devfs *fs, int cpu, const char *gov,
                        struct bf_err *err)
{
	static const char name[] = "cpufreq/scaling_governor";
	struct bf_buf cur = BF_BUF_INIT;
	bool found;
	int ret = 0;

	if (core_text(&cur, &found, fs, cpu, name, NULL) || !found ||
	    strcmp(cur.buf, gov))
		ret = core_write(fs, cpu, name, gov, err);
	bf_buf_release(&cur);
	return ret;
}

int bf_clocks_restore_core(struct bf_devfs *fs, const struct bf_clocks_core *c,
                           struct bf_err *err)
{
	int ret = c->governor
	                  ? set_range(fs, c->cpu, c->min_khz, c->max_khz, err)
	                  : 0;

	if (!ret && c->governor && !strcmp(c->governor, "userspace") &&
	    c->setspeed_khz >= 0)
		ret = core_write_i64(fs, c->cpu, "cpufreq/scaling_setspeed",
		                     c->setspeed_khz, err);
	if (!ret && c->governor)
		ret = set_governor(fs, c->cpu, c->governor, err);
	return ret;
}

int bf_clocks_set_online(struct bf_devfs *fs, int cpu, bool online,
                         struct bf_err *err)
{
	return core_write(fs, cpu, "online", online ? "1" : "0", err);
}

json_t *bf_clocks_core_json(const struct bf_clocks_core *c, const char *key)
{
	json_t *set = json_pack("{s:o}", "online",
	                        c->online < 0 ? json_null()
	                                      : json_integer(c->online));

	if (c->governor)
		json_object_update_new(
		        set,
		        json_pack("{s:s, s:I, s:I}", "governor", c->governor,
		                  "min_khz", (json_int_t)c->min_khz, "max_khz",
		                  (json_int_t)c->max_khz));
	return json_pack("{s:i, s:o}", "cpu", c->cpu, key, set);
}

/* What one lock-clocks run works on. */
struct lock {
	struct bf_devfs *fs;
	struct bf_clocks_state now; /* as found by this run */
	struct bf_clocks_state saved; /* as recorded in the state file */
	const char *state_path;
	json_t *report;
	json_t *cores; /* in report, one object per core of now */
};

/* Fill in what saved lacks from now; true when something was added. */
static bool state_merge(struct bf_clocks_state *saved,
                        const struct bf_clocks_state *now)
{
	bool changed = false;

	for (size_t i = 0; i < now->n; i++) {
		const struct bf_clocks_core *c = &now->cores[i];
		struct bf_clocks_core *s = NULL;

		for (size_t j = 0; j < saved->n && !s; j++)
			if (saved->cores[j].cpu == c->cpu)
				s = &saved->cores[j];
		if (!s) {
			s = bf_clocks_state_add(saved, c->cpu);
			s->online = c->online;
			changed = true;
		}
		if (!s->governor && c->governor) {
			s->governor = bf_xstrdup(c->governor);
			s->min_khz = c->min_khz;
			s->max_khz = c->max_khz;
			s->setspeed_khz = c->setspeed_khz;
			changed = true;
		}
	}
	return changed;
}

/*
 * Record now in the state file before anything changes. A file from an
 * earlier lock is the original: it is kept and only its gaps filled.
 */
static int record(struct lock *l, struct bf_err *err)
{
	int ret;

	if (l->saved.device)
		return state_merge(&l->saved, &l->now)
		               ? bf_clocks_state_save(&l->saved, l->state_path,
		                                      err)
		               : 0;
	ret = bf_clocks_state_load(&l->saved, l->state_path, err);
	if (ret && ret != BF_ENOTFOUND)
		return ret;
	bf_err_clear(err);
	json_object_set_new(l->report, "state",
	                    json_string(ret ? "saved" : "kept"));
	if (ret)
		l->saved.device = bf_xstrdup(l->now.device);
	else if (strcmp(l->saved.device, l->now.device))
		return bf_err_set(
		        err, BF_EINVAL, "'%s' holds the clocks of %s, not %s",
		        l->state_path, l->saved.device, l->now.device);
	state_merge(&l->saved, &l->now);
	return bf_clocks_state_save(&l->saved, l->state_path, err);
}

/* Every core online and its cpufreq recorded, then "userspace". */
static int online_all(struct lock *l, struct bf_err *err)
{
	int ret = 0;

	for (size_t i = 0; i < l->now.n && !ret; i++) {
		struct bf_clocks_core *c = &l->now.cores[i];

		if (c->online != 0)
			continue;
		if ((ret = bf_clocks_set_online(l->fs, c->cpu, true, err)))
			break;
		json_object_set_new(json_array_get(l->cores, i), "onlined",
		                    json_true());
		/* Offline, its cpufreq may have been out of reach. */
		if (!c->governor && !(ret = capture_freq(c, l->fs, err)))
			ret = record(l, err);
	}
	for (size_t i = 0; i < l->now.n && !ret; i++)
		if (!l->now.cores[i].governor)
			ret = bf_err_set(err, BF_ENOTFOUND,
			                 "cpu%d has no cpufreq: '%s/cpu%d/"
			                 "cpufreq/scaling_governor' is missing",
			                 l->now.cores[i].cpu, BF_CLOCKS_CPU_DIR,
			                 l->now.cores[i].cpu);
	for (size_t i = 0; i < l->now.n && !ret; i++)
		ret = set_governor(l->fs, l->now.cores[i].cpu, "userspace",
		                   err);
	return ret;
}

/* Pin core i to its target (max, min, set speed) and read it back. */
static int pin(struct lock *l, size_t i, struct bf_err *err)
{
	int cpu = l->now.cores[i].cpu;
	json_t *o = json_array_get(l->cores, i);
	int64_t target, max, got_min = -1, got_max = -1;
	bool from_table;
	int ret = plan_core(&target, &max, &from_table, l->fs, cpu, err);

	if (ret)
		return ret;
	json_object_set_new(o, "cpuinfo_max_freq_khz", json_integer(max));
	json_object_set_new(o, "target_khz", json_integer(target));
	json_object_set_new(o, "from_table", json_boolean(from_table));
	if ((ret = set_range(l->fs, cpu, target, target, err)) ||
	    (ret = core_write_i64(l->fs, cpu, "cpufreq/scaling_setspeed",
	                          target, err)) ||
	    (ret = core_i64(&got_min, l->fs, cpu, "cpufreq/scaling_min_freq",
	                    err)) ||
	    (ret = core_i64(&got_max, l->fs, cpu, "cpufreq/scaling_max_freq",
	                    err)))
		return ret;
	if (got_min != target || got_max != target)
		return bf_err_set(err, BF_ERROR,
		                  "cpu%d reads %lld..%lld kHz after pinning it "
		                  "to %lld kHz",
		                  cpu, (long long)got_min, (long long)got_max,
		                  (long long)target);
	json_object_set_new(o, "locked", json_true());
	return 0;
}

int bf_clocks_lock(json_t **report, struct bf_devfs *fs, const char *state_path,
                   struct bf_err *err)
{
	struct lock l = { fs, { 0 }, { 0 }, state_path, NULL, json_array() };
	struct bf_err e = BF_ERR_INIT;
	int64_t target, max;
	bool from_table, recorded = false;
	int ret;

	l.report = *report =
	        json_pack("{s:s, s:s, s:s, s:i}", "action", "lock-clocks",
	                  "device", fs->desc, "state_file", state_path,
	                  "target_percent", BF_CLOCKS_TARGET_PERCENT);
	json_object_set_new(l.report, "cores", l.cores);
	if ((ret = bf_clocks_capture(&l.now, fs, &e)))
		goto out;
	for (size_t i = 0; i < l.now.n; i++)
		json_array_append_new(
		        l.cores, bf_clocks_core_json(&l.now.cores[i], "was"));
	/* Whatever can be checked is, before anything changes. */
	for (size_t i = 0; i < l.now.n && !ret; i++)
		if (l.now.cores[i].governor)
			ret = plan_core(&target, &max, &from_table, fs,
			                l.now.cores[i].cpu, &e);
	if (ret || (ret = record(&l, &e)))
		goto out;
	recorded = true;
	if ((ret = online_all(&l, &e)))
		goto out;
	for (size_t i = 0; i < l.now.n && !ret; i++)
		ret = pin(&l, i, &e);
out:
	if (ret)
		bf_err_prefix(&e,
		              recorded ? "cannot lock clocks (unlock-clocks "
		                         "restores what was changed)"
		                       : "cannot lock clocks, nothing changed");
	json_object_set_new(l.report, "locked", json_boolean(!ret));
	if (ret)
		json_object_set_new(l.report, "error", json_string(e.msg));
	bf_clocks_state_release(&l.now);
	bf_clocks_state_release(&l.saved);
	if (ret && err)
		*err = e;
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
