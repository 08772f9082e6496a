#ifndef BF_WORKSPACE_H
#define BF_WORKSPACE_H

#include "benchfarm/common.h"

struct bf_artifacts;
struct bf_cfg;
struct bf_err;
struct bf_gitrepo;

/*
 * One side of a comparison made ready to run: the commit's tree
 * exported into a work directory of its own and built there. Exports
 * and builds are cached in the build cache (buildcache.h) under a key
 * of every build input (tree id, build command, artifacts, build
 * environment), so an unchanged side is not exported or rebuilt, and a
 * side whose inputs changed starts from a fresh export; the
 * repository's own working tree and index are never touched.
 */
struct bf_side {
	char commit[41];
	char tree[41];
	char key[65]; /* the build cache key */
	char *dir; /* the export, where the build and benchmarks run */
	char *log_path; /* the build log */
	bool cached; /* export and build were reused */
	/*
	 * The entry was built before, but its artifacts no longer hashed
	 * to what that build left, so it was built again.
	 */
	bool rebuilt;
	/* How its build ran: "bwrap", "none", or "" (no build command) */
	char sandbox[8];
	char *sandbox_why; /* "none": why (owned), else NULL */
	double build_s; /* time spent building now */
	bool locked; /* lock_fd holds the entry in use */
	int lock_fd;
};

/* Frees what side holds and releases its cache entry. NULL is ok. */
void bf_side_release(struct bf_side *side);

/*
 * Export commit (a full id) and run cfg's build command in it, with the
 * build timeout, in the sandbox that project.build_sandbox asks for
 * (sandbox.h). A cached build is reused only while each of its
 * artifacts still hashes to what its build left (recorded in the
 * entry's record); a changed one is built again from a fresh export.
 * arts gets the side's artifacts (project.artifacts expanded in
 * side->dir, their digests the ones checked): initialised by this call,
 * release it with bf_artifacts_release() even on failure. The entry stays
 * locked in use until bf_side_release, so no prune removes it meanwhile; after
 * a new build, entries not in use are evicted, least recently used first, down
 * to the cache's size limit (bf_buildcache_max_size). On a build failure
 * returns BF_ERROR with a message naming the commit and how the build ended;
 * side->log_path is set so that the caller can show the log's last lines. side
 * is initialised by this call and must be released even on failure.
 */
int bf_workspace_prepare(struct bf_side *side, struct bf_artifacts *arts,
                         struct bf_gitrepo *repo, const char *commit,
                         const struct bf_cfg *cfg, struct bf_err *err);

/*
 * The last nlines lines of the file at path (for build logs), or NULL
 * when unreadable. Caller frees.
 */
char *bf_workspace_log_tail(const char *path, int nlines);

#endif /* BF_WORKSPACE_H */
