#include "farm/ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "benchfarm/regfile.h"
#include "benchfarm/sha256.h"
#include "benchfarm/spawn.h"
#include "farm/ssh_int.h"

/*
 * Artifact upload over SFTP into a per-content cache on the device:
 * REMOTE_DIR/SHA256/BASENAME, written under a temporary name, renamed
 * into place and verified, and never sent twice. The local file is
 * opened once (no link followed, a regular file of at most
 * BF_REGFILE_MAX bytes), hashed and sent from that descriptor, and the
 * bytes sent must hash to the name they are sent under. Cached files
 * are read-only (0444, or 0555 when executable): defence in depth, as
 * the benchmark may run as the user that owns them; the agent checks
 * their content before every run.
 */

#define WRITE_CHUNK (256u * 1024)

/* What we know about the local file. */
struct local_file {
	const char *path; /* borrowed */
	int fd; /* open on it, -1 when not */
	uint64_t size;
	long mode; /* 0555 when executable by its owner, else 0444 */
	char hex[BF_SHA256_HEX_LEN + 1];
};

static double stall_deadline(void)
{
	return bf_now_monotonic() + BF_SSH_STALL_S;
}

static const char *fx_text(unsigned long fx, bool writing)
{
	switch (fx) {
	case LIBSSH2_FX_NO_SUCH_FILE:
	case LIBSSH2_FX_NO_SUCH_PATH:
		return "no such file or directory";
	case LIBSSH2_FX_PERMISSION_DENIED:
	case LIBSSH2_FX_WRITE_PROTECT:
		return "permission denied";
	case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:
	case LIBSSH2_FX_QUOTA_EXCEEDED:
		return "no space left on device";
	case LIBSSH2_FX_NOT_A_DIRECTORY:
		return "not a directory";
	case LIBSSH2_FX_OP_UNSUPPORTED:
		return "operation not supported";
	default:
		/* SFTP v3 servers report ENOSPC as a plain failure. */
		return writing ? "failure (is the disk full?)" : "failure";
	}
}

/* Describe libssh2 error rc of SFTP operation what on path. */
static int sftp_fail(struct bf_ssh *s, int rc, const char *what,
                     const char *path, struct bf_err *err)
{
	unsigned long fx;

	if (rc != LIBSSH2_ERROR_SFTP_PROTOCOL)
		return bf_ssh__fail(s, rc, what, err);
	fx = libssh2_sftp_last_error(s->sftp);
	return bf_err_set(
	        err, fx == LIBSSH2_FX_NO_SUCH_FILE ? BF_ENOTFOUND : BF_ESYS,
	        "'%s': cannot %s '%s': %s", s->name, what, path,
	        fx_text(fx, !strcmp(what, "write")));
}

/* Open the session's SFTP channel once; later calls reuse it. */
static int sftp_start(struct bf_ssh *s, struct bf_err *err)
{
	int rc, ret;

	if (s->sftp)
		return 0;
	while (!(s->sftp = libssh2_sftp_init(s->session))) {
		rc = libssh2_session_last_errno(s->session);
		if (rc != LIBSSH2_ERROR_EAGAIN)
			return bf_ssh__fail(s, rc, "starting SFTP", err);
		if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
			return ret;
	}
	return 0;
}

/* stat path; BF_ENOTFOUND when it does not exist. */
static int sftp_stat(LIBSSH2_SFTP_ATTRIBUTES *st, struct bf_ssh *s,
                     const char *path, struct bf_err *err)
{
	int rc, ret;

	while ((rc = libssh2_sftp_stat_ex(s->sftp, path, (unsigned)strlen(path),
	                                  LIBSSH2_SFTP_STAT, st)) ==
	       LIBSSH2_ERROR_EAGAIN)
		if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
			return ret;
	return rc ? sftp_fail(s, rc, "stat", path, err) : 0;
}

/* Set the permission bits of path. */
static int sftp_chmod(struct bf_ssh *s, const char *path, long mode,
                      struct bf_err *err)
{
	LIBSSH2_SFTP_ATTRIBUTES st;
	int rc, ret;

	memset(&st, 0, sizeof(st));
	st.flags = LIBSSH2_SFTP_ATTR_PERMISSIONS;
	st.permissions = (unsigned long)mode;
	while ((rc = libssh2_sftp_stat_ex(s->sftp, path, (unsigned)strlen(path),
	                                  LIBSSH2_SFTP_SETSTAT, &st)) ==
	       LIBSSH2_ERROR_EAGAIN)
		if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
			return ret;
	return rc ? sftp_fail(s, rc, "chmod", path, err) : 0;
}

