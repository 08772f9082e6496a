/*
 * Build identity (buildid.h). libelf (elfutils) reads the ELF files;
 * this is the one file that calls it.
 */
#include "git/buildid.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/regfile.h"
#include "git/artifacts.h"

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static bool elf_ok;

static void elf_init(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static void add_u64(struct bf_sha256 *c, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	bf_sha256_update(c, b, sizeof(b));
}

static void add_str(struct bf_sha256 *c, const char *s)
{
	bf_sha256_update(c, s, strlen(s) + 1);
}

/*
 * The code digest of the ELF image at map (size bytes) into d: false
 * when it is not an ELF file with section headers.
 */
static bool code_digest(unsigned char d[BF_SHA256_LEN], void *map, size_t size)
{
	struct bf_sha256 c;
	Elf *e = elf_memory(map, size);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, nscn = 0;
	bool ok = false;

	if (!e)
		return false;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getshdrstrndx(e, &shstrndx) != 0)
		goto out;
	bf_sha256_init(&c);
	add_u64(&c, eh.e_type);
	add_u64(&c, eh.e_machine);
	add_u64(&c, eh.e_entry);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data = NULL;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue; /* not loaded: debug info, symbols, .comment
			           */
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			goto out;
		if (!strcmp(name, ".note.gnu.build-id"))
			continue;
		add_str(&c, name);
		add_u64(&c, sh.sh_type);
		add_u64(&c, sh.sh_flags);
		add_u64(&c, sh.sh_addr);
		add_u64(&c, sh.sh_size);
		if (sh.sh_type == SHT_NOBITS)
			continue; /* .bss: its size is all there is */
		while ((data = elf_rawdata(scn, data)))
			if (data->d_buf && data->d_size)
				bf_sha256_update(&c, data->d_buf, data->d_size);
		nscn++;
	}
	if (nscn) {
		bf_sha256_final(d, &c);
		ok = true;
	}
out:
	elf_end(e);
	return ok;
}

int bf_build_id_file(char out[BF_SHA256_HEX_LEN + 1], bool *is_elf,
                     const char *path, const char *hex, struct bf_err *err)
{
	unsigned char d[BF_SHA256_LEN];
	char now[BF_SHA256_HEX_LEN + 1];
	struct stat st;
	void *map;
	int fd = -1, ret;

	*is_elf = false;
	bf_strlcpy(out, hex, BF_SHA256_HEX_LEN + 1);
	pthread_once(&elf_once, elf_init);
	if (!elf_ok)
		return bf_err_set(err, BF_ERROR,
		                  "libelf is older than this program: cannot "
		                  "read '%s' (set project.build_identity: "
		                  "bytes)",
		                  path);
	if ((ret = bf_regfile_open(&fd, &st, path, BF_REGFILE_MAX, "artifact",
	                           err)))
		return ret;
	if (!st.st_size) {
		close(fd);
		return 0; /* empty: its bytes */
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return bf_err_sys(err, "cannot map artifact '%s'", path);
	/* what is read is what was hashed when the artifacts were listed */
	bf_sha256(d, map, (size_t)st.st_size);
	bf_sha256_hex(now, d);
	if (strcmp(now, hex))
		ret = bf_err_set(err, BF_ECORRUPT,
		                 "artifact '%s' changed after the build (its "
		                 "content no longer hashes to %.12s): is "
		                 "something still writing it?",
		                 path, hex);
	else if ((size_t)st.st_size >= sizeof(Elf32_Ehdr) &&
	         memcmp(map, ELFMAG, SELFMAG) == 0 &&
	         code_digest(d, map, (size_t)st.st_size)) {
		bf_sha256_hex(out, d);
		*is_elf = true;
	}
	munmap(map, (size_t)st.st_size);
	return ret;
}

/* One file of an artifact (rel: its path under a directory, or ""). */
static int add_file(struct bf_sha256 *c, struct bf_build_id *out,
                    const struct bf_artifact_file *f, const char *rel,
                    enum bf_build_identity kind, struct bf_err *err)
{
	char hex[BF_SHA256_HEX_LEN + 1];
	bool is_elf = false;
	int ret = 0;

	bf_strlcpy(hex, f->hex, sizeof(hex));
	if (kind == BF_BUILD_IDENTITY_CODE)
		ret = bf_build_id_file(hex, &is_elf, f->real, f->hex, err);
	if (ret)
		return ret;
	if (is_elf)
		out->elf_files++;
	else
		out->other_files++;
	add_str(c, rel);
	add_u64(c, f->exec);
	add_str(c, is_elf ? "code" : "bytes");
	add_str(c, hex);
	return 0;
}

int bf_build_id_of(struct bf_build_id *out, const struct bf_artifacts *a,
                   enum bf_build_identity kind, struct bf_err *err)
{
	unsigned char d[BF_SHA256_LEN];
	char hex[BF_SHA256_HEX_LEN + 1];
	struct bf_sha256 c;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	bf_sha256_init(&c);
	add_str(&c, kind == BF_BUILD_IDENTITY_CODE ? "code" : "bytes");
	for (size_t i = 0; !ret && i < a->n; i++) {
		const struct bf_artifact *art = &a->v[i];

		add_str(&c, art->name);
		add_str(&c, art->is_dir ? "dir" : "file");
		if (kind == BF_BUILD_IDENTITY_BYTES) {
			add_str(&c, art->hex);
			if (art->is_dir)
				out->other_files += art->files.argc;
			else
				out->other_files++;
			continue;
		}
		if (!art->is_dir) {
			ret = add_file(&c, out, &art->file, "", kind, err);
			continue;
		}
		add_u64(&c, art->files.argc);
		for (size_t k = 0; !ret && k < art->files.argc; k++)
			ret = add_file(&c, out, &art->under[k],
			               art->files.argv[k], kind, err);
	}
	if (ret)
		return ret;
	bf_sha256_final(d, &c);
	bf_sha256_hex(hex, d);
	snprintf(out->id, sizeof(out->id), "%s:%s",
	         bf_build_identity_name(kind), hex);
	return 0;
}
