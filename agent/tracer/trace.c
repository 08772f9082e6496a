/*
 * libbenchfarm_trace's recorder: __cyg_profile_func_enter/exit, which
 * -finstrument-functions calls on every function entry and exit. The
 * recording path does one relaxed load of the enabled flag, reads the
 * thread's slot from thread-local storage, reads the time stamp counter
 * and stores 16 bytes: no lock, no allocation, no system call. A
 * thread's first event claims a slot in a buffer mapped at start with
 * one atomic add, and pre-faults that slot's pages once (one madvise),
 * so page faults do not land in the recorded times later.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/trace.h"
#include "benchfarm/trace_format.h"
#include "trace_int.h"

#define NOINSTR         __attribute__((no_instrument_function))
#define DEFAULT_RECORDS (1u << 20)
#define DEFAULT_THREADS 64
#define MAX_RANGES      64

/* One cache line per slot: threads never write each other's lines. */
struct slot {
	_Alignas(64) uint32_t flags; /* BF_TRACE_T_TRUNCATED */
	uint64_t count; /* records written (release-stored) */
	uint64_t dropped; /* events after the buffer filled */
	uint64_t truncated_at; /* ticks of the first dropped event */
	struct bf_trace_record *rec;
};
_Static_assert(sizeof(struct slot) == 64, "one slot per cache line");

static atomic_int enabled;
static atomic_size_t next_slot;
static struct slot *slots;
static size_t nslots, cap;
static void *arena;
static size_t arena_size;
static char out_path[4096];
static uint64_t ticks0, ns0;
static size_t page_size;
static int prefault; /* pre-fault a slot's buffer when it is claimed */
static struct {
	uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int nranges, only;
/*
 * initial-exec: a direct offset from the thread pointer, no call to
 * __tls_get_addr. Right for a library linked into the program or
 * preloaded, which is how this one is used (not dlopen'ed late).
 */
#define TLS_IE __attribute__((tls_model("initial-exec")))
static _Thread_local struct slot *mine TLS_IE;
static _Thread_local int no_slot TLS_IE;

NOINSTR static inline uint64_t ticks(void)
{
#if defined(BF_TRACE_NO_COUNTER)
	/*
	 * bench/trace_overhead.sh only: an increment instead of the counter,
	 * to measure what the rest of the recording path costs.
	 */
	static uint64_t fake;

	return ++fake;
#elif defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

NOINSTR static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Fault in a slot's buffer before it records: a first write to each page
 * costs a page fault (several microseconds, or 2 MiB zeroed at once on a
 * huge page), which would otherwise be charged to whichever function was
 * running. Once per thread, at claim time: MADV_POPULATE_WRITE (Linux
 * 5.14) when the kernel has it, else one write per page.
 */
NOINSTR static void pretouch(struct slot *s)
{
	size_t len = cap * sizeof(struct bf_trace_record);
	volatile char *p = (volatile char *)s->rec;

	if (!prefault)
		return;
#ifdef MADV_POPULATE_WRITE
	if (!madvise(s->rec, len, MADV_POPULATE_WRITE))
		return;
	if (errno != EINVAL) /* ENOMEM and the like: touching would fail too */
		return;
#endif
	for (size_t off = 0; off < len; off += page_size)
		p[off] = 0;
}

NOINSTR static struct slot *claim(void)
{
	size_t i;
	int saved = errno;

	if (no_slot)
		return NULL;
	i = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed);
	if (i >= nslots) {
		no_slot = 1;
		return NULL;
	}
	pretouch(&slots[i]);
	errno = saved; /* the traced program's errno is not ours to change */
	mine = &slots[i];
	return mine;
}

NOINSTR static int wanted(uintptr_t fn)
{
	for (int i = 0; i < nranges; i++)
		if (fn >= ranges[i].lo && fn < ranges[i].hi)
			return 1;
	return 0;
}

NOINSTR static inline void record(uintptr_t addr, int exit)
{
	struct slot *s;
	uint64_t c;

	if (!atomic_load_explicit(&enabled, memory_order_relaxed))
		return;
	s = mine ? mine : claim();
	if (!s || (only && !wanted(addr)))
		return;
	c = s->count;
	if (c >= cap) {
		if (!s->flags) {
			s->flags = BF_TRACE_T_TRUNCATED;
			s->truncated_at = ticks();
		}
		s->dropped++;
		return;
	}
	s->rec[c].ticks = ticks();
	s->rec[c].addr = (uint64_t)addr | (exit ? BF_TRACE_EXIT_BIT : 0);
	__atomic_store_n(&s->count, c + 1, __ATOMIC_RELEASE);
}

NOINSTR void __cyg_profile_func_enter(void *fn, void *site);
NOINSTR void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	record((uintptr_t)fn, 0);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	record((uintptr_t)fn, 1);
}

