#include "git/gitrepo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"

struct bf_gitrepo {
	git_repository *repo;
	char *path; /* as given to bf_gitrepo_open(), for messages */
};

/* State shared by the callbacks of one bf_gitrepo_export(). */
struct export_ctx {
	struct bf_gitrepo *r;
	const git_oid *commit_id; /* where .gitattributes are read from */
	const char *dir;
	struct bf_buf path; /* scratch: dir/root/name */
	struct bf_err *err;
	int code; /* first failure, reported instead of libgit2's */
};

static int map_code(int gerr)
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

/*
 * Record a libgit2 failure: the formatted context, then ": " and
 * libgit2's message (git_error_last() may be NULL). Returns code.
 */
static int git_fail(struct bf_err *err, int code, const char *fmt, ...)
        BF_PRINTF(3, 4);
static int git_fail(struct bf_err *err, int code, const char *fmt, ...)
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

/* Look up the commit with full id hex; caller frees *out. */
static int lookup_commit(git_commit **out, struct bf_gitrepo *r,
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
		rc = git_fail(err, BF_EINVAL, "invalid commit id '%s'", hex);
		goto out;
	}
	rc = git_commit_lookup(out, r->repo, &id);
	if (rc < 0)
		rc = git_fail(err, map_code(rc),
		              "cannot find commit '%s' in '%s'", hex, r->path);
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
		rc = git_fail(err, BF_ERROR, "cannot initialise libgit2");
		goto out;
	}
	rc = git_repository_open_ext(&repo, path, 0, NULL);
	if (rc < 0) {
		rc = git_fail(err, map_code(rc), "cannot open repository '%s'",
		              path);
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
		rc = git_fail(err, map_code(rc),
		              "invalid revision '%s' in '%s'", rev, r->path);
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

int bf_gitrepo_resolve(char out_oid[41], struct bf_gitrepo *r, const char *rev,
                       struct bf_err *err)
{
	git_commit *commit = NULL;
	int rc;

	rc = resolve_commit(&commit, r, rev, err);
	if (rc < 0)
		goto out;
	oid_to_hex(out_oid, git_commit_id(commit));
out:
	git_commit_free(commit);
	return rc;
}

int bf_gitrepo_merge_base(char out_oid[41], struct bf_gitrepo *r, const char *a,
                          const char *b, struct bf_err *err)
{
	git_commit *ca = NULL;
	git_commit *cb = NULL;
	git_oid base;
	int rc;

	rc = resolve_branchish(&ca, r, a, err);
	if (rc < 0)
		goto out;
	rc = resolve_branchish(&cb, r, b, err);
	if (rc < 0)
		goto out;
	rc = git_merge_base(&base, r->repo, git_commit_id(ca),
	                    git_commit_id(cb));
	if (rc < 0) {
		rc = git_fail(err, map_code(rc),
		              "no merge base of '%s' and '%s' in '%s'", a, b,
		              r->path);
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
	git_commit *commit = NULL;
	int rc;

	rc = lookup_commit(&commit, r, commit_oid, err);
	if (rc < 0)
		goto out;
	oid_to_hex(out, git_commit_tree_id(commit));
out:
	git_commit_free(commit);
	return rc;
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
	rc = lookup_commit(&commit, r, oid, err);
	if (rc < 0)
		goto out;
	summary = git_commit_summary(commit);
	if (!summary) {
		rc = git_fail(err, BF_ERROR, "cannot read commit '%s' in '%s'",
		              oid, r->path);
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

/* Drain walk into a new array of hex ids. */
static int collect_walk(char (**oids_out)[41], size_t *n, git_revwalk *walk,
                        const char *range, struct bf_gitrepo *r,
                        struct bf_err *err)
{
	char(*oids)[41] = NULL;
	size_t len = 0, alloc = 0;
	git_oid id;
	int rc;

	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		if (len == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			oids = bf_xreallocarray(oids, alloc, sizeof(*oids));
		}
		oid_to_hex(oids[len++], &id);
	}
	if (rc != GIT_ITEROVER) {
		rc = git_fail(err, map_code(rc),
		              "cannot walk range '%s' in '%s'", range, r->path);
		goto out;
	}
	*oids_out = oids;
	*n = len;
	oids = NULL;
	rc = 0;
out:
	free(oids);
	return rc;
}

int bf_gitrepo_first_parent_range(struct bf_gitrepo *r, const char *range,
                                  char (**oids_out)[41], size_t *n,
                                  struct bf_err *err)
{
	char *a = NULL, *b = NULL;
	git_commit *ca = NULL;
	git_commit *cb = NULL;
	git_revwalk *walk = NULL;
	int rc;

	rc = split_range(&a, &b, range, r->path, err);
	if (rc < 0)
		goto out;
	rc = resolve_branchish(&ca, r, a, err);
	if (rc < 0)
		goto out;
	rc = resolve_branchish(&cb, r, b, err);
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
	/* Sorting resets the walker, so it comes before pushing. */
	if (git_revwalk_new(&walk, r->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) <
	            0 ||
	    git_revwalk_simplify_first_parent(walk) < 0 ||
	    git_revwalk_push(walk, git_commit_id(cb)) < 0 ||
	    git_revwalk_hide(walk, git_commit_id(ca)) < 0) {
		rc = git_fail(err, BF_ERROR, "cannot walk range '%s' in '%s'",
		              range, r->path);
		goto out;
	}
	rc = collect_walk(oids_out, n, walk, range, r, err);
out:
	git_revwalk_free(walk);
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
	git_revwalk *walk = NULL;
	int rc = resolve_branchish(&c, r, tip, err);

	if (rc < 0)
		return rc;
	if (git_revwalk_new(&walk, r->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) <
	            0 ||
	    git_revwalk_simplify_first_parent(walk) < 0 ||
	    git_revwalk_push(walk, git_commit_id(c)) < 0)
		rc = git_fail(err, BF_ERROR,
		              "cannot walk the history of '%s' in '%s'", tip,
		              r->path);
	else
		rc = collect_walk(oids_out, n, walk, tip, r, err);
	git_revwalk_free(walk);
	git_commit_free(c);
	return rc;
}

/* A name that stays inside its directory and is not git's own. */
static bool is_safe_entry_name(const char *name)
{
	return *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	       strcasecmp(name, ".git") != 0 && !strchr(name, '/');
}

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t w;

	while (len > 0) {
		w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		data += w;
		len -= (size_t)w;
	}
	return len > 0 ? -1 : 0;
}

static int export_file(struct export_ctx *ctx, const git_tree_entry *entry,
                       const char *relpath)
{
	git_blob_filter_options fopts;
	git_buf content = GIT_BUF_INIT;
	git_blob *blob = NULL;
	mode_t mode = 0666;
	int fd = -1;
	int rc;

	if (git_tree_entry_filemode(entry) == GIT_FILEMODE_BLOB_EXECUTABLE)
		mode = 0777;
	git_blob_filter_options_init(&fopts, GIT_BLOB_FILTER_OPTIONS_VERSION);
	fopts.flags |= GIT_BLOB_FILTER_ATTRIBUTES_FROM_COMMIT;
	/*
	 * With CHECK_FOR_BINARY (on by default) git_blob_filter returns an
	 * empty buffer for a binary blob. Filter every file as git checkout
	 * does: the CRLF filter skips binary content by itself.
	 */
	fopts.flags &= ~(uint32_t)GIT_BLOB_FILTER_CHECK_FOR_BINARY;
	git_oid_cpy(&fopts.attr_commit_id, ctx->commit_id);
	if (git_blob_lookup(&blob, ctx->r->repo, git_tree_entry_id(entry)) <
	            0 ||
	    git_blob_filter(&content, blob, relpath, &fopts) < 0) {
		rc = git_fail(ctx->err, BF_ERROR, "cannot read '%s' from '%s'",
		              relpath, ctx->r->path);
		goto out;
	}
	fd = open(ctx->path.buf,
	          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || write_all(fd, content.ptr, content.size) < 0) {
		rc = bf_err_sys(ctx->err, "cannot write '%s'", ctx->path.buf);
		goto out;
	}
	rc = close(fd);
	fd = -1;
	if (rc < 0)
		rc = bf_err_sys(ctx->err, "cannot write '%s'", ctx->path.buf);
out:
	if (fd >= 0)
		close(fd);
	git_buf_dispose(&content);
	git_blob_free(blob);
	return rc;
}

static int export_symlink(struct export_ctx *ctx, const git_tree_entry *entry,
                          const char *relpath)
{
	git_blob *blob = NULL;
	char *target = NULL;
	size_t len;
	int rc = 0;

	if (git_blob_lookup(&blob, ctx->r->repo, git_tree_entry_id(entry)) <
	    0) {
		rc = git_fail(ctx->err, BF_ERROR, "cannot read '%s' from '%s'",
		              relpath, ctx->r->path);
		goto out;
	}
	len = (size_t)git_blob_rawsize(blob);
	target = bf_xstrndup(git_blob_rawcontent(blob), len);
	if (!*target || strlen(target) != len) {
		rc = bf_err_set(ctx->err, BF_EINVAL,
		                "invalid symbolic link target for '%s'",
		                relpath);
		goto out;
	}
	if (symlink(target, ctx->path.buf) < 0)
		rc = bf_err_sys(ctx->err, "cannot create symbolic link '%s'",
		                ctx->path.buf);
out:
	free(target);
	git_blob_free(blob);
	return rc;
}

static int export_dir(struct export_ctx *ctx, const char *relpath,
                      bool submodule)
{
	int rc = 0;

	if (mkdir(ctx->path.buf, 0777) < 0)
		rc = bf_err_sys(ctx->err, "cannot create directory '%s'",
		                ctx->path.buf);
	else if (submodule)
		BF_LOG_WARN("submodule '%s' of '%s' not exported: left empty",
		            relpath, ctx->r->path);
	return rc;
}

/* git_tree_walk() callback: recreate one entry below ctx->dir. */
static int export_entry(const char *root, const git_tree_entry *entry,
                        void *payload)
{
	struct export_ctx *ctx = payload;
	const char *name = git_tree_entry_name(entry);
	const char *relpath;
	int rc;

	if (!is_safe_entry_name(name)) {
		rc = bf_err_set(ctx->err, BF_EINVAL,
		                "refusing unsafe tree entry '%s%s'", root,
		                name);
		goto out;
	}
	bf_buf_reset(&ctx->path);
	bf_buf_addf(&ctx->path, "%s/%s%s", ctx->dir, root, name);
	relpath = ctx->path.buf + strlen(ctx->dir) + 1;
	switch (git_tree_entry_filemode(entry)) {
	case GIT_FILEMODE_TREE:
		rc = export_dir(ctx, relpath, false);
		break;
	case GIT_FILEMODE_COMMIT:
		rc = export_dir(ctx, relpath, true);
		break;
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		rc = export_file(ctx, entry, relpath);
		break;
	case GIT_FILEMODE_LINK:
		rc = export_symlink(ctx, entry, relpath);
		break;
	default:
		rc = bf_err_set(ctx->err, BF_EINVAL,
		                "tree entry '%s' has unknown mode %06o",
		                relpath,
		                (unsigned)git_tree_entry_filemode(entry));
		break;
	}
out:
	if (rc < 0) {
		ctx->code = rc;
		rc = GIT_EUSER;
	}
	return rc;
}

/* Create dir, or accept it when it is an existing empty directory. */
static int prepare_export_dir(const char *dir, struct bf_err *err)
{
	struct dirent *de;
	DIR *d = NULL;
	int rc = 0;

	if (mkdir(dir, 0777) == 0)
		goto out;
	if (errno != EEXIST) {
		rc = bf_err_sys(err, "cannot create directory '%s'", dir);
		goto out;
	}
	d = opendir(dir);
	if (!d && errno == ENOTDIR) {
		rc = bf_err_set(
		        err, BF_EEXISTS,
		        "export directory '%s' exists and is not a directory",
		        dir);
		goto out;
	}
	if (!d) {
		rc = bf_err_sys(err, "cannot open directory '%s'", dir);
		goto out;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0) {
			rc = bf_err_set(err, BF_EEXISTS,
			                "export directory '%s' is not empty",
			                dir);
			goto out;
		}
	}
out:
	if (d)
		closedir(d);
	return rc;
}

int bf_gitrepo_export(struct bf_gitrepo *r, const char *commit_oid,
                      const char *dir, struct bf_err *err)
{
	struct export_ctx ctx = { 0 };
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int rc;

	bf_buf_init(&ctx.path, 0);
	rc = lookup_commit(&commit, r, commit_oid, err);
	if (rc < 0)
		goto out;
	if (git_commit_tree(&tree, commit) < 0) {
		rc = git_fail(err, BF_ERROR,
		              "cannot read the tree of '%s' in '%s'",
		              commit_oid, r->path);
		goto out;
	}
	rc = prepare_export_dir(dir, err);
	if (rc < 0)
		goto out;
	ctx.r = r;
	ctx.commit_id = git_commit_id(commit);
	ctx.dir = dir;
	ctx.err = err;
	rc = git_tree_walk(tree, GIT_TREEWALK_PRE, export_entry, &ctx);
	if (ctx.code < 0)
		rc = ctx.code;
	else if (rc < 0)
		rc = git_fail(err, map_code(rc), "cannot export '%s' from '%s'",
		              commit_oid, r->path);
out:
	bf_buf_release(&ctx.path);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}
