#include "trace/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/index.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"

/* fold, top and svg: what `benchfarm trace` prints (chrome: trace_chrome.c) */

/* Folded stacks: "thread-1;main;f;g VALUE", value self ns or calls. */
static void fold_node(FILE *out, const struct bf_tnode *n, struct bf_buf *path,
                      bool calls)
{
	size_t len = path->len;
	char *name = bf_text_inert(n->name, 0);

	if (len)
		bf_buf_addch(path, ';');
	for (const char *p = name; *p; p++) /* ';' and ' ' split lines */
		bf_buf_addch(path, *p == ';' || *p == ' ' ? '_' : *p);
	free(name);
	if (calls ? n->calls > 0 : n->self_ns >= 0.5)
		fprintf(out, "%s %llu\n", path->buf,
		        calls ? (unsigned long long)n->calls
		              : (unsigned long long)llround(n->self_ns));
	for (size_t i = 0; i < n->nkids; i++)
		fold_node(out, n->kids[i], path, calls);
	path->len = len;
	if (path->buf)
		path->buf[len] = '\0';
}

void bf_trace_fold(FILE *out, const struct bf_ttree *tree, bool calls)
{
	struct bf_buf path = BF_BUF_INIT;

	for (size_t i = 0; i < tree->root.nkids; i++)
		fold_node(out, tree->root.kids[i], &path, calls);
	bf_buf_release(&path);
}

struct fn {
	const char *name;
	uint64_t calls;
	double incl, self;
	int active; /* on the current path: recursion counts once */
};

struct fns {
	struct fn *v;
	size_t n, cap;
	struct bf_index index; /* by name */
};

static size_t fn_hash(const void *ctx, size_t i)
{
	return bf_hash_str(BF_HASH_INIT, ((const struct fns *)ctx)->v[i].name);
}

static bool fn_is(const void *ctx, size_t i, const void *key)
{
	return !strcmp(((const struct fns *)ctx)->v[i].name, key);
}

/* The entry of the function called name, made when new. */
static struct fn *fn_of(struct fns *f, const char *name)
{
	static const struct bf_index_ops ops = { fn_hash, fn_is };
	size_t *slot =
	        bf_index_slot(&f->index, f->n, bf_hash_str(BF_HASH_INIT, name),
	                      &ops, f, name);

	if (*slot)
		return &f->v[*slot - 1];
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->v = bf_xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	memset(&f->v[f->n], 0, sizeof(*f->v));
	f->v[f->n].name = name;
	*slot = ++f->n;
	return &f->v[f->n - 1];
}

static void top_node(struct fns *f, const struct bf_tnode *n)
{
	struct fn *x;

	if (n->path_only) { /* --only: the way there is not counted */
		for (size_t i = 0; i < n->nkids; i++)
			top_node(f, n->kids[i]);
		return;
	}
	x = fn_of(f, n->name);

	x->calls += n->calls;
	x->self += n->self_ns;
	if (!x->active)
		x->incl += n->total_ns;
	x->active++;
	for (size_t i = 0; i < n->nkids; i++)
		top_node(f, n->kids[i]);
	x = fn_of(f, n->name); /* the array may have moved */
	x->active--;
}

