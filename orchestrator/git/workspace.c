#include "git/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/log.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "git/artifacts.h"
#include "git/buildcache.h"
#include "git/gitrepo.h"
#include "git/sandbox.h"

#define BUILD_LOG_MAX (8u * 1024 * 1024)

void bf_side_release(struct bf_side *side)
{
	if (!side)
		return;
	BF_FREE(side->dir);
	BF_FREE(side->log_path);
	BF_FREE(side->sandbox_why);
	if (side->locked)
		close(side->lock_fd);
	side->locked = false;
}

/*
 * Export into DIR.tmp, then rename: a half export is never used. The
 * caller holds the entry's exclusive lock, so DIR.tmp is left only by
 * an export that was killed, and is removed first.
 */
static int export_tree(struct bf_gitrepo *repo, const struct bf_side *side,
                       struct bf_err *err)
{
	char *tmp = bf_xasprintf("%s.tmp", side->dir);
	int ret;

	if ((ret = bf_fs_rmtree(tmp, err)))
		goto out;
	ret = bf_gitrepo_export(repo, side->commit, tmp, err);
	if (!ret && rename(tmp, side->dir) < 0)
		ret = bf_err_sys(err, "cannot rename '%s'", tmp);
	bf_fs_rmtree(tmp, NULL);
out:
	free(tmp);
	return ret;
}

/* What a look at an entry found. */
enum entry_state {
	ENTRY_MISSING, /* no complete build of these inputs */
	ENTRY_SAME, /* built, its artifacts as its build left them */
	ENTRY_CHANGED, /* built, but its artifacts changed since */
};

/* How the entry's record says its build ran, into side. */
static void take_sandbox(struct bf_side *side, const json_t *meta)
{
	const char *how = bf_json_str_or(meta, "sandbox", "");
	const char *why = bf_json_str_or(meta, "sandbox_why", NULL);

	bf_strlcpy(side->sandbox, how, sizeof(side->sandbox));
	BF_FREE(side->sandbox_why);
	side->sandbox_why = why ? bf_xstrdup(why) : NULL;
}

/*
 * Under build_sandbox: require only builds made in the sandbox are
 * used: an entry that an earlier run built without it is built again.
 */
static bool is_unsandboxed_build(const json_t *meta, const struct bf_cfg *cfg)
{
	return cfg->project.build_sandbox == BF_BUILD_SANDBOX_REQUIRE &&
	       cfg->project.build.argc &&
	       strcmp(bf_json_str_or(meta, "sandbox", ""), "bwrap");
}

/*
 * Whether the entry was built from exactly these inputs, and whether
 * its artifacts, expanded into arts now, still hash to what the record
 * says its build left (a build that ran unsandboxed beside it may have
 * rewritten them); why says what changed.
 */
static enum entry_state check_entry(struct bf_side *side,
                                    struct bf_artifacts *arts,
                                    const char *record, const json_t *inputs,
                                    const struct bf_cfg *cfg, char *why,
                                    size_t len)
{
	struct bf_err err = BF_ERR_INIT;
	enum entry_state st = ENTRY_MISSING;
	json_t *meta = NULL;

	bf_artifacts_release(arts);
	if (!bf_fs_exists(side->dir) || !bf_fs_exists(record) ||
	    bf_json_load_file(&meta, record, NULL) ||
	    !json_equal(json_object_get(meta, "inputs"), inputs))
		goto out;
	st = ENTRY_CHANGED;
	if (bf_artifacts_expand(arts, side->dir, &cfg->project.artifacts,
	                        &err)) {
		snprintf(why, len, "%s", err.msg);
		goto out;
	}
	if (!bf_buildcache_is_unchanged(meta, arts, why, len))
		goto out;
	if (is_unsandboxed_build(meta, cfg)) {
		snprintf(why, len,
		         "it was built without the sandbox, and "
		         "project.build_sandbox is require");
		goto out;
	}
	take_sandbox(side, meta);
	st = ENTRY_SAME;
out:
	if (st != ENTRY_SAME)
		bf_artifacts_release(arts);
	json_decref(meta);
	return st;
}

/*
 * The sandbox the build runs in (sandbox.h), or why none, into side;
 * argv is what runs. BF_ENOTFOUND when build_sandbox: require cannot
 * have it.
 */
