#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agent/tracer/format.h"
#include "benchfarm/alloc.h"
#include "benchfarm/json.h"

/* fold, top, chrome and svg: what `benchfarm trace` prints. */

/* Folded stacks: "thread-1;main;f;g VALUE", value self ns or calls. */
static void fold_node(FILE *out, const struct bf_tnode *n, struct bf_buf *path,
                      bool calls)
{
	size_t len = path->len;

	if (len)
		bf_buf_addch(path, ';');
	for (const char *p = n->name; *p; p++) /* ';' and ' ' split lines */
		bf_buf_addch(path,
		             *p == ';' || *p == ' ' || *p == '\n' ? '_' : *p);
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
	size_t n;
};

static struct fn *fn_of(struct fns *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return &f->v[i];
	f->v = bf_xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	memset(&f->v[f->n], 0, sizeof(*f->v));
	f->v[f->n].name = name;
	return &f->v[f->n++];
}

static void top_node(struct fns *f, const struct bf_tnode *n)
{
	struct fn *x = fn_of(f, n->name);

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

int bf_trace_top(FILE *out, const struct bf_ttree *tree, size_t n, bool json)
{
	struct fns f = { NULL, 0 };
	double total = tree->root.total_ns > 0 ? tree->root.total_ns : 1;
	json_t *arr = json_array();

	for (size_t t = 0; t < tree->root.nkids; t++)
		for (size_t i = 0; i < tree->root.kids[t]->nkids; i++)
			top_node(&f, tree->root.kids[t]->kids[i]);
	if (f.n)
		qsort(f.v, f.n, sizeof(*f.v), cmp_self);
	if (!json)
		fprintf(out, "%12s %14s %7s %14s %7s  %s\n", "calls",
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
			fprintf(out,
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
		bf_json_print(doc, out);
		json_decref(doc);
	} else {
		json_decref(arr);
		if (tree->partial)
			fprintf(out, "(partial: %s)\n", tree->why);
	}
	free(f.v);
	return 0;
}

/* otherData: whether the events are partial, and why. */
static void chrome_end(FILE *out, const struct bf_trace *t,
                       const struct bf_symbols *syms)
{
	char why[256];
	bool partial = t->partial;
	json_t *other;

	snprintf(why, sizeof(why), "%s", t->why);
	if (!partial)
		partial = bf_symbols_is_partial(syms, why, sizeof(why));
	other = json_pack("{s:b}", "partial", partial);
	if (partial)
		json_object_set_new(other, "partial_reason", json_string(why));
	fprintf(out, "\n], \"otherData\": ");
	bf_json_print(other, out);
	fprintf(out, "}\n");
	json_decref(other);
}

/* Chrome's Trace Event format: one complete ("X") event per call. */
int bf_trace_chrome(FILE *out, const struct bf_trace *t,
                    struct bf_symbols *syms, struct bf_err *err)
{
	(void)err;
	fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
	for (size_t i = 0, first = 1; i < t->nthreads; i++) {
		const struct bf_trace_thread *th = &t->threads[i];
		uint64_t *start = bf_xcalloc(th->n + 1, sizeof(*start));
		uint64_t *addrs = bf_xcalloc(th->n + 1, sizeof(*addrs));
		size_t depth = 0;

		for (size_t k = 0; k < th->n; k++) {
			uint64_t ticks, addr;
			json_t *ev;
			char *text;

			bf_trace_rec(th, k, &ticks, &addr);
			if (!(addr & BF_TRACE_EXIT_BIT)) {
				start[depth] = ticks;
				addrs[depth++] = addr;
				continue;
			}
			addr &= ~BF_TRACE_EXIT_BIT;
			while (depth && addrs[depth - 1] != addr)
				depth--; /* skipped exits: drop those frames */
			if (!depth)
				continue;
			depth--;
			ev = json_pack("{s:s, s:s, s:f, s:f, s:i, s:i}", "name",
			               bf_symbols_name(syms, addr), "ph", "X",
			               "ts",
			               (double)(start[depth] - t->ticks0) *
			                       t->ns_per_tick / 1000,
			               "dur",
			               (double)(ticks - start[depth]) *
			                       t->ns_per_tick / 1000,
			               "pid", (int)t->pid, "tid", (int)th->id);
			text = json_dumps(ev, JSON_COMPACT);
			fprintf(out, "%s%s", first ? "" : ",\n", text);
			first = 0;
			free(text);
			json_decref(ev);
		}
		free(start);
		free(addrs);
	}
	chrome_end(out, t, syms);
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
		else
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

static void svg_node(FILE *out, const struct bf_tnode *n,
                     const struct bf_tnode *base, bool diff, double x,
                     int level, int height, double scale, double total)
{
	double w = n->total_ns * scale, y = (height - level - 1) * FRAME_H,
	       kx = x;
	unsigned r, g, b;
	double change = 0;

	if (w < MIN_PX)
		return;
	if (diff) {
		double before = base ? base->total_ns : 0;

		change = before > 0 ? (n->total_ns - before) / before : 1;
		if (change > 0) { /* slower: red */
			double k = fmin(change / 0.5, 1);

			r = 255, g = b = (unsigned)(255 - 200 * k);
		} else { /* faster: blue */
			double k = fmin(-change / 0.5, 1);

			b = 255, r = g = (unsigned)(255 - 200 * k);
		}
	} else {
		unsigned h = hash(n->name);

		r = 205 + h % 50, g = (h >> 8) % 200, b = (h >> 16) % 55;
	}
	fprintf(out, "<g><title>");
	xml(out, n->name);
	fprintf(out, " (%.0f ns, %.2f%%, %llu call%s", n->total_ns,
	        100 * n->total_ns / total, (unsigned long long)n->calls,
	        n->calls == 1 ? "" : "s");
	if (diff)
		fprintf(out, base ? ", %+.1f%% against the base" : ", new",
		        100 * change);
	fprintf(out,
	        ")</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
	        "height=\"%.1f\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
	        x, y, w, FRAME_H - 1, r, g, b);
	if (w > 30) {
		size_t chars = (size_t)((w - 6) / 7);
		char *label = bf_xstrndup(n->name, chars);

		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3,
		        y + FRAME_H - 5);
		xml(out, label);
		fprintf(out, "</text>");
		free(label);
	}
	fprintf(out, "</g>\n");
	for (size_t i = 0; i < n->nkids; i++) {
		svg_node(out, n->kids[i], match(base, n->kids[i]->name), diff,
		         kx, level + 1, height, scale, total);
		kx += n->kids[i]->total_ns * scale;
	}
}

void bf_trace_svg(FILE *out, const struct bf_ttree *tree,
                  const struct bf_ttree *base, const char *title)
{
	int height = depth_of(&tree->root);
	double total = tree->root.total_ns > 0 ? tree->root.total_ns : 1;
	double scale = (SVG_W - 20) / total;

	fprintf(out,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	        "width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" "
	        "font-size=\"12\">\n<text x=\"10\" y=\"16\">",
	        SVG_W, (height + 2) * FRAME_H + 10);
	xml(out, title);
	if (tree->partial) {
		fprintf(out, " (partial: ");
		xml(out, tree->why);
		fprintf(out, ")");
	}
	fprintf(out, "</text>\n<g transform=\"translate(10, %.0f)\">\n",
	        FRAME_H + 10);
	svg_node(out, &tree->root, base ? &base->root : NULL, base != NULL, 0,
	         0, height, scale, total);
	fprintf(out, "</g>\n</svg>\n");
}
