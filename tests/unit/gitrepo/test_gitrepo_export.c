/*
 * Unit tests for bf_gitrepo_export against a real repository: the
 * files, links, modes and filters of an export, its directory, and the
 * working tree left alone. The repository is unit/gitrepo/repo.h's.
 */
/* cmocka.h needs these first; the blank line keeps clang-format's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "git/gitrepo.h"
#include "unit/gitrepo/repo.h"

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void test_gitrepo__export_writes_exact_files(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char *dir = path_in(fx.tmp, "export-c1");
	char *p_run = path_in(dir, "run.sh");
	char *p_readme = path_in(dir, "README");
	char *p_link = path_in(dir, "link");
	char *s;
	char target[64];
	struct stat st;
	ssize_t n;

	(void)state;
	assert_int_equal(bf_gitrepo_export(r, fx.c1, dir, &err), 0);
	assert_int_equal(count_entries(dir), 4); /* no .git, no later files */
	s = read_file(dir, "README");
	assert_string_equal(s, "one\n");
	free(s);
	s = read_file(dir, "sub/dir/file.txt");
	assert_string_equal(s, "nested\n");
	free(s);
	s = read_file(dir, "run.sh");
	assert_string_equal(s, "#!/bin/sh\necho hi\n");
	free(s);
	assert_int_equal(stat(p_run, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	assert_int_equal(stat(p_readme, &st), 0);
	assert_false(st.st_mode & S_IXUSR);
	assert_int_equal(lstat(p_link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	n = readlink(p_link, target, sizeof(target) - 1);
	assert_int_equal(n, 6);
	target[n] = '\0';
	assert_string_equal(target, "README");
	free(p_link);
	free(p_readme);
	free(p_run);
	free(dir);
	bf_gitrepo_free(r);
}

/*
 * Binary files (NUL bytes) are exported byte for byte. libgit2's
 * git_blob_filter() by default hands back an EMPTY buffer for binary
 * blobs; a benchmark's data file or prebuilt library must not vanish.
 */
static void test_gitrepo__export_keeps_binary_files(void **state)
{
	char *repo = path_in(fx.tmp, "binrepo");
	char *src = path_in(repo, "data.bin");
	char *dir = path_in(fx.tmp, "export-bin");
	char *got_path = path_in(dir, "data.bin");
	struct bf_gitrepo *r;
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf got = BF_BUF_INIT;
	unsigned char data[4096];
	char oid[41];
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 % 256); /* NULs included */
	GIT(fx.tmp, "init", "-q", "-b", "main", "binrepo");
	f = fopen(src, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, sizeof(data), f), sizeof(data));
	assert_int_equal(fclose(f), 0);
	GIT(repo, "add", "-A");
	GIT(repo, "commit", "-q", "-m", "binary");
	head_oid(oid, repo);
	r = open_repo(repo);
	assert_int_equal(bf_gitrepo_export(r, oid, dir, &err), 0);
	assert_int_equal(bf_buf_read_file(&got, got_path, NULL), 0);
	assert_int_equal(got.len, sizeof(data));
	assert_memory_equal(got.buf, data, sizeof(data));
	bf_buf_release(&got);
	bf_gitrepo_free(r);
	free(got_path);
	free(dir);
	free(src);
	free(repo);
}

static void test_gitrepo__export_needs_empty_directory(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char *dir = path_in(fx.tmp, "export-empty");
	char *s;

	(void)state;
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(bf_gitrepo_export(r, fx.f2, dir, &err), 0);
	s = read_file(dir, "feature.c");
	assert_string_equal(s, "int f, g;\n");
	free(s);
	assert_int_equal(bf_gitrepo_export(r, fx.c1, dir, &err), BF_EEXISTS);
	assert_non_null(strstr(err.msg, "not empty"));
	assert_int_equal(bf_gitrepo_export(r, "c1", dir, &err), BF_EINVAL);
	free(dir);
	bf_gitrepo_free(r);
}

static void test_gitrepo__export_skips_submodule(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char *dir = path_in(fx.tmp, "export-sub");
	char *mod = path_in(dir, "mod");
	struct stat st;

	(void)state;
	assert_int_equal(bf_gitrepo_export(r, fx.s1, dir, &err), 0);
	assert_int_equal(count_entries(dir), 5);
	assert_int_equal(lstat(mod, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(count_entries(mod), 0);
	free(mod);
	free(dir);
	bf_gitrepo_free(r);
}

/*
 * The state a dirty checkout must keep: status, staged diff, file
 * contents, and the index file's bytes and identity (a rewrite through a
 * lock file would change its inode). Appended to b.
 */
static void snapshot(struct bf_buf *b, const char *clone)
{
	static const char *const names[] = { "README", "main.c", "scratch.txt",
		                             ".git/index" };
	char *status = git_in(
	        clone, (const char *const[]){ "status", "--porcelain=v1",
	                                      "--untracked-files=all", NULL });
	char *diff = git_in(clone,
	                    (const char *const[]){ "diff", "--cached", NULL });
	char *index = path_in(clone, ".git/index");
	struct stat st;

	assert_int_equal(stat(index, &st), 0);
	bf_buf_addf(b, "%s\n%s\n%lu %lld %ld.%09ld\n", status, diff,
	            (unsigned long)st.st_ino, (long long)st.st_size,
	            (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	for (size_t i = 0; i < BF_ARRAY_SIZE(names); i++) {
		char *p = path_in(clone, names[i]);

		assert_int_equal(bf_buf_read_file(b, p, NULL), 0);
		free(p);
	}
	free(index);
	free(diff);
	free(status);
}

static void test_gitrepo__export_leaves_dirty_tree_untouched(void **state)
{
	char *clone = path_in(fx.tmp, "dirty");
	char *out1 = path_in(fx.tmp, "export-dirty-1");
	char *out2 = path_in(fx.tmp, "export-dirty-2");
	struct bf_err err = BF_ERR_INIT;
	struct bf_gitrepo *r;
	struct bf_buf before = BF_BUF_INIT, after = BF_BUF_INIT;
	char *s;

	(void)state;
	GIT(fx.tmp, "clone", "-q", fx.repo, clone);
	write_file(clone, "main.c", "staged\n", 0644);
	GIT(clone, "add", "main.c");
	write_file(clone, "main.c", "staged then edited\n", 0644);
	write_file(clone, "README", "dirty\n", 0644);
	write_file(clone, "scratch.txt", "untracked\n", 0644);
	snapshot(&before, clone);
	r = open_repo(clone);
	assert_int_equal(bf_gitrepo_export(r, fx.c1, out1, &err), 0);
	assert_int_equal(bf_gitrepo_export(r, fx.f2, out2, &err), 0);
	bf_gitrepo_free(r);
	snapshot(&after, clone);
	assert_int_equal(before.len, after.len);
	assert_memory_equal(before.buf, after.buf, before.len);
	s = read_file(clone, "main.c");
	assert_string_equal(s, "staged then edited\n");
	free(s);
	s = read_file(out1, "README");
	assert_string_equal(s, "one\n"); /* from the commit, not the tree */
	free(s);
	bf_buf_release(&after);
	bf_buf_release(&before);
	free(out2);
	free(out1);
	free(clone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gitrepo__export_writes_exact_files),
		cmocka_unit_test(test_gitrepo__export_needs_empty_directory),
		cmocka_unit_test(test_gitrepo__export_keeps_binary_files),
		cmocka_unit_test(test_gitrepo__export_skips_submodule),
		cmocka_unit_test(
		        test_gitrepo__export_leaves_dirty_tree_untouched),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
