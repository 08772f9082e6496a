/*
 * Unit tests for the agent's check of cached artifacts before a run
 * (agent/verify.c): a copy rewritten by a same-user process is caught
 * even when its size and mtime are put back and its digest was reused
 * before, a link or a file added to a tree is caught, what changed is
 * removed only when it is a cache path, and a malformed list is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/regfile.h"
#include "benchfarm/sha256.h"
#include "verify.h"

char *mkdtemp(char *template);

static char tmp[] = "/tmp/bf-verify.XXXXXX";

static void put(const char *path, const char *text, mode_t mode)
{
	assert_int_equal(
	        bf_fs_write_atomic(path, text, strlen(text), mode, NULL), 0);
}

static void hex_of(char hex[BF_SHA256_HEX_LEN + 1], const char *text)
{
	unsigned char d[BF_SHA256_LEN];

	bf_sha256(d, text, strlen(text));
	bf_sha256_hex(hex, d);
}

/* [{"path": path, "sha256": hex, "tree": tree, "size": size}] */
static json_t *list1(const char *path, const char *hex, bool tree, long size)
{
	json_t *e = json_pack("{s:s, s:s, s:b}", "path", path, "sha256", hex,
	                      "tree", tree);

	if (size >= 0)
		json_object_set_new(e, "size", json_integer(size));
	return json_pack("[o]", e);
}

static void test_verify__rewrite_caught_after_the_digest_was_reused(void **s)
{
	char hex[BF_SHA256_HEX_LEN + 1];
	struct bf_err err = BF_ERR_INIT;
	struct timespec times[2];
	struct stat st;
	char *dir, *path;
	json_t *l;
	int fd;

	(void)s;
	hex_of(hex, "echo 100\n");
	dir = bf_xasprintf("%s/artifacts/%s", tmp, hex);
	path = bf_xasprintf("%s/bench.sh", dir);
	assert_int_equal(bf_fs_mkdirs(dir, 0755, NULL), 0);
	put(path, "echo 100\n", 0555);
	l = list1(path, hex, false, 9);
	assert_int_equal(bf_verify_artifacts(l, &err), 0);
	assert_int_equal(bf_verify_artifacts(l, &err), 0); /* reused */
	/* same size, and the mtime put back: only the ctime tells */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(chmod(path, 0755), 0);
	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(write(fd, "echo 900\n", 9), 9); /* in place */
	close(fd);
	assert_int_equal(chmod(path, 0555), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	assert_int_equal(bf_verify_artifacts(l, &err), BF_ECORRUPT);
	assert_non_null(strstr(err.msg, "is not what was uploaded"));
	assert_non_null(strstr(err.msg, "removed it"));
	assert_int_equal(access(path, F_OK), -1);
	json_decref(l);
	free(path);
	free(dir);
}

static void test_verify__trees_links_and_what_is_removed(void **s)
{
	char hex[BF_SHA256_HEX_LEN + 1], fhex[BF_SHA256_HEX_LEN + 1];
	unsigned char d[BF_SHA256_LEN];
	struct bf_err err = BF_ERR_INIT;
	struct bf_sha256 c;
	char *top, *f, *other;
	json_t *l;

	(void)s;
	/* the tree hash of {a: "1\n"}, as the orchestrator computes it */
	bf_sha256(d, "1\n", 2);
	bf_sha256_init(&c);
	bf_regfile_tree_add(&c, "a", false, d);
	bf_sha256_final(d, &c);
	bf_sha256_hex(hex, d);
	top = bf_xasprintf("%s/artifacts/%s/data", tmp, hex);
	f = bf_xasprintf("%s/a", top);
	assert_int_equal(bf_fs_mkdirs(top, 0755, NULL), 0);
	put(f, "1\n", 0444);
	l = list1(top, hex, true, -1);
	assert_int_equal(bf_verify_artifacts(l, &err), 0);
	/* a file added to the tree */
	other = bf_xasprintf("%s/b", top);
	put(other, "x", 0444);
	assert_int_equal(bf_verify_artifacts(l, &err), BF_ECORRUPT);
	assert_int_equal(access(top, F_OK), -1);
	/* a file swapped for a link to a host file */
	assert_int_equal(bf_fs_mkdirs(top, 0755, NULL), 0);
	free(other);
	other = bf_xasprintf("%s/secret", tmp);
	put(other, "1\n", 0600);
	assert_int_equal(symlink(other, f), 0);
	assert_int_equal(bf_verify_artifacts(l, &err), BF_ECORRUPT);
	assert_non_null(strstr(err.msg, "symbolic link"));
	json_decref(l);
	/* a changed file outside an artifact cache is reported, kept */
	hex_of(fhex, "other");
	l = list1(other, fhex, false, -1);
	assert_int_equal(bf_verify_artifacts(l, &err), BF_ECORRUPT);
	assert_non_null(strstr(err.msg, "not removed"));
	assert_int_equal(access(other, F_OK), 0);
	json_decref(l);
	/* malformed: a hash that is not 64 lower-case hex digits */
	l = list1(other,
	          "../../../../../../../../../../../../../../../../"
	          "../../../../../.",
	          false, -1); /* 64 characters */
	assert_int_equal(bf_verify_artifacts(l, &err), BF_EINVAL);
	json_decref(l);
	free(other);
	free(f);
	free(top);
}

static int setup(void **s)
{
	(void)s;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	return bf_fs_rmtree(tmp, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		        test_verify__rewrite_caught_after_the_digest_was_reused),
		cmocka_unit_test(test_verify__trees_links_and_what_is_removed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
