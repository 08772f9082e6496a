/* Unit tests for the file-system helpers (core/src/fs.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"

/*
 * Each test gets a fresh temporary directory. Paths made by at() belong
 * to the fixture, so that a failing test leaks nothing.
 */
struct fixture {
	char *dir;
	char *paths[32];
	size_t n;
};

static int setup(void **state)
{
	struct fixture *f = bf_xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/bf-test-fs-XXXXXX";

	if (!mkdtemp(tmpl)) {
		free(f);
		return -1;
	}
	f->dir = bf_xstrdup(tmpl);
	umask(022);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = bf_xasprintf("rm -rf '%s'", f->dir);
	int rc = system(cmd);

	free(cmd);
	for (size_t i = 0; i < f->n; i++)
		free(f->paths[i]);
	free(f->dir);
	free(f);
	return rc == 0 ? 0 : -1;
}

/* dir/rel, owned by the fixture. */
static const char *at(void **state, const char *rel)
{
	struct fixture *f = *state;

	assert_true(f->n < BF_ARRAY_SIZE(f->paths));
	f->paths[f->n] = bf_xasprintf("%s/%s", f->dir, rel);
	return f->paths[f->n++];
}

static const char *tmpdir(void **state)
{
	return ((struct fixture *)*state)->dir;
}

static void make_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void expect_content(const char *path, const char *want)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf b;

	bf_buf_init(&b, 0);
	assert_int_equal(bf_buf_read_file(&b, path, &err), 0);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.buf, want, b.len);
	bf_buf_release(&b);
}

static void test_fs__mkdirs_nested_and_existing(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *deep = at(state, "a/b/c/d");
	const char *mid = at(state, "a/b");
	const char *trail = at(state, "x/y/");

	assert_int_equal(bf_fs_mkdirs(deep, 0755, &err), 0);
	assert_true(is_dir(deep));
	assert_true(is_dir(mid));
	/* Existing directories are fine, whole or in part. */
	assert_int_equal(bf_fs_mkdirs(deep, 0755, &err), 0);
	assert_int_equal(bf_fs_mkdirs(mid, 0755, &err), 0);
	assert_int_equal(bf_fs_mkdirs(trail, 0755, &err), 0);
	assert_true(bf_fs_exists(trail));
}

static void test_fs__mkdirs_uses_mode(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *p = at(state, "private/inner");
	const char *parent = at(state, "private");

	assert_int_equal(bf_fs_mkdirs(p, 0700, &err), 0);
	assert_int_equal(mode_of(p), 0700);
	assert_int_equal(mode_of(parent), 0700);
}

static void test_fs__mkdirs_fails_under_a_file(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *file = at(state, "file");
	const char *below = at(state, "file/sub");

	make_file(file, "x");
	assert_int_equal(bf_fs_mkdirs(below, 0755, &err), BF_ESYS);
	assert_non_null(strstr(err.msg, "file/sub"));
}

/* mkdir -p refuses a path that exists as something else than a dir. */
static void test_fs__mkdirs_fails_when_path_is_a_file(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *file = at(state, "file");

	make_file(file, "x");
	assert_int_not_equal(bf_fs_mkdirs(file, 0755, &err), 0);
	assert_false(is_dir(file));
}

static void test_fs__rmtree_removes_everything(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *files[] = { "t/f1", "t/a/f2", "t/a/b/c/f3", "t/.hidden",
		                "t/a/b/.dot" };
	const char *root = at(state, "t");
	const char *deep = at(state, "t/a/b/c");
	const char *empty = at(state, "t/empty/dir");

	assert_int_equal(bf_fs_mkdirs(deep, 0755, &err), 0);
	assert_int_equal(bf_fs_mkdirs(empty, 0755, &err), 0);
	for (size_t i = 0; i < BF_ARRAY_SIZE(files); i++) {
		const char *p = at(state, files[i]);

		make_file(p, files[i]);
	}
	assert_int_equal(bf_fs_rmtree(root, &err), 0);
	assert_false(bf_fs_exists(root));
	/* The parent stays. */
	assert_true(is_dir(tmpdir(state)));
}

static void test_fs__rmtree_does_not_follow_links(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *root = at(state, "tree");
	const char *sub = at(state, "tree/sub");
	const char *inside = at(state, "tree/sub/file");
	const char *outdir = at(state, "outside");
	const char *outfile = at(state, "outside/keep.txt");
	const char *lonely = at(state, "lonely.txt");
	const char *link_dir = at(state, "tree/to-dir");
	const char *link_file = at(state, "tree/sub/to-file");
	const char *link_dangling = at(state, "tree/dangling");

	assert_int_equal(bf_fs_mkdirs(sub, 0755, &err), 0);
	assert_int_equal(bf_fs_mkdirs(outdir, 0755, &err), 0);
	make_file(outfile, "keep me");
	make_file(lonely, "me too");
	make_file(inside, "inside");
	assert_int_equal(symlink(outdir, link_dir), 0);
	assert_int_equal(symlink(lonely, link_file), 0);
	assert_int_equal(symlink("/nonexistent/target", link_dangling), 0);
	assert_int_equal(bf_fs_rmtree(root, &err), 0);
	assert_false(bf_fs_exists(root));
	/* The link targets outside the tree survive, contents included. */
	assert_true(is_dir(outdir));
	expect_content(outfile, "keep me");
	expect_content(lonely, "me too");
}

