#include "benchfarm/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

/*
 * realpath() is POSIX.1-2008 but glibc shows it only with XSI or
 * _DEFAULT_SOURCE; declared as glibc and musl do (see spawn.c's wait4).
 */
char *realpath(const char *restrict path, char *restrict resolved);

int bf_fs_mkdirs(const char *path, mode_t mode, struct bf_err *err)
{
	char *p = bf_xstrdup(path);
	struct stat st;
	int ret = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			ret = bf_err_sys(err, "cannot create directory '%s'",
			                 p);
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST) {
		ret = bf_err_sys(err, "cannot create directory '%s'", p);
	} else if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		ret = bf_err_sys(err, "cannot create directory '%s'", p);
	}
out:
	free(p);
	return ret;
}

int bf_fs_rmtree(const char *path, struct bf_err *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT
		               ? 0
		               : bf_err_sys(err, "cannot stat '%s'", path);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0)
			return bf_err_sys(err, "cannot remove '%s'", path);
		return 0;
	}
	d = opendir(path);
	if (!d)
		return bf_err_sys(err, "cannot open directory '%s'", path);
	while (!ret && (de = readdir(d))) {
		char *child;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		child = bf_xasprintf("%s/%s", path, de->d_name);
		ret = bf_fs_rmtree(child, err);
		free(child);
	}
	closedir(d);
	if (!ret && rmdir(path) < 0)
		ret = bf_err_sys(err, "cannot remove directory '%s'", path);
	return ret;
}

bool bf_fs_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int write_fd(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A device or FIFO named as an output (/dev/null, /dev/stdout, a pipe)
 * is written in place: renaming a file over it would replace the device
 * node itself.
 */
static int write_in_place(const char *path, const void *data, size_t len,
                          struct bf_err *err)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return bf_err_sys(err, "cannot open '%s'", path);
	if (write_fd(fd, data, len) < 0)
		ret = bf_err_sys(err, "cannot write '%s'", path);
	if (close(fd) < 0 && !ret)
		ret = bf_err_sys(err, "cannot write '%s'", path);
	return ret;
}

/*
 * Create a new file next to path, with a name nobody can guess
 * (DIR/.BASE.XXXXXXXXXXXX from /dev/urandom), O_EXCL and O_NOFOLLOW: a
 * file or symbolic link planted under any name is never opened. *tmp
 * gets the name; caller frees.
 */
static int open_temp(const char *path, mode_t mode, char **tmp,
                     struct bf_err *err)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	int fd = -1;

	*tmp = NULL;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned char r[12];
		char suffix[sizeof(r) + 1];

		if (rnd < 0 || read(rnd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
			/* no randomness: O_EXCL still refuses planted names */
			struct timespec ts;
			unsigned long v;

			clock_gettime(CLOCK_REALTIME, &ts);
			v = (unsigned long)ts.tv_nsec * 2654435761u ^
			    (unsigned long)getpid() ^ (unsigned long)tries;
			for (size_t i = 0; i < sizeof(r); i++)
				r[i] = (unsigned char)(v >> (i * 5 % 28));
		}
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = digits[r[i] % 32];
		suffix[sizeof(r)] = '\0';
		free(*tmp);
		*tmp = bf_xasprintf("%.*s.%s.%s", dir_len, path, path + dir_len,
		                    suffix);
		fd = open(*tmp,
		          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		          mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (rnd >= 0)
		close(rnd);
	if (fd < 0) {
		bf_err_sys(err, "cannot create a temporary file for '%s'",
		           path);
		BF_FREE(*tmp);
	}
	return fd;
}

int bf_fs_write_atomic(const char *path, const void *data, size_t len,
                       mode_t mode, struct bf_err *err)
{
	struct stat st, lst;
	char *tmp = NULL;
	int fd, ret = 0;

	/*
	 * /dev/stdout, /dev/fd/N, /proc/self/fd/N on a regular file: an open
	 * file of the caller's, written in place; renaming over the link
	 * would replace a node of /dev.
	 */
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6)))
		return write_in_place(path, data, len, err);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return write_in_place(path, data, len, err);
		return bf_err_set(err, BF_EINVAL,
		                  "cannot write '%s': it exists and is not a "
		                  "regular file, character device or FIFO; "
		                  "name a file to create",
		                  path);
	}
	fd = open_temp(path, mode, &tmp, err);
	if (fd < 0)
		return BF_ESYS;
	if (write_fd(fd, data, len) < 0 || fsync(fd) < 0)
		ret = bf_err_sys(err, "cannot write '%s'", tmp);
	if (close(fd) < 0 && !ret)
		ret = bf_err_sys(err, "cannot write '%s'", tmp);
	if (!ret && rename(tmp, path) < 0)
		ret = bf_err_sys(err, "cannot rename '%s' to '%s'", tmp, path);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

