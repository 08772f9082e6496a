#include "git/gitrepo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"
#include "git/gitrepo_int.h"

/*
 * Exporting a commit's tree into a directory (bf_gitrepo_export), entry
 * by entry, through git's checkout filters.
 */

/* State shared by the callbacks of one bf_gitrepo_export(). */
struct export_ctx {
	struct bf_gitrepo *r;
	const git_oid *commit_id; /* where .gitattributes are read from */
	const char *dir;
	struct bf_buf path; /* scratch: dir/root/name */
	struct bf_err *err;
	int code; /* first failure, reported instead of libgit2's */
};

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
		rc = bf_gitrepo__fail(ctx->err, BF_ERROR,
		                      "cannot read '%s' from '%s'", relpath,
		                      ctx->r->path);
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
		rc = bf_gitrepo__fail(ctx->err, BF_ERROR,
		                      "cannot read '%s' from '%s'", relpath,
		                      ctx->r->path);
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
	rc = bf_gitrepo__lookup_commit(&commit, r, commit_oid, err);
	if (rc < 0)
		goto out;
	if (git_commit_tree(&tree, commit) < 0) {
		rc = bf_gitrepo__fail(err, BF_ERROR,
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
		rc = bf_gitrepo__fail(err, bf_gitrepo__map_code(rc),
		                      "cannot export '%s' from '%s'",
		                      commit_oid, r->path);
out:
	bf_buf_release(&ctx.path);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}
