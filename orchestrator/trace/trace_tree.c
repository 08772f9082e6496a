#include "trace/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/index.h"
#include "benchfarm/json.h"
#include "benchfarm/trace_format.h"
#include "benchfarm/utf8.h"

/*
 * The call tree of a trace: "all", then one node per thread, then the
 * calls as they nested. Each node adds up the calls along the same path
 * (flame-graph style): calls, inclusive and self time. A frame still
 * open when a thread's records end (the buffer filled, or the trace was
 * flushed mid-call) is closed at the thread's last time stamp and the
 * tree is marked partial; an exit without its entry is skipped, also
 * marked.
 */

/*
 * The children of every node, found by (parent, name) in one hash table
 * while the tree is built: a node with thousands of callees (a main that
 * calls 3,000 functions) must not cost a scan of them per call.
 */
struct bf_tindex {
	struct islot {
		const struct bf_tnode *parent;
		struct bf_tnode *node; /* NULL: free */
		size_t hash;
	} * v;
	size_t cap, n; /* cap a power of two, n <= cap / 2 */
};

static size_t name_hash(const struct bf_tnode *parent, const char *name)
{
	size_t h = bf_hash_str(BF_HASH_INIT ^ (size_t)(uintptr_t)parent, name);

	return h ^ (h >> 29);
}

static struct islot *islot_of(struct bf_tindex *x,
                              const struct bf_tnode *parent, const char *name,
                              size_t h)
{
	size_t i = h & (x->cap - 1);

	while (x->v[i].node && (x->v[i].hash != h || x->v[i].parent != parent ||
	                        strcmp(x->v[i].node->name, name)))
		i = (i + 1) & (x->cap - 1);
	return &x->v[i];
}

static void index_grow(struct bf_tindex *x)
{
	struct islot *old = x->v;
	size_t ocap = x->cap;

	x->cap = x->cap ? 2 * x->cap : 1024;
	x->v = bf_xcalloc(x->cap, sizeof(*x->v));
	for (size_t i = 0; i < ocap; i++)
		if (old[i].node)
			*islot_of(x, old[i].parent, old[i].node->name,
			          old[i].hash) = old[i];
	free(old);
}

/* n's child called name, made when new (name is borrowed). */
static struct bf_tnode *child(struct bf_ttree *tree, struct bf_tnode *n,
                              const char *name)
{
	struct bf_tindex *x = tree->index;
	size_t h = name_hash(n, name);
	struct islot *slot;

	if (2 * (x->n + 1) > x->cap)
		index_grow(x);
	slot = islot_of(x, n, name, h);
	if (slot->node)
		return slot->node;
	if (n->nkids == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 4;
		n->kids = bf_xrealloc(n->kids, n->cap * sizeof(*n->kids));
	}
	n->kids[n->nkids] = bf_xcalloc(1, sizeof(struct bf_tnode));
	n->kids[n->nkids]->name = name;
	slot->parent = n;
	slot->node = n->kids[n->nkids];
	slot->hash = h;
	x->n++;
	return n->kids[n->nkids++];
}

static void mark(struct bf_ttree *tree, const char *why)
{
	if (!tree->partial) {
		snprintf(tree->why, sizeof(tree->why), "%s", why);
		/* a cut may split a character: JSON and XML want UTF-8 */
		bf_utf8_scrub(tree->why);
	}
	tree->partial = true;
}

/*
 * Calls nested deeper than this are not nodes of their own: their time
 * is the self time of the deepest kept frame, and the tree is marked
 * partial. Every walker of the tree (fold, top, svg, --only, freeing)
 * recurses once per level, so an unbounded recursion in the traced
 * program (or a damaged file of entries without exits) would otherwise
 * overflow the reader's stack; and no flame graph shows 2,000 levels.
 */
#define MAX_DEPTH 2000

struct frame {
	struct bf_tnode *node; /* NULL: below MAX_DEPTH, not a node */
	uint64_t addr, start, kids_ticks;
};

/* A frame ends at ticks: its time goes to its node and its parent. */
static void close_frame(struct frame *st, size_t depth, uint64_t ticks,
                        double ns_per_tick)
{
	struct frame *f = &st[depth];
	uint64_t dur = ticks - f->start;

	if (!f->node)
		return; /* its time stays the kept parent's self time */
	f->node->total_ns += (double)dur * ns_per_tick;
	f->node->self_ns += (double)(dur - f->kids_ticks) * ns_per_tick;
	if (depth)
		st[depth - 1].kids_ticks += dur;
}

