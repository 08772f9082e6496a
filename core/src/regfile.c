#include "benchfarm/regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "benchfarm/err.h"

int bf_regfile_open(int *fd_out, struct stat *st_out, const char *path,
                    uint64_t max, const char *what, struct bf_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return bf_err_set(err, BF_ENOTFOUND, "%s '%s' does not exist",
		                  what, path);
	if (fd < 0 && errno == ELOOP)
		return bf_err_set(err, BF_EINVAL,
		                  "%s '%s' is a symbolic link, not a regular "
		                  "file",
		                  what, path);
	if (fd < 0)
		return bf_err_sys(err, "cannot open %s '%s'", what, path);
	if (fstat(fd, &st) < 0) {
		bf_err_sys(err, "cannot stat %s '%s'", what, path);
		close(fd);
		return BF_ESYS;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return bf_err_set(err, BF_EINVAL,
		                  "%s '%s' is not a regular file", what, path);
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return bf_err_set(err, BF_ETOOBIG,
		                  "%s '%s' is %llu bytes, more than the limit "
		                  "of %llu",
		                  what, path, (unsigned long long)st.st_size,
		                  (unsigned long long)max);
	}
	*fd_out = fd;
	*st_out = st;
	return 0;
}

int bf_regfile_sha256(unsigned char out[BF_SHA256_LEN], int fd, uint64_t size,
                      const char *path, struct bf_err *err)
{
	unsigned char chunk[65536];
	struct bf_sha256 c;
	uint64_t seen = 0;
	ssize_t n;

	bf_sha256_init(&c);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return bf_err_sys(err, "cannot read '%s'", path);
		if (n == 0)
			break;
		seen += (uint64_t)n;
		if (seen > size)
			break;
		bf_sha256_update(&c, chunk, (size_t)n);
	}
	if (seen != size)
		return bf_err_set(err, BF_ECORRUPT,
		                  "'%s' changed while it was read (%llu bytes "
		                  "where %llu were expected)",
		                  path, (unsigned long long)seen,
		                  (unsigned long long)size);
	bf_sha256_final(out, &c);
	return 0;
}

void bf_regfile_tree_add(struct bf_sha256 *c, const char *rel, bool exec,
                         const unsigned char digest[BF_SHA256_LEN])
{
	bf_sha256_update(c, rel, strlen(rel) + 1);
	bf_sha256_update(c, exec ? "x" : "-", 1);
	bf_sha256_update(c, digest, BF_SHA256_LEN);
}