char *bf_fs_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return bf_xstrdup(".");
	if (slash == path)
		return bf_xstrdup("/");
	return bf_xstrndup(path, (size_t)(slash - path));
}

char *bf_fs_join(const char *base, const char *path)
{
	if (path[0] == '/' || !base || !*base)
		return bf_xstrdup(path);
	return bf_xasprintf("%s/%s", base, path);
}

int bf_fs_cache_dir(char **out, struct bf_err *err)
{
	const char *env = getenv("BENCHFARM_CACHE");

	if (env && *env) {
		*out = bf_xstrdup(env);
		return 0;
	}
	/* The XDG spec says to ignore a relative XDG_CACHE_HOME. */
	env = getenv("XDG_CACHE_HOME");
	if (env && env[0] == '/') {
		*out = bf_xasprintf("%s/benchfarm", env);
		return 0;
	}
	env = getenv("HOME");
	if (env && *env) {
		*out = bf_xasprintf("%s/.cache/benchfarm", env);
		return 0;
	}
	return bf_err_set(err, BF_ENOTFOUND,
	                  "cannot find a cache directory: set HOME or "
	                  "BENCHFARM_CACHE");
}

int bf_fs_check_within(const char *path, const char *root, const char *what,
                       struct bf_err *err)
{
	char *rp = realpath(path, NULL), *rr = NULL;
	size_t n;
	int ret = 0;

	if (!rp) {
		int e = errno;

		ret = bf_err_sys(err, "%s '%s'", what, path);
		if (e == ENOENT || e == ENOTDIR) {
			ret = BF_ENOTFOUND;
			if (err)
				err->code = ret;
		}
		return ret;
	}
	if (!(rr = realpath(root, NULL))) {
		ret = bf_err_sys(err, "cannot resolve '%s'", root);
		goto out;
	}
	n = strlen(rr);
	if (strncmp(rp, rr, n) != 0 ||
	    (rp[n] != '\0' && rp[n] != '/' && strcmp(rr, "/") != 0))
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s '%s' resolves to '%s', outside '%s'", what,
		                 path, rp, rr);
out:
	free(rp);
	free(rr);
	return ret;
}

static int walk_at(const char *dir, const char *rel,
                   int (*each)(const char *, const char *, void *,
                               struct bf_err *),
                   void *ctx, struct bf_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return bf_err_sys(err, "cannot read directory '%s'", dir);
	while (!ret && (e = readdir(d))) {
		char *path, *sub;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path = bf_xasprintf("%s/%s", dir, e->d_name);
		sub = *rel ? bf_xasprintf("%s/%s", rel, e->d_name)
		           : bf_xstrdup(e->d_name);
		if (lstat(path, &st) < 0)
			ret = bf_err_sys(err, "cannot stat '%s'", path);
		else if (S_ISDIR(st.st_mode))
			ret = walk_at(path, sub, each, ctx, err);
		else
			ret = each(path, sub, ctx, err);
		free(path);
		free(sub);
	}
	closedir(d);
	return ret;
}

int bf_fs_walk(const char *dir,
               int (*each)(const char *path, const char *rel, void *ctx,
                           struct bf_err *err),
               void *ctx, struct bf_err *err)
{
	return walk_at(dir, "", each, ctx, err);
}
