/*
 * Unit tests for gitrepo against a real repository, built once per run
 * with the git CLI in a temporary directory. The history:
 *
 *   c1 -- c2 -- c3 -- c4 -- c5   main (c4: empty commit, c5: merge)
 *          \      \         /
 *           \      t1 -----'     topic
 *            f1 -- f2            feature
 *
 * v1 is an annotated tag on c1; refs/remotes/origin/release points at
 * c3 with no local branch; local "both" is at c1 while origin/both is
 * at c3. Branch withsub adds a submodule entry "mod" on top of c1.
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
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"
#include "git/gitrepo.h"

struct fixture {
	char *tmp; /* mkdtemp directory holding everything below */
	char *repo; /* tmp/repo */
	char c1[41], c2[41], c3[41], c4[41], c5[41];
	char f1[41], f2[41], t1[41];
	char s1[41]; /* branch withsub: c1 plus a submodule "mod" */
};

static struct fixture fx;

/* Run git with argv (NULL-terminated) in dir; return its stdout. */
static char *git_in(const char *dir, const char *const *args)
{
	static const char *const env[] = {
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_OPTIONAL_LOCKS=0", /* status must not refresh the index */
		"GIT_AUTHOR_NAME=Ada Author",
		"GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Cy Committer",
		"GIT_COMMITTER_EMAIL=cy@example.com",
		"GIT_AUTHOR_DATE=@1700000000 +0000",
		"GIT_COMMITTER_DATE=@1700000500 +0000",
		NULL,
	};
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	const char *argv[32] = {
		"git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
		NULL
	};
	size_t n = 5;
	char *out;

	while (*args) {
		assert_true(n < BF_ARRAY_SIZE(argv) - 1);
		argv[n++] = *args++;
	}
	argv[n] = NULL;
	opts.argv = argv;
	opts.cwd = dir;
	opts.env_set = env;
	assert_int_equal(bf_spawn_run(&res, &opts, NULL), 0);
	if (!bf_spawn_is_success(&res))
		fail_msg("git %s failed: %s", argv[5], res.err.buf);
	bf_buf_rtrim(&res.out);
	out = bf_buf_detach(&res.out, NULL);
	bf_spawn_result_release(&res);
	return out;
}

#define GIT(dir, ...) \
	free(git_in((dir), (const char *const[]){ __VA_ARGS__, NULL }))

static void head_oid(char out[41], const char *dir)
{
	char *s =
	        git_in(dir, (const char *const[]){ "rev-parse", "HEAD", NULL });

	assert_int_equal(strlen(s), 40);
	memcpy(out, s, 41);
	free(s);
}

static char *path_in(const char *dir, const char *name)
{
	return bf_xasprintf("%s/%s", dir, name);
}

static void write_file(const char *dir, const char *name, const char *data,
                       mode_t mode)
{
	char *path = path_in(dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(data, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
	free(path);
}

static char *read_file(const char *dir, const char *name)
{
	struct bf_buf b = BF_BUF_INIT;
	char *path = path_in(dir, name);

	assert_int_equal(bf_buf_read_file(&b, path, NULL), 0);
	free(path);
	return bf_buf_detach(&b, NULL);
}

static void commit(char out[41], const char *msg)
{
	GIT(fx.repo, "add", "-A");
	GIT(fx.repo, "commit", "-q", "--allow-empty", "-m", msg);
	head_oid(out, fx.repo);
}

static void make_history(void)
{
	char *sub = path_in(fx.repo, "sub");
	char *subdir = path_in(fx.repo, "sub/dir");
	char *link = path_in(fx.repo, "link");
	char gitlink[64];

	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(mkdir(subdir, 0777), 0);
	write_file(fx.repo, "README", "one\n", 0644);
	write_file(fx.repo, "run.sh", "#!/bin/sh\necho hi\n", 0755);
	write_file(fx.repo, "sub/dir/file.txt", "nested\n", 0644);
	assert_int_equal(symlink("README", link), 0);
	commit(fx.c1, "first commit");
	snprintf(gitlink, sizeof(gitlink), "160000,%s,mod", fx.c1);
	GIT(fx.repo, "tag", "-a", "-m", "version one", "v1");
	GIT(fx.repo, "branch", "both");
	write_file(fx.repo, "README", "two\n", 0644);
	commit(fx.c2, "second commit\n\nwith a body\nof two lines");
	GIT(fx.repo, "checkout", "-q", "-b", "feature");
	write_file(fx.repo, "feature.c", "int f;\n", 0644);
	commit(fx.f1, "feature one");
	write_file(fx.repo, "feature.c", "int f, g;\n", 0644);
	commit(fx.f2, "feature two");
	GIT(fx.repo, "checkout", "-q", "main");
	write_file(fx.repo, "main.c", "int main;\n", 0644);
	commit(fx.c3, "third commit");
	commit(fx.c4, "empty commit");
	GIT(fx.repo, "checkout", "-q", "-b", "topic");
	write_file(fx.repo, "topic.c", "int t;\n", 0644);
	commit(fx.t1, "topic work");
	GIT(fx.repo, "checkout", "-q", "main");
	GIT(fx.repo, "merge", "-q", "--no-ff", "-m", "merge topic", "topic");
	head_oid(fx.c5, fx.repo);
	GIT(fx.repo, "checkout", "-q", "-b", "withsub", fx.c1);
	free(git_in(fx.repo,
	            (const char *const[]){ "update-index", "--add",
	                                   "--cacheinfo", gitlink, NULL }));
	/* Not commit(): "add -A" would drop the gitlink, having no directory.
	 */
	GIT(fx.repo, "commit", "-q", "-m", "add a submodule");
	head_oid(fx.s1, fx.repo);
	GIT(fx.repo, "checkout", "-q", "main");
	GIT(fx.repo, "update-ref", "refs/remotes/origin/release", fx.c3);
	GIT(fx.repo, "update-ref", "refs/remotes/origin/both", fx.c3);
	free(link);
	free(subdir);
	free(sub);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/bf-gitrepo-XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	fx.tmp = bf_xstrdup(tmpl);
	fx.repo = path_in(fx.tmp, "repo");
	GIT(fx.tmp, "init", "-q", "-b", "main", "repo");
	make_history();
	return 0;
}

static int teardown(void **state)
{
	const char *argv[] = { "rm", "-rf", fx.tmp, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	bf_spawn_result_init(&res);
	opts.argv = argv;
	if (fx.tmp && strncmp(fx.tmp, "/tmp/bf-gitrepo-", 16) == 0)
		bf_spawn_run(&res, &opts, NULL);
	bf_spawn_result_release(&res);
	free(fx.repo);
	free(fx.tmp);
	return 0;
}

static struct bf_gitrepo *open_repo(const char *path)
{
	struct bf_gitrepo *r = NULL;
	struct bf_err err = BF_ERR_INIT;

	if (bf_gitrepo_open(&r, path, &err) != 0)
		fail_msg("open '%s': %s", path, err.msg);
	return r;
}

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
		cmocka_unit_test(test_gitrepo__export_writes_exact_files),
		cmocka_unit_test(test_gitrepo__export_needs_empty_directory),
		cmocka_unit_test(test_gitrepo__export_keeps_binary_files),
		cmocka_unit_test(test_gitrepo__export_skips_submodule),
		cmocka_unit_test(
		        test_gitrepo__export_leaves_dirty_tree_untouched),
		cmocka_unit_test(test_gitrepo__commit_info),
		cmocka_unit_test(test_gitrepo__first_parent_range_oldest_first),
		cmocka_unit_test(test_gitrepo__bad_range_is_rejected),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