/* rmtree on a link to a directory removes the link only. */
static void test_fs__rmtree_on_a_link_removes_the_link(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *target = at(state, "target");
	const char *inner = at(state, "target/inner.txt");
	const char *link = at(state, "link");

	assert_int_equal(bf_fs_mkdirs(target, 0755, &err), 0);
	make_file(inner, "still here");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(bf_fs_rmtree(link, &err), 0);
	assert_false(bf_fs_exists(link));
	expect_content(inner, "still here");
}

static void test_fs__rmtree_missing_and_plain_file(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *missing = at(state, "no/such/path");
	const char *file = at(state, "plain");

	assert_int_equal(bf_fs_rmtree(missing, &err), 0);
	make_file(file, "x");
	assert_int_equal(bf_fs_rmtree(file, &err), 0);
	assert_false(bf_fs_exists(file));
}

static void test_fs__exists_uses_lstat(void **state)
{
	const char *link = at(state, "dangling");
	const char *missing = at(state, "missing");

	assert_true(bf_fs_exists(tmpdir(state)));
	assert_false(bf_fs_exists(missing));
	assert_int_equal(symlink("/nonexistent/target", link), 0);
	assert_true(bf_fs_exists(link));
}

/* Number of entries in dir, . and .. excluded. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_fs__write_atomic_creates_with_mode(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *p = at(state, "new.txt");
	const char *q = at(state, "public.txt");

	assert_int_equal(bf_fs_write_atomic(p, "hello\n", 6, 0600, &err), 0);
	expect_content(p, "hello\n");
	assert_int_equal(mode_of(p), 0600);
	assert_int_equal(bf_fs_write_atomic(q, "", 0, 0644, &err), 0);
	expect_content(q, "");
	assert_int_equal(mode_of(q), 0644);
	/* No temporary file is left behind. */
	assert_int_equal(count_entries(tmpdir(state)), 2);
}

static void test_fs__write_atomic_replaces(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *p = at(state, "data.json");
	const char *longer = "a much longer old content that must not remain";
	struct stat before, after;
	char old[64] = { 0 };
	int fd;

	make_file(p, longer);
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(lstat(p, &before), 0);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(bf_fs_write_atomic(p, "new", 3, 0600, &err), 0);
	expect_content(p, "new");
	assert_int_equal(mode_of(p), 0600);
	/* Replaced by rename: a reader of the old file still sees it all. */
	assert_int_equal(lstat(p, &after), 0);
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(read(fd, old, sizeof(old) - 1),
	                 (ssize_t)strlen(longer));
	assert_string_equal(old, longer);
	close(fd);
	assert_int_equal(count_entries(tmpdir(state)), 1);
}

static void test_fs__write_atomic_missing_dir_fails(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *p = at(state, "no/such/dir/f");

	assert_int_equal(bf_fs_write_atomic(p, "x", 1, 0600, &err), BF_ESYS);
	assert_non_null(strstr(err.msg, "no/such/dir/f"));
	assert_false(bf_fs_exists(p));
}

static void expect_dirname(const char *path, const char *want)
{
	char *d = bf_fs_dirname(path);

	assert_string_equal(d, want);
	free(d);
}

static void test_fs__dirname(void **state)
{
	(void)state;
	expect_dirname("a/b/c", "a/b");
	expect_dirname("a/b", "a");
	expect_dirname("file", ".");
	expect_dirname("", ".");
	expect_dirname("/file", "/");
	expect_dirname("/a/b.yaml", "/a");
	expect_dirname("./bf.yaml", ".");
}

static void expect_join(const char *base, const char *path, const char *want)
{
	char *j = bf_fs_join(base, path);

	assert_string_equal(j, want);
	free(j);
}

static void test_fs__join(void **state)
{
	(void)state;
	expect_join("/etc", "bf.yaml", "/etc/bf.yaml");
	expect_join("conf", "sub/x", "conf/sub/x");
	expect_join("/etc", "/abs/path", "/abs/path");
	expect_join(NULL, "rel", "rel");
	expect_join("", "rel", "rel");
	expect_join("/base", "../up", "/base/../up");
}

/* Saves and restores the three variables around each cache_dir test. */
static const char *const cache_vars[] = { "BENCHFARM_CACHE", "XDG_CACHE_HOME",
	                                  "HOME" };

struct env_saved {
	char *v[3];
};

static void env_save(struct env_saved *s)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(cache_vars); i++) {
		const char *v = getenv(cache_vars[i]);

		s->v[i] = v ? bf_xstrdup(v) : NULL;
		unsetenv(cache_vars[i]);
	}
}

