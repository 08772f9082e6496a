#include "trace/trace.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "benchfarm/alloc.h"
#include "benchfarm/index.h"
#include "benchfarm/spawn.h"
#include "benchfarm/trace_buildid.h"
#include "benchfarm/trace_format.h"
#include "benchfarm/utf8.h"

/*
 * Naming traced addresses: the recorded /proc/PID/maps says which file
 * an address was mapped from and at which offset; that file's program
 * headers turn the offset into a link-time address and its ELF symbol
 * table (.symtab, else .dynsym) names the function there. Files are
 * read once, lazily; a file that is missing, not ELF, or stripped
 * leaves its addresses as "path+0xOFFSET" (or "0xADDR" outside every
 * mapping), counted as unknown. So does a file that is not the one
 * that was traced: its GNU build-id differs from the one the trace
 * recorded for that mapping (or, when the trace has none, its inode
 * differs from the map's), as after a rebuild or on another machine;
 * its symbols would give wrong names, so they are not used, and it is
 * reported.
 */

#define ELF_MAX ((size_t)1 << 30)

struct fsym {
	uint64_t value, size;
	char *name;
};

struct elf {
	char *path;
	bool loaded, ok;
	const struct bf_trace_obj *want; /* build-id when traced, or NULL */
	uint64_t inode; /* from the map: compared when there is no id */
	struct fsym *syms;
	size_t nsyms;
	struct {
		uint64_t off, filesz, vaddr;
	} load[16];
	size_t nload;
};

struct map {
	uint64_t lo, hi, off;
	struct elf *elf; /* NULL: anonymous */
};

struct name {
	uint64_t addr;
	char *name;
};

struct bf_symbols {
	struct map *maps;
	size_t nmaps;
	struct elf **elfs;
	size_t nelfs;
	struct name *names; /* every address named so far, in first-use order */
	size_t nnames, capnames;
	struct bf_index index; /* names by addr */
	size_t unknown, outside;
	char **warnings; /* files that are not the traced ones */
	size_t nwarnings;
};

static struct elf *elf_for(struct bf_symbols *s, const char *path)
{
	for (size_t i = 0; i < s->nelfs; i++)
		if (!strcmp(s->elfs[i]->path, path))
			return s->elfs[i];
	s->elfs = bf_xrealloc(s->elfs, (s->nelfs + 1) * sizeof(*s->elfs));
	s->elfs[s->nelfs] = bf_xcalloc(1, sizeof(struct elf));
	s->elfs[s->nelfs]->path = bf_xstrdup(path);
	return s->elfs[s->nelfs++];
}

/* The object the traced process had loaded at addr, if it recorded one. */
static const struct bf_trace_obj *obj_at(const struct bf_trace *t,
                                         uint64_t addr)
{
	for (size_t i = 0; i < t->nobjs; i++)
		if (addr >= t->objs[i].lo && addr < t->objs[i].hi)
			return &t->objs[i];
	return NULL;
}