static void thread_tree(struct bf_ttree *tree, const struct bf_trace *t,
                        const struct bf_trace_thread *th, struct bf_tnode *top)
{
	struct frame *st = bf_xcalloc(th->n + 1, sizeof(*st));
	size_t depth = 0;
	uint64_t first = 0, last = 0;

	for (size_t i = 0; i < th->n; i++) {
		uint64_t ticks, addr;

		bf_trace_rec(th, i, &ticks, &addr);
		if (!i)
			first = ticks;
		if (ticks < last) {
			mark(tree, "time stamps go backwards (a damaged file, "
			           "or a thread that moved between CPUs with "
			           "unsynchronised counters)");
			ticks = last;
		}
		last = ticks;
		if (!(addr & BF_TRACE_EXIT_BIT)) {
			struct bf_tnode *parent =
			        depth ? st[depth - 1].node : top;

			if (depth >= MAX_DEPTH) {
				st[depth].node = NULL;
				mark(tree,
				     "call stacks deeper than 2000 frames "
				     "(deeper calls are the self time of "
				     "the 2000th)");
			} else {
				st[depth].node = child(
				        tree, parent,
				        bf_symbols_name(tree->syms, addr));
				st[depth].node->calls++;
			}
			st[depth].addr = addr;
			st[depth].start = ticks;
			st[depth].kids_ticks = 0;
			depth++;
			continue;
		}
		addr &= ~BF_TRACE_EXIT_BIT;
		if (!depth || st[depth - 1].addr != addr) {
			size_t d = depth;

			while (d && st[d - 1].addr != addr)
				d--;
			if (!d) {
				mark(tree, "an exit without its entry (tracing "
				           "started inside a call)");
				continue;
			}
			mark(tree, "exits out of order (a longjmp or an "
			           "exception skipped some)");
			while (depth > d) /* close the skipped frames here */
				close_frame(st, --depth, ticks, t->ns_per_tick);
		}
		close_frame(st, --depth, ticks, t->ns_per_tick);
	}
	if (depth)
		mark(tree, "calls still open where a thread's records end "
		           "(closed at its last time stamp)");
	while (depth)
		close_frame(st, --depth, last, t->ns_per_tick);
	top->total_ns = (double)(last - first) * t->ns_per_tick;
	top->self_ns = top->total_ns;
	for (size_t i = 0; i < top->nkids; i++)
		top->self_ns -= top->kids[i]->total_ns;
	if (top->self_ns < 0)
		top->self_ns = 0;
	top->calls = 1;
	free(st);
}

static void add_cut(struct bf_ttree *tree, const struct bf_tnode *top,
                    const struct bf_trace *t, const struct bf_trace_thread *th)
{
	tree->cuts = bf_xrealloc(tree->cuts,
	                         (tree->ncuts + 1) * sizeof(*tree->cuts));
	tree->cuts[tree->ncuts].thread = top;
	tree->cuts[tree->ncuts].at_ns = bf_trace_offset_ns(t, th->truncated_at);
	tree->cuts[tree->ncuts].dropped = th->dropped;
	tree->ncuts++;
}

const struct bf_ttrunc *bf_ttree_cut(const struct bf_ttree *tree,
                                     const struct bf_tnode *n)
{
	for (size_t i = 0; i < tree->ncuts; i++)
		if (tree->cuts[i].thread == n)
			return &tree->cuts[i];
	return NULL;
}

int bf_ttree_build(struct bf_ttree *tree, const struct bf_trace *t,
                   struct bf_err *err)
{
	char why[256];

	(void)err;
	memset(tree, 0, sizeof(*tree));
	tree->root.name = "all";
	tree->syms = bf_symbols_new(t);
	tree->index = bf_xcalloc(1, sizeof(*tree->index));
	if (t->partial)
		mark(tree, t->why);
	bf_symbols_name_trace(tree->syms, t);
	if (bf_symbols_is_partial(tree->syms, why, sizeof(why)))
		mark(tree, why);
	for (size_t i = 0; i < t->nthreads; i++) {
		char label[32];
		struct bf_tnode *top;

		snprintf(label, sizeof(label), "thread-%u", t->threads[i].id);
		top = child(tree, &tree->root, label);
		if (top->name == label) /* new: the tree owns its label */
			top->name = bf_xstrdup(label);

		thread_tree(tree, t, &t->threads[i], top);
		tree->root.total_ns += top->total_ns;
		if (t->threads[i].truncated)
			add_cut(tree, top, t, &t->threads[i]);
	}
	tree->root.calls = 1;
	free(tree->index->v);
	BF_FREE(tree->index);
	return 0;
}

static void node_free(struct bf_tnode *n, int depth)
{
	for (size_t i = 0; i < n->nkids; i++) {
		node_free(n->kids[i], depth + 1);
		if (depth == 0)
			free((char *)n->kids[i]->name); /* thread labels */
		free(n->kids[i]);
	}
	free(n->kids);
}

void bf_ttree_release(struct bf_ttree *tree)
{
	node_free(&tree->root, 0);
	bf_symbols_free(tree->syms);
	free(tree->cuts);
	memset(tree, 0, sizeof(*tree));
}
