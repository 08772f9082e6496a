#ifndef BF_TRACE_BUILDID_H
#define BF_TRACE_BUILDID_H

/*
 * The GNU build-id in the notes of one PT_NOTE segment: shared by the
 * recorder (agent/tracer/objects.c, over the loaded segment in memory)
 * and the reader (orchestrator/trace/trace_sym.c, over the file), so that both
 * find the same id. Inline: the recorder links nothing of the reader.
 */
#include <elf.h>
#include <stddef.h>
#include <string.h>

/*
 * The descriptor of the first GNU build-id note among the len bytes of
 * notes at p: its length, with *id pointing into p; 0 when there is
 * none or a note runs past len. Name and descriptor start at offsets
 * aligned to align: the segment's alignment (4, or 8 for segments of
 * notes like .note.gnu.property).
 */
__attribute__((no_instrument_function)) static inline size_t
bf_trace_find_build_id(const unsigned char *p, size_t len, size_t align,
                       const unsigned char **id)
{
	size_t off = 0;

	while (off <= len && len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh; /* Elf32_Nhdr has the same three 32-bit words */
		size_t name = off + sizeof(nh), desc;

		memcpy(&nh, p + off, sizeof(nh));
		if (nh.n_namesz > len - name)
			return 0;
		desc = (name + nh.n_namesz + align - 1) / align * align;
		if (desc > len || nh.n_descsz > len - desc)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && nh.n_descsz) {
			*id = p + desc;
			return nh.n_descsz;
		}
		off = (desc + nh.n_descsz + align - 1) / align * align;
	}
	return 0;
}

#endif
