/*
 * Unit tests for the build sandbox (orchestrator/git/sandbox.c) and the
 * build cache's digests of what a build left (buildcache_digest.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "git/artifacts.h"
#include "git/buildcache.h"
#include "git/sandbox.h"

/* The index of word in a, or -1. */
static long find(const struct bf_argv *a, const char *word)
{
	for (size_t i = 0; i < a->argc; i++)
		if (!strcmp(a->argv[i], word))
			return (long)i;
	return -1;
}

static void test_sandbox__argv_has_only_the_tree_writable(void **state)
{
	struct bf_argv cmd = BF_ARGV_INIT, a = BF_ARGV_INIT;
	long i;

	(void)state;
	unsetenv("BENCHFARM_BWRAP");
	bf_argv_push(&cmd, "make");
	bf_argv_push(&cmd, "-j2");
	bf_sandbox_argv(&a, "/c/builds/K", false, &cmd);
	assert_string_equal(a.argv[0], "bwrap");
	/* the root read-only, then the tree bound writable over it */
	i = find(&a, "--ro-bind");
	assert_true(i > 0);
	assert_string_equal(a.argv[i + 1], "/");
	assert_string_equal(a.argv[i + 2], "/");
	assert_true(find(&a, "--bind") > i);
	assert_string_equal(a.argv[find(&a, "--bind") + 1], "/c/builds/K");
	assert_string_equal(a.argv[find(&a, "--bind") + 2], "/c/builds/K");
	assert_string_equal(a.argv[find(&a, "--chdir") + 1], "/c/builds/K");
	/* nothing else is bound writable */
	assert_int_equal(find(&a, "--bind-try"), -1);
	assert_int_equal(find(&a, "--dev-bind"), -1);
	/* its own namespaces, no capabilities, no network, dies with us */
	assert_true(find(&a, "--unshare-all") > 0);
	assert_string_equal(a.argv[find(&a, "--cap-drop") + 1], "ALL");
	assert_int_equal(find(&a, "--share-net"), -1);
	assert_true(find(&a, "--die-with-parent") > 0);
	assert_true(find(&a, "--new-session") > 0);
	/* the command last, after "--", unchanged */
	assert_string_equal(a.argv[a.argc - 3], "--");
	assert_string_equal(a.argv[a.argc - 2], "make");
	assert_string_equal(a.argv[a.argc - 1], "-j2");
	bf_argv_release(&a);
	bf_sandbox_argv(&a, "/c/builds/K", true, &cmd);
	assert_true(find(&a, "--share-net") > 0);
	bf_argv_release(&a);
	setenv("BENCHFARM_BWRAP", "/opt/bw/bwrap", 1);
	bf_sandbox_argv(&a, "/c/builds/K", false, &cmd);
	assert_string_equal(a.argv[0], "/opt/bw/bwrap");
	unsetenv("BENCHFARM_BWRAP");
	bf_argv_release(&a);
	bf_argv_release(&cmd);
}

static void test_sandbox__choose_without_bwrap(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_sandbox sb;

	(void)state;
	setenv("BENCHFARM_BWRAP", "/nonexistent/bf-no-bwrap", 1);
	/* auto: no sandbox, and why names the program */
	assert_int_equal(bf_sandbox_choose(&sb, BF_BUILD_SANDBOX_AUTO, "/tmp",
	                                   false, &err),
	                 0);
	assert_false(sb.on);
	assert_non_null(strstr(sb.why, "/nonexistent/bf-no-bwrap"));
	assert_non_null(strstr(sb.why, "cannot run here"));
	/* require: a failure naming the key and what to do */
	assert_int_equal(bf_sandbox_choose(&sb, BF_BUILD_SANDBOX_REQUIRE,
	                                   "/tmp", false, &err),
	                 BF_ENOTFOUND);
	assert_false(sb.on);
	assert_non_null(strstr(err.msg, "project.build_sandbox is require"));
	assert_non_null(strstr(err.msg, "/nonexistent/bf-no-bwrap"));
	assert_non_null(strstr(err.msg, "install bubblewrap"));
	/* off: never, without trying */
	assert_int_equal(bf_sandbox_choose(&sb, BF_BUILD_SANDBOX_OFF, "/tmp",
	                                   false, &err),
	                 0);
	assert_false(sb.on);
	assert_string_equal(sb.why, "project.build_sandbox is off");
	unsetenv("BENCHFARM_BWRAP");
}

