#ifndef BF_FUZZ_UTIL_H
#define BF_FUZZ_UTIL_H

/*
 * Helpers for the libFuzzer targets in tests/fuzz/: the input as a
 * NUL-terminated string, or written to a private temporary file for the
 * readers that take a path.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A file holding the input, reused across runs of this process. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/bf-fuzz-%d.in",
		         (int)getpid());
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	return path;
}

#endif