static bool is_dir(struct bf_ssh *s, const char *path)
{
	LIBSSH2_SFTP_ATTRIBUTES st;

	return !sftp_stat(&st, s, path, NULL) &&
	       (st.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) &&
	       LIBSSH2_SFTP_S_ISDIR(st.permissions);
}

/* mkdir -p over SFTP. */
static int sftp_mkdirs(struct bf_ssh *s, const char *dir, struct bf_err *err)
{
	char *p = bf_xstrdup(dir), *c, saved;
	int rc, ret = 0;

	if (is_dir(s, dir))
		goto out;
	for (c = p + 1; !ret; c++) {
		if ((*c && *c != '/') || c[-1] == '/')
			continue;
		saved = *c;
		*c = '\0';
		while ((rc = libssh2_sftp_mkdir_ex(
		                s->sftp, p, (unsigned)strlen(p), 0755)) ==
		       LIBSSH2_ERROR_EAGAIN)
			if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
				goto out;
		if (rc && (s->dead || !is_dir(s, p)))
			ret = sftp_fail(s, rc, "create directory", p, err);
		if (!saved)
			break;
		*c = saved;
	}
out:
	free(p);
	return ret;
}

/* Refuse early when the device's file system cannot hold the file. */
static int check_space(struct bf_ssh *s, const char *dir,
                       const struct local_file *lf, struct bf_err *err)
{
	LIBSSH2_SFTP_STATVFS st;
	unsigned long long avail;
	int rc;

	while ((rc = libssh2_sftp_statvfs(s->sftp, dir, strlen(dir), &st)) ==
	       LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait(s, stall_deadline(), NULL))
			return bf_ssh__check_alive(s, err);
	if (rc) /* no statvfs@openssh.com: find out while writing */
		return bf_ssh__check_alive(s, err);
	avail = (unsigned long long)st.f_bavail * st.f_frsize;
	if (avail >= lf->size)
		return 0;
	return bf_err_set(err, BF_ESYS,
	                  "'%s': no space left on device for '%s' (%llu bytes "
	                  "free in '%s', %llu needed)",
	                  s->name, lf->path, avail, dir,
	                  (unsigned long long)lf->size);
}

static int sftp_write_all(struct bf_ssh *s, LIBSSH2_SFTP_HANDLE *h,
                          const char *data, size_t len, const char *path,
                          struct bf_err *err)
{
	ssize_t n;
	int ret;

	while (len) {
		n = libssh2_sftp_write(h, data, len);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
				return ret;
			continue;
		}
		if (n < 0)
			return sftp_fail(s, (int)n, "write", path, err);
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Copy the local file's bytes, from the descriptor they were hashed
 * from, to the open remote handle; they must still be the bytes the
 * remote name says (a file rewritten in place since is refused).
 */
static int copy_out(struct bf_ssh *s, LIBSSH2_SFTP_HANDLE *h,
                    const struct local_file *lf, const char *remote,
                    struct bf_err *err)
{
	char *buf = bf_xmalloc(WRITE_CHUNK);
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	struct bf_sha256 c;
	uint64_t sent = 0;
	ssize_t n;
	int ret = 0;

