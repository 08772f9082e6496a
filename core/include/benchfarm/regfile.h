#ifndef BF_REGFILE_H
#define BF_REGFILE_H

#include <sys/stat.h>

#include "benchfarm/common.h"
#include "benchfarm/sha256.h"

struct bf_err;

/*
 * Reading a file that someone else may be changing (an artifact the
 * patch under test built, a device's cached copy that its benchmark
 * could rewrite): opened once, checked on the opened descriptor, and
 * hashed and read from that same descriptor, so what is checked is
 * what is read.
 */

/*
 * The largest artifact file benchfarm hashes, ships or verifies: a
 * sparse file of terabytes would otherwise be read (and sent) in full.
 */
#define BF_REGFILE_MAX ((uint64_t)4 << 30)

/*
 * Open path for reading as a regular file: never through a symbolic
 * link as its last component (O_NOFOLLOW), never blocking on a FIFO or
 * device (O_NONBLOCK; fstat then refuses it), and at most max bytes.
 * On success *fd_out is open (caller closes) and *st_out its fstat.
 * BF_ENOTFOUND when path does not exist, BF_EINVAL when it is a link or
 * not a regular file, BF_ETOOBIG over max (the message names path, its
 * size and the limit), BF_ESYS otherwise. what names the file in
 * messages ("artifact").
 */
int bf_regfile_open(int *fd_out, struct stat *st_out, const char *path,
                    uint64_t max, const char *what, struct bf_err *err);

/*
 * SHA-256 of what fd holds from its current offset to the end, which
 * must be exactly size bytes (a file that grows or shrinks while it is
 * read is refused with BF_ECORRUPT). path names it in messages.
 */
int bf_regfile_sha256(unsigned char out[BF_SHA256_LEN], int fd, uint64_t size,
                      const char *path, struct bf_err *err);

/*
 * The content hash of a tree of files: each file's path relative to the
 * tree (in strcmp order: the caller sorts), whether its owner may
 * execute it, and its SHA-256, added to c. Both the orchestrator (which
 * names the device's cached copy by it) and the agent (which checks that
 * copy before each run) use this one definition. Cannot fail.
 */
void bf_regfile_tree_add(struct bf_sha256 *c, const char *rel, bool exec,
                         const unsigned char digest[BF_SHA256_LEN]);

#endif /* BF_REGFILE_H */
