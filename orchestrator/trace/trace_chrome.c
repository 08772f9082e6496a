#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/json.h"
#include "benchfarm/trace_format.h"
#include "benchfarm/utf8.h"

/*
 * benchfarm trace chrome: Chrome's Trace Event format, which Perfetto
 * and chrome://tracing open. Metadata ("M") events first: the process's
 * name (process_name, the traced program) and each thread's
 * (thread_name "thread-N", as fold and top call it, with
 * thread_sort_index N, so the first thread to record comes first);
 * then one complete ("X") event per call, an instant event where a
 * thread's buffer filled, and otherData saying whether the trace is
 * partial.
 */

/*
 * otherData: whether the events are partial, and why: the file's
 * reason, else the symbols', else the calls' (calls_why, "" if none).
 */
static void chrome_end(FILE *out, const struct bf_trace *t,
                       const struct bf_symbols *syms, const char *calls_why)
{
	char why[256];
	bool partial = t->partial;
	json_t *other, *truncated = NULL;

	snprintf(why, sizeof(why), "%s", t->why);
	if (!partial)
		partial = bf_symbols_is_partial(syms, why, sizeof(why));
	if (!partial && *calls_why) {
		partial = true;
		snprintf(why, sizeof(why), "%s", calls_why);
	}
	bf_utf8_scrub(why); /* a cut may have split a character */
	other = json_pack("{s:b}", "partial", partial);
	if (partial)
		json_object_set_new(other, "partial_reason", json_string(why));
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct bf_trace_thread *th = &t->threads[i];

		if (!th->truncated)
			continue;
		if (!truncated)
			truncated = json_array();
		json_array_append_new(
		        truncated,
		        json_pack("{s:i, s:f, s:I}", "tid", (int)th->id,
		                  "at_ns",
		                  bf_trace_offset_ns(t, th->truncated_at),
		                  "dropped", (json_int_t)th->dropped));
	}
	if (truncated)
		json_object_set_new(other, "truncated", truncated);
	fprintf(out, "\n], \"otherData\": ");
	bf_json_print(other, out);
	fprintf(out, "}\n");
	json_decref(other);
}

struct chrome {
	FILE *out;
	const struct bf_trace *t;
	struct bf_symbols *syms;
	const char *const *only; /* --only, nonly names */
	size_t nonly;
	bool first; /* no event written yet */
	char *why; /* the first thing found partial in the calls, or "" */
	size_t why_len;
};

static void chrome_mark(struct chrome *c, const char *why)
{
	if (!*c->why)
		snprintf(c->why, c->why_len, "%s", why);
}

/* One event of the traceEvents array; takes ev. */
static void chrome_event(struct chrome *c, json_t *ev)
{
	char *text = json_dumps(ev, JSON_COMPACT);

	fprintf(c->out, "%s%s", c->first ? "" : ",\n", text);
	c->first = false;
	free(text);
	json_decref(ev);
}

/* The complete event of the call of addr from start to ticks. */
static void chrome_call(struct chrome *c, const struct bf_trace_thread *th,
                        uint64_t addr, uint64_t start, uint64_t ticks)
{
	const struct bf_trace *t = c->t;

	chrome_event(c,
	             json_pack("{s:s, s:s, s:f, s:f, s:i, s:i}", "name",
	                       bf_symbols_name(c->syms, addr), "ph", "X", "ts",
	                       bf_trace_offset_ns(t, start) / 1000, "dur",
	                       /* a clock that went back: no time, not 2^64 */
	                       (double)(ticks > start ? ticks - start : 0) *
	                               t->ns_per_tick / 1000,
	                       "pid", (int)t->pid, "tid", (int)th->id));
}

/*
 * th's calls as complete events, and where its buffer filled. As the
 * call tree does (trace_tree.c): an exit without its entry is skipped,
 * calls whose exits were skipped end at the exit that skipped them, and
 * calls still open where the records end end at the last time stamp;
 * each makes the result partial.
 */