NOINSTR static size_t env_size(const char *name, size_t def, size_t max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n == 0 || n > max) {
		fprintf(stderr,
		        "benchfarm-trace: %s=%s is not a number from 1 to %zu; "
		        "using %zu\n",
		        name, v, max, def);
		return def;
	}
	return (size_t)n;
}

/* The address ranges of executable mappings whose path contains text. */
NOINSTR static void load_ranges(const char *text)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	nranges = 0;
	if (!f)
		return;
	while (nranges < MAX_RANGES && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms,
		           &n) < 3 ||
		    !n || perms[2] != 'x')
			continue;
		if (strstr(line + n, text)) {
			ranges[nranges].lo = lo;
			ranges[nranges].hi = hi;
			nranges++;
		}
	}
	fclose(f);
}

NOINSTR static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/*
 * The slots, then one buffer per slot, each starting on a page (which
 * MADV_POPULATE_WRITE needs). Sized once, at the first start.
 */
NOINSTR static int map_arena(void)
{
	size_t head, stride;
	const char *pf = getenv("BENCHFARM_TRACE_PREFAULT");

	cap = env_size("BENCHFARM_TRACE_RECORDS", DEFAULT_RECORDS,
	               (size_t)1 << 32);
	nslots = env_size("BENCHFARM_TRACE_THREADS", DEFAULT_THREADS, 4096);
	prefault = !pf || strcmp(pf, "0");
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	head = round_up(nslots * sizeof(struct slot), page_size);
	stride = round_up(cap * sizeof(struct bf_trace_record), page_size);
	arena_size = head + nslots * stride;
	arena = mmap(NULL, arena_size, PROT_READ | PROT_WRITE,
	             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED) {
		arena = NULL;
		return -1;
	}
#ifdef MADV_HUGEPAGE
	/* fewer page faults while recording: 2 MiB pages if allowed */
	madvise(arena, arena_size, MADV_HUGEPAGE);
#endif
	slots = arena;
	for (size_t i = 0; i < nslots; i++)
		slots[i].rec = (struct bf_trace_record *)((char *)arena + head +
		                                          i * stride);
	return 0;
}

int bf_trace_start(const char *path)
{
	const char *only_text = getenv("BENCHFARM_TRACE_ONLY");

	if (!path)
		path = getenv("BENCHFARM_TRACE");
	if (!path || !*path || strlen(path) >= sizeof(out_path)) {
		errno = EINVAL;
		return -1;
	}
	atomic_store(&enabled, 0);
	if (!arena && map_arena())
		return -1;
	for (size_t i = 0; i < nslots; i++) {
		slots[i].count = 0;
		slots[i].dropped = 0;
		slots[i].flags = 0;
		slots[i].truncated_at = 0;
	}
	memcpy(out_path, path, strlen(path) + 1);
	only = only_text && *only_text;
	if (only)
		load_ranges(only_text);
	if (!mine)
		claim(); /* the starting thread's slot, faulted in now */
	ticks0 = ticks();
	ns0 = now_ns();
	atomic_store(&enabled, 1);
	return 0;
}

