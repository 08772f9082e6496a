#ifndef BF_ORCH_TRACE_H
#define BF_ORCH_TRACE_H

/*
 * Reading libbenchfarm_trace files (core/include/benchfarm/trace_format.h) and
 * turning them into call trees: trace_read.c loads and checks a file,
 * trace_sym.c names addresses from the ELF symbol tables of the
 * mappings the file recorded, trace_tree.c builds one call tree per
 * file (threads at the top) that fold, top, chrome, svg and diff render.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"

struct bf_trace_thread {
	uint32_t id; /* 1, 2, ... in the order threads first recorded */
	bool truncated; /* its buffer filled: events after were dropped */
	uint64_t dropped;
	uint64_t truncated_at; /* ticks */
	size_t n;
	const unsigned char *rec; /* n pairs (ticks, addr), in the file */
};

/* Record i of th (the file is not aligned for 8-byte loads). */
static inline void bf_trace_rec(const struct bf_trace_thread *th, size_t i,
                                uint64_t *ticks, uint64_t *addr)
{
	memcpy(ticks, th->rec + 16 * i, 8);
	memcpy(addr, th->rec + 16 * i + 8, 8);
}

/* A loaded ELF object as the traced process saw it (format version 2). */
struct bf_trace_obj {
	uint64_t lo, hi; /* its PT_LOAD segments' span in memory */
	size_t idlen;
	unsigned char id[64]; /* GNU build-id */
};

struct bf_trace {
	uint32_t pid;
	bool partial; /* something was lost: see why */
	char why[256]; /* the first reason it is partial */
	double ns_per_tick;
	uint64_t ticks0;
	const char *maps; /* NUL-terminated copy */
	size_t nobjs;
	struct bf_trace_obj *objs; /* none in version 1 files */
	size_t nthreads;
	struct bf_trace_thread *threads;
	struct bf_buf file; /* the whole file */
};

/* Nanoseconds from the start of tracing to ticks. */
static inline double bf_trace_offset_ns(const struct bf_trace *t,
                                        uint64_t ticks)
{
	return ticks > t->ticks0 ? (double)(ticks - t->ticks0) * t->ns_per_tick
	                         : 0;
}

/* Load path. A damaged thread block keeps its whole records (partial);
 * a bad header is an error naming the file and the byte. */
int bf_trace_load(struct bf_trace *t, const char *path, struct bf_err *err);
void bf_trace_release(struct bf_trace *t);

/*
 * Names of addresses, from the files t's memory map names. t must
 * outlive the result (its maps and objects are read lazily).
 */
struct bf_symbols;
struct bf_symbols *bf_symbols_new(const struct bf_trace *t);
/*
 * The function at addr: its (demangled) name, "FILE+0xOFF" when FILE
 * has no symbol there (stripped, or not the file that was traced), or
 * "0x..." outside every mapped file. Borrowed until bf_symbols_free.
 */
const char *bf_symbols_name(struct bf_symbols *s, uint64_t addr);
/* How many addresses had no symbol (outside every mapping or table). */
size_t bf_symbols_unknown(const struct bf_symbols *s);
/* Whether a name given so far is one of the n names in only (--only). */
bool bf_symbols_has_wanted(const struct bf_symbols *s, const char *const *only,
                           size_t n);
/* How many of those were outside every mapped file. */
size_t bf_symbols_outside(const struct bf_symbols *s);
/*
 * The i-th (from 0) file whose symbols were not used because it is not
 * the file that was traced (another build-id, or another inode when the
 * trace has no build-id for it), as a message; NULL past the last.
 * Borrowed.
 */
const char *bf_symbols_warning(const struct bf_symbols *s, size_t i);
/*
 * Whether some names could not be trusted or found: a file that is not
 * the traced one, or addresses outside every mapped file. Writes the
 * first reason into why (len bytes) when so.
 */
bool bf_symbols_is_partial(const struct bf_symbols *s, char *why, size_t len);
/* Demangle every C++ name seen so far with c++filt, when it exists. */
void bf_symbols_demangle(struct bf_symbols *s);
/*
 * Name every function t enters, then demangle them all at once: what a
 * reader of the whole trace calls first, so that every name it shows or
 * matches against --only is the demangled one.
 */
void bf_symbols_name_trace(struct bf_symbols *s, const struct bf_trace *t);
void bf_symbols_free(struct bf_symbols *s);

/* The call tree. */
struct bf_tnode {
	const char *name; /* borrowed from the symbols */
	uint64_t calls;
	double total_ns; /* inclusive */
	double self_ns;
	struct bf_tnode **kids;
	size_t nkids, cap;
	bool path_only; /* --only: kept as the way to a wanted function */
};

/* Where a thread's buffer filled: nothing after at_ns was recorded. */
struct bf_ttrunc {
	const struct bf_tnode *thread; /* the thread's node in the tree */
	double at_ns; /* since tracing started */
	uint64_t dropped; /* events lost */
};

struct bf_ttree {
	struct bf_tnode root; /* "all"; its children are the threads */
	bool partial;
	char why[256];
	struct bf_symbols *syms;
	struct bf_ttrunc *cuts; /* one per truncated thread */
	size_t ncuts;
	struct bf_tindex *index; /* while building: (parent, name) -> child */
};

/* The truncation of thread node n, or NULL. */
const struct bf_ttrunc *bf_ttree_cut(const struct bf_ttree *tree,
                                     const struct bf_tnode *n);

int bf_ttree_build(struct bf_ttree *tree, const struct bf_trace *t,
                   struct bf_err *err);
void bf_ttree_release(struct bf_ttree *tree);

/*
 * --only: whether name is one of the n names in only ("f", or "ns::f"
 * for the C++ function "ns::f(int)").
 */
bool bf_trace_name_is_wanted(const char *name, const char *const *only,
                             size_t n);
/*
 * Keeps the stacks of tree that pass through a function named in only:
 * the subtrees under each call of one, and the frames above as a path
 * (path_only: no calls or self time, their total what is kept below).
 * How many threads keep something; 0: no function matched.
 */
size_t bf_ttree_only(struct bf_ttree *tree, const char *const *only, size_t n);

/* Renderers. */
void bf_trace_fold(FILE *out, const struct bf_ttree *tree, bool calls);
int bf_trace_top(FILE *out, const struct bf_ttree *tree, size_t n, bool json);
/*
 * only/nonly: --only, events of calls at or under a wanted function.
 * why (why_len bytes, at least 1): "", or what the calls showed partial
 * (an exit without its entry, exits out of order, calls left open).
 */
int bf_trace_chrome(FILE *out, const struct bf_trace *t,
                    struct bf_symbols *syms, const char *const *only,
                    size_t nonly, char *why, size_t why_len);
/* base NULL: a plain flame graph; else the patch coloured by change. */
void bf_trace_svg(FILE *out, const struct bf_ttree *tree,
                  const struct bf_ttree *base, const char *title);

#endif /* BF_ORCH_TRACE_H */