static void env_restore(struct env_saved *s)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(cache_vars); i++) {
		if (s->v[i])
			setenv(cache_vars[i], s->v[i], 1);
		else
			unsetenv(cache_vars[i]);
		free(s->v[i]);
	}
}

static void expect_cache_dir(const char *want)
{
	struct bf_err err = BF_ERR_INIT;
	char *out = NULL;

	assert_int_equal(bf_fs_cache_dir(&out, &err), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_fs__cache_dir_precedence(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct env_saved saved;
	char *out = NULL;

	(void)state;
	env_save(&saved);
	setenv("HOME", "/home/u", 1);
	expect_cache_dir("/home/u/.cache/benchfarm");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	expect_cache_dir("/xdg/benchfarm");
	setenv("BENCHFARM_CACHE", "/bf/cache", 1);
	expect_cache_dir("/bf/cache");
	/* Empty values count as unset. */
	setenv("BENCHFARM_CACHE", "", 1);
	expect_cache_dir("/xdg/benchfarm");
	setenv("XDG_CACHE_HOME", "", 1);
	expect_cache_dir("/home/u/.cache/benchfarm");
	/* A relative one too (XDG spec): it would follow the cwd. */
	setenv("XDG_CACHE_HOME", "rel/cache", 1);
	expect_cache_dir("/home/u/.cache/benchfarm");
	/* BENCHFARM_CACHE alone is enough. */
	unsetenv("HOME");
	unsetenv("XDG_CACHE_HOME");
	setenv("BENCHFARM_CACHE", "/only", 1);
	expect_cache_dir("/only");
	unsetenv("BENCHFARM_CACHE");
	setenv("HOME", "", 1);
	assert_int_equal(bf_fs_cache_dir(&out, &err), BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "HOME"));
	unsetenv("HOME");
	assert_int_equal(bf_fs_cache_dir(&out, &err), BF_ENOTFOUND);
	assert_null(out);
	env_restore(&saved);
}

/*
 * Inside the tree: plain files, a "dir/../file" that stays, a link to a
 * file of the tree. Outside: "../", a link out, an absolute link, a
 * sibling whose name starts with the tree's. Missing: BF_ENOTFOUND.
 */
static void test_fs__check_within(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	const char *tree = at(state, "tree");
	char *out;

	assert_int_equal(mkdir(tree, 0755), 0);
	assert_int_equal(mkdir(at(state, "tree/sub"), 0755), 0);
	assert_int_equal(mkdir(at(state, "treex"), 0755), 0);
	make_file(at(state, "tree/a"), "a");
	make_file(at(state, "secret"), "s");
	make_file(at(state, "treex/b"), "b");
	assert_int_equal(symlink("a", at(state, "tree/in")), 0);
	assert_int_equal(symlink("../secret", at(state, "tree/out")), 0);
	assert_int_equal(symlink("/etc/hostname", at(state, "tree/abs")), 0);

	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/a"), tree, "x", &err), 0);
	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/sub/../a"), tree, "x", &err),
	        0);
	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/in"), tree, "x", &err), 0);
	assert_int_equal(bf_fs_check_within(tree, tree, "x", &err), 0);
	assert_int_equal(bf_fs_check_within(at(state, "tree/../secret"), tree,
	                                    "artifact", &err),
	                 BF_EINVAL);
	out = bf_xasprintf("artifact '%s' resolves to '%s', outside '%s'",
	                   at(state, "tree/../secret"), at(state, "secret"),
	                   tree);
	assert_string_equal(err.msg, out);
	free(out);
	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/out"), tree, "x", &err),
	        BF_EINVAL);
	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/abs"), tree, "x", &err),
	        BF_EINVAL);
	assert_int_equal(bf_fs_check_within(at(state, "tree/../treex/b"), tree,
	                                    "x", &err),
	                 BF_EINVAL);
	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/none"), tree, "x", &err),
	        BF_ENOTFOUND);
	assert_int_equal(
	        bf_fs_check_within(at(state, "tree/a"), "/", "x", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_fs__mkdirs_nested_and_existing),
		T(test_fs__mkdirs_uses_mode),
		T(test_fs__mkdirs_fails_under_a_file),
		T(test_fs__mkdirs_fails_when_path_is_a_file),
		T(test_fs__rmtree_removes_everything),
		T(test_fs__rmtree_does_not_follow_links),
		T(test_fs__rmtree_on_a_link_removes_the_link),
		T(test_fs__rmtree_missing_and_plain_file),
		T(test_fs__exists_uses_lstat),
		T(test_fs__write_atomic_creates_with_mode),
		T(test_fs__write_atomic_replaces),
		T(test_fs__write_atomic_missing_dir_fails),
		T(test_fs__check_within),
#undef T
		cmocka_unit_test(test_fs__dirname),
		cmocka_unit_test(test_fs__join),
		cmocka_unit_test(test_fs__cache_dir_precedence),
	};

	return cmocka_run_group_tests_name("fs", tests, NULL, NULL);
}
