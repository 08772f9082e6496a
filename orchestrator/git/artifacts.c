#include "git/artifacts.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"

/*
 * realpath() is POSIX.1-2008 but glibc shows it only with XSI or
 * _DEFAULT_SOURCE; declared as glibc and musl do (as core's fs.c does).
 */
char *realpath(const char *restrict path, char *restrict resolved);

/* A directory artifact of more files than this is refused. */
#define DIR_FILES_MAX 100000

void bf_artifacts_release(struct bf_artifacts *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].name);
		free(a->v[i].local);
		free(a->v[i].file.real);
		for (size_t k = 0; a->v[i].under && k < a->v[i].files.argc; k++)
			free(a->v[i].under[k].real);
		free(a->v[i].under);
		bf_argv_release(&a->v[i].files);
	}
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* "..", an absolute path or an empty one: never inside the export. */
static int check_pattern(const char *p, struct bf_err *err)
{
	const char *c = p;

	if (!*p || *p == '/')
		return bf_err_set(err, BF_EINVAL,
		                  "project.artifacts: '%s' must be a path "
		                  "relative to the export",
		                  p);
	while (c) {
		if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2]))
			return bf_err_set(err, BF_EINVAL,
			                  "project.artifacts: '%s' leaves the "
			                  "export ('..')",
			                  p);
		c = strchr(c, '/');
		c = c ? c + 1 : NULL;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct walk_ctx {
	struct bf_artifact *a;
	const char *root;
};

/* One entry of a directory artifact (rel: its path under it) into a. */
static int dir_file(const char *path, const char *rel, void *ctx,
                    struct bf_err *err)
{
	struct walk_ctx *w = ctx;
	struct stat st;
	int ret;

	if ((ret = bf_fs_check_within(path, w->root, "artifact", err)))
		return ret; /* a link out of the export, or a dangling one */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return bf_err_set(err, BF_EINVAL,
		                  "artifact '%s': '%s' is not a regular file",
		                  w->a->name, rel);
	if (w->a->files.argc >= DIR_FILES_MAX)
		return bf_err_set(err, BF_EINVAL,
		                  "artifact '%s' has more than %d files",
		                  w->a->name, DIR_FILES_MAX);
	bf_argv_push(&w->a->files, rel);
	return 0;
}

/*
 * Record what the file at path (inside the export, checked) holds now:
 * its links resolved, then opened once without following one, a regular
 * file within the size limit, hashed from that descriptor.
 */
static int hash_file(struct bf_artifact_file *f, unsigned char d[BF_SHA256_LEN],
                     const char *path, struct bf_err *err)
{
	struct stat st;
	int fd = -1, ret;
	char *real = realpath(path, NULL);

	if (!real)
		return bf_err_sys(err, "cannot resolve artifact '%s'", path);
	f->real = bf_xstrdup(real);
	free(real);
	if ((ret = bf_regfile_open(&fd, &st, f->real, BF_REGFILE_MAX,
	                           "artifact", err)))
		return ret;
	f->size = (uint64_t)st.st_size;
	f->exec = st.st_mode & S_IXUSR;
	ret = bf_regfile_sha256(d, fd, f->size, f->real, err);
	close(fd);
	if (!ret)
		bf_sha256_hex(f->hex, d);
	return ret;
}

/* The directory's content hash: each file's path, mode and digest. */
static int dir_hash(struct bf_artifact *a, struct bf_err *err)
{
	struct bf_sha256 c;
	unsigned char d[BF_SHA256_LEN];
	int ret = 0;

	if (a->files.argc) /* an empty directory has no argv yet */
		qsort(a->files.argv, a->files.argc, sizeof(char *), cmp_str);
	a->under = bf_xcalloc(a->files.argc ? a->files.argc : 1,
	                      sizeof(*a->under));
	bf_sha256_init(&c);
	for (size_t i = 0; !ret && i < a->files.argc; i++) {
		struct bf_artifact_file *f = &a->under[i];
		char *path = bf_xasprintf("%s/%s", a->local, a->files.argv[i]);
		unsigned char fd[BF_SHA256_LEN];

		ret = hash_file(f, fd, path, err);
		if (!ret)
			bf_regfile_tree_add(&c, a->files.argv[i], f->exec, fd);
		free(path);
	}
	bf_sha256_final(d, &c);
	bf_sha256_hex(a->hex, d);
	return ret;
}

