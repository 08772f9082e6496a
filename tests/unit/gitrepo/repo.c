#include "unit/gitrepo/repo.h"

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
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/spawn.h"

struct fixture fx;

char *git_in(const char *dir, const char *const *args)
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

void head_oid(char out[41], const char *dir)
{
	char *s =
	        git_in(dir, (const char *const[]){ "rev-parse", "HEAD", NULL });

	assert_int_equal(strlen(s), 40);
	memcpy(out, s, 41);
	free(s);
}

char *path_in(const char *dir, const char *name)
{
	return bf_xasprintf("%s/%s", dir, name);
}

void write_file(const char *dir, const char *name, const char *data,
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

char *read_file(const char *dir, const char *name)
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

int setup(void **state)
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

int teardown(void **state)
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

struct bf_gitrepo *open_repo(const char *path)
{
	struct bf_gitrepo *r = NULL;
	struct bf_err err = BF_ERR_INIT;

	if (bf_gitrepo_open(&r, path, &err) != 0)
		fail_msg("open '%s': %s", path, err.msg);
	return r;
}
