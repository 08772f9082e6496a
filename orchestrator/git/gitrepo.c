#include "git/gitrepo.h"

#include <stdarg.h>
#include <stdio.h>

#include <git2.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "git/gitrepo_int.h"

int bf_gitrepo__map_code(int gerr)
{
	switch (gerr) {
	case GIT_ENOTFOUND:
		return BF_ENOTFOUND;
	case GIT_EEXISTS:
		return BF_EEXISTS;
	case GIT_EAMBIGUOUS:
	case GIT_EINVALIDSPEC:
	case GIT_EINVALID:
	case GIT_EPEEL:
		return BF_EINVAL;
	case GIT_ELOCKED:
		return BF_EBUSY;
	default:
		return BF_ERROR;
	}
}

int bf_gitrepo__fail(struct bf_err *err, int code, const char *fmt, ...)
{
	const git_error *e = git_error_last();
	char ctx[BF_ERR_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	/* Truncation is acceptable: the message is for humans. */
	return bf_err_set(err, code, "%s: %s", ctx,
	                  e && e->message ? e->message
	                                  : "unknown libgit2 error");
}

static bool is_full_oid(const char *s)
{
	size_t i = 0;

	while (i < BF_GITREPO_OID_HEXLEN && s[i] &&
	       strchr("0123456789abcdefABCDEF", s[i]))
		i++;
	return i == BF_GITREPO_OID_HEXLEN && s[i] == '\0';
}

static void oid_to_hex(char out[41], const git_oid *id)
{
	git_oid_tostr(out, BF_GITREPO_OID_HEXLEN + 1, id);
}

int bf_gitrepo__lookup_commit(git_commit **out, struct bf_gitrepo *r,
                              const char *hex, struct bf_err *err)
{
	git_oid id;
	int rc;

	if (!hex || !is_full_oid(hex)) {
		rc = bf_err_set(
		        err, BF_EINVAL,
		        "invalid commit id '%s': expected 40 hexadecimal digits",
		        hex ? hex : "(null)");
		goto out;
	}
	if (git_oid_fromstr(&id, hex) < 0) {
		rc = bf_gitrepo__fail(err, BF_EINVAL, "invalid commit id '%s'",
		                      hex);
		goto out;
	}
	rc = git_commit_lookup(out, r->repo, &id);
	if (rc < 0)
		rc = bf_gitrepo__fail(err, bf_gitrepo__map_code(rc),
		                      "cannot find commit '%s' in '%s'", hex,
		                      r->path);
out:
	return rc;
}

void bf_gitcommit_release(struct bf_gitcommit *c)
{
	struct bf_gitcommit empty = BF_GITCOMMIT_INIT;

	if (!c)
		return;
	free(c->subject);
	free(c->author);
	*c = empty;
}

int bf_gitrepo_open(struct bf_gitrepo **out, const char *path,
                    struct bf_err *err)
{
	git_repository *repo = NULL;
	struct bf_gitrepo *r = NULL;
	int rc;

	rc = git_libgit2_init();
	if (rc < 0) {
		rc = bf_gitrepo__fail(err, BF_ERROR,
		                      "cannot initialise libgit2");
		goto out;
	}
	rc = git_repository_open_ext(&repo, path, 0, NULL);
	if (rc < 0) {
		rc = bf_gitrepo__fail(err, bf_gitrepo__map_code(rc),
		                      "cannot open repository '%s'", path);
		git_libgit2_shutdown();
		goto out;
	}
	r = bf_xcalloc(1, sizeof(*r));
	r->repo = repo;
	r->path = bf_xstrdup(path);
	*out = r;
	rc = 0;
out:
	return rc;
}

void bf_gitrepo_free(struct bf_gitrepo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

/* Resolve rev to a commit object; the caller frees *out. */
static int resolve_commit(git_commit **out, struct bf_gitrepo *r,
                          const char *rev, struct bf_err *err)
{
	git_object *obj = NULL;
	git_object *peeled = NULL;
	int rc;

	if (!rev || !*rev) {
		rc = bf_err_set(err, BF_EINVAL, "empty revision in '%s'",
		                r->path);
		goto out;
	}
	rc = git_revparse_single(&obj, r->repo, rev);
	if (rc == GIT_ENOTFOUND) {
		rc = bf_err_set(err, BF_ENOTFOUND,
		                "unknown revision '%s' in '%s'", rev, r->path);
		goto out;
	}
	if (rc < 0) {
		rc = bf_gitrepo__fail(err, bf_gitrepo__map_code(rc),
		                      "invalid revision '%s' in '%s'", rev,
		                      r->path);
		goto out;
	}
	rc = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (rc < 0) {
		rc = bf_err_set(err, BF_EINVAL,
		                "revision '%s' in '%s' is a %s, not a commit",
		                rev, r->path,
		                git_object_type2string(git_object_type(obj)));
		goto out;
	}
	*out = (git_commit *)peeled;
	peeled = NULL;
	rc = 0;
out:
	git_object_free(peeled);
	git_object_free(obj);
	return rc;
}

/*
 * Like resolve_commit(), but a name unknown locally is retried as a
 * branch of the remote "origin". Errors describe the original name.
 */
static int resolve_branchish(git_commit **out, struct bf_gitrepo *r,
                             const char *rev, struct bf_err *err)
{
	char *remote = NULL;
	int rc;

	rc = resolve_commit(out, r, rev, err);
	if (rc != BF_ENOTFOUND)
		goto out;
	remote = bf_xasprintf("refs/remotes/origin/%s", rev);
	if (resolve_commit(out, r, remote, NULL) == 0) {
		bf_err_clear(err);
		rc = 0;
	}
out:
	free(remote);
	return rc;
}

/* Finds the commit named s; the caller frees *out. */
typedef int find_commit_fn(git_commit **out, struct bf_gitrepo *r,
                           const char *s, struct bf_err *err);
/* One of a commit's ids: its own or its tree's. */
typedef const git_oid *commit_oid_fn(const git_commit *c);

/* The id that id() gives of the commit that find() finds for s. */
static int commit_hex(char out[41], struct bf_gitrepo *r, const char *s,
                      find_commit_fn *find, commit_oid_fn *id,
                      struct bf_err *err)
{
	git_commit *commit = NULL;
	int rc = find(&commit, r, s, err);

	if (rc == 0)
		oid_to_hex(out, id(commit));
	git_commit_free(commit);
	return rc;
}

/*
 * Both sides of a merge base or a range, each like resolve_branchish();
 * the caller frees *ca and *cb (each set or left NULL) on failure too.
 */
static int resolve_both(git_commit **ca, git_commit **cb, struct bf_gitrepo *r,
                        const char *a, const char *b, struct bf_err *err)
{
	int rc = resolve_branchish(ca, r, a, err);

	if (rc == 0)
		rc = resolve_branchish(cb, r, b, err);
	return rc;
}

int bf_gitrepo_resolve(char out_oid[41], struct bf_gitrepo *r, const char *rev,
                       struct bf_err *err)
{
	return commit_hex(out_oid, r, rev, resolve_commit, git_commit_id, err);
}

int bf_gitrepo_merge_base(char out_oid[41], struct bf_gitrepo *r, const char *a,
                          const char *b, struct bf_err *err)
{
	git_commit *ca = NULL;
	git_commit *cb = NULL;
	git_oid base;
	int rc;

	rc = resolve_both(&ca, &cb, r, a, b, err);
	if (rc < 0)
		goto out;
	rc = git_merge_base(&base, r->repo, git_commit_id(ca),
	                    git_commit_id(cb));
	if (rc < 0) {
		rc = bf_gitrepo__fail(err, bf_gitrepo__map_code(rc),
		                      "no merge base of '%s' and '%s' in '%s'",
		                      a, b, r->path);
		goto out;
	}
	oid_to_hex(out_oid, &base);
out:
	git_commit_free(cb);
	git_commit_free(ca);
	return rc;
}

int bf_gitrepo_tree_id(char out[41], struct bf_gitrepo *r,
                       const char *commit_oid, struct bf_err *err)
{
	return commit_hex(out, r, commit_oid, bf_gitrepo__lookup_commit,
	                  git_commit_tree_id, err);
}

int bf_gitrepo_commit_info(struct bf_gitrepo *r, const char *oid,
                           struct bf_gitcommit *out, struct bf_err *err)
{
	struct bf_gitcommit empty = BF_GITCOMMIT_INIT;
	git_commit *commit = NULL;
	const git_signature *author;
	const char *summary;
	int rc;

	*out = empty;
	rc = bf_gitrepo__lookup_commit(&commit, r, oid, err);
	if (rc < 0)
		goto out;
	summary = git_commit_summary(commit);
	if (!summary) {
		rc = bf_gitrepo__fail(err, BF_ERROR,
		                      "cannot read commit '%s' in '%s'", oid,
		                      r->path);
		goto out;
	}
	author = git_commit_author(commit);
	oid_to_hex(out->oid, git_commit_id(commit));
	out->subject = bf_xstrdup(summary);
	out->author = bf_xstrdup(author->name ? author->name : "");
	out->author_time = (int64_t)author->when.time;
	out->commit_time = (int64_t)git_commit_time(commit);
out:
	git_commit_free(commit);
	return rc;
}

/*
 * Parse "A..B" into its two sides (new strings the caller frees); an
 * empty side means HEAD.
 */
static int split_range(char **a_out, char **b_out, const char *range,
                       const char *repo_path, struct bf_err *err)
{
	const char *dots = range ? strstr(range, "..") : NULL;
	int rc = 0;

	if (!dots) {
		rc = bf_err_set(err, BF_EINVAL,
		                "invalid range '%s' in '%s': expected 'A..B'",
		                range ? range : "(null)", repo_path);
		goto out;
	}
	if (dots[2] == '.' || strstr(dots + 2, "..")) {
		rc = bf_err_set(
		        err, BF_EINVAL,
		        "invalid range '%s' in '%s': only 'A..B' is supported",
		        range, repo_path);
		goto out;
	}
	*a_out = dots == range ? bf_xstrdup("HEAD")
	                       : bf_xstrndup(range, (size_t)(dots - range));
	*b_out = bf_xstrdup(dots[2] ? dots + 2 : "HEAD");
out:
	return rc;
}

/*
 * The first-parent history of tip without hide's (NULL: none), oldest
 * first, into a new array of hex ids; kind and name say what is walked
 * in messages ("range ", "A..B").
 */
static int walk_first_parent(char (**oids_out)[41], size_t *n,
                             struct bf_gitrepo *r, const git_commit *tip,
                             const git_commit *hide, const char *kind,
                             const char *name, struct bf_err *err)
{
	git_revwalk *walk = NULL;
	char(*oids)[41] = NULL;
	size_t len = 0, alloc = 0;
	git_oid id;
	int rc;

	/* Sorting resets the walker, so it comes before pushing. */
	if (git_revwalk_new(&walk, r->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) <
	            0 ||
	    git_revwalk_simplify_first_parent(walk) < 0 ||
	    git_revwalk_push(walk, git_commit_id(tip)) < 0 ||
	    (hide && git_revwalk_hide(walk, git_commit_id(hide)) < 0)) {
		rc = bf_gitrepo__fail(err, BF_ERROR,
		                      "cannot walk %s'%s' in '%s'", kind, name,
		                      r->path);
		goto out;
	}
	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		if (len == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			oids = bf_xreallocarray(oids, alloc, sizeof(*oids));
		}
		oid_to_hex(oids[len++], &id);
	}
	if (rc != GIT_ITEROVER) {
		rc = bf_gitrepo__fail(err, bf_gitrepo__map_code(rc),
		                      "cannot walk %s'%s' in '%s'", kind, name,
		                      r->path);
		goto out;
	}
	*oids_out = oids;
	*n = len;
	oids = NULL;
	rc = 0;
out:
	free(oids);
	git_revwalk_free(walk);
	return rc;
}

int bf_gitrepo_first_parent_range(struct bf_gitrepo *r, const char *range,
                                  char (**oids_out)[41], size_t *n,
                                  struct bf_err *err)
{
	char *a = NULL, *b = NULL;
	git_commit *ca = NULL;
	git_commit *cb = NULL;
	int rc;

	rc = split_range(&a, &b, range, r->path, err);
	if (rc < 0)
		goto out;
	rc = resolve_both(&ca, &cb, r, a, b, err);
	if (rc < 0)
		goto out;
	/* B before A: git would walk nothing and say nothing */
	if (!git_oid_equal(git_commit_id(ca), git_commit_id(cb)) &&
	    git_graph_descendant_of(r->repo, git_commit_id(ca),
	                            git_commit_id(cb)) == 1) {
		rc = bf_err_set(err, BF_EINVAL,
		                "range '%s' is reversed: '%s' is not an "
		                "ancestor of '%s' but a descendant (did you "
		                "mean '%s..%s'?)",
		                range, a, b, b, a);
		goto out;
	}
	rc = walk_first_parent(oids_out, n, r, cb, ca, "range ", range, err);
out:
	git_commit_free(cb);
	git_commit_free(ca);
	free(b);
	free(a);
	return rc;
}

int bf_gitrepo_first_parent_history(struct bf_gitrepo *r, const char *tip,
                                    char (**oids_out)[41], size_t *n,
                                    struct bf_err *err)
{
	git_commit *c = NULL;
	int rc = resolve_branchish(&c, r, tip, err);

	if (rc == 0)
		rc = walk_first_parent(oids_out, n, r, c, NULL,
		                       "the history of ", tip, err);
	git_commit_free(c);
	return rc;
}
