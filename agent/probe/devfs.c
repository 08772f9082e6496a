#include "probe/devfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"

/* The local backend: paths resolved under a sysroot directory. */
struct local {
	char *root; /* without a trailing slash; "" for "/" */
};

static char *local_path(const struct local *l, const char *path)
{
	return bf_xasprintf("%s%s", l->root, path);
}

static int local_read(void *state, const char *path, struct bf_buf *out,
                      struct bf_err *err)
{
	char *p = local_path(state, path);
	struct bf_buf b;
	int ret;

	bf_buf_init(&b, BF_DEVFS_FILE_MAX);
	ret = bf_buf_read_file(&b, p, err);
	if (!ret && bf_buf_add(out, b.buf, b.len))
		ret = bf_err_set(err, BF_ETOOBIG, "'%s' is too large", path);
	bf_buf_release(&b);
	free(p);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int local_list(void *state, const char *dir, struct bf_argv *names,
                      struct bf_err *err)
{
	char *p = local_path(state, dir);
	struct dirent *de;
	DIR *d = opendir(p);
	int ret = 0;

	if (!d) {
		ret = errno == ENOENT
		              ? bf_err_set(err, BF_ENOTFOUND,
		                           "'%s' does not exist", dir)
		              : bf_err_sys(err, "cannot list '%s'", dir);
		goto out;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			bf_argv_push(names, de->d_name);
	closedir(d);
	if (names->argc)
		qsort(names->argv, names->argc, sizeof(char *), cmp_str);
out:
	free(p);
	return ret;
}

static int local_write(void *state, const char *path, const char *data,
                       struct bf_err *err)
{
	char *p = local_path(state, path);
	size_t len = strlen(data), off = 0;
	int fd, ret = 0;

	/* sysfs files exist already: never create, truncate like echo >. */
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		ret = errno == ENOENT
		              ? bf_err_set(err, BF_ENOTFOUND,
		                           "'%s' does not exist", path)
		              : bf_err_sys(err, "cannot write '%s'", path);
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = bf_err_sys(err, "cannot write '%s'", path);
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 && !ret)
		ret = bf_err_sys(err, "cannot write '%s'", path);
out:
	free(p);
	return ret;
}

static int local_command(void *state, const char *const *argv,
                         struct bf_buf *out, struct bf_err *err)
{
	(void)state;
	(void)out;
	return bf_err_set(err, BF_ENOTFOUND,
	                  "'%s' needs an adb device (--adb SERIAL)", argv[0]);
}

static void local_free(void *state)
{
	struct local *l = state;

	if (!l)
		return;
	free(l->root);
	free(l);
}

static const struct bf_devfs_ops local_ops = {
	"local", local_read, local_list, local_write, local_command, local_free,
};

int bf_devfs_open_local(struct bf_devfs **out, const char *root,
                        struct bf_err *err)
{
	struct bf_devfs *fs;
	struct local *l;
	size_t len;

	if (!root || !*root)
		root = "/";
	if (access(root, F_OK) < 0)
		return bf_err_sys(err, "sysroot '%s'", root);
	l = bf_xcalloc(1, sizeof(*l));
	l->root = bf_xstrdup(root);
	len = strlen(l->root);
	while (len && l->root[len - 1] == '/')
		l->root[--len] = '\0';
	fs = bf_xcalloc(1, sizeof(*fs));
	fs->ops = &local_ops;
	fs->state = l;
	fs->desc = bf_xasprintf("sysroot '%s'", root);
	*out = fs;
	return 0;
}

void bf_devfs_free(struct bf_devfs *fs)
{
	if (!fs)
		return;
	fs->ops->free(fs->state);
	free(fs->desc);
	free(fs);
}

int bf_devfs_read(struct bf_devfs *fs, const char *path, struct bf_buf *out,
                  struct bf_err *err)
{
	return fs->ops->read(fs->state, path, out, err);
}

int bf_devfs_list(struct bf_devfs *fs, const char *dir, struct bf_argv *names,
                  struct bf_err *err)
{
	return fs->ops->list(fs->state, dir, names, err);
}

int bf_devfs_write(struct bf_devfs *fs, const char *path, const char *data,
                   struct bf_err *err)
{
	return fs->ops->write(fs->state, path, data, err);
}

int bf_devfs_command(struct bf_devfs *fs, const char *const *argv,
                     struct bf_buf *out, struct bf_err *err)
{
	return fs->ops->command(fs->state, argv, out, err);
}

int bf_devfs_read_line(char **out, struct bf_devfs *fs, const char *path,
                       struct bf_err *err)
{
	struct bf_buf b = BF_BUF_INIT;
	int ret = bf_devfs_read(fs, path, &b, err);

	if (ret) {
		bf_buf_release(&b);
		return ret;
	}
	bf_buf_rtrim(&b);
	*out = bf_buf_detach(&b, NULL);
	return 0;
}

int bf_devfs_read_i64(int64_t *out, struct bf_devfs *fs, const char *path,
                      struct bf_err *err)
{
	char *line = NULL;
	int ret = bf_devfs_read_line(&line, fs, path, err);

	if (!ret && bf_parse_i64(out, line, NULL))
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s: '%.40s' is not an integer", path, line);
	free(line);
	return ret;
}
