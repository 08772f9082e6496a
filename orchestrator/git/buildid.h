#ifndef BF_BUILDID_H
#define BF_BUILDID_H

#include "benchfarm/common.h"
#include "benchfarm/sha256.h"
#include "config/cfg.h"

struct bf_artifacts;
struct bf_err;

/*
 * The identity of a build: what its artifacts ship, as one string that
 * is equal for two builds exactly when what they ship is the same.
 *
 *   bytes:HEX  SHA-256 over each artifact's name, whether it is a file
 *              or a directory, and its content hash (a file's SHA-256,
 *              a directory's over its files' paths, modes and
 *              contents: the hash the device's cache is named by).
 *   code:HEX   the same, but each ELF file counts by its code identity
 *              instead of its bytes: the sections loaded at run time
 *              (SHF_ALLOC: .text, .rodata, .data, .init_array, .dynsym
 *              ...), each by name, type, flags, address and content,
 *              and the header's type, machine and entry point. What
 *              does not execute is left out: .note.gnu.build-id, and
 *              every section that is not loaded (.comment, .debug_*,
 *              .symtab and .strtab, whose symbol names hold source
 *              paths). Other files count by their bytes.
 *
 * A config without project.artifacts has no build identity: its
 * benchmarks run in the export and may read any file of it.
 *
 * Code identity is the default (project.build_identity): a build that
 * embeds a random build-id or differs only in debug information is the
 * same build. A build path or a time that reaches loaded data
 * (__FILE__ in .rodata, __DATE__) still makes builds differ: build
 * with -ffile-prefix-map=OLD=NEW and SOURCE_DATE_EPOCH set to make them
 * reproducible.
 */
#define BF_BUILD_ID_SIZE (sizeof("bytes:") + BF_SHA256_HEX_LEN)

struct bf_build_id {
	char id[BF_BUILD_ID_SIZE];
	size_t elf_files; /* counted by their code (code identity) */
	size_t other_files; /* counted by their bytes */
};

/*
 * The identity of the artifacts a (expanded, hashed) by kind. Each ELF
 * file is read again (code identity) and must still hash to what it
 * hashed to when it was expanded, else BF_ECORRUPT naming it.
 * Returns 0 or an error naming the file.
 */
int bf_build_id_of(struct bf_build_id *out, const struct bf_artifacts *a,
                   enum bf_build_identity kind, struct bf_err *err);

/*
 * The code identity of one file at path, whose SHA-256 is hex: *out the
 * hex digest of its code, *is_elf whether it is an ELF file with
 * section headers (false: out is hex itself). Exposed for tests.
 */
int bf_build_id_file(char out[BF_SHA256_HEX_LEN + 1], bool *is_elf,
                     const char *path, const char *hex, struct bf_err *err);

#endif /* BF_BUILDID_H */