static int build_argv(struct bf_argv *argv, struct bf_side *side,
                      const struct bf_cfg *cfg, struct bf_err *err)
{
	struct bf_sandbox sb;
	char cwd[PATH_MAX];
	char *real;
	int ret;

	/* bwrap binds and enters the tree by its absolute path */
	if (side->dir[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return bf_err_sys(err, "cannot resolve '%s'", side->dir);
	real = side->dir[0] == '/' ? bf_xstrdup(side->dir)
	                           : bf_fs_join(cwd, side->dir);
	ret = bf_sandbox_choose(&sb, cfg->project.build_sandbox, real,
	                        cfg->project.build_network, err);
	if (ret) {
		bf_err_prefix(err, "build of %.12s", side->commit);
	} else if (sb.on) {
		bf_strlcpy(side->sandbox, "bwrap", sizeof(side->sandbox));
		bf_sandbox_argv(argv, real, cfg->project.build_network,
		                &cfg->project.build);
	} else {
		bf_strlcpy(side->sandbox, "none", sizeof(side->sandbox));
		side->sandbox_why = bf_xstrdup(sb.why);
		bf_argv_copy(argv, &cfg->project.build);
		if (cfg->project.build_sandbox == BF_BUILD_SANDBOX_OFF)
			BF_LOG_INFO("build of %.12s runs without a sandbox: "
			            "%s",
			            side->commit, sb.why);
		else
			BF_LOG_WARN("build of %.12s runs without a sandbox: "
			            "%s; it can write whatever this user can, "
			            "other builds in the cache included "
			            "(project.build_sandbox: require refuses "
			            "to build so)",
			            side->commit, sb.why);
	}
	free(real);
	return ret;
}

static int run_build(struct bf_side *side, const struct bf_cfg *cfg,
                     struct bf_err *err)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	struct bf_argv argv = BF_ARGV_INIT;
	char how[64];
	int ret;

	bf_spawn_result_init(&res);
	if ((ret = build_argv(&argv, side, cfg, err)))
		goto out;
	opts.argv = (const char *const *)argv.argv;
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
	bf_argv_release(&argv);
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

/*
 * After a successful build: what the entry was built from, when, how,
 * and the digests of what it left (arts).
 */
static int write_record(const struct bf_side *side,
                        const struct bf_artifacts *arts, const char *record,
                        json_t *inputs, struct bf_err *err)
{
	json_t *meta = json_pack(
	        "{s:s, s:O, s:s, s:I, s:f, s:o, s:o}", "key", side->key,
	        "inputs", inputs, "commit", side->commit, "built_at",
	        (json_int_t)time(NULL), "build_s", side->build_s, "sandbox",
	        bf_json_str_or_null(side->sandbox[0] ? side->sandbox : NULL),
	        "artifacts", bf_buildcache_digests(arts));
	int ret;

	if (side->sandbox_why)
		json_object_set_new(meta, "sandbox_why",
		                    json_string(side->sandbox_why));
	ret = bf_json_write_file(meta, record, true, true, err);

	json_decref(meta);
	return ret;
}

/*
 * A fresh export built under the exclusive lock: nothing an earlier,
 * failed or interrupted build left behind is reused.
 */
static int build_entry(struct bf_side *side, struct bf_artifacts *arts,
                       struct bf_gitrepo *repo, const struct bf_cfg *cfg,
                       const char *record, json_t *inputs, struct bf_err *err)
{
	int ret;

	side->sandbox[0] = '\0';
	BF_FREE(side->sandbox_why);

	if (unlink(record) < 0 && errno != ENOENT)
		return bf_err_sys(err, "cannot remove '%s'", record);
	if ((ret = bf_fs_rmtree(side->dir, err)) ||
	    (ret = export_tree(repo, side, err)))
		return ret;
	if (cfg->project.build.argc) {
		BF_LOG_INFO("building %.12s in '%s'", side->commit, side->dir);
		if ((ret = run_build(side, cfg, err)))
			return ret;
	}
	if ((ret = check_artifacts(side, cfg, err)) ||
	    (ret = bf_artifacts_expand(arts, side->dir, &cfg->project.artifacts,
	                               err)))
		return ret;
	return write_record(side, arts, record, inputs, err);
}

/* Evict entries not in use down to the size limit; failures only warn. */
static void evict(void)
{
	struct bf_buildcache_pruned pr;
	struct bf_err err = BF_ERR_INIT;
	char *cache = NULL;
	uint64_t max;

	if (bf_buildcache_max_size(&max, &err) ||
	    bf_fs_cache_dir(&cache, &err) ||
	    bf_buildcache_prune(&pr, cache, max, false, &err))
		BF_LOG_WARN("build cache not pruned: %s", err.msg);
	else if (pr.removed)
		BF_LOG_INFO("build cache: removed %zu least recently used "
		            "entries to stay under its size limit",
		            pr.removed);
	free(cache);
}

/*
 * Under the entry's shared lock: reuse it when it holds a build of
 * these inputs whose artifacts are as that build left them; else take
 * the lock exclusively, look again, and build it from a fresh export.
 * *built says which. arts holds the entry's artifacts either way.
 */
static int use_or_build(bool *built, struct bf_side *side,
                        struct bf_artifacts *arts, struct bf_gitrepo *repo,
                        const struct bf_cfg *cfg, const char *dir,
                        const char *record, json_t *inputs, struct bf_err *err)
{
	char why[BF_ERR_SIZE];
	enum entry_state st;
	int ret;

	*built = false;
	st = check_entry(side, arts, record, inputs, cfg, why, sizeof(why));
	if (st == ENTRY_SAME)
		return 0;
	close(side->lock_fd);
	side->locked = false;
	if ((ret = bf_buildcache_lock(&side->lock_fd, dir, side->key, F_WRLCK,
	                              true, err)))
		return ret;
	side->locked = true;
	st = check_entry(side, arts, record, inputs, cfg, why, sizeof(why));
	if (st == ENTRY_CHANGED) {
		BF_LOG_WARN("build cache entry %.12s of %.12s is not reused: "
		            "%s; building it again",
		            side->key, side->commit, why);
		side->rebuilt = true;
	}
	if (st != ENTRY_SAME) {
		if ((ret = build_entry(side, arts, repo, cfg, record, inputs,
		                       err)))
			return ret;
		*built = true;
	}
	return bf_buildcache_relock(side->lock_fd, F_RDLCK, err);
}

int bf_workspace_prepare(struct bf_side *side, struct bf_artifacts *arts,
                         struct bf_gitrepo *repo, const char *commit,
                         const struct bf_cfg *cfg, struct bf_err *err)
{
	char *dir = NULL, *record = NULL;
	json_t *inputs = NULL;
	bool built = false;
	uint64_t max;
	int ret;

	memset(side, 0, sizeof(*side));
	memset(arts, 0, sizeof(*arts));
	bf_strlcpy(side->commit, commit, sizeof(side->commit));
	/* A bad BENCHFARM_CACHE_MAX_SIZE stops before any work is done. */
	if ((ret = bf_buildcache_max_size(&max, err)) ||
	    (ret = bf_gitrepo_tree_id(side->tree, repo, commit, err)) ||
	    (ret = bf_buildcache_dir(&dir, err)))
		goto out;
	inputs = bf_buildcache_inputs(side->tree, cfg);
	bf_buildcache_key(side->key, inputs);
	side->dir = bf_xasprintf("%s/%s", dir, side->key);
	side->log_path = bf_xasprintf("%s/%s.log", dir, side->key);
	record = bf_xasprintf("%s/%s.json", dir, side->key);
	/* Shared while looking; exclusive (re-checked) only to build. */
	if ((ret = bf_buildcache_lock(&side->lock_fd, dir, side->key, F_RDLCK,
	                              true, err)))
		goto out;
	side->locked = true;
	if ((ret = use_or_build(&built, side, arts, repo, cfg, dir, record,
	                        inputs, err)))
		goto out;
	side->cached = !built;
	/* The lock file's modification time is the entry's last use. */
	futimens(side->lock_fd, NULL);
	if (built)
		evict();
out:
	/* A side that failed is not used: its entry is free to go. */
	if (ret && side->locked) {
		close(side->lock_fd);
		side->locked = false;
	}
	json_decref(inputs);
	free(dir);
	free(record);
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
