#include "trace/trace.h"

#include <stdarg.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/trace_format.h"

/*
 * Loading a trace file. Every length is checked against what is left of
 * the file before it is used: a file cut short keeps the records it
 * holds whole and is marked partial; a header that does not parse is an
 * error.
 */

#define TRACE_FILE_MAX ((size_t)16 << 30)

struct rd {
	const unsigned char *p;
	size_t len, off;
};

static bool get(struct rd *r, void *out, size_t n)
{
	if (r->len - r->off < n)
		return false;
	memcpy(out, r->p + r->off, n);
	r->off += n;
	return true;
}

BF_PRINTF(2, 3)
static void set_partial(struct bf_trace *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->partial) {
		va_start(ap, fmt);
		vsnprintf(t->why, sizeof(t->why), fmt, ap);
		va_end(ap);
	}
	t->partial = true;
}

/* The objects section (version 2): build-ids of the loaded objects. */
static int read_objects(struct bf_trace *t, struct rd *r, const char *path,
                        struct bf_err *err)
{
	uint32_t n, idlen;

	if (!get(r, &n, 4))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: header cut short at byte %zu", path,
		                  r->off);
	if (n > (r->len - r->off) / 20)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: %u objects cannot fit in the %zu bytes "
		                  "left: the file is damaged",
		                  path, n, r->len - r->off);
	t->objs = bf_xcalloc((size_t)n + 1, sizeof(*t->objs));
	for (uint32_t i = 0; i < n; i++) {
		struct bf_trace_obj *o = &t->objs[i];

		if (!get(r, &o->lo, 8) || !get(r, &o->hi, 8) ||
		    !get(r, &idlen, 4) || idlen == 0 || idlen > sizeof(o->id) ||
		    !get(r, o->id, idlen))
			return bf_err_set(
			        err, BF_EINVAL,
			        "%s: object %u of %u is damaged (byte "
			        "%zu)",
			        path, i + 1, n, r->off);
		o->idlen = idlen;
		t->nobjs++;
	}
	return 0;
}

int bf_trace_load(struct bf_trace *t, const char *path, struct bf_err *err)
{
	uint32_t version, flags, nthreads;
	uint64_t tk0, n0, tk1, n1, maps_len;
	char magic[8];
	struct rd r;
	char *maps;
	int ret;

	memset(t, 0, sizeof(*t));
	bf_buf_init(&t->file, TRACE_FILE_MAX);
	ret = bf_buf_read_file(&t->file, path, err);
	if (ret)
		return ret;
	r.p = (const unsigned char *)t->file.buf;
	r.len = t->file.len;
	r.off = 0;
	if (!get(&r, magic, 8) || memcmp(magic, BF_TRACE_MAGIC, 8))
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: not a benchfarm trace (it does not start "
		        "with %s)",
		        path, BF_TRACE_MAGIC);
	if (!get(&r, &version, 4) || !get(&r, &flags, 4))
		return bf_err_set(err, BF_EINVAL, "%s: header cut short", path);
	if (version < 1 || version > BF_TRACE_VERSION)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: trace format version %u; this benchfarm "
		                  "reads versions 1 to %d",
		                  path, version, BF_TRACE_VERSION);
	if (!get(&r, &tk0, 8) || !get(&r, &n0, 8) || !get(&r, &tk1, 8) ||
	    !get(&r, &n1, 8) || !get(&r, &t->pid, 4) ||
	    !get(&r, &nthreads, 4) || !get(&r, &maps_len, 8))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: header cut short at byte %zu", path,
		                  r.off);
	if (maps_len > r.len - r.off)
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s: the memory map is %llu bytes but only %zu "
		        "are left: the file is damaged",
		        path, (unsigned long long)maps_len, r.len - r.off);
	if (tk1 <= tk0 || n1 <= n0)
		t->ns_per_tick = 1; /* too short to calibrate: ticks as ns */
	else
		t->ns_per_tick = (double)(n1 - n0) / (double)(tk1 - tk0);
	t->ticks0 = tk0;
	maps = bf_xstrndup((const char *)r.p + r.off, (size_t)maps_len);
	t->maps = maps;
	r.off += (size_t)maps_len;
	if (version >= 2 && (ret = read_objects(t, &r, path, err)))
		return ret;
	if (flags & BF_TRACE_F_PARTIAL)
		set_partial(t, "more threads than BENCHFARM_TRACE_THREADS: "
		               "some were not traced");
	if (nthreads > 1000000)
		return bf_err_set(err, BF_EINVAL, "%s: %u threads: damaged",
		                  path, nthreads);
	t->threads = bf_xcalloc(nthreads + 1, sizeof(*t->threads));
	for (uint32_t i = 0; i < nthreads; i++) {
		struct bf_trace_thread *th = &t->threads[t->nthreads];
		uint32_t tflags;
		uint64_t count;
		size_t whole;

		if (!get(&r, &th->id, 4) || !get(&r, &tflags, 4) ||
		    !get(&r, &count, 8) || !get(&r, &th->dropped, 8) ||
		    !get(&r, &th->truncated_at, 8)) {
			set_partial(
			        t,
			        "the file ends inside the header of thread %zu "
			        "of %zu",
			        (size_t)i + 1, (size_t)nthreads);
			break;
		}
		th->truncated = tflags & BF_TRACE_T_TRUNCATED;
		whole = (r.len - r.off) / sizeof(struct bf_trace_record);
		if (count > whole) {
			set_partial(t,
			            "the file ends inside thread %zu's records "
			            "(%zu of them kept)",
			            (size_t)th->id, whole);
			count = whole;
		}
		th->n = (size_t)count;
		th->rec = r.p + r.off;
		r.off += th->n * sizeof(struct bf_trace_record);
		if (th->truncated)
			set_partial(
			        t,
			        "thread-%zu's buffer filled %.3f ms into the "
			        "trace: %llu events after it were dropped "
			        "(raise BENCHFARM_TRACE_RECORDS)",
			        (size_t)th->id,
			        bf_trace_offset_ns(t, th->truncated_at) / 1e6,
			        (unsigned long long)th->dropped);
		t->nthreads++;
	}
	if (!t->partial && r.off != r.len)
		set_partial(t, "%zu bytes after the last thread",
		            r.len - r.off);
	return 0;
}

void bf_trace_release(struct bf_trace *t)
{
	free((char *)t->maps);
	free(t->objs);
	free(t->threads);
	bf_buf_release(&t->file);
	memset(t, 0, sizeof(*t));
}
