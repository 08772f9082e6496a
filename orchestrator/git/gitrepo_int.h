#ifndef BF_GITREPO_INT_H
#define BF_GITREPO_INT_H

#include <git2.h>

#include "git/gitrepo.h"

/*
 * Shared between gitrepo.c (opening, revisions, history) and
 * gitrepo_export.c (a commit's tree into a directory), which calls
 * gitrepo.c and not the other way; libgit2 types go no further.
 */

struct bf_gitrepo {
	git_repository *repo;
	char *path; /* as given to bf_gitrepo_open(), for messages */
};

/* Our error code for a libgit2 one. Cannot fail. */
int bf_gitrepo__map_code(int gerr);

/*
 * Record a libgit2 failure: the formatted context, then ": " and
 * libgit2's message (git_error_last() may be NULL). Returns code.
 */
int bf_gitrepo__fail(struct bf_err *err, int code, const char *fmt, ...)
        BF_PRINTF(3, 4);

/*
 * Look up the commit with full id hex; the caller frees *out with
 * git_commit_free(). 0, BF_EINVAL (not a full id) or BF_ENOTFOUND.
 */
int bf_gitrepo__lookup_commit(git_commit **out, struct bf_gitrepo *r,
                              const char *hex, struct bf_err *err);

#endif /* BF_GITREPO_INT_H */
