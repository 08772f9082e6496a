/*
 * The artifact upload path's local side: a hostile export (a tree the
 * patch under test built) expanded by bf_artifacts_expand, each file then
 * opened as the upload opens it. The input is lines that build the
 * tree in a fresh private directory and name the patterns:
 *   f PATH SIZE   a regular file (SIZE bytes, at most 64 KiB)
 *   x PATH        an executable file
 *   d PATH        a directory
 *   l PATH TARGET a symbolic link (TARGET anything: "/etc/passwd", "..")
 *   p PATH        a FIFO
 *   a PATTERN     a project.artifacts entry
 * Whatever the tree, expansion must not hang (FIFOs), read outside the
 * export, or hand back a file that is not a regular file inside it
 * under a well-formed hash; and each file it hands back must open as
 * the upload opens it, with the hash it was given.
 */
#include "fuzz/fuzz_util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/regfile.h"
#include "git/artifacts.h"

char *mkdtemp(char *template);
char *realpath(const char *restrict path, char *restrict resolved);

#define FILE_MAX 65536

/* Is every directory above root/rel a real directory we made? */
static int parents(const char *root, const char *rel)
{
	char *p = strdup(rel), *c;
	int ok = 1;

	if (!p)
		abort();
	for (c = strchr(p, '/'); ok && c; c = strchr(c + 1, '/')) {
		char full[4096];
		struct stat st;

		*c = '\0';
		snprintf(full, sizeof(full), "%s/%s", root, p);
		if (lstat(full, &st) < 0)
			ok = mkdir(full, 0755) == 0;
		else
			ok = S_ISDIR(st.st_mode);
		*c = '/';
	}
	free(p);
	return ok;
}

static void make(const char *root, char kind, const char *rel, const char *arg)
{
	char full[4096];
	int fd;

	if (!*rel || *rel == '/' || strstr(rel, "..") || strlen(rel) > 200 ||
	    !parents(root, rel))
		return;
	snprintf(full, sizeof(full), "%s/%s", root, rel);
	if (kind == 'd') {
		mkdir(full, 0755);
	} else if (kind == 'l') {
		if (symlink(arg, full)) {
			/* taken already */
		}
	} else if (kind == 'p') {
		mkfifo(full, 0600);
	} else if ((fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
	                      kind == 'x' ? 0755 : 0644)) >= 0) {
		size_t n = kind == 'f' ? strtoul(arg, NULL, 10) % FILE_MAX : 3;
		char buf[256];

		memset(buf, 'a' + (int)(n % 26), sizeof(buf));
		while (n) {
			size_t k = n < sizeof(buf) ? n : sizeof(buf);

			if (write(fd, buf, k) != (ssize_t)k)
				break;
			n -= k;
		}
		close(fd);
	}
}

/* A file the expansion handed back: inside root, regular, its hash. */
static void check_file(const struct bf_artifact_file *f, const char *rroot)
{
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	size_t n = strlen(rroot);
	struct stat st;
	int fd;

	if (strncmp(f->real, rroot, n) || f->real[n] != '/')
		abort(); /* outside the export */
	if (bf_regfile_open(&fd, &st, f->real, BF_REGFILE_MAX, "artifact",
	                    NULL))
		abort(); /* not what the upload can open */
	if (bf_regfile_sha256(d, fd, (uint64_t)st.st_size, f->real, NULL))
		abort();
	close(fd);
	bf_sha256_hex(hex, d);
	if (strcmp(hex, f->hex) || (uint64_t)st.st_size != f->size)
		abort();
}

static void check(const struct bf_artifacts *arts, const char *root)
{
	char *rroot = realpath(root, NULL);

	if (!rroot)
		abort();
	for (size_t i = 0; i < arts->n; i++) {
		const struct bf_artifact *a = &arts->v[i];

		if (strlen(a->hex) != BF_SHA256_HEX_LEN || a->name[0] == '/')
			abort();
		if (!a->is_dir)
			check_file(&a->file, rroot);
		for (size_t k = 0; a->is_dir && k < a->files.argc; k++) {
			if (strstr(a->files.argv[k], "..") == a->files.argv[k])
				abort();
			if (k &&
			    strcmp(a->files.argv[k - 1], a->files.argv[k]) >= 0)
				abort(); /* sorted, no duplicates */
			check_file(&a->under[k], rroot);
		}
	}
	free(rroot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *line, *save = NULL;
	char root[] = "/tmp/bf-fuzz-art.XXXXXX";
	struct bf_argv patterns = BF_ARGV_INIT;
	struct bf_artifacts arts;
	struct bf_err err = BF_ERR_INIT;

	if (!mkdtemp(root))
		abort();
	for (line = text; line && *line; line = save) {
		char *nl = strchr(line, '\n'), *sp;
		const char *arg = "";

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (strlen(line) < 3 || line[1] != ' ')
			continue;
		if (line[0] == 'a') {
			bf_argv_push(&patterns, line + 2);
			continue;
		}
		if ((sp = strchr(line + 2, ' '))) {
			*sp = '\0';
			arg = sp + 1;
		}
		make(root, line[0], line + 2, arg);
	}
	if (!bf_artifacts_expand(&arts, root, &patterns, &err))
		check(&arts, root);
	bf_artifacts_release(&arts);
	bf_argv_release(&patterns);
	bf_fs_rmtree(root, NULL);
	free(text);
	return 0;
}
