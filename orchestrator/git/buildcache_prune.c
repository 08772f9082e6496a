#include "git/buildcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"

/*
 * The cache's entries: listing them (`benchfarm cache list`), pruning
 * the least recently used down to the size limit (`cache prune` and
 * after each build), and the limit itself. Keys and locks are
 * buildcache.c's.
 */

/* Bytes of the files below path (apparent sizes; links not followed). */
static uint64_t tree_bytes(const char *path)
{
	struct dirent *de;
	struct stat st;
	uint64_t n = 0;
	DIR *d;

	if (lstat(path, &st) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_size;
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		char *child;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		child = bf_xasprintf("%s/%s", path, de->d_name);
		n += tree_bytes(child);
		free(child);
	}
	closedir(d);
	return n;
}

/* Modification time in nanoseconds since the epoch; 0 when missing. */
static int64_t mtime_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/*
 * What a write killed halfway leaves of entry key in dir: KEY.json.tmp.PID
 * and KEY.log.tmp.PID. Their bytes, and with remove each is unlinked
 * (the entry's exclusive lock held: nobody writes them then); -1 when one
 * cannot be removed, errno set.
 */
static int64_t leftovers(const char *dir, const char *key, bool remove)
{
	size_t n = strlen(key);
	int64_t bytes = 0;
	struct dirent *d;
	DIR *dh = opendir(dir);

	if (!dh)
		return 0;
	while ((d = readdir(dh))) {
		char *path;

		if (strncmp(d->d_name, key, n) ||
		    (strncmp(d->d_name + n, ".json.tmp.", 10) &&
		     strncmp(d->d_name + n, ".log.tmp.", 9)))
			continue;
		path = bf_xasprintf("%s/%s", dir, d->d_name);
		if (remove && unlink(path) < 0 && errno != ENOENT)
			bytes = -1;
		else if (!remove)
			bytes += (int64_t)tree_bytes(path);
		free(path);
		if (bytes < 0)
			break;
	}
	closedir(dh);
	return bytes;
}

/* The key of a file name of the cache (KEY, KEY.json, ...), or false. */
static bool key_of(char key[BF_BUILDCACHE_KEY_LEN + 1], const char *name)
{
	size_t n = strspn(name, "0123456789abcdef");

	if (n != BF_BUILDCACHE_KEY_LEN ||
	    (name[n] && strcmp(name + n, ".json") && strcmp(name + n, ".log") &&
	     strcmp(name + n, ".lock") && strcmp(name + n, ".tmp") &&
	     strncmp(name + n, ".json.tmp.", 10) &&
	     strncmp(name + n, ".log.tmp.", 9)))
		return false;
	memcpy(key, name, n);
	key[n] = '\0';
	return true;
}

static bool has_key(const struct bf_buildcache_list *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].legacy && !strcmp(l->v[i].name, key))
			return true;
	return false;
}

static struct bf_buildcache_entry *add_entry(struct bf_buildcache_list *l)
{
	struct bf_buildcache_entry *e;

	l->v = bf_xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/* Fill entry key of builds dir. */
static void load_entry(struct bf_buildcache_list *l, const char *dir,
                       const char *key)
{
	struct bf_buildcache_entry *e = add_entry(l);
	char *json = bf_xasprintf("%s/%s.json", dir, key);
	char *log = bf_xasprintf("%s/%s.log", dir, key);
	char *lock = bf_xasprintf("%s/%s.lock", dir, key);
	char *tmp = bf_xasprintf("%s/%s.tmp", dir, key);

	e->name = bf_xstrdup(key);
	e->path = bf_xasprintf("%s/%s", dir, key);
	if (bf_fs_exists(json) && bf_json_load_file(&e->meta, json, NULL))
		e->meta = NULL;
	e->complete = e->meta && bf_fs_exists(e->path);
	e->bytes = tree_bytes(e->path) + tree_bytes(json) + tree_bytes(log) +
	           tree_bytes(lock) + tree_bytes(tmp) +
	           (uint64_t)leftovers(dir, key, false);
	e->last_used_ns = mtime_of(lock);
	if (!e->last_used_ns)
		e->last_used_ns = mtime_of(json);
	e->in_use = bf_buildcache_is_locked(lock);
	free(json);
	free(log);
	free(lock);
	free(tmp);
}

/* The directories older benchfarm versions exported into. */
static void load_legacy(struct bf_buildcache_list *l, const char *cache)
{
	static const char *const names[] = { "work", "work2" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(names); i++) {
		char *path = bf_xasprintf("%s/%s", cache, names[i]);
		struct bf_buildcache_entry *e;

		if (!bf_fs_exists(path)) {
			free(path);
			continue;
		}
		e = add_entry(l);
		e->name = bf_xstrdup(names[i]);
		e->path = path;
		e->legacy = true;
		e->bytes = tree_bytes(path);
		e->last_used_ns = mtime_of(path);
	}
}

static int cmp_used(const void *a, const void *b)
{
	const struct bf_buildcache_entry *x = a, *y = b;

	if (x->last_used_ns != y->last_used_ns)
		return x->last_used_ns < y->last_used_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int bf_buildcache_list_load(struct bf_buildcache_list *out, const char *cache,
                            struct bf_err *err)
{
	char *dir = bf_xasprintf("%s/builds", cache);
	char key[BF_BUILDCACHE_KEY_LEN + 1];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	load_legacy(out, cache);
	d = opendir(dir);
	if (!d && errno != ENOENT)
		ret = bf_err_sys(err, "cannot open directory '%s'", dir);
	while (d && (de = readdir(d)))
		if (key_of(key, de->d_name) && !has_key(out, key))
			load_entry(out, dir, key);
	if (d)
		closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_used);
	for (size_t i = 0; i < out->n; i++)
		out->bytes += out->v[i].bytes;
	free(dir);
	return ret;
}

void bf_buildcache_list_release(struct bf_buildcache_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->n; i++) {
		free(list->v[i].name);
		free(list->v[i].path);
		json_decref(list->v[i].meta);
	}
	free(list->v);
	memset(list, 0, sizeof(*list));
}

