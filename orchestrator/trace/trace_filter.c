#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

/*
 * trace fold|top|svg|chrome|diff --only FUNC: the stacks that pass
 * through FUNC. Applied when reading, to the names the symbols gave, so
 * it sees every function of every library the trace recorded, however
 * late it was loaded (BENCHFARM_TRACE_ONLY, applied while recording,
 * only knows the mappings present at bf_trace_start).
 */

/*
 * The qualified name in a demangled C++ function's name: after the
 * return type a template function's name starts with ("int
 * ns::twice<int>(int)"), before its parameters; *len its length.
 */
static const char *qualified(const char *name, size_t *len)
{
	const char *start = name, *p;
	int depth = 0;

	for (p = name; *p && !(*p == '(' && depth == 0); p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0)
			start = p + 1;
	}
	*len = (size_t)(p - start);
	return start;
}

/* Just past the template arguments that open at s ('<'). */
static const char *args_end(const char *s)
{
	int depth = 0;

	do {
		depth += *s == '<';
		depth -= *s == '>';
		s++;
	} while (depth > 0 && *s);
	return s;
}

bool bf_trace_name_is_wanted(const char *name, const char *const *only,
                             size_t n)
{
	size_t qlen;
	const char *q = qualified(name, &qlen);

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(only[i]);

		/* "ns::f" also names the C++ function "ns::f(int) const" */
		if (!strncmp(name, only[i], len) &&
		    (name[len] == '\0' || name[len] == '('))
			return true;
		/*
		 * and "ns::f" or "ns::f<int>" the function template "int
		 * ns::f<int>(int)", but "ns::Box" no member of the class
		 * template ns::Box<int> (its arguments end before "::get")
		 */
		if (len <= qlen && !strncmp(q, only[i], len) &&
		    (len == qlen ||
		     (q[len] == '<' && args_end(q + len) == q + qlen)))
			return true;
	}
	return false;
}

static void subtree_free(struct bf_tnode *n)
{
	for (size_t i = 0; i < n->nkids; i++) {
		subtree_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
}

/*
 * Keeps n's subtree when n is wanted (a thread's label never is);
 * else keeps only the children that lead to a wanted function, and n as
 * their path (no calls or self time of its own, total the sum of what
 * is kept). Whether n is kept at all.
 */
static bool prune(struct bf_tnode *n, bool label, const char *const *only,
                  size_t nonly)
{
	size_t kept = 0;

	if (!label && bf_trace_name_is_wanted(n->name, only, nonly))
		return true;
	n->total_ns = 0;
	for (size_t i = 0; i < n->nkids; i++) {
		if (prune(n->kids[i], false, only, nonly)) {
			n->total_ns += n->kids[i]->total_ns;
			n->kids[kept++] = n->kids[i];
		} else {
			subtree_free(n->kids[i]);
			free(n->kids[i]);
		}
	}
	n->nkids = kept;
	n->self_ns = 0;
	n->calls = 0;
	n->path_only = true;
	return kept > 0;
}

/* Forgets the cuts of threads that are gone. */
static void drop_cuts(struct bf_ttree *tree, const struct bf_tnode *th)
{
	size_t k = 0;

	for (size_t i = 0; i < tree->ncuts; i++)
		if (tree->cuts[i].thread != th)
			tree->cuts[k++] = tree->cuts[i];
	tree->ncuts = k;
}

size_t bf_ttree_only(struct bf_ttree *tree, const char *const *only, size_t n)
{
	struct bf_tnode *root = &tree->root;
	size_t kept = 0;

	root->total_ns = 0;
	for (size_t i = 0; i < root->nkids; i++) {
		struct bf_tnode *th = root->kids[i];

		if (prune(th, true, only, n)) {
			root->total_ns += th->total_ns;
			root->kids[kept++] = th;
			continue;
		}
		drop_cuts(tree, th);
		subtree_free(th);
		free((char *)th->name); /* thread labels are the tree's */
		free(th);
	}
	root->nkids = kept;
	return kept;
}