struct bf_symbols *bf_symbols_new(const struct bf_trace *t)
{
	struct bf_symbols *s = bf_xcalloc(1, sizeof(*s));
	const char *line = t->maps;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4352], perms[8];
		unsigned long long lo, hi, off, inode;
		struct elf *e;
		int n = 0;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (sscanf(buf, "%llx-%llx %7s %llx %*s %llu %n", &lo,
			           &hi, perms, &off, &inode, &n) >= 5 &&
			    n && perms[2] == 'x' && buf[n] == '/') {
				s->maps = bf_xrealloc(s->maps,
				                      (s->nmaps + 1) *
				                              sizeof(*s->maps));
				s->maps[s->nmaps].lo = lo;
				s->maps[s->nmaps].hi = hi;
				s->maps[s->nmaps].off = off;
				e = elf_for(s, buf + n);
				if (!e->want)
					e->want = obj_at(t, lo);
				e->inode = inode;
				s->maps[s->nmaps].elf = e;
				s->nmaps++;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return s;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* The file's function symbols from the table of type (SHT_SYMTAB...). */
static void elf_syms(struct elf *e, const struct bf_buf *f, uint32_t type)
{
	const unsigned char *p = (const unsigned char *)f->buf;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)p;
	size_t cap = e->nsyms;

	for (size_t i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr sh, str;

		memcpy(&sh, p + eh->e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type != type || sh.sh_link >= eh->e_shnum ||
		    sh.sh_entsize != sizeof(Elf64_Sym) ||
		    sh.sh_offset > f->len || sh.sh_size > f->len - sh.sh_offset)
			continue;
		memcpy(&str, p + eh->e_shoff + sh.sh_link * sizeof(str),
		       sizeof(str));
		if (str.sh_offset > f->len ||
		    str.sh_size > f->len - str.sh_offset)
			continue;
		for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym sym;
			const char *nm;

			memcpy(&sym, p + sh.sh_offset + k * sizeof(sym),
			       sizeof(sym));
			if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value || sym.st_name >= str.sh_size)
				continue;
			nm = (const char *)p + str.sh_offset + sym.st_name;
			if (!memchr(nm, '\0', str.sh_size - sym.st_name))
				continue;
			if (e->nsyms == cap) {
				cap = cap ? 2 * cap : 256;
				e->syms = bf_xrealloc(e->syms,
				                      cap * sizeof(*e->syms));
			}
			e->syms[e->nsyms].value = sym.st_value;
			e->syms[e->nsyms].size = sym.st_size;
			e->syms[e->nsyms].name = bf_xstrdup(nm);
			e->nsyms++;
		}
	}
}

/*
 * The file's GNU build-id, from its PT_NOTE segments: its length, with
 * *id pointing into f; 0 when it has none.
 */
static size_t elf_build_id(const struct bf_buf *f, const unsigned char **id)
{
	const unsigned char *p = (const unsigned char *)f->buf;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)p;

	for (size_t i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		size_t n;

		memcpy(&ph, p + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > f->len ||
		    ph.p_filesz > f->len - ph.p_offset)
			continue;
		n = bf_trace_find_build_id(p + ph.p_offset, ph.p_filesz,
		                           ph.p_align == 8 ? 8 : 4, id);
		if (n)
			return n;
	}
	return 0;
}

static void hex(char *out, size_t size, const unsigned char *p, size_t n)
{
	size_t k = 0;

	if (!n)
		snprintf(out, size, "none");
	for (size_t i = 0; i < n && k + 3 <= size; i++, k += 2)
		snprintf(out + k, size - k, "%02x", p[i]);
}

/* A file whose names cannot be used; msg is taken (made UTF-8). */
static void add_warning(struct bf_symbols *s, char *msg)
{
	s->warnings = bf_xrealloc(s->warnings,
	                          (s->nwarnings + 1) * sizeof(*s->warnings));
	s->warnings[s->nwarnings++] = bf_utf8_scrub(msg);
}

/*
 * Whether f (at e->path, st) is the file the trace was recorded with;
 * when not, a warning says why.
 */
static bool elf_is_traced(struct bf_symbols *s, struct elf *e,
                          const struct bf_buf *f, const struct stat *st)
{
	const unsigned char *id = NULL;
	size_t n = elf_build_id(f, &id);
	char was[2 * 64 + 8], now[2 * 64 + 8];
	char *msg;

	if (e->want) {
		if (n == e->want->idlen && !memcmp(id, e->want->id, n))
			return true;
		hex(was, sizeof(was), e->want->id, e->want->idlen);
		hex(now, sizeof(now), id, n);
		msg = bf_xasprintf("'%s' is not the file that was traced "
		                   "(build-id %s then, %s now)",
		                   e->path, was, now);
	} else {
		if ((uint64_t)st->st_ino == e->inode)
			return true;
		msg = bf_xasprintf(
		        "'%s' is not the file that was traced "
		        "(inode %llu then, %llu now; the trace has no "
		        "build-id for it)",
		        e->path, (unsigned long long)e->inode,
		        (unsigned long long)st->st_ino);
	}
	add_warning(s, msg);
	return false;
}