static int cmp_self(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* [{"thread", "at_ns", "dropped"}]: where each truncated thread ends. */
static json_t *cuts_json(const struct bf_ttree *tree)
{
	json_t *a = json_array();

	for (size_t i = 0; i < tree->ncuts; i++)
		json_array_append_new(
		        a, json_pack("{s:s, s:f, s:I}", "thread",
		                     tree->cuts[i].thread->name, "at_ns",
		                     tree->cuts[i].at_ns, "dropped",
		                     (json_int_t)tree->cuts[i].dropped));
	return a;
}

int bf_trace_top(FILE *out, const struct bf_ttree *tree, size_t n, bool json)
{
	struct fns f = { NULL, 0, 0, BF_INDEX_INIT };
	double total = tree->root.total_ns > 0 ? tree->root.total_ns : 1;
	json_t *arr = json_array();

	for (size_t t = 0; t < tree->root.nkids; t++)
		for (size_t i = 0; i < tree->root.kids[t]->nkids; i++)
			top_node(&f, tree->root.kids[t]->kids[i]);
	if (f.n)
		qsort(f.v, f.n, sizeof(*f.v), cmp_self);
	if (!json)
		bf_text_printf(out, "%12s %14s %7s %14s %7s  %s\n", "calls",
		               "inclusive ns", "incl%", "self ns", "self%",
		               "function");
	for (size_t i = 0; i < f.n && (!n || i < n); i++) {
		if (json)
			json_array_append_new(
			        arr, json_pack("{s:s, s:I, s:f, s:f}",
			                       "function", f.v[i].name, "calls",
			                       (json_int_t)f.v[i].calls,
			                       "inclusive_ns", f.v[i].incl,
			                       "self_ns", f.v[i].self));
		else
			bf_text_printf(
			        out,
			        "%12llu %14.0f %6.2f%% %14.0f %6.2f%%  %s\n",
			        (unsigned long long)f.v[i].calls, f.v[i].incl,
			        100 * f.v[i].incl / total, f.v[i].self,
			        100 * f.v[i].self / total, f.v[i].name);
	}
	if (json) {
		json_t *doc = json_pack("{s:f, s:b, s:o}", "total_ns",
		                        tree->root.total_ns, "partial",
		                        tree->partial, "functions", arr);

		if (tree->partial)
			json_object_set_new(doc, "partial_reason",
			                    json_string(tree->why));
		if (tree->ncuts)
			json_object_set_new(doc, "truncated", cuts_json(tree));
		bf_json_print(doc, out);
		json_decref(doc);
	} else {
		json_decref(arr);
		if (tree->partial)
			bf_text_printf(out, "(partial: %s)\n", tree->why);
		for (size_t i = 0; i < tree->ncuts; i++)
			bf_text_printf(
			        out,
			        "(%s truncated %.3f ms into the trace: %llu "
			        "events dropped after)\n",
			        tree->cuts[i].thread->name,
			        tree->cuts[i].at_ns / 1e6,
			        (unsigned long long)tree->cuts[i].dropped);
	}
	free(f.v);
	bf_index_release(&f.index);
	return 0;
}

/* The flame graph, drawn here: one <rect> per node, widths by time. */

#define SVG_W   1200.0
#define FRAME_H 17.0
#define MIN_PX  0.1

static int depth_of(const struct bf_tnode *n)
{
	int d = 0;

	for (size_t i = 0; i < n->nkids; i++) {
		int k = depth_of(n->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
}

static void xml(FILE *out, const char *s)
{
	size_t hidden;
	unsigned cp;

	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', out);
		else if ((hidden = bf_text_hidden_len(s, &cp))) {
			fprintf(out, "\\u{%04X}", cp); /* shown, not obeyed */
			s += hidden - 1;
		} else
			fputc(*s, out);
	}
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static const struct bf_tnode *match(const struct bf_tnode *base,
                                    const char *name)
{
	for (size_t i = 0; base && i < base->nkids; i++)
		if (!strcmp(base->kids[i]->name, name))
			return base->kids[i];
	return NULL;
}

struct svg {
	FILE *out;
	const struct bf_ttree *tree;
	bool diff; /* colour by change against the base */
	int height; /* levels */
	double scale; /* pixels per ns */
	double total; /* ns: 100% */
};

/* n's fill: by name, or in a diff by its change against base (NULL: new). */
static double svg_colour(const struct svg *g, const struct bf_tnode *n,
                         const struct bf_tnode *base, unsigned rgb[3])
{
	double before, change, k;
	unsigned h;

	if (!g->diff) {
		h = hash(n->name);
		rgb[0] = 205 + h % 50, rgb[1] = (h >> 8) % 200;
		rgb[2] = (h >> 16) % 55;
		return 0;
	}
	before = base ? base->total_ns : 0;
	change = before > 0 ? (n->total_ns - before) / before : 1;
	k = fmin(fabs(change) / 0.5, 1);
	if (change > 0) /* slower: red */
		rgb[0] = 255, rgb[1] = rgb[2] = (unsigned)(255 - 200 * k);
	else /* faster: blue */
		rgb[2] = 255, rgb[0] = rgb[1] = (unsigned)(255 - 200 * k);
	return change;
}

static void svg_label(const struct svg *g, const char *name, double x, double y,
                      double w, const struct bf_ttrunc *cut)
{
	char *text;
	size_t chars;

	if (w <= 30)
		return;
	chars = (size_t)((w - 6) / 7);
	text = cut ? bf_xasprintf("%s (truncated)", name) : bf_xstrdup(name);
	if (strlen(text) > chars) {
		/* never inside a character: the names are UTF-8 */
		while (chars && ((unsigned char)text[chars] & 0xc0) == 0x80)
			chars--;
		text[chars] = '\0';
	}
	fprintf(g->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
	xml(g->out, text);
	fprintf(g->out, "</text>");
	free(text);
}

static void svg_node(const struct svg *g, const struct bf_tnode *n,
                     const struct bf_tnode *base, double x, int level)
{
	double w = n->total_ns * g->scale,
	       y = (g->height - level - 1) * FRAME_H;
	const struct bf_ttrunc *cut =
	        level == 1 ? bf_ttree_cut(g->tree, n) : NULL;
	unsigned rgb[3];
	double change;

	if (w < MIN_PX)
		return;
	change = svg_colour(g, n, base, rgb);
	fprintf(g->out, "<g><title>");
	xml(g->out, n->name);
	fprintf(g->out, " (%.0f ns, %.2f%%, ", n->total_ns,
	        100 * n->total_ns / g->total);
	if (n->path_only)
		fprintf(g->out, "the way to --only");
	else
		fprintf(g->out, "%llu call%s", (unsigned long long)n->calls,
		        n->calls == 1 ? "" : "s");
	if (g->diff)
		fprintf(g->out, base ? ", %+.1f%% against the base" : ", new",
		        100 * change);
	if (cut)
		fprintf(g->out,
		        ", truncated %.3f ms into the trace: %llu events "
		        "dropped after",
		        cut->at_ns / 1e6, (unsigned long long)cut->dropped);
	fprintf(g->out,
	        ")</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
	        "height=\"%.1f\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"%s/>",
	        x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2],
	        cut ? " stroke=\"rgb(200,0,0)\" stroke-width=\"2\"" : "");
	svg_label(g, n->name, x, y, w, cut);
	fprintf(g->out, "</g>\n");
	for (size_t i = 0; i < n->nkids; i++) {
		svg_node(g, n->kids[i], match(base, n->kids[i]->name), x,
		         level + 1);
		x += n->kids[i]->total_ns * g->scale;
	}
}

void bf_trace_svg(FILE *out, const struct bf_ttree *tree,
                  const struct bf_ttree *base, const char *title)
{
	struct svg g = { out,
		         tree,
		         base != NULL,
		         depth_of(&tree->root),
		         0,
		         tree->root.total_ns > 0 ? tree->root.total_ns : 1 };

	g.scale = (SVG_W - 20) / g.total;
	fprintf(out,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	        "width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" "
	        "font-size=\"12\">\n<text x=\"10\" y=\"16\">",
	        SVG_W, (g.height + 2) * FRAME_H + 10);
	xml(out, title);
	if (tree->partial) {
		fprintf(out, " (partial: ");
		xml(out, tree->why);
		fprintf(out, ")");
	}
	fprintf(out, "</text>\n<g transform=\"translate(10, %.0f)\">\n",
	        FRAME_H + 10);
	svg_node(&g, &tree->root, base ? &base->root : NULL, 0, 0);
	fprintf(out, "</g>\n</svg>\n");
}
