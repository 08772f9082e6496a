/*
 * The objects section of a trace file: the GNU build-id of every loaded
 * ELF object and where it sits in memory, read from the program headers
 * the dynamic loader already mapped (dl_iterate_phdr), at flush time,
 * never while recording. The reader compares each with the file it
 * finds at the mapping's path, so that a rebuilt binary or one from
 * another machine is named as such instead of giving wrong names.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trace_int.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/trace_buildid.h"
#include "benchfarm/trace_format.h"

#define NOINSTR __attribute__((no_instrument_function))

/* What note_object collects: the objects section of the file. */
struct objects {
	unsigned char *buf;
	size_t len, cap;
	uint32_t n;
};

/* Room for n more bytes in o; 0 or -1 (out of memory). */
NOINSTR static int obj_room(struct objects *o, size_t n)
{
	size_t size = o->cap ? o->cap : 4096;
	unsigned char *b;

	if (o->len + n <= o->cap)
		return 0;
	while (size < o->len + n)
		size *= 2;
	b = realloc(o->buf, size);
	if (!b)
		return -1;
	o->buf = b;
	o->cap = size;
	return 0;
}

/*
 * dl_iterate_phdr's callback: one object entry per loaded object with a
 * build-id, so that the reader can tell whether the file it finds at a
 * mapping's path is the one that was running.
 */
NOINSTR static int note_object(struct dl_phdr_info *info, size_t size,
                               void *data)
{
	struct objects *o = data;
	uint64_t lo = UINT64_MAX, hi = 0;
	const unsigned char *id = NULL;
	uint32_t idlen = 0;

	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD) {
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		} else if (ph->p_type == PT_NOTE && !idlen) {
			size_t n = bf_trace_find_build_id(
			        (const unsigned char *)(uintptr_t)a,
			        ph->p_memsz, ph->p_align == 8 ? 8 : 4, &id);

			idlen = n <= BF_TRACE_ID_MAX ? (uint32_t)n : 0;
		}
	}
	if (!idlen || hi <= lo)
		return 0;
	if (obj_room(o, 20 + idlen))
		return 1; /* stop: the entries so far are whole */
	memcpy(o->buf + o->len, &lo, 8);
	memcpy(o->buf + o->len + 8, &hi, 8);
	memcpy(o->buf + o->len + 16, &idlen, 4);
	memcpy(o->buf + o->len + 20, id, idlen);
	o->len += 20 + idlen;
	o->n++;
	return 0;
}

void bf_trace__objects(unsigned char **buf_out, size_t *len_out,
                       uint32_t *n_out)
{
	struct objects o = { NULL, 0, 0, 0 };

	dl_iterate_phdr(note_object, &o);
	*buf_out = o.buf;
	*len_out = o.len;
	*n_out = o.n;
}
