#ifndef BF_AGENT_VERIFY_H
#define BF_AGENT_VERIFY_H

#include <jansson.h>

struct bf_err;

/*
 * Check a run request's "verify" list before the run: each entry
 * {"path": P, "sha256": H, "tree": B, "size": N} names an artifact in
 * the device's cache, which the orchestrator named by its content. A
 * file must be a regular file (no link followed) of N bytes hashing to
 * H; a tree (B true) must hold only directories and regular files, and
 * its files' relative paths, owner-execute bits and contents must hash
 * to H (bf_regfile_tree_add, as the orchestrator computed it). A
 * benchmark runs as the user that owns the cache, so read-only modes
 * cannot stop it from rewriting a copy the next run (another side's)
 * uses: this check is the guard.
 *
 * 0 when every entry holds (or list is NULL); BF_EINVAL for a malformed
 * list; BF_ECORRUPT when an artifact changed: it is then removed, so
 * that the orchestrator uploads it again, and err names it with both
 * hashes.
 */
int bf_verify_artifacts(const json_t *list, struct bf_err *err);

#endif /* BF_AGENT_VERIFY_H */
