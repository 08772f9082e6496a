#ifndef BF_GITREPO_H
#define BF_GITREPO_H

#include "benchfarm/common.h"

struct bf_err;

/*
 * Read-only access to a git repository: resolving revisions, merge
 * bases, tree ids, commit metadata, first-parent history, and exporting
 * a commit's tree into a directory. This is the only module that calls
 * libgit2 (gitrepo.c, and gitrepo_export.c for the export); no libgit2
 * type or allocation escapes it, and it never runs a `git` subprocess.
 *
 * Nothing here writes to the repository: not its refs, its index nor
 * its working tree, so a dirty checkout is never disturbed.
 *
 * Object ids cross the API as 40-character lowercase hexadecimal
 * strings in caller-owned `char [41]` arrays (NUL-terminated).
 *
 * Errors: the message is filled in here, names the repository or the
 * revision and ends with libgit2's own text when libgit2 reported the
 * failure. Codes a caller may branch on are listed per function; any
 * function can also fail with BF_ERROR (libgit2 failure, e.g. a damaged
 * object database) or BF_ESYS.
 *
 * A struct bf_gitrepo must not be used from two threads at once.
 */
struct bf_gitrepo;

#define BF_GITREPO_OID_HEXLEN 40

/* Metadata of one commit, filled by bf_gitrepo_commit_info(). */
struct bf_gitcommit {
	char oid[BF_GITREPO_OID_HEXLEN + 1]; /* full commit id */
	char *subject; /* first paragraph of the message, on one line */
	char *author; /* author name */
	int64_t author_time; /* author date, unix seconds */
	int64_t commit_time; /* committer date, unix seconds */
};

#define BF_GITCOMMIT_INIT               \
	{                               \
		{ 0 }, NULL, NULL, 0, 0 \
	}

/* Free the strings of c and reset it to BF_GITCOMMIT_INIT. NULL is ok. */
void bf_gitcommit_release(struct bf_gitcommit *c);

/*
 * Open the repository at path, which may also be any directory inside
 * its working tree (the repository is discovered upwards, as git does),
 * a .git directory or a bare repository. Initialises libgit2 (reference
 * counted; released again by bf_gitrepo_free()).
 *
 * On success *out is a new handle the caller frees with
 * bf_gitrepo_free(); on failure *out is unchanged. Returns 0,
 * BF_ENOTFOUND (no repository at or above path; the message is
 * "cannot open repository 'PATH': <libgit2 message>") or BF_ERROR.
 */
int bf_gitrepo_open(struct bf_gitrepo **out, const char *path,
                    struct bf_err *err);

/* Close the repository and release libgit2. NULL is ok. */
void bf_gitrepo_free(struct bf_gitrepo *r);

/*
 * Resolve any revision expression git understands (HEAD, a branch or
 * tag name, a full or abbreviated id, HEAD~2, v1.0^{commit}, ...) and
 * peel it to a commit, whose id is written to out_oid.
 *
 * Returns 0, BF_ENOTFOUND ("unknown revision 'REV' in 'PATH'"),
 * BF_EINVAL (empty, malformed or ambiguous expression, or one naming a
 * tree or blob rather than a commit). out_oid is written only on
 * success.
 */
int bf_gitrepo_resolve(char out_oid[41], struct bf_gitrepo *r, const char *rev,
                       struct bf_err *err);

/*
 * The best common ancestor of revisions a and b, written to out_oid.
 * Each side is resolved like bf_gitrepo_resolve(); a name unknown
 * locally is then tried as refs/remotes/origin/NAME, because CI clones
 * often hold only remote-tracking branches (the local branch wins when
 * both exist).
 *
 * Returns 0, BF_ENOTFOUND (a revision is unknown, or the histories have
 * no common ancestor) or BF_EINVAL (as for bf_gitrepo_resolve()).
 */
int bf_gitrepo_merge_base(char out_oid[41], struct bf_gitrepo *r, const char *a,
                          const char *b, struct bf_err *err);

/*
 * The id of the root tree of commit commit_oid (a full 40-character
 * id), written to out. Commits with identical content have the same
 * tree id, which makes it the key for caching exports and builds.
 *
 * Returns 0, BF_EINVAL (commit_oid is not a full id) or BF_ENOTFOUND
 * (no such commit).
 */
int bf_gitrepo_tree_id(char out[41], struct bf_gitrepo *r,
                       const char *commit_oid, struct bf_err *err);

/*
 * Write the tree of commit commit_oid (a full id) into dir, which is
 * created with mode 0777 & ~umask when missing (its parent must exist)
 * and must otherwise be an empty directory. The repository's index and
 * working tree are not touched.
 *
 * Files get mode 0666 or, when executable in git, 0777 (both less the
 * umask); symbolic links are created as links. Content passes through
 * the filters git applies on checkout (end-of-line conversion, ident),
 * with attributes read from the exported commit itself rather than
 * from the working tree. Submodules are not fetched: each becomes an
 * empty directory, as after a plain `git checkout`, and a warning is
 * logged. Entry names that could escape dir (".", "..", ".git", or
 * containing '/') make the export fail.
 *
 * Returns 0, BF_EINVAL (bad commit_oid, or a tree entry that is unsafe
 * or of an unknown type), BF_ENOTFOUND (no such commit), BF_EEXISTS
 * (dir is not an empty directory) or BF_ESYS (cannot write). On
 * failure dir may hold a partial export, which the caller removes.
 */
int bf_gitrepo_export(struct bf_gitrepo *r, const char *commit_oid,
                      const char *dir, struct bf_err *err);

/*
 * Fill out (initialised by this call) with the metadata of commit oid
 * (a full id). The strings in out belong to the caller, who frees them
 * with bf_gitcommit_release(); on failure out is left empty (as
 * BF_GITCOMMIT_INIT) and needs no release.
 *
 * Returns 0, BF_EINVAL (oid is not a full id) or BF_ENOTFOUND.
 */
int bf_gitrepo_commit_info(struct bf_gitrepo *r, const char *oid,
                           struct bf_gitcommit *out, struct bf_err *err);

/*
 * The first-parent history of range "A..B": the commits reachable from
 * B along first parents only, excluding every commit reachable from A,
 * oldest first. Each side is resolved like in bf_gitrepo_merge_base()
 * (including the origin/NAME fallback); an empty side means HEAD, as in
 * git.
 *
 * On success *oids_out is a new array of *n ids the caller frees with
 * free(), or NULL when the range is empty (*n == 0). On failure neither
 * is changed. Returns 0, BF_EINVAL (not of the form "A..B", including
 * the unsupported "A...B"; a side that is not a valid revision; or a
 * reversed range, B an ancestor of A, which git would take as empty) or
 * BF_ENOTFOUND (a side is unknown). A..A is empty, not an error.
 */
int bf_gitrepo_first_parent_range(struct bf_gitrepo *r, const char *range,
                                  char (**oids_out)[41], size_t *n,
                                  struct bf_err *err);

/*
 * The whole first-parent history of tip (resolved like a range side),
 * oldest first; as bf_gitrepo_first_parent_range() otherwise.
 */
int bf_gitrepo_first_parent_history(struct bf_gitrepo *r, const char *tip,
                                    char (**oids_out)[41], size_t *n,
                                    struct bf_err *err);

#endif /* BF_GITREPO_H */