/* Reads e's program headers and function symbols; e->ok on success. */
static void elf_load(struct bf_symbols *s, struct elf *e)
{
	struct bf_buf f;
	struct bf_err err = BF_ERR_INIT;
	const Elf64_Ehdr *eh;
	const unsigned char *p;
	struct stat st;

	e->loaded = true;
	bf_buf_init(&f, ELF_MAX);
	/* only regular files: a map naming /dev/zero must not be read */
	if (stat(e->path, &st) && errno == ENOENT && e->path[0] == '/') {
		add_warning(s, bf_xasprintf("'%s' is not there to be read (the "
		                            "trace was made on another "
		                            "machine, or the file was removed)",
		                            e->path));
		goto out;
	}
	if (stat(e->path, &st) || !S_ISREG(st.st_mode) ||
	    bf_buf_read_file(&f, e->path, &err) || f.len < sizeof(Elf64_Ehdr))
		goto out;
	p = (const unsigned char *)f.buf;
	eh = (const Elf64_Ehdr *)(const void *)p;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_phoff > f.len ||
	    (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > f.len - eh->e_phoff ||
	    eh->e_shoff > f.len ||
	    (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > f.len - eh->e_shoff)
		goto out;
	if (!elf_is_traced(s, e, &f, &st))
		goto out;
	for (size_t i = 0; i < eh->e_phnum && e->nload < 16; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, p + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD)
			continue;
		e->load[e->nload].off = ph.p_offset;
		e->load[e->nload].filesz = ph.p_filesz;
		e->load[e->nload].vaddr = ph.p_vaddr;
		e->nload++;
	}
	/* .symtab when there is one, else .dynsym */
	elf_syms(e, &f, SHT_SYMTAB);
	if (!e->nsyms)
		elf_syms(e, &f, SHT_DYNSYM);
	qsort(e->syms, e->nsyms, sizeof(*e->syms), cmp_sym);
	e->ok = e->nsyms > 0;
out:
	bf_buf_release(&f);
	bf_err_clear(&err);
}

static char *lookup(struct bf_symbols *s, uint64_t addr)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		struct map *m = &s->maps[i];
		uint64_t off;
		struct elf *e = m->elf;
		size_t lo = 0, hi;

		if (addr < m->lo || addr >= m->hi)
			continue;
		off = addr - m->lo + m->off;
		if (!e->loaded)
			elf_load(s, e);
		for (size_t k = 0; e->ok && k < e->nload; k++) {
			uint64_t va;

			if (off < e->load[k].off ||
			    off >= e->load[k].off + e->load[k].filesz)
				continue;
			va = off - e->load[k].off + e->load[k].vaddr;
			hi = e->nsyms;
			while (lo < hi) { /* last symbol with value <= va */
				size_t mid = (lo + hi) / 2;

				if (e->syms[mid].value <= va)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo &&
			    va < e->syms[lo - 1].value +
			                    (e->syms[lo - 1].size
			                             ? e->syms[lo - 1].size
			                             : 1))
				return bf_xstrdup(e->syms[lo - 1].name);
		}
		s->unknown++;
		return bf_xasprintf("%s+0x%llx", e->path,
		                    (unsigned long long)off);
	}
	s->unknown++;
	s->outside++;
	return bf_xasprintf("0x%llx", (unsigned long long)addr);
}

static size_t addr_hash(uint64_t addr)
{
	addr ^= addr >> 33; /* murmur3's finaliser */
	addr *= 0xff51afd7ed558ccdULL;
	addr ^= addr >> 33;
	return (size_t)addr;
}

static size_t name_addr_hash(const void *ctx, size_t i)
{
	return addr_hash(((const struct bf_symbols *)ctx)->names[i].addr);
}

static bool name_is(const void *ctx, size_t i, const void *key)
{
	return ((const struct bf_symbols *)ctx)->names[i].addr ==
	       *(const uint64_t *)key;
}

