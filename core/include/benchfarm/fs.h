#ifndef BF_FS_H
#define BF_FS_H

#include <sys/types.h>

#include "benchfarm/common.h"

struct bf_err;

/* Create path and missing parents with mode (mkdir -p). */
int bf_fs_mkdirs(const char *path, mode_t mode, struct bf_err *err);

/*
 * Remove path and everything below it without following symbolic links
 * (rm -rf). A missing path is success.
 */
int bf_fs_rmtree(const char *path, struct bf_err *err);

/*
 * Call each(path, rel, ctx, err) for every entry under dir that is not a
 * directory (a file, a link, a FIFO: lstat decides, nothing is
 * followed), recursing into directories in readdir order; rel is the
 * entry's path under dir. The first nonzero return (each's, or an
 * unreadable directory's) stops the walk and is returned.
 */
int bf_fs_walk(const char *dir,
               int (*each)(const char *path, const char *rel, void *ctx,
                           struct bf_err *err),
               void *ctx, struct bf_err *err);

/* True when path exists (lstat succeeds). */
bool bf_fs_exists(const char *path);

/*
 * Write len bytes to path through a temporary file and rename, with
 * mode. Readers never see a partial file. The temporary file is created
 * in path's directory under an unguessable name with O_EXCL and
 * O_NOFOLLOW, so nothing planted there is opened or followed. A path
 * that is a character device or FIFO (/dev/null, /dev/stdout, a pipe),
 * or a link under /dev or /proc to a regular file (/dev/stdout
 * redirected to a file), is written in place, never replaced; any other
 * existing non-regular file is refused with BF_EINVAL. A symbolic link
 * elsewhere is replaced by the file, never written through.
 */
int bf_fs_write_atomic(const char *path, const void *data, size_t len,
                       mode_t mode, struct bf_err *err);

/* The directory part of path ("." when none). Caller frees. */
char *bf_fs_dirname(const char *path);

/*
 * path made absolute against base when relative (no normalisation).
 * Caller frees.
 */
char *bf_fs_join(const char *base, const char *path);

/*
 * 0 when path, with its symbolic links and ".." resolved, is root or
 * below it. BF_EINVAL when it resolves outside root (the message names
 * both and what it resolves to), BF_ENOTFOUND when it does not exist,
 * BF_ESYS otherwise. what names the path in messages ("artifact").
 */
int bf_fs_check_within(const char *path, const char *root, const char *what,
                       struct bf_err *err);

/*
 * The user's cache directory for benchfarm: $BENCHFARM_CACHE when set
 * and non-empty, else $XDG_CACHE_HOME/benchfarm when XDG_CACHE_HOME is
 * an absolute path, else $HOME/.cache/benchfarm. Caller frees.
 * BF_ENOTFOUND when none can be determined.
 */
int bf_fs_cache_dir(char **out, struct bf_err *err);

#endif /* BF_FS_H */
