#include "config/cfg_int.h"

#include <stdio.h>

#include "benchfarm/argv.h"

/*
 * Words from a fixed set (formats, detectors, check ids, ...), and the
 * spelling suggestions for misspelt words and keys.
 */

/* Words longer than this get no suggestion. */
#define SUGGEST_MAX_LEN 64

static const char *scalar(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

/* Optimal string alignment distance; SIZE_MAX when a string is too long. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *tmp;

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = prev[j - 1] + cost;

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		tmp = prev2;
		prev2 = prev;
		prev = cur;
		cur = tmp;
	}
	return prev[lb];
}

/* Keeps the closest candidate that is near enough to be a typo. */
struct near {
	const char *best;
	size_t dist;
};

static void near_try(struct near *nr, const char *s, const char *cand)
{
	size_t d = distance(s, cand);
	size_t longest = strlen(cand) > strlen(s) ? strlen(cand) : strlen(s);

	if (d == 0 || d > 2 || d * 3 > longest)
		return;
	if (!nr->best || d < nr->dist) {
		nr->best = cand;
		nr->dist = d;
	}
}

const char *bf_cfg__suggest(const char *s, const char *const *words)
{
	struct near nr = { NULL, 0 };

	for (; *words; words++)
		near_try(&nr, s, *words);
	return nr.best;
}

/* "a, b or c" from words, plus extra (if not NULL) as the last one. */
static void word_list(char *out, size_t size, const char *const *words,
                      const char *extra)
{
	const char *all[16];
	size_t n = 0, len = 0;

	for (; *words && n < BF_ARRAY_SIZE(all) - 1; words++)
		all[n++] = *words;
	if (extra)
		all[n++] = extra;
	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s",
		                        i == 0      ? ""
		                        : i + 1 < n ? ", "
		                                    : " or ",
		                        all[i]);
}

static int word_error(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const char *const *words,
                      const char *what, const char *extra)
{
	const char *near;
	char list[192];

	if (node->type != YAML_SCALAR_NODE || bf_cfg__is_null(node))
		return bf_cfg__want(ld, node, path, "a word");
	near = bf_cfg__suggest(scalar(node), words);
	if (near)
		return bf_cfg__error(
		        ld, node,
		        "unknown %s '%s' for '%s' (did you mean '%s'?)", what,
		        scalar(node), path, near);
	word_list(list, sizeof(list), words, extra);
	return bf_cfg__error(ld, node, "unknown %s '%s' for '%s' (expected %s)",
	                     what, scalar(node), path, list);
}

static bool find_word(const yaml_node_t *node, const char *const *words,
                      size_t *idx_out)
{
	if (node->type != YAML_SCALAR_NODE || bf_cfg__is_null(node))
		return false;
	for (size_t i = 0; words[i]; i++) {
		if (!strcmp(scalar(node), words[i])) {
			*idx_out = i;
			return true;
		}
	}
	return false;
}

int bf_cfg__get_word(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     const char *const *words, const char *what,
                     size_t *idx_out)
{
	if (find_word(node, words, idx_out))
		return 0;
	return word_error(ld, node, path, words, what, NULL);
}

static bool is_exec(const char *s)
{
	return !strncmp(s, "exec:", 5) && s[5];
}

int bf_cfg__get_words(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const char *const *words,
                      const char *what, bool exec_ok, struct bf_argv *out)
{
	yaml_node_t *item;
	size_t idx;
	int ret;

	ret = bf_cfg__get_argv(ld, node, path, 0, out);
	for (size_t i = 0; !ret && i < out->argc; i++) {
		item = bf_cfg__item(ld, node, i);
		if (!(exec_ok && is_exec(out->argv[i])) &&
		    !find_word(item, words, &idx))
			ret = word_error(ld, item, path, words, what,
			                 exec_ok ? "exec:NAME" : NULL);
		for (size_t j = 0; !ret && j < i; j++) {
			if (!strcmp(out->argv[i], out->argv[j]))
				ret = bf_cfg__error(
				        ld, item,
				        "%s '%s' is listed twice in '%s'", what,
				        out->argv[i], path);
		}
	}
	return ret;
}