	bf_sha256_init(&c);
	if (lseek(lf->fd, 0, SEEK_SET) < 0)
		ret = bf_err_sys(err, "cannot read '%s'", lf->path);
	while (!ret && (n = read(lf->fd, buf, WRITE_CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = bf_err_sys(err, "cannot read '%s'", lf->path);
			break;
		}
		sent += (uint64_t)n;
		if (sent > lf->size)
			break;
		bf_sha256_update(&c, buf, (size_t)n);
		ret = sftp_write_all(s, h, buf, (size_t)n, remote, err);
	}
	bf_sha256_final(d, &c);
	bf_sha256_hex(hex, d);
	if (!ret && (sent != lf->size || strcmp(hex, lf->hex)))
		ret = bf_err_set(err, BF_ECORRUPT,
		                 "artifact '%s' changed while it was uploaded; "
		                 "nothing of it was kept on '%s'",
		                 lf->path, s->name);
	free(buf);
	return ret;
}

/* Write the file to remote (a temporary name) with its final mode. */
static int send_file(struct bf_ssh *s, const struct local_file *lf,
                     const char *remote, struct bf_err *err)
{
	LIBSSH2_SFTP_HANDLE *h;
	int rc, ret = 0;

	while (!(h = libssh2_sftp_open_ex(
	                 s->sftp, remote, (unsigned)strlen(remote),
	                 LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT |
	                         LIBSSH2_FXF_TRUNC,
	                 lf->mode, LIBSSH2_SFTP_OPENFILE))) {
		rc = libssh2_session_last_errno(s->session);
		if (rc != LIBSSH2_ERROR_EAGAIN)
			return sftp_fail(s, rc, "create", remote, err);
		if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
			return ret;
	}
	ret = copy_out(s, h, lf, remote, err);
	while ((rc = libssh2_sftp_close_handle(h)) == LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait(s, stall_deadline(), ret ? NULL : err))
			return ret ? ret : BF_ETIMEOUT;
	if (!ret && rc)
		ret = sftp_fail(s, rc, "write", remote, err);
	/* The mode given to open is subject to the device's umask. */
	if (!ret)
		ret = sftp_chmod(s, remote, lf->mode, err);
	return ret;
}

static void sftp_unlink(struct bf_ssh *s, const char *path)
{
	while (libssh2_sftp_unlink_ex(s->sftp, path, (unsigned)strlen(path)) ==
	               LIBSSH2_ERROR_EAGAIN &&
	       !bf_ssh__wait(s, stall_deadline(), NULL))
		;
}

static int sftp_rename(struct bf_ssh *s, const char *from, const char *to)
{
	int rc;

	while ((rc = libssh2_sftp_rename_ex(
	                s->sftp, from, (unsigned)strlen(from), to,
	                (unsigned)strlen(to),
	                LIBSSH2_SFTP_RENAME_OVERWRITE |
	                        LIBSSH2_SFTP_RENAME_ATOMIC |
	                        LIBSSH2_SFTP_RENAME_NATIVE)) ==
	       LIBSSH2_ERROR_EAGAIN)
		if (bf_ssh__wait(s, stall_deadline(), NULL))
			break;
	return rc;
}

/*
 * Is path there with the local file's size (1), absent or wrong (0)?
 * A right-sized file with other permission bits gets the file's (its
 * content is the agent's to check, before each run).
 */
static int present(struct bf_ssh *s, const char *path,
                   const struct local_file *lf, struct bf_err *err)
{
	LIBSSH2_SFTP_ATTRIBUTES st;
	int ret = sftp_stat(&st, s, path, err);

	if (ret == BF_ENOTFOUND)
		return 0;
	if (ret)
		return ret;
	if (!(st.flags & LIBSSH2_SFTP_ATTR_SIZE) || st.filesize != lf->size ||
	    !(st.flags & LIBSSH2_SFTP_ATTR_PERMISSIONS) ||
	    !LIBSSH2_SFTP_S_ISREG(st.permissions))
		return 0;
	if ((long)(st.permissions & 0777) != lf->mode &&
	    (ret = sftp_chmod(s, path, lf->mode, err)))
		return ret;
	return 1;
}

/*
 * Move tmp to path. SFTP v3 (OpenSSH) refuses to replace a file, so a
 * stale one is removed first; one that a concurrent upload put there
 * with the right size is kept.
 */
static int into_place(struct bf_ssh *s, const char *tmp, const char *path,
                      const struct local_file *lf, struct bf_err *err)
{
	int rc = sftp_rename(s, tmp, path), ret;

	if (!rc)
		return 0;
	if ((ret = bf_ssh__check_alive(s, err)))
		return ret;
	if ((ret = present(s, path, lf, err)) != 0) {
		sftp_unlink(s, tmp);
		return ret > 0 ? 0 : ret;
	}
	sftp_unlink(s, path);
	if ((rc = sftp_rename(s, tmp, path)))
		ret = sftp_fail(s, rc, "rename into place", path, err);
	return ret;
}

/*
 * Open the local file once and hash it from that descriptor (lf->fd;
 * the caller closes it). When expect_hex is given the content must still
 * hash to it: the hash it had when the artifacts were expanded, which
 * names the device's copy.
 */
static int local_info(struct local_file *lf, const char *path,
                      const char *expect_hex, struct bf_err *err)
{
	unsigned char d[BF_SHA256_LEN];
	struct stat st;
	int ret;

	lf->path = path;
	lf->fd = -1;
	if ((ret = bf_regfile_open(&lf->fd, &st, path, BF_REGFILE_MAX,
	                           "artifact", err)))
		return ret;
	lf->size = (uint64_t)st.st_size;
	lf->mode = (st.st_mode & S_IXUSR) ? 0555 : 0444;
	if ((ret = bf_regfile_sha256(d, lf->fd, lf->size, path, err)))
		return ret;
	bf_sha256_hex(lf->hex, d);
	if (expect_hex && strcmp(expect_hex, lf->hex))
		return bf_err_set(err, BF_ECORRUPT,
		                  "artifact '%s' changed after it was checked "
		                  "(sha256 %s, was %s); rebuild and run again",
		                  path, lf->hex, expect_hex);
	return 0;
}

/* Upload into dir/NAME through NAME.tmp.PID and check the result. */
static int upload(struct bf_ssh *s, const struct local_file *lf,
                  const char *dir, const char *path, struct bf_err *err)
{
	char *tmp = bf_xasprintf("%s.tmp.%ld", path, (long)getpid());
	int ret;

	if ((ret = sftp_mkdirs(s, dir, err)) ||
	    (ret = check_space(s, dir, lf, err)))
		goto out;
	ret = send_file(s, lf, tmp, err);
	if (!ret)
		ret = into_place(s, tmp, path, lf, err);
	if (ret) {
		if (!s->dead)
			sftp_unlink(s, tmp);
		goto out;
	}
	if ((ret = present(s, path, lf, err)) == 0)
		ret = bf_err_set(err, BF_ECORRUPT,
		                 "'%s': '%s' does not have the size of '%s' "
		                 "after the upload",
		                 s->name, path, lf->path);
	ret = ret > 0 ? 0 : ret;
out:
	free(tmp);
	return ret;
}

/* The absolute, canonical form of path, which must exist. */
static int sftp_realpath(char **out, struct bf_ssh *s, const char *path,
                         struct bf_err *err)
{
	char buf[4096];
	int rc, ret;

