#ifndef BF_ARTIFACTS_H
#define BF_ARTIFACTS_H

#include "benchfarm/argv.h"
#include "benchfarm/common.h"
#include "benchfarm/regfile.h"
#include "benchfarm/sha256.h"

struct bf_err;

/*
 * What a side ships to a device (project.artifacts expanded in its
 * export): files, and directories with the tree under them. A pattern
 * with * ? or [ is a glob (each match is an artifact); every artifact
 * and every file under a directory must resolve inside the export (no
 * "..", no symbolic link out of it) and be a regular file, directory or
 * a link to a file inside the export. Each file is opened once without
 * following a link (its links resolved first), checked to be a regular
 * file of at most BF_REGFILE_MAX bytes, and hashed from that descriptor.
 */
/*
 * One file that is shipped, as it was when the artifacts were expanded:
 * its content hash is what the device's copy is checked against before
 * every run, and the upload refuses bytes that do not hash to it.
 */
struct bf_artifact_file {
	char *real; /* the path here with its links resolved: what is read */
	uint64_t size;
	bool exec; /* its owner may execute it */
	char hex[BF_SHA256_HEX_LEN + 1]; /* SHA-256 of its content */
};

struct bf_artifact {
	char *name; /* as the command names it, relative to the export */
	char *local; /* the path here */
	bool is_dir;
	struct bf_artifact_file file; /* !is_dir: the file */
	struct bf_argv files; /* is_dir: the files under it, relative, sorted */
	struct bf_artifact_file *under; /* is_dir: one per files.argv[i] */
	/*
	 * The file's SHA-256 (file.hex), or a directory's over its files'
	 * paths, modes and contents (bf_regfile_tree_add): the device's
	 * cache directory is named by it.
	 */
	char hex[BF_SHA256_HEX_LEN + 1];
};

struct bf_artifacts {
	struct bf_artifact *v;
	size_t n;
};

/*
 * Expand patterns (project.artifacts) in root, an export. Errors name
 * the pattern or the file: BF_ENOTFOUND when a path or glob matches
 * nothing, BF_EINVAL when something is outside root or of another kind,
 * BF_ETOOBIG for a file over BF_REGFILE_MAX.
 * out is initialised by this call and must be released even on
 * failure.
 */
int bf_artifacts_expand(struct bf_artifacts *out, const char *root,
                        const struct bf_argv *patterns, struct bf_err *err);

void bf_artifacts_release(struct bf_artifacts *a);

#endif /* BF_ARTIFACTS_H */