static void chrome_thread(struct chrome *c, const struct bf_trace_thread *th)
{
	uint64_t *start = bf_xcalloc(th->n + 1, sizeof(*start));
	uint64_t *addrs = bf_xcalloc(th->n + 1, sizeof(*addrs));
	bool *in = bf_xcalloc(th->n + 1, sizeof(*in)); /* under --only */
	size_t depth = 0, d;
	uint64_t last = 0;

	for (size_t k = 0; k < th->n; k++) {
		uint64_t ticks, addr;

		bf_trace_rec(th, k, &ticks, &addr);
		last = ticks > last ? ticks : last;
		if (!(addr & BF_TRACE_EXIT_BIT)) {
			in[depth] = (depth && in[depth - 1]) ||
			            (c->nonly &&
			             bf_trace_name_is_wanted(
			                     bf_symbols_name(c->syms, addr),
			                     c->only, c->nonly));
			start[depth] = ticks;
			addrs[depth++] = addr;
			continue;
		}
		addr &= ~BF_TRACE_EXIT_BIT;
		for (d = depth; d && addrs[d - 1] != addr; d--)
			;
		if (!d) {
			chrome_mark(c, "an exit without its entry (tracing "
			               "started inside a call)");
			continue;
		}
		if (d < depth)
			chrome_mark(c, "exits out of order (a longjmp or an "
			               "exception skipped some)");
		while (depth >= d) { /* the skipped ones, then addr's own */
			depth--;
			if (!c->nonly || in[depth])
				chrome_call(c, th, addrs[depth], start[depth],
				            ticks);
		}
	}
	if (depth)
		chrome_mark(c, "calls still open where a thread's records "
		               "end (closed at its last time stamp)");
	while (depth) {
		depth--;
		if (!c->nonly || in[depth])
			chrome_call(c, th, addrs[depth], start[depth], last);
	}
	if (th->truncated) /* an instant event: Perfetto shows where */
		chrome_event(
		        c,
		        json_pack("{s:s, s:s, s:s, s:f, s:i, s:i, "
		                  "s:{s:I}}",
		                  "name",
		                  "benchfarm: buffer full, events after "
		                  "this were dropped",
		                  "ph", "i", "s", "t", "ts",
		                  bf_trace_offset_ns(c->t, th->truncated_at) /
		                          1000,
		                  "pid", (int)c->t->pid, "tid", (int)th->id,
		                  "args", "dropped", (json_int_t)th->dropped));
	free(start);
	free(addrs);
	free(in);
}

/*
 * The traced program's file name: the base name of the first file in
 * its memory map (the executable, mapped first), scrubbed to UTF-8;
 * "pid N" without one.
 */
static char *program_name(const struct bf_trace *t)
{
	const char *line = t->maps ? t->maps : "";
	char *name;

	while (*line) {
		const char *end = line + strcspn(line, "\n"), *base = NULL;

		for (const char *p = line; p < end; p++)
			if (*p == '/')
				base = p + 1;
		if (base && base < end)
			return bf_utf8_scrub(
			        bf_xstrndup(base, (size_t)(end - base)));
		line = *end ? end + 1 : end;
	}
	name = bf_xmalloc(32);
	snprintf(name, 32, "pid %u", (unsigned)t->pid);
	return name;
}

/* The metadata events: the process's name, each thread's and order. */
static void chrome_names(struct chrome *c)
{
	char *prog = program_name(c->t), label[32];

	chrome_event(c,
	             json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name",
	                       "process_name", "ph", "M", "pid", (int)c->t->pid,
	                       "tid", 0, "args", "name", prog));
	for (size_t i = 0; i < c->t->nthreads; i++) {
		int tid = (int)c->t->threads[i].id;

		snprintf(label, sizeof(label), "thread-%d", tid);
		chrome_event(c, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}",
		                          "name", "thread_name", "ph", "M",
		                          "pid", (int)c->t->pid, "tid", tid,
		                          "args", "name", label));
		chrome_event(c, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}}",
		                          "name", "thread_sort_index", "ph",
		                          "M", "pid", (int)c->t->pid, "tid",
		                          tid, "args", "sort_index", tid));
	}
	free(prog);
}

/* Chrome's Trace Event format: one complete ("X") event per call. */
int bf_trace_chrome(FILE *out, const struct bf_trace *t,
                    struct bf_symbols *syms, const char *const *only,
                    size_t nonly, char *why, size_t why_len)
{
	struct chrome c = { out, t, syms, only, nonly, true, why, why_len };

	*why = '\0';
	fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
	chrome_names(&c);
	for (size_t i = 0; i < t->nthreads; i++)
		chrome_thread(&c, &t->threads[i]);
	chrome_end(out, t, syms, why);
	return 0;
}
