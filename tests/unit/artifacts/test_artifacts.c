/*
 * project.artifacts expanded in an export (orchestrator/git/artifacts.c):
 * files, directories with their tree, globs; everything inside the
 * export, refused otherwise with the pattern or file named. Each test
 * builds its export in a fresh temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "git/artifacts.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char *path = bf_xasprintf("%s/%s", root, rel);
	char *dir = bf_fs_dirname(path);

	assert_int_equal(bf_fs_mkdirs(dir, 0700, NULL), 0);
	assert_int_equal(
	        bf_fs_write_atomic(path, text, strlen(text), 0644, NULL), 0);
	free(dir);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bf-artifacts.XXXXXX");
	assert_non_null(mkdtemp(root));
	put("out/bench", "program");
	put("testdata/index", "a\nsub/b\n");
	put("testdata/a", "alpha");
	put("testdata/sub/b", "beta");
	put("levels/fast.cfg", "1");
	put("levels/best.cfg", "9");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bf_fs_rmtree(root, NULL);
	return 0;
}

/* Expand the NULL-terminated patterns; the return code. */
static int expand(struct bf_artifacts *out, struct bf_err *err, ...)
{
	struct bf_argv pats = BF_ARGV_INIT;
	const char *p;
	va_list ap;
	int ret;

	va_start(ap, err);
	while ((p = va_arg(ap, const char *)))
		bf_argv_push(&pats, p);
	va_end(ap);
	ret = bf_artifacts_expand(out, root, &pats, err);
	bf_argv_release(&pats);
	return ret;
}

static void test_artifacts__files_dirs_and_globs(void **state)
{
	struct bf_artifacts a;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(expand(&a, &err, "./out/bench", "testdata/",
	                        "levels/*.cfg", NULL),
	                 0);
	assert_int_equal(a.n, 4);
	assert_string_equal(a.v[0].name, "./out/bench");
	assert_false(a.v[0].is_dir);
	assert_string_equal(a.v[1].name, "testdata");
	assert_true(a.v[1].is_dir);
	assert_int_equal(a.v[1].files.argc, 3);
	assert_string_equal(a.v[1].files.argv[0], "a");
	assert_string_equal(a.v[1].files.argv[1], "index");
	assert_string_equal(a.v[1].files.argv[2], "sub/b");
	assert_int_equal(strlen(a.v[1].hex), 64);
	/* glob matches in order */
	assert_string_equal(a.v[2].name, "levels/best.cfg");
	assert_string_equal(a.v[3].name, "levels/fast.cfg");
	bf_artifacts_release(&a);
}

static void test_artifacts__dir_hash_follows_content(void **state)
{
	struct bf_artifacts a, b;
	struct bf_err err = BF_ERR_INIT;
	char *from = bf_fs_join(root, "testdata/a");
	char *to = bf_fs_join(root, "testdata/c");

	(void)state;
	assert_int_equal(expand(&a, &err, "testdata", NULL), 0);
	assert_int_equal(expand(&b, &err, "testdata", NULL), 0);
	assert_string_equal(a.v[0].hex, b.v[0].hex);
	bf_artifacts_release(&b);
	put("testdata/sub/b", "BETA");
	assert_int_equal(expand(&b, &err, "testdata", NULL), 0);
	assert_string_not_equal(a.v[0].hex, b.v[0].hex);
	bf_artifacts_release(&b);
	/* a renamed file changes it too */
	put("testdata/sub/b", "beta");
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(expand(&b, &err, "testdata", NULL), 0);
	assert_string_not_equal(a.v[0].hex, b.v[0].hex);
	bf_artifacts_release(&b);
	bf_artifacts_release(&a);
	free(from);
	free(to);
}

static void test_artifacts__refuses_what_leaves_the_export(void **state)
{
	struct bf_artifacts a;
	struct bf_err err = BF_ERR_INIT;
	char *link = bf_xasprintf("%s/testdata/passwd", root);

	(void)state;
	assert_int_equal(expand(&a, &err, "../etc", NULL), BF_EINVAL);
	assert_non_null(strstr(err.msg, "'../etc' leaves the export"));
	bf_artifacts_release(&a);
	assert_int_equal(expand(&a, &err, "testdata/../../x", NULL), BF_EINVAL);
	bf_artifacts_release(&a);
	assert_int_equal(expand(&a, &err, "/etc/passwd", NULL), BF_EINVAL);
	assert_non_null(strstr(err.msg, "relative to the export"));
	bf_artifacts_release(&a);
	/* a link inside a shipped directory to a file of this host */
	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(expand(&a, &err, "testdata", NULL), BF_EINVAL);
	assert_non_null(strstr(err.msg, "outside"));
	assert_non_null(strstr(err.msg, "testdata/passwd"));
	bf_artifacts_release(&a);
	unlink(link);
	/* a link that stays inside is followed */
	assert_int_equal(symlink("../out/bench", link), 0);
	assert_int_equal(expand(&a, &err, "testdata", NULL), 0);
	assert_int_equal(a.v[0].files.argc, 4);
	bf_artifacts_release(&a);
	free(link);
}

static void test_artifacts__missing_and_no_match(void **state)
{
	struct bf_artifacts a;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(expand(&a, &err, "levels/*.dict", NULL), BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "'levels/*.dict' matches nothing"));
	bf_artifacts_release(&a);
	assert_int_equal(expand(&a, &err, "out/nothere", NULL), BF_ENOTFOUND);
	bf_artifacts_release(&a);
}

/* An export whose own path has glob characters: they are a path there. */
static int setup_odd_root(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/bf [a]*?\\.XXXXXX");
	assert_non_null(mkdtemp(root));
	put("levels/fast.cfg", "1");
	put("levels/best.cfg", "9");
	return 0;
}

static void test_artifacts__glob_under_an_odd_root(void **state)
{
	struct bf_artifacts a;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(expand(&a, &err, "levels/*.cfg", NULL), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.v[0].name, "levels/best.cfg");
	assert_string_equal(a.v[1].name, "levels/fast.cfg");
	bf_artifacts_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		        test_artifacts__files_dirs_and_globs, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_artifacts__dir_hash_follows_content, setup,
		        teardown),
		cmocka_unit_test_setup_teardown(
		        test_artifacts__refuses_what_leaves_the_export, setup,
		        teardown),
		cmocka_unit_test_setup_teardown(
		        test_artifacts__missing_and_no_match, setup, teardown),
		cmocka_unit_test_setup_teardown(
		        test_artifacts__glob_under_an_odd_root, setup_odd_root,
		        teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