/*
 * Remove entry e unless someone holds it: BF_EBUSY then. The record
 * goes first, so a half-removed entry is never taken for a build.
 */
static int remove_entry(const struct bf_buildcache_entry *e, const char *cache,
                        struct bf_err *err)
{
	char *dir = bf_xasprintf("%s/builds", cache);
	char *json = NULL, *log = NULL, *lock = NULL, *tmp = NULL;
	int fd = -1, ret;

	if (e->legacy) {
		ret = bf_fs_rmtree(e->path, err);
		goto out;
	}
	if ((ret = bf_buildcache_lock(&fd, dir, e->name, F_WRLCK, false, err)))
		goto out;
	json = bf_xasprintf("%s/%s.json", dir, e->name);
	log = bf_xasprintf("%s/%s.log", dir, e->name);
	lock = bf_xasprintf("%s/%s.lock", dir, e->name);
	tmp = bf_xasprintf("%s/%s.tmp", dir, e->name);
	if (unlink(json) < 0 && errno != ENOENT)
		ret = bf_err_sys(err, "cannot remove '%s'", json);
	if (!ret)
		ret = bf_fs_rmtree(e->path, err);
	if (!ret)
		ret = bf_fs_rmtree(tmp, err);
	if (!ret && unlink(log) < 0 && errno != ENOENT)
		ret = bf_err_sys(err, "cannot remove '%s'", log);
	if (!ret && leftovers(dir, e->name, true) < 0)
		ret = bf_err_sys(err,
		                 "cannot remove what a killed write "
		                 "left of '%s' in '%s'",
		                 e->name, dir);
	/* Waiters on the unlinked file see it is gone and lock anew. */
	if (!ret && unlink(lock) < 0 && errno != ENOENT)
		ret = bf_err_sys(err, "cannot remove '%s'", lock);
	close(fd);
out:
	free(dir);
	free(json);
	free(log);
	free(lock);
	free(tmp);
	return ret;
}

int bf_buildcache_prune(struct bf_buildcache_pruned *out, const char *cache,
                        uint64_t max_bytes, bool all, struct bf_err *err)
{
	struct bf_buildcache_list l;
	uint64_t total = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = bf_buildcache_list_load(&l, cache, err)))
		goto out;
	for (size_t i = 0; i < l.n; i++)
		if (all || !l.v[i].legacy)
			total += l.v[i].bytes;
	for (size_t i = 0; !ret && i < l.n && (all || total > max_bytes); i++) {
		const struct bf_buildcache_entry *e = &l.v[i];
		struct bf_err rm_err = BF_ERR_INIT;

		if (e->legacy && !all)
			continue;
		ret = remove_entry(e, cache, &rm_err);
		if (ret == BF_EBUSY) {
			out->kept_in_use++;
			ret = 0;
		} else if (ret) {
			bf_err_set(err, ret, "%s", rm_err.msg);
		} else {
			out->removed++;
			out->freed += e->bytes;
			total -= e->bytes;
		}
	}
	out->left = l.bytes - out->freed;
out:
	bf_buildcache_list_release(&l);
	return ret;
}

int bf_buildcache_max_size(uint64_t *out, struct bf_err *err)
{
	const char *env = getenv("BENCHFARM_CACHE_MAX_SIZE");
	int ret;

	if (!env || !*env) {
		*out = BF_BUILDCACHE_DEFAULT_MAX;
		return 0;
	}
	ret = bf_size_parse(out, env, err);
	if (ret)
		bf_err_prefix(err, "BENCHFARM_CACHE_MAX_SIZE");
	if (!ret && !*out)
		*out = UINT64_MAX;
	return ret;
}

int bf_size_parse(uint64_t *out, const char *s, struct bf_err *err)
{
	static const char units[] = "KMGT";
	const char *p = s;
	uint64_t n = 0, mul = 1;

	while (*p >= '0' && *p <= '9') {
		if (n > (UINT64_MAX - 9) / 10)
			goto bad;
		n = n * 10 + (uint64_t)(*p++ - '0');
	}
	if (p == s)
		goto bad;
	if (*p) {
		const char *u = strchr(units, *p);

		if (!u || (p[1] && strcmp(p + 1, "iB") && strcmp(p + 1, "B")))
			goto bad;
		for (const char *q = units; q <= u; q++)
			mul *= 1024;
	}
	if (n > UINT64_MAX / mul)
		goto bad;
	*out = n * mul;
	return 0;
bad:
	return bf_err_set(err, BF_EINVAL,
	                  "'%s' is not a size: give bytes, or a number with "
	                  "K, M, G or T (powers of 1024), e.g. 512M or 5G",
	                  s);
}

void bf_size_format(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < BF_ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
}
