#include "workspace.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/log.h"
#include "benchfarm/spawn.h"
#include "cfg.h"
#include "gitrepo.h"

#define BUILD_OK_MARKER ".benchfarm-build-ok"
#define BUILD_LOG_MAX   (8u * 1024 * 1024)

void bf_side_release(struct bf_side *side)
{
	if (!side)
		return;
	BF_FREE(side->dir);
	BF_FREE(side->log_path);
}

/* Export into DIR.tmp.PID, then rename: a half export is never used. */
static int export_tree(struct bf_gitrepo *repo, const struct bf_side *side,
                       struct bf_err *err)
{
	char *tmp = bf_xasprintf("%s.tmp.%ld", side->dir, (long)getpid());
	int ret;

	bf_fs_rmtree(tmp, NULL);
	ret = bf_gitrepo_export(repo, side->commit, tmp, err);
	/* Another compare may have exported the same tree meanwhile. */
	if (!ret && rename(tmp, side->dir) < 0 &&
	    !((errno == EEXIST || errno == ENOTEMPTY) &&
	      bf_fs_exists(side->dir)))
		ret = bf_err_sys(err, "cannot rename '%s'", tmp);
	bf_fs_rmtree(tmp, NULL);
	free(tmp);
	return ret;
}

/* The marker records the build command, so a new command rebuilds. */
static char *marker_text(const struct bf_cfg *cfg)
{
	char *argv = bf_argv_to_display(&cfg->project.build);
	char *text = bf_xasprintf("%s\n", argv);

	free(argv);
	return text;
}

static bool build_is_cached(const char *marker, const char *want)
{
	struct bf_buf b;
	bool same;

	bf_buf_init(&b, 64 * 1024);
	same = !bf_buf_read_file(&b, marker, NULL) && !strcmp(b.buf, want);
	bf_buf_release(&b);
	return same;
}

static int run_build(struct bf_side *side, const struct bf_cfg *cfg,
                     struct bf_err *err)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	char how[64];
	int ret;

	opts.argv = (const char *const *)cfg->project.build.argv;
	opts.cwd = side->dir;
	opts.timeout_s = cfg->project.build_timeout_s;
	opts.merge_stderr = true;
	opts.out_max = BUILD_LOG_MAX;
	ret = bf_spawn_run(&res, &opts, err);
	if (ret) {
		bf_err_prefix(err, "build of %.12s", side->commit);
		goto out;
	}
	side->build_s = res.wall_s;
	if ((ret = bf_fs_write_atomic(side->log_path, res.out.buf, res.out.len,
	                              0644, err)))
		goto out;
	if (!bf_spawn_is_success(&res)) {
		bf_spawn_describe(&res, opts.timeout_s, how, sizeof(how));
		ret = bf_err_set(err, BF_ERROR,
		                 "build of %.12s failed: '%s' %s (log: %s)",
		                 side->commit, cfg->project.build.argv[0], how,
		                 side->log_path);
	}
out:
	bf_spawn_result_release(&res);
	return ret;
}

/*
 * Every artifact is a file the build left in the tree: not missing, and
 * not, through "../" or a symbolic link the (untrusted) patch commits,
 * a file of this host that would be shipped to a device.
 */
static int check_artifacts(const struct bf_side *side, const struct bf_cfg *cfg,
                           struct bf_err *err)
{
	const struct bf_argv *arts = &cfg->project.artifacts;
	int ret = 0;

	for (size_t i = 0; !ret && i < arts->argc; i++) {
		char *path;

		/* A glob's matches are checked where it is expanded. */
		if (strpbrk(arts->argv[i], "*?["))
			continue;
		path = bf_fs_join(side->dir, arts->argv[i]);

		ret = bf_fs_check_within(path, side->dir, "artifact", err);
		if (ret == BF_ENOTFOUND)
			bf_err_set(err, ret,
			           "the build of %.12s left no artifact '%s' "
			           "(project.artifacts)",
			           side->commit, arts->argv[i]);
		else if (ret)
			bf_err_prefix(err, "%.12s: ", side->commit);
		free(path);
	}
	return ret;
}

int bf_workspace_prepare(struct bf_side *side, struct bf_gitrepo *repo,
                         const char *commit, const struct bf_cfg *cfg,
                         struct bf_err *err)
{
	char *cache = NULL, *work = NULL, *marker = NULL, *want = NULL;
	int ret;

	memset(side, 0, sizeof(*side));
	bf_strlcpy(side->commit, commit, sizeof(side->commit));
	if ((ret = bf_gitrepo_tree_id(side->tree, repo, commit, err)) ||
	    (ret = bf_fs_cache_dir(&cache, err)))
		goto out;
	/*
	 * "work2": exports made before 2026-11-22 wrote binary files empty
	 * (gitrepo.c); never reuse those. The old "work" can be deleted.
	 */
	work = bf_xasprintf("%s/work2", cache);
	if ((ret = bf_fs_mkdirs(work, 0700, err)))
		goto out;
	side->dir = bf_xasprintf("%s/%s", work, side->tree);
	side->log_path = bf_xasprintf("%s/%s.build.log", work, side->tree);
	marker = bf_xasprintf("%s/%s", side->dir, BUILD_OK_MARKER);
	want = marker_text(cfg);
	if (bf_fs_exists(side->dir) && build_is_cached(marker, want)) {
		side->cached = true;
		ret = check_artifacts(side, cfg, err);
		goto out;
	}
	if (!bf_fs_exists(side->dir) && (ret = export_tree(repo, side, err)))
		goto out;
	if (cfg->project.build.argc) {
		BF_LOG_INFO("building %.12s in '%s'", commit, side->dir);
		if ((ret = run_build(side, cfg, err)))
			goto out;
	}
	ret = bf_fs_write_atomic(marker, want, strlen(want), 0644, err);
	if (!ret)
		ret = check_artifacts(side, cfg, err);
out:
	free(cache);
	free(work);
	free(marker);
	free(want);
	return ret;
}

char *bf_workspace_log_tail(const char *path, int nlines)
{
	struct bf_buf b;
	const char *p;

	bf_buf_init(&b, BUILD_LOG_MAX);
	if (bf_buf_read_file(&b, path, NULL)) {
		bf_buf_release(&b);
		return NULL;
	}
	bf_buf_rtrim(&b);
	p = b.buf + b.len;
	while (p > b.buf && nlines > 0) {
		p--;
		if (*p == '\n')
			nlines--;
	}
	if (*p == '\n')
		p++;
	p = bf_xstrdup(p);
	bf_buf_release(&b);
	return (char *)p;
}
