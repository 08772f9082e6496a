#ifndef BF_BUILDCACHE_H
#define BF_BUILDCACHE_H

#include <jansson.h>

#include "benchfarm/common.h"

struct bf_artifacts;
struct bf_cfg;
struct bf_err;

/*
 * The build cache: one entry per set of build inputs, in
 * CACHE/builds (CACHE is bf_fs_cache_dir()). An entry's key is the
 * SHA-256 of everything that decides what its build produces: the
 * tree id, project.build, project.artifacts and the build-relevant
 * environment (bf_buildcache_inputs). Entry KEY is
 *
 *   KEY/       the exported tree, built there; benchmarks run in it
 *   KEY.log    the build's output
 *   KEY.json   written last, once the build succeeded: the inputs,
 *              the commit it was exported from, when it was built,
 *              whether it ran in the sandbox (sandbox.h), and the
 *              SHA-256 of each artifact the build left ("artifacts",
 *              bf_buildcache_digests): a build is reused only while
 *              its artifacts still hash to those
 *   KEY.lock   a lock file; its modification time is the last use
 *   KEY.tmp    an export under way (or killed before it finished)
 *
 * A process using an entry holds a shared (read) open-file-description
 * lock on KEY.lock from the moment it looks at the entry until it is
 * done with it; exporting and building hold it exclusively, and so
 * does removing, which never waits: an entry locked by anyone (this
 * process included) is in use and is skipped. So two benchfarm
 * processes can share one cache, and pruning never removes a tree a
 * running job builds or measures in.
 */

/* Default size limit of the cache (BENCHFARM_CACHE_MAX_SIZE). */
#define BF_BUILDCACHE_DEFAULT_MAX (5ull * 1024 * 1024 * 1024)
/* Hex digits of a key (SHA-256). */
#define BF_BUILDCACHE_KEY_LEN 64

/* The directory of the entries, CACHE/builds (created). Caller frees. */
int bf_buildcache_dir(char **out, struct bf_err *err);

/*
 * The inputs of building tree with cfg, as a JSON object (new
 * reference): version (of this cache layout), tree, build, artifacts,
 * env (the "NAME=VALUE" of every set variable that compilers and build
 * tools read, bf_buildcache_env_names). Cannot fail.
 */
json_t *bf_buildcache_inputs(const char *tree, const struct bf_cfg *cfg);

/* The key of inputs: SHA-256 hex of their compact JSON. Cannot fail. */
void bf_buildcache_key(char out[BF_BUILDCACHE_KEY_LEN + 1],
                       const json_t *inputs);

/*
 * The digests of what a build left, for its record: an array of
 * {"name": NAME, "sha256": HEX}, one per artifact of arts in order (a
 * directory's over its tree). New reference. Cannot fail.
 */
json_t *bf_buildcache_digests(const struct bf_artifacts *arts);

/*
 * Whether arts, expanded in an entry now, are what the entry's record
 * meta says its build left. When not, why (of size len) names the
 * first artifact that differs, or says that the record has no digests.
 * Cannot fail.
 */
bool bf_buildcache_is_unchanged(const json_t *meta,
                                const struct bf_artifacts *arts, char *why,
                                size_t len);

/*
 * The environment variables that are build inputs (NULL-terminated;
 * a name ending in '*' is a prefix). Borrowed, static.
 */
extern const char *const bf_buildcache_env_names[];

/*
 * Lock entry key of dir: type is F_RDLCK or F_WRLCK. wait blocks until
 * the lock is granted; without it BF_EBUSY says someone holds a
 * conflicting lock. The lock file is created when missing; a lock file
 * removed (by a prune) while waiting is not returned: the lock is
 * taken on the file now at the path. *fd_out is the lock; close it to
 * release. Taking the other type on the same fd converts the lock.
 */
int bf_buildcache_lock(int *fd_out, const char *dir, const char *key,
                       short type, bool wait, struct bf_err *err);

/* Convert the lock held on fd to type (F_RDLCK or F_WRLCK), waiting. */
int bf_buildcache_relock(int fd, short type, struct bf_err *err);

/*
 * Whether someone (this process too) holds a lock on the lock file at
 * lock_path; false when there is none or it cannot be opened.
 */
bool bf_buildcache_is_locked(const char *lock_path);

/* One entry, as `benchfarm cache list` shows it. */
struct bf_buildcache_entry {
	char *name; /* the key, or "work"/"work2" for an old layout */
	char *path; /* the export directory */
	json_t *meta; /* KEY.json, or NULL while incomplete (owned) */
	uint64_t bytes; /* of the export, log, record and lock file */
	int64_t last_used_ns; /* ns since the epoch; 0 when unknown */
	bool complete; /* built successfully: KEY.json is there */
	bool in_use; /* another open lock holds it */
	bool legacy; /* an older benchfarm's layout, never used now */
};

struct bf_buildcache_list {
	struct bf_buildcache_entry *v; /* least recently used first */
	size_t n;
	uint64_t bytes; /* total of all entries */
};

/*
 * Every entry of the cache (old layouts included), least recently used
 * first. A missing cache is an empty list. Release with
 * bf_buildcache_list_release() even on failure.
 */
int bf_buildcache_list_load(struct bf_buildcache_list *out, const char *cache,
                            struct bf_err *err);
void bf_buildcache_list_release(struct bf_buildcache_list *list);

/* What a prune did. */
struct bf_buildcache_pruned {
	size_t removed, kept_in_use; /* entries */
	uint64_t freed, left; /* bytes */
};

/*
 * Remove least recently used entries not in use until the cache's
 * entries of this layout take at most max_bytes; with all, remove
 * every entry not in use, old layouts included (an older benchfarm may
 * be using those: they are only removed with all). Entries in use are
 * kept and counted in kept_in_use when they had to go. cache is
 * bf_fs_cache_dir().
 */
int bf_buildcache_prune(struct bf_buildcache_pruned *out, const char *cache,
                        uint64_t max_bytes, bool all, struct bf_err *err);

/*
 * The size limit: BENCHFARM_CACHE_MAX_SIZE when set (bf_size_parse; 0
 * means no limit), else BF_BUILDCACHE_DEFAULT_MAX. BF_EINVAL names the
 * variable when its value is not a size.
 */
int bf_buildcache_max_size(uint64_t *out, struct bf_err *err);

/*
 * A size: a whole number of bytes, or with a suffix K, M, G or T
 * (also KiB, MiB, GiB, TiB; powers of 1024), e.g. "512M", "5G".
 * BF_EINVAL with a message naming s otherwise.
 */
int bf_size_parse(uint64_t *out, const char *s, struct bf_err *err);

/* bytes for people: "812 B", "84.2 MiB", "5.0 GiB". */
void bf_size_format(char *buf, size_t len, uint64_t bytes);

#endif /* BF_BUILDCACHE_H */