/* One artifact: name (relative to root), a file or a directory. */
static int add(struct bf_artifacts *out, const char *root, const char *name,
               struct bf_err *err)
{
	char *local = bf_fs_join(root, name);
	unsigned char d[BF_SHA256_LEN];
	struct bf_artifact *a;
	struct stat st;
	int ret = bf_fs_check_within(local, root, "artifact", err);

	if (ret) {
		free(local);
		return ret;
	}
	out->v = bf_xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	a = &out->v[out->n++];
	memset(a, 0, sizeof(*a));
	bf_argv_init(&a->files);
	a->name = bf_xstrdup(name);
	while (strlen(a->name) > 1 && a->name[strlen(a->name) - 1] == '/')
		a->name[strlen(a->name) - 1] = '\0'; /* "testdata/" */
	a->local = local;
	if (stat(local, &st) < 0)
		return bf_err_sys(err, "cannot stat artifact '%s'", local);
	if (S_ISDIR(st.st_mode)) {
		struct walk_ctx w = { a, root };

		a->is_dir = true;
		if (!(ret = bf_fs_walk(local, dir_file, &w, err)))
			ret = dir_hash(a, err);
		return ret;
	}
	if (!S_ISREG(st.st_mode))
		return bf_err_set(err, BF_EINVAL,
		                  "artifact '%s' is not a regular file or a "
		                  "directory",
		                  name);
	if (!(ret = hash_file(&a->file, d, local, err)))
		memcpy(a->hex, a->file.hex, sizeof(a->hex));
	return ret;
}

/*
 * root/pattern for glob(3), root's own *, ?, [ and \ escaped: the
 * export's directory (under the build cache, so under $HOME or
 * $BENCHFARM_CACHE) is a path, not a pattern. Caller frees.
 */
static char *glob_of(const char *root, const char *pattern)
{
	struct bf_buf b = BF_BUF_INIT;

	for (const char *c = root; *c; c++) {
		if (strchr("*?[\\", *c))
			bf_buf_addch(&b, '\\');
		bf_buf_addch(&b, *c);
	}
	bf_buf_addch(&b, '/');
	bf_buf_addstr(&b, pattern);
	return bf_buf_detach(&b, NULL);
}

static int add_glob(struct bf_artifacts *out, const char *root,
                    const char *pattern, struct bf_err *err)
{
	char *full = glob_of(root, pattern);
	size_t skip = strlen(root) + 1;
	glob_t g;
	int rc, ret = 0;

	memset(&g, 0, sizeof(g));
	rc = glob(full, GLOB_ERR, NULL, &g);
	if (rc == GLOB_NOMATCH)
		ret = bf_err_set(err, BF_ENOTFOUND,
		                 "project.artifacts: '%s' matches nothing in "
		                 "the export",
		                 pattern);
	else if (rc)
		ret = bf_err_set(err, BF_ESYS,
		                 "project.artifacts: cannot expand '%s'",
		                 pattern);
	for (size_t i = 0; !ret && i < g.gl_pathc; i++)
		ret = add(out, root, g.gl_pathv[i] + skip, err);
	globfree(&g);
	free(full);
	return ret;
}

int bf_artifacts_expand(struct bf_artifacts *out, const char *root,
                        const struct bf_argv *patterns, struct bf_err *err)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !ret && i < patterns->argc; i++) {
		const char *p = patterns->argv[i];

		if ((ret = check_pattern(p, err)))
			break;
		ret = is_glob(p) ? add_glob(out, root, p, err)
		                 : add(out, root, p, err);
	}
	return ret;
}
