#ifndef BF_COMMON_H
#define BF_COMMON_H

/*
 * Included first by every benchfarm source file after its own header:
 * standard headers everybody needs, small macros, and banned.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BF_VERSION "0.1.0"

/*
 * The longest one benchmark run may take, in seconds (one week): a
 * benchmark's timeout in the config and benchfarm-agent run --timeout
 * share it.
 */
#define BF_RUN_TIMEOUT_MAX 604800

#define BF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define BF_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define BF_NORETURN          __attribute__((noreturn))
#define BF_UNUSED            __attribute__((unused))
/*
 * For a measuring instrument (the throttle workload), not code under
 * test: its time must not depend on the build's sanitizers, which made
 * it 35 times slower and every device check seconds long.
 */
#define BF_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#else
#define BF_PRINTF(fmt, args)
#define BF_NORETURN
#define BF_UNUSED
#define BF_NO_SANITIZE
#endif

/* Frees p and sets it to NULL (collectd's sfree). */
#define BF_FREE(p)          \
	do {                \
		free(p);    \
		(p) = NULL; \
	} while (0)

/* A programming error: print where, then abort (git's BUG()). */
#define BF_BUG(...) bf__bug(__FILE__, __LINE__, __VA_ARGS__)
BF_NORETURN void bf__bug(const char *file, int line, const char *fmt, ...)
        BF_PRINTF(3, 4);

#include "benchfarm/banned.h"

#endif /* BF_COMMON_H */
