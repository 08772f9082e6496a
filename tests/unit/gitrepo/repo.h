#ifndef BF_TEST_GITREPO_REPO_H
#define BF_TEST_GITREPO_REPO_H

#include <sys/types.h>

#include "git/gitrepo.h"

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
struct fixture {
	char *tmp; /* mkdtemp directory holding everything below */
	char *repo; /* tmp/repo */
	char c1[41], c2[41], c3[41], c4[41], c5[41];
	char f1[41], f2[41], t1[41];
	char s1[41]; /* branch withsub: c1 plus a submodule "mod" */
};

extern struct fixture fx;

/* Run git with args (NULL-terminated) in dir; return its stdout. */
char *git_in(const char *dir, const char *const *args);
#define GIT(dir, ...) \
	free(git_in((dir), (const char *const[]){ __VA_ARGS__, NULL }))

/* The id of dir's HEAD. */
void head_oid(char out[41], const char *dir);
/* "dir/name", which the caller frees. */
char *path_in(const char *dir, const char *name);
/* Write data into dir/name with mode. */
void write_file(const char *dir, const char *name, const char *data,
                mode_t mode);
/* The content of dir/name, which the caller frees. */
char *read_file(const char *dir, const char *name);
/* cmocka group setup and teardown: make fx's repository, remove it. */
int setup(void **state);
int teardown(void **state);
/* Open path, failing the test on an error. */
struct bf_gitrepo *open_repo(const char *path);

#endif /* BF_TEST_GITREPO_REPO_H */