/* A program that is not bwrap at all: it fails, and says so. */
static void test_sandbox__choose_with_a_failing_program(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_sandbox sb;

	(void)state;
	setenv("BENCHFARM_BWRAP", "false", 1);
	assert_int_equal(bf_sandbox_choose(&sb, BF_BUILD_SANDBOX_AUTO, "/tmp",
	                                   false, &err),
	                 0);
	assert_false(sb.on);
	assert_non_null(strstr(sb.why, "'false' cannot run here"));
	assert_non_null(strstr(sb.why, "exited with status 1"));
	/* another program is tried again, not the cached answer */
	setenv("BENCHFARM_BWRAP", "true", 1);
	assert_int_equal(bf_sandbox_choose(&sb, BF_BUILD_SANDBOX_REQUIRE,
	                                   "/tmp", false, &err),
	                 0);
	assert_true(sb.on);
	unsetenv("BENCHFARM_BWRAP");
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *path = bf_fs_join(dir, name);

	assert_int_equal(
	        bf_fs_write_atomic(path, text, strlen(text), 0755, NULL), 0);
	free(path);
}

/* The record of a build is what it left; a rewrite is named. */
static void test_buildcache__digests_find_a_changed_artifact(void **state)
{
	char tmpl[] = "/tmp/bf-test-sandbox-XXXXXX";
	struct bf_argv pats = BF_ARGV_INIT;
	struct bf_artifacts arts;
	char why[BF_ERR_SIZE];
	json_t *meta;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	write_file(tmpl, "bench.sh", "echo 'BM 100 ns'\n");
	write_file(tmpl, "data", "1\n");
	bf_argv_push(&pats, "bench.sh");
	bf_argv_push(&pats, "data");
	assert_int_equal(bf_artifacts_expand(&arts, tmpl, &pats, NULL), 0);
	meta = json_pack("{s:o}", "artifacts", bf_buildcache_digests(&arts));
	assert_int_equal(json_array_size(json_object_get(meta, "artifacts")),
	                 2);
	assert_true(bf_buildcache_is_unchanged(meta, &arts, why, sizeof(why)));
	bf_artifacts_release(&arts);
	/* the same size, other bytes */
	write_file(tmpl, "bench.sh", "echo 'BM 200 ns'\n");
	assert_int_equal(bf_artifacts_expand(&arts, tmpl, &pats, NULL), 0);
	assert_false(bf_buildcache_is_unchanged(meta, &arts, why, sizeof(why)));
	assert_non_null(strstr(why, "artifact 'bench.sh' changed since it "
	                            "was built"));
	bf_artifacts_release(&arts);
	/* one artifact fewer than the build left */
	write_file(tmpl, "bench.sh", "echo 'BM 100 ns'\n");
	bf_argv_release(&pats);
	bf_argv_push(&pats, "bench.sh");
	assert_int_equal(bf_artifacts_expand(&arts, tmpl, &pats, NULL), 0);
	assert_false(bf_buildcache_is_unchanged(meta, &arts, why, sizeof(why)));
	assert_non_null(strstr(why, "1 artifacts where its build left 2"));
	/* a record without digests (an older benchfarm's) is not trusted */
	json_object_del(meta, "artifacts");
	assert_false(bf_buildcache_is_unchanged(meta, &arts, why, sizeof(why)));
	assert_non_null(strstr(why, "no digests"));
	bf_artifacts_release(&arts);
	json_decref(meta);
	bf_argv_release(&pats);
	assert_int_equal(bf_fs_rmtree(tmpl, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sandbox__argv_has_only_the_tree_writable),
		cmocka_unit_test(test_sandbox__choose_without_bwrap),
		cmocka_unit_test(test_sandbox__choose_with_a_failing_program),
		cmocka_unit_test(
		        test_buildcache__digests_find_a_changed_artifact),
	};

	return cmocka_run_group_tests_name("sandbox", tests, NULL, NULL);
}
