#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/regfile.h"

/* A cached tree of more files than this is not ours. */
#define TREE_FILES_MAX 100000

/*
 * Digests this agent has computed, so that a large artifact is hashed
 * once per connection and not before every run. An entry holds only
 * while the file opened under its path is the same one (device, inode)
 * with the same size, modification and change time. The change time is
 * the one a process without root cannot forge: every write, truncate,
 * chmod, rename onto the path or utime sets it to the current time, and
 * nothing lets a user set it back; so a benchmark that rewrites a cached
 * copy, even as the same user, makes the next check hash it again.
 */
struct seen {
	struct seen *next;
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctim, mtim;
	unsigned char d[BF_SHA256_LEN];
};

#define SEEN_BUCKETS 4096
#define SEEN_MAX     (4 * TREE_FILES_MAX) /* then forget them all */

static struct seen *seen_tab[SEEN_BUCKETS];
static size_t seen_n;

static size_t seen_bucket(const char *path)
{
	uint32_t h = 2166136261u;

	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h % SEEN_BUCKETS;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static struct seen *seen_find(const char *path, const struct stat *st)
{
	for (struct seen *e = seen_tab[seen_bucket(path)]; e; e = e->next)
		if (!strcmp(e->path, path))
			return e->dev == st->st_dev && e->ino == st->st_ino &&
			                       e->size == st->st_size &&
			                       same_time(&e->ctim,
			                                 &st->st_ctim) &&
			                       same_time(&e->mtim, &st->st_mtim)
			               ? e
			               : NULL;
	return NULL;
}

static void seen_forget_all(void)
{
	for (size_t i = 0; i < SEEN_BUCKETS; i++)
		while (seen_tab[i]) {
			struct seen *e = seen_tab[i];

			seen_tab[i] = e->next;
			free(e->path);
			free(e);
		}
	seen_n = 0;
}

static void seen_put(const char *path, const struct stat *st,
                     const unsigned char d[BF_SHA256_LEN])
{
	struct seen **pp = &seen_tab[seen_bucket(path)], *e;

	for (e = *pp; e && strcmp(e->path, path); e = e->next)
		;
	if (!e) {
		if (seen_n >= SEEN_MAX)
			seen_forget_all();
		pp = &seen_tab[seen_bucket(path)];
		e = bf_xcalloc(1, sizeof(*e));
		e->path = bf_xstrdup(path);
		e->next = *pp;
		*pp = e;
		seen_n++;
	}
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->ctim = st->st_ctim;
	e->mtim = st->st_mtim;
	memcpy(e->d, d, BF_SHA256_LEN);
}

/* SHA-256 of the regular file at path; *exec its owner-execute bit. */
static int hash_file(unsigned char d[BF_SHA256_LEN], bool *exec,
                     int64_t want_size, const char *path, struct bf_err *err)
{
	const struct seen *e;
	struct stat st;
	int fd = -1, ret;

	if ((ret = bf_regfile_open(&fd, &st, path, BF_REGFILE_MAX, "artifact",
	                           err)))
		return ret;
	if (want_size >= 0 && st.st_size != want_size) {
		close(fd);
		return bf_err_set(err, BF_ECORRUPT,
		                  "artifact '%s' is %lld bytes, not %lld", path,
		                  (long long)st.st_size, (long long)want_size);
	}
	*exec = st.st_mode & S_IXUSR;
	if ((e = seen_find(path, &st))) {
		memcpy(d, e->d, BF_SHA256_LEN);
		close(fd);
		return 0;
	}
	ret = bf_regfile_sha256(d, fd, (uint64_t)st.st_size, path, err);
	close(fd);
	if (!ret)
		seen_put(path, &st, d);
	return ret;
}

struct tree_ctx {
	struct bf_argv *out;
	const char *top;
};

/* One file of a tree (rel: its path under the tree's top) into out. */
static int tree_file(const char *path, const char *rel, void *ctx,
                     struct bf_err *err)
{
	struct tree_ctx *t = ctx;

	(void)path;
	if (t->out->argc >= TREE_FILES_MAX)
		return bf_err_set(err, BF_ECORRUPT,
		                  "'%s' has more than %d files", t->top,
		                  TREE_FILES_MAX);
	bf_argv_push(t->out, rel); /* links: refused when hashed */
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int hash_tree(unsigned char d[BF_SHA256_LEN], const char *top,
                     struct bf_err *err)
{
	struct bf_argv files = BF_ARGV_INIT;
	struct tree_ctx t = { &files, top };
	struct bf_sha256 c;
	struct stat st;
	int ret;

	if (lstat(top, &st) < 0)
		return bf_err_sys(err, "cannot stat artifact '%s'", top);
	if (!S_ISDIR(st.st_mode))
		return bf_err_set(err, BF_ECORRUPT,
		                  "artifact '%s' is not a directory", top);
	ret = bf_fs_walk(top, tree_file, &t, err);
	if (files.argc) /* an empty tree has no argv yet */
		qsort(files.argv, files.argc, sizeof(char *), cmp_str);
	bf_sha256_init(&c);
	for (size_t i = 0; !ret && i < files.argc; i++) {
		char *path = bf_xasprintf("%s/%s", top, files.argv[i]);
		unsigned char fd[BF_SHA256_LEN];
		bool exec = false;

		ret = hash_file(fd, &exec, -1, path, err);
		if (!ret)
			bf_regfile_tree_add(&c, files.argv[i], exec, fd);
		free(path);
	}
	bf_sha256_final(d, &c);
	bf_argv_release(&files);
	return ret;
}

/*
 * Is path .../artifacts/SHA256/NAME with SHA256 the hash it is checked
 * against? Only such a path is removed when it changed: a request can
 * never make the agent remove anything else.
 */
static bool in_cache(const char *path, const char *want)
{
	const char *name = strrchr(path, '/');
	size_t n = strlen("/artifacts/");

	if (!name || name[1] == '\0' || !strcmp(name, "/..") ||
	    !strcmp(name, "/.") || name - path < BF_SHA256_HEX_LEN + (long)n)
		return false;
	name -= BF_SHA256_HEX_LEN;
	return !strncmp(name, want, BF_SHA256_HEX_LEN) &&
	       !strncmp(name - n, "/artifacts/", n);
}

/* Check one entry; BF_ECORRUPT (err set) when it does not hold. */
static int verify_one(const json_t *e, size_t i, struct bf_err *err)
{
	const char *path = bf_json_str_or(e, "path", NULL);
	const char *want = bf_json_str_or(e, "sha256", NULL);
	const json_t *size = json_object_get(e, "size");
	bool tree = json_is_true(json_object_get(e, "tree"));
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	struct bf_err why = BF_ERR_INIT;
	bool exec;
	int ret;

	if (!path || *path != '/' || !want ||
	    strlen(want) != BF_SHA256_HEX_LEN ||
	    strspn(want, "0123456789abcdef") != BF_SHA256_HEX_LEN ||
	    (size && !json_is_integer(size)))
		return bf_err_set(err, BF_EINVAL,
		                  "\"verify\"[%zu] must be {\"path\": absolute "
		                  "path, \"sha256\": 64 hex digits, \"tree\", "
		                  "\"size\"}",
		                  i);
	ret = tree ? hash_tree(d, path, &why)
	           : hash_file(d, &exec, size ? json_integer_value(size) : -1,
	                       path, &why);
	if (!ret) {
		bf_sha256_hex(hex, d);
		if (!strcmp(hex, want))
			return 0;
		bf_err_set(&why, BF_ECORRUPT, "its content hashes to %s", hex);
	}
	return bf_err_set(err, BF_ECORRUPT,
	                  "artifact '%s' on the device is not what was "
	                  "uploaded (sha256 %s): %s; %s",
	                  path, want, why.msg,
	                  in_cache(path, want) && !bf_fs_rmtree(path, NULL)
	                          ? "removed it"
	                          : "not removed (not in an artifact cache)");
}

int bf_verify_artifacts(const json_t *list, struct bf_err *err)
{
	size_t i;
	json_t *e;
	int ret = 0;

	if (!list)
		return 0;
	if (!json_is_array(list))
		return bf_err_set(err, BF_EINVAL,
		                  "\"verify\" must be an array");
	/* every changed one is removed, so one upload restores them all */
	json_array_foreach(list, i, e)
	{
		struct bf_err one = BF_ERR_INIT;
		int r = verify_one(e, i, &one);

		if (r == BF_EINVAL)
			return bf_err_set(err, r, "%s", one.msg);
		if (r && !ret)
			ret = bf_err_set(err, r, "%s", one.msg);
	}
	return ret;
}
