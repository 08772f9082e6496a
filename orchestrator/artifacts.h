#ifndef BF_ARTIFACTS_H
#define BF_ARTIFACTS_H

#include "benchfarm/argv.h"
#include "benchfarm/common.h"
#include "benchfarm/sha256.h"

struct bf_err;

/*
 * What a side ships to a device (project.artifacts expanded in its
 * export): files, and directories with the tree under them. A pattern
 * with * ? or [ is a glob (each match is an artifact); every artifact
 * and every file under a directory must resolve inside the export (no
 * "..", no symbolic link out of it) and be a regular file, directory or
 * a link to a file inside the export.
 */
struct bf_artifact {
	char *name; /* as the command names it, relative to the export */
	char *local; /* the path here */
	bool is_dir;
	struct bf_argv files; /* is_dir: the files under it, relative, sorted */
	/* is_dir: SHA-256 over the files' paths, modes and contents */
	char hex[BF_SHA256_HEX_LEN + 1];
};

struct bf_artifacts {
	struct bf_artifact *v;
	size_t n;
};

/*
 * Expand patterns (project.artifacts) in root, an export. Errors name
 * the pattern or the file: BF_ENOTFOUND when a path or glob matches
 * nothing, BF_EINVAL when something is outside root or of another kind.
 * out is initialised by this call and must be released even on
 * failure.
 */
int bf_artifacts_expand(struct bf_artifacts *out, const char *root,
                        const struct bf_argv *patterns, struct bf_err *err);

void bf_artifacts_release(struct bf_artifacts *a);

#endif /* BF_ARTIFACTS_H */