const char *bf_symbols_name(struct bf_symbols *s, uint64_t addr)
{
	static const struct bf_index_ops ops = { name_addr_hash, name_is };
	size_t *slot = bf_index_slot(&s->index, s->nnames, addr_hash(addr),
	                             &ops, s, &addr);

	if (*slot)
		return s->names[*slot - 1].name;
	if (s->nnames == s->capnames) {
		s->capnames = s->capnames ? 2 * s->capnames : 64;
		s->names =
		        bf_xrealloc(s->names, s->capnames * sizeof(*s->names));
	}
	s->names[s->nnames].addr = addr;
	/* ELF names and paths are bytes; every output wants UTF-8 */
	s->names[s->nnames].name = bf_utf8_scrub(lookup(s, addr));
	*slot = ++s->nnames;
	return s->names[s->nnames - 1].name;
}

size_t bf_symbols_unknown(const struct bf_symbols *s)
{
	return s->unknown;
}

bool bf_symbols_has_wanted(const struct bf_symbols *s, const char *const *only,
                           size_t n)
{
	for (size_t i = 0; i < s->nnames; i++)
		if (bf_trace_name_is_wanted(s->names[i].name, only, n))
			return true;
	return false;
}

size_t bf_symbols_outside(const struct bf_symbols *s)
{
	return s->outside;
}

const char *bf_symbols_warning(const struct bf_symbols *s, size_t i)
{
	return i < s->nwarnings ? s->warnings[i] : NULL;
}

bool bf_symbols_is_partial(const struct bf_symbols *s, char *why, size_t len)
{
	if (s->nwarnings)
		snprintf(why, len, "%s: its functions are shown as file+offset",
		         s->warnings[0]);
	else if (s->outside)
		snprintf(why, len,
		         "%zu function address%s outside every mapped file "
		         "(shown as 0x...)",
		         s->outside, s->outside == 1 ? " lies" : "es lie");
	if (why && len)
		bf_utf8_scrub(why); /* a cut may split a character */
	return s->nwarnings || s->outside;
}

void bf_symbols_name_trace(struct bf_symbols *s, const struct bf_trace *t)
{
	/* every name first: demangling replaces the names it has seen */
	for (size_t i = 0; i < t->nthreads; i++)
		for (size_t k = 0; k < t->threads[i].n; k++) {
			uint64_t ticks, addr;

			bf_trace_rec(&t->threads[i], k, &ticks, &addr);
			if (!(addr & BF_TRACE_EXIT_BIT))
				bf_symbols_name(s, addr);
		}
	bf_symbols_demangle(s);
}

void bf_symbols_demangle(struct bf_symbols *s)
{
	static const char *const argv[] = { "c++filt", NULL };
	struct bf_spawn_opts o = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf in = BF_BUF_INIT;
	size_t *which = bf_xcalloc(s->nnames + 1, sizeof(*which)), n = 0;
	char *line, *save = NULL;

	for (size_t i = 0; i < s->nnames; i++) {
		if (strncmp(s->names[i].name, "_Z", 2) ||
		    strpbrk(s->names[i].name, " \n"))
			continue;
		bf_buf_addstr(&in, s->names[i].name);
		bf_buf_addch(&in, '\n');
		which[n++] = i;
	}
	if (!n)
		goto out;
	o.argv = argv;
	o.stdin_data = in.buf;
	o.stdin_len = in.len;
	o.timeout_s = 60;
	o.out_max = 64u << 20;
	bf_spawn_result_init(&res);
	if (!bf_spawn_run(&res, &o, &err) && res.exit_code == 0 &&
	    !res.timed_out) {
		size_t k = 0;

		bf_buf_addch(&res.out, '\0');
		for (line = strtok_r(res.out.buf, "\n", &save); line && k < n;
		     line = strtok_r(NULL, "\n", &save), k++) {
			free(s->names[which[k]].name);
			s->names[which[k]].name = bf_xstrdup(line);
		}
	}
	bf_spawn_result_release(&res);
out:
	bf_err_clear(&err);
	bf_buf_release(&in);
	free(which);
}

void bf_symbols_free(struct bf_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nelfs; i++) {
		for (size_t k = 0; k < s->elfs[i]->nsyms; k++)
			free(s->elfs[i]->syms[k].name);
		free(s->elfs[i]->syms);
		free(s->elfs[i]->path);
		free(s->elfs[i]);
	}
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i].name);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->elfs);
	free(s->maps);
	free(s->names);
	bf_index_release(&s->index);
	free(s);
}