	while ((rc = libssh2_sftp_realpath(s->sftp, path, buf,
	                                   sizeof(buf) - 1)) ==
	       LIBSSH2_ERROR_EAGAIN)
		if ((ret = bf_ssh__wait(s, stall_deadline(), err)))
			return ret;
	if (rc < 0)
		return sftp_fail(s, rc, "resolve", path, err);
	buf[rc] = '\0';
	if (buf[0] != '/')
		return bf_err_set(
		        err, BF_EPROTO,
		        "'%s': the SFTP server resolved '%s' to '%.200s', "
		        "not an absolute path",
		        s->name, path, buf);
	*out = bf_xstrdup(buf);
	return 0;
}

int bf_ssh_workdir(char **abs_out, struct bf_ssh *s, const char *dir,
                   struct bf_err *err)
{
	int ret;

	if (!*dir)
		return bf_err_set(err, BF_EINVAL, "'%s': empty work directory",
		                  s->name);
	if ((ret = bf_ssh__check_alive(s, err)) || (ret = sftp_start(s, err)) ||
	    (ret = sftp_mkdirs(s, dir, err)))
		return ret;
	return sftp_realpath(abs_out, s, dir, err);
}

int bf_ssh_upload_to(bool *uploaded, struct bf_ssh *s, const char *local_path,
                     const char *hex, const char *remote_path,
                     struct bf_err *err)
{
	const char *slash = strrchr(remote_path, '/');
	struct local_file lf = { .fd = -1 };
	char *dir = NULL;
	int ret;

	if (!slash || slash == remote_path || !slash[1])
		return bf_err_set(err, BF_EINVAL,
		                  "'%s' is not a file path under a directory",
		                  remote_path);
	if ((ret = local_info(&lf, local_path, hex, err)) ||
	    (ret = bf_ssh__check_alive(s, err)) || (ret = sftp_start(s, err)))
		goto out;
	dir = bf_xstrndup(remote_path, (size_t)(slash - remote_path));
	ret = present(s, remote_path, &lf, err);
	if (ret > 0) {
		*uploaded = false;
		ret = 0;
	} else if (!ret && !(ret = upload(s, &lf, dir, remote_path, err))) {
		*uploaded = true;
	}
out:
	if (lf.fd >= 0)
		close(lf.fd);
	free(dir);
	return ret;
}

int bf_ssh_upload(char **remote_out, bool *uploaded, struct bf_ssh *s,
                  const char *local_path, const char *remote_dir,
                  struct bf_err *err)
{
	const char *base = strrchr(local_path, '/');
	struct local_file lf = { .fd = -1 };
	char *dir = NULL, *path = NULL;
	int ret;

	base = base ? base + 1 : local_path;
	if (!*base)
		return bf_err_set(err, BF_EINVAL, "'%s' names no file",
		                  local_path);
	if ((ret = local_info(&lf, local_path, NULL, err)) ||
	    (ret = bf_ssh__check_alive(s, err)) || (ret = sftp_start(s, err)))
		goto out;
	dir = bf_xasprintf("%s/%s", remote_dir, lf.hex);
	path = bf_xasprintf("%s/%s", dir, base);
	ret = present(s, path, &lf, err);
	if (ret > 0) {
		*uploaded = false;
		ret = 0;
	} else if (!ret && !(ret = upload(s, &lf, dir, path, err))) {
		BF_LOG_DEBUG("'%s': uploaded '%s' to '%s'", s->name, local_path,
		             path);
		*uploaded = true;
	}
	if (!ret) {
		*remote_out = path;
		path = NULL;
	}
out:
	if (lf.fd >= 0)
		close(lf.fd);
	free(dir);
	free(path);
	return ret;
}
