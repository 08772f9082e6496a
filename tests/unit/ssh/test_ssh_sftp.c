/*
 * Unit tests for uploads over SFTP (orchestrator/farm/ssh_sftp.c): the
 * per-content cache, verification and replacement of a damaged copy,
 * the work directory, and files swapped or grown after they were
 * checked. Against a real OpenSSH sshd (unit/ssh/fixture.h). Run from
 * the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/sha256.h"
#include "farm/ssh.h"
#include "unit/ssh/fixture.h"

/* A local file of n pseudo-random bytes with mode. */
static char *make_file(const char *name, size_t n, mode_t mode)
{
	char *path = path_in(name), *data = bf_xmalloc(n);
	uint32_t x = 12345;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (char)(x >> 16);
	}
	assert_int_equal(bf_fs_write_atomic(path, data, n, mode, NULL), 0);
	free(data);
	return path;
}

static void test_ssh__upload_once_verified(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf local = BF_BUF_INIT, want = BF_BUF_INIT;
	char *file = make_file("bench.bin", 300000, 0755);
	char *rdir = path_in("remote/cache"), *remote = NULL, *out;
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	bool sent = false;
	int status;

	(void)state;
	assert_int_equal(bf_sha256_file(d, file, &err), 0);
	bf_sha256_hex(hex, d);
	if (bf_ssh_upload(&remote, &sent, s, file, rdir, &err))
		fail_msg("upload: %s", err.msg);
	assert_true(sent);
	bf_buf_addf(&want, "%s/%s/bench.bin", rdir, hex);
	assert_string_equal(remote, want.buf);
	free(remote);
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, file, rdir, &err), 0);
	assert_false(sent);
	assert_string_equal(remote, want.buf);
	{
		const char *cat[] = { "cat", remote, NULL };
		const char *mode[] = { "stat", "-c", "%a", remote, NULL };
		const char *ls[] = { "ls", "-a", want.buf, NULL };
		const char *sum[] = { "sha256sum", NULL, NULL };

		out = exec_out(&status, s, cat);
		assert_int_equal(bf_buf_read_file(&local, file, NULL), 0);
		assert_memory_equal(out, local.buf, local.len);
		free(out);
		/* read-only on the device, executable as here */
		out = exec_out(&status, s, mode);
		assert_string_equal(out, "555\n");
		free(out);
		/* A damaged copy is replaced; no temporary file remains. */
		want.buf[strlen(want.buf) - strlen("/bench.bin")] = '\0';
		assert_int_equal(truncate(remote, 7), 0);
		free(remote);
		assert_int_equal(
		        bf_ssh_upload(&remote, &sent, s, file, rdir, &err), 0);
		assert_true(sent);
		out = exec_out(&status, s, ls);
		assert_string_equal(out, ".\n..\nbench.bin\n");
		free(out);
		sum[1] = remote;
		out = exec_out(&status, s, sum);
		assert_int_equal(strncmp(out, hex, BF_SHA256_HEX_LEN), 0);
		free(out);
	}
	bf_buf_release(&local);
	bf_buf_release(&want);
	free(remote);
	free(rdir);
	free(file);
	bf_ssh_close(s);
}

/*
 * A relative work directory is made under the SFTP server's start
 * directory (d1/home, as ci/sshd.sh sets it), not the one commands
 * start in (the real home), and comes back absolute.
 */
static void test_ssh__workdir_relative_to_sftp_start(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	char *want = path_in("d1/home/.cache/bf-wd"), *abs = NULL;
	struct stat st_want, st_abs;

	(void)state;
	if (bf_ssh_workdir(&abs, s, ".cache/bf-wd", &err))
		fail_msg("workdir: %s", err.msg);
	assert_true(stat(want, &st_want) == 0 && S_ISDIR(st_want.st_mode));
	/* the same directory, named absolutely (/tmp may be a symlink) */
	assert_true(abs[0] == '/' && stat(abs, &st_abs) == 0);
	assert_true(st_abs.st_dev == st_want.st_dev &&
	            st_abs.st_ino == st_want.st_ino);
	free(abs);
	abs = NULL;
	/* An absolute one works too, and one that exists already. */
	assert_int_equal(bf_ssh_workdir(&abs, s, want, &err), 0);
	assert_true(stat(abs, &st_abs) == 0 && st_abs.st_ino == st_want.st_ino);
	free(abs);
	free(want);
	bf_ssh_close(s);
}

static void test_ssh__upload_missing_local_file(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	char *remote = NULL;
	bool sent = true;

	(void)state;
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, "/nonexistent/f",
	                               "/tmp", &err),
	                 BF_ENOTFOUND);
	assert_null(remote);
	bf_ssh_close(s);
}

/*
 * A file swapped after it was checked (for a link to a host file, a
 * FIFO, other bytes) is never shipped under the checked hash, and a
 * sparse monster is refused by its size before a byte is read.
 */
static void test_ssh__upload_refuses_a_swapped_file(void **state)
{
	struct bf_ssh *s = connect_d1();
	struct bf_err err = BF_ERR_INIT;
	char *file = make_file("swap.bin", 5000, 0644);
	char *secret = make_file("secret", 4000, 0600);
	char *rdir = path_in("remote/swap"), *remote;
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	bool sent = false;
	int fd;

	(void)state;
	assert_int_equal(bf_sha256_file(d, file, &err), 0);
	bf_sha256_hex(hex, d);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(symlink(secret, file), 0);
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, file, rdir, &err),
	                 BF_EINVAL);
	remote = bf_xasprintf("%s/%s/swap.bin", rdir, hex);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "is a symbolic link"));
	assert_int_equal(unlink(file), 0);
	assert_int_equal(mkfifo(file, 0600), 0);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "is not a regular file"));
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rename(secret, file), 0);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_ECORRUPT);
	assert_non_null(strstr(err.msg, "changed after it was checked"));
	assert_false(sent);
	assert_int_equal(access(remote, F_OK), -1);
	/* 8 GiB of holes: refused by the size limit, nothing read */
	assert_true((fd = open(file, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(ftruncate(fd, (off_t)8 << 30), 0);
	close(fd);
	assert_int_equal(bf_ssh_upload_to(&sent, s, file, hex, remote, &err),
	                 BF_ETOOBIG);
	assert_non_null(strstr(err.msg, "more than the limit of 4294967296"));
	free(remote);
	assert_int_equal(bf_ssh_upload(&remote, &sent, s, file, rdir, &err),
	                 BF_ETOOBIG);
	assert_int_equal(unlink(file), 0);
	free(rdir);
	free(file);
	free(secret);
	bf_ssh_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh__upload_once_verified),
		cmocka_unit_test(test_ssh__workdir_relative_to_sftp_start),
		cmocka_unit_test(test_ssh__upload_missing_local_file),
		cmocka_unit_test(test_ssh__upload_refuses_a_swapped_file),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
