/*
 * Unit tests for gitrepo against a real repository: opening, resolving
 * revisions, merge bases, tree ids, commit metadata, first-parent
 * history. The repository and its history are unit/gitrepo/repo.h's.
 */
/* cmocka.h needs these first; the blank line keeps clang-format's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "git/gitrepo.h"
#include "unit/gitrepo/repo.h"

static void assert_resolves(struct bf_gitrepo *r, const char *rev,
                            const char *want)
{
	struct bf_err err = BF_ERR_INIT;
	char oid[41];

	if (bf_gitrepo_resolve(oid, r, rev, &err) != 0)
		fail_msg("resolve '%s': %s", rev, err.msg);
	assert_string_equal(oid, want);
}

static void test_gitrepo__resolve_revspecs(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	char short_c2[8];

	(void)state;
	memcpy(short_c2, fx.c2, 7);
	short_c2[7] = '\0';
	assert_resolves(r, "HEAD", fx.c5);
	assert_resolves(r, "main", fx.c5);
	assert_resolves(r, "feature", fx.f2);
	assert_resolves(r, "v1", fx.c1); /* annotated tag, peeled */
	assert_resolves(r, short_c2, fx.c2);
	assert_resolves(r, fx.c3, fx.c3);
	assert_resolves(r, "HEAD~2", fx.c3);
	assert_resolves(r, "HEAD^2", fx.t1);
	assert_resolves(r, "origin/release", fx.c3);
	bf_gitrepo_free(r);
}

static void test_gitrepo__opens_from_subdirectory(void **state)
{
	char *sub = path_in(fx.repo, "sub/dir");
	struct bf_gitrepo *r = open_repo(sub);

	(void)state;
	assert_resolves(r, "HEAD", fx.c5);
	bf_gitrepo_free(r);
	free(sub);
}

