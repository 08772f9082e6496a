#include "probe/probe.h"

#include <stdarg.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "probe/devfs.h"

/*
 * Reading a device's files into a probe, for every probe_*.c file: a
 * missing file is noted in p->unavailable, any other failure in
 * p->errors, naming the file.
 */

void bf_probe__error(struct bf_probe *p, const char *fmt, ...)
{
	struct bf_buf b = BF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	bf_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	bf_argv_push(&p->errors, b.buf);
	bf_buf_release(&b);
}

/* Record a failed read: missing files are "unavailable", others errors. */
static int note(struct bf_probe *p, const char *path, int ret,
                const struct bf_err *err)
{
	if (ret == BF_ENOTFOUND)
		bf_argv_push(&p->unavailable, path);
	else if (ret)
		bf_probe__error(p, "%s", err->msg);
	return ret;
}

int bf_probe__text(char **out, struct bf_probe *p, struct bf_devfs *fs,
                   const char *path)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf b;
	int ret;

	bf_buf_init(&b, BF_DEVFS_FILE_MAX);
	ret = note(p, path, bf_devfs_read(fs, path, &b, &err), &err);
	if (!ret)
		*out = bf_buf_detach(&b, NULL);
	bf_buf_release(&b);
	return ret;
}

int bf_probe__line(char **out, struct bf_probe *p, struct bf_devfs *fs,
                   const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	return note(p, path, bf_devfs_read_line(out, fs, path, &err), &err);
}

int bf_probe__i64(int64_t *out, struct bf_probe *p, struct bf_devfs *fs,
                  const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	return note(p, path, bf_devfs_read_i64(out, fs, path, &err), &err);
}

int bf_probe__list(struct bf_argv *names, struct bf_probe *p,
                   struct bf_devfs *fs, const char *dir)
{
	struct bf_err err = BF_ERR_INIT;

	return note(p, dir, bf_devfs_list(fs, dir, names, &err), &err);
}