NOINSTR static int put(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

NOINSTR static int put32(int fd, uint32_t v)
{
	return put(fd, &v, sizeof(v));
}

NOINSTR static int put64(int fd, uint64_t v)
{
	return put(fd, &v, sizeof(v));
}

/* /proc/self/maps into a malloc'd buffer (not on the recording path). */
NOINSTR static char *read_maps(size_t *len)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t n = 0, sz = 65536;
	char *buf = malloc(sz);
	ssize_t r;

	*len = 0;
	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((r = read(fd, buf + n, sz - n)) > 0) {
		n += (size_t)r;
		if (n == sz) {
			char *b = realloc(buf, sz * 2);

			if (!b)
				break;
			buf = b;
			sz *= 2;
		}
	}
	close(fd);
	*len = n;
	return buf;
}

/* The objects section (format.h); 0 or -1. */
NOINSTR static int put_objects(int fd)
{
	unsigned char *buf;
	size_t len;
	uint32_t n;
	int bad;

	bf_trace__objects(&buf, &len, &n);
	bad = put(fd, &n, 4);
	if (len)
		bad |= put(fd, buf, len);
	free(buf);
	return bad;
}

int bf_trace_flush(void)
{
	char tmp[sizeof(out_path) + 16];
	size_t used, maps_len;
	uint64_t ticks1, ns1;
	char *maps;
	int fd, bad = 0;

	if (!arena || !out_path[0]) {
		errno = EINVAL;
		return -1;
	}
	ticks1 = ticks();
	ns1 = now_ns();
	used = atomic_load(&next_slot);
	if (used > nslots)
		used = nslots;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", out_path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	maps = read_maps(&maps_len);
	bad |= put(fd, BF_TRACE_MAGIC, 8);
	bad |= put32(fd, BF_TRACE_VERSION);
	bad |= put32(fd,
	             atomic_load(&next_slot) > nslots ? BF_TRACE_F_PARTIAL : 0);
	bad |= put64(fd, ticks0) | put64(fd, ns0) | put64(fd, ticks1) |
	       put64(fd, ns1);
	bad |= put32(fd, (uint32_t)getpid()) | put32(fd, (uint32_t)used);
	bad |= put64(fd, maps_len);
	if (maps_len)
		bad |= put(fd, maps, maps_len);
	free(maps);
	bad |= put_objects(fd);
	for (size_t i = 0; i < used && !bad; i++) {
		struct slot *s = &slots[i];
		uint64_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);

		bad |= put32(fd, (uint32_t)(i + 1)) | put32(fd, s->flags);
		bad |= put64(fd, c) | put64(fd, s->dropped) |
		       put64(fd, s->truncated_at);
		if (c)
			bad |= put(fd, s->rec, c * sizeof(*s->rec));
	}
	if (close(fd) || bad || rename(tmp, out_path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int bf_trace_stop(void)
{
	if (!atomic_exchange(&enabled, 0))
		return arena ? bf_trace_flush() : (errno = EINVAL, -1);
	return bf_trace_flush();
}

/*
 * A forked child is not traced and writes nothing: it holds a copy of
 * the parent's buffers and path, and its exit would replace the
 * parent's trace with that copy. It may start its own with
 * bf_trace_start.
 */
NOINSTR static void trace_forked(void)
{
	atomic_store(&enabled, 0);
	out_path[0] = '\0';
}

NOINSTR __attribute__((constructor)) static void trace_load(void)
{
	const char *p = getenv("BENCHFARM_TRACE");

	pthread_atfork(NULL, NULL, trace_forked);

	if (p && *p && bf_trace_start(p))
		fprintf(stderr,
		        "benchfarm-trace: cannot start tracing to %s: %s\n", p,
		        strerror(errno));
}

NOINSTR __attribute__((destructor)) static void trace_unload(void)
{
	if (atomic_load(&enabled) && bf_trace_stop())
		fprintf(stderr, "benchfarm-trace: cannot write %s: %s\n",
		        out_path, strerror(errno));
}