static void test_gitrepo__unknown_revision_is_not_found(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char oid[41] = "unchanged";
	char *want = bf_xasprintf("unknown revision 'nope' in '%s'", fx.repo);

	(void)state;
	assert_int_equal(bf_gitrepo_resolve(oid, r, "nope", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(err.code, BF_ENOTFOUND);
	assert_string_equal(err.msg, want);
	assert_string_equal(oid, "unchanged");
	/* Without the origin fallback that merge-base uses. */
	assert_int_equal(bf_gitrepo_resolve(oid, r, "release", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_gitrepo_resolve(oid, r, "HEAD~99", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_gitrepo_resolve(oid, r, "HEAD^{tree}", &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "not a commit"));
	assert_int_equal(bf_gitrepo_resolve(oid, r, "", &err), BF_EINVAL);
	free(want);
	bf_gitrepo_free(r);
}

static void test_gitrepo__not_a_repository(void **state)
{
	char *plain = path_in(fx.tmp, "plain");
	char *missing = path_in(fx.tmp, "missing");
	struct bf_gitrepo *r = NULL;
	struct bf_err err = BF_ERR_INIT;
	char *prefix = bf_xasprintf("cannot open repository '%s': ", plain);

	(void)state;
	assert_int_equal(mkdir(plain, 0777), 0);
	assert_int_equal(bf_gitrepo_open(&r, plain, &err), BF_ENOTFOUND);
	assert_null(r);
	assert_int_equal(strncmp(err.msg, prefix, strlen(prefix)), 0);
	assert_true(strlen(err.msg) > strlen(prefix));
	assert_int_equal(bf_gitrepo_open(&r, missing, &err), BF_ENOTFOUND);
	assert_null(r);
	bf_gitrepo_free(NULL);
	free(prefix);
	free(missing);
	free(plain);
}

static void test_gitrepo__merge_base_is_fork_point(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char oid[41];

	(void)state;
	assert_int_equal(bf_gitrepo_merge_base(oid, r, "feature", "main", &err),
	                 0);
	assert_string_equal(oid, fx.c2);
	assert_int_equal(bf_gitrepo_merge_base(oid, r, "main", "feature", &err),
	                 0);
	assert_string_equal(oid, fx.c2);
	assert_int_equal(bf_gitrepo_merge_base(oid, r, "topic", "main", &err),
	                 0);
	assert_string_equal(oid, fx.t1);
	assert_int_equal(bf_gitrepo_merge_base(oid, r, "feature", "nope", &err),
	                 BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "'nope'"));
	bf_gitrepo_free(r);
}

static void test_gitrepo__merge_base_falls_back_to_origin(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char oid[41];

	(void)state;
	/* Only refs/remotes/origin/release exists (at c3). */
	assert_int_equal(
	        bf_gitrepo_merge_base(oid, r, "feature", "release", &err), 0);
	assert_string_equal(oid, fx.c2);
	assert_int_equal(
	        bf_gitrepo_merge_base(oid, r, "release", "topic", &err), 0);
	assert_string_equal(oid, fx.c3);
	/* Local "both" (c1) wins over origin/both (c3). */
	assert_int_equal(bf_gitrepo_merge_base(oid, r, "both", "main", &err),
	                 0);
	assert_string_equal(oid, fx.c1);
	bf_gitrepo_free(r);
}

static void test_gitrepo__tree_id_equal_for_identical_trees(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char *want =
	        git_in(fx.repo, (const char *const[]){ "rev-parse",
	                                               "HEAD~1^{tree}", NULL });
	char t2[41], t3[41], t4[41];

	(void)state;
	assert_int_equal(bf_gitrepo_tree_id(t2, r, fx.c2, &err), 0);
	assert_int_equal(bf_gitrepo_tree_id(t3, r, fx.c3, &err), 0);
	assert_int_equal(bf_gitrepo_tree_id(t4, r, fx.c4, &err), 0);
	assert_string_equal(t3, t4);
	assert_string_not_equal(t2, t3);
	assert_string_equal(t4, want);
	assert_int_equal(bf_gitrepo_tree_id(t2, r, "HEAD", &err), BF_EINVAL);
	assert_int_equal(
	        bf_gitrepo_tree_id(t2, r,
	                           "0123456789012345678901234567890123456789",
	                           &err),
	        BF_ENOTFOUND);
	free(want);
	bf_gitrepo_free(r);
}

static void test_gitrepo__commit_info(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_gitcommit c = BF_GITCOMMIT_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	assert_int_equal(bf_gitrepo_commit_info(r, fx.c2, &c, &err), 0);
	assert_string_equal(c.oid, fx.c2);
	assert_string_equal(c.subject, "second commit");
	assert_string_equal(c.author, "Ada Author");
	assert_int_equal(c.author_time, 1700000000);
	assert_int_equal(c.commit_time, 1700000500);
	bf_gitcommit_release(&c);
	assert_null(c.subject);
	bf_gitcommit_release(NULL);
	assert_int_equal(bf_gitrepo_commit_info(r, "zz", &c, &err), BF_EINVAL);
	assert_null(c.subject);
	bf_gitrepo_free(r);
}

static void test_gitrepo__first_parent_range_oldest_first(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char(*oids)[41] = NULL;
	char *range = bf_xasprintf("%s..main", fx.c2);
	size_t n = 99;

	(void)state;
	if (bf_gitrepo_first_parent_range(r, range, &oids, &n, &err) != 0)
		fail_msg("range: %s", err.msg);
	/* t1 is reachable only through the merge's second parent. */
	assert_int_equal(n, 3);
	assert_string_equal(oids[0], fx.c3);
	assert_string_equal(oids[1], fx.c4);
	assert_string_equal(oids[2], fx.c5);
	free(oids);
	assert_int_equal(bf_gitrepo_first_parent_range(r, "v1..feature", &oids,
	                                               &n, &err),
	                 0);
	assert_int_equal(n, 3);
	assert_string_equal(oids[0], fx.c2);
	assert_string_equal(oids[2], fx.f2);
	free(oids);
	assert_int_equal(
	        bf_gitrepo_first_parent_range(r, "main..", &oids, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(oids);
	free(range);
	bf_gitrepo_free(r);
}

static void test_gitrepo__bad_range_is_rejected(void **state)
{
	struct bf_gitrepo *r = open_repo(fx.repo);
	struct bf_err err = BF_ERR_INIT;
	char(*oids)[41] = NULL;
	size_t n = 7;

	(void)state;
	assert_int_equal(
	        bf_gitrepo_first_parent_range(r, "main", &oids, &n, &err),
	        BF_EINVAL);
	assert_non_null(strstr(err.msg, "expected 'A..B'"));
	assert_int_equal(
	        bf_gitrepo_first_parent_range(r, "v1...main", &oids, &n, &err),
	        BF_EINVAL);
	assert_int_equal(
	        bf_gitrepo_first_parent_range(r, "nope..main", &oids, &n, &err),
	        BF_ENOTFOUND);
	assert_non_null(strstr(err.msg, "unknown revision 'nope'"));
	/* reversed: v1 is an ancestor of main, so main..v1 walks nothing */
	assert_int_equal(
	        bf_gitrepo_first_parent_range(r, "main..v1", &oids, &n, &err),
	        BF_EINVAL);
	assert_non_null(strstr(err.msg, "range 'main..v1' is reversed: "
	                                "'main' is not an ancestor of 'v1'"));
	assert_null(oids);
	assert_int_equal(n, 7);
	bf_gitrepo_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gitrepo__resolve_revspecs),
		cmocka_unit_test(test_gitrepo__opens_from_subdirectory),
		cmocka_unit_test(test_gitrepo__unknown_revision_is_not_found),
		cmocka_unit_test(test_gitrepo__not_a_repository),
		cmocka_unit_test(test_gitrepo__merge_base_is_fork_point),
		cmocka_unit_test(test_gitrepo__merge_base_falls_back_to_origin),
		cmocka_unit_test(
		        test_gitrepo__tree_id_equal_for_identical_trees),
		cmocka_unit_test(test_gitrepo__commit_info),
		cmocka_unit_test(test_gitrepo__first_parent_range_oldest_first),
		cmocka_unit_test(test_gitrepo__bad_range_is_rejected),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
