#include "config/cfg_int.h"

#include <stdio.h>

#include "benchfarm/argv.h"

/*
 * Words from a fixed set (formats, detectors, check ids, ...); a
 * misspelt one gets a suggestion (cfg_suggest.c).
 */

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
	near = bf_cfg__suggest(bf_cfg__scalar(node), words);
	if (near)
		return bf_cfg__error(
		        ld, node,
		        "unknown %s '%s' for '%s' (did you mean '%s'?)", what,
		        bf_cfg__scalar(node), path, near);
	word_list(list, sizeof(list), words, extra);
	return bf_cfg__error(ld, node, "unknown %s '%s' for '%s' (expected %s)",
	                     what, bf_cfg__scalar(node), path, list);
}

static bool find_word(const yaml_node_t *node, const char *const *words,
                      size_t *idx_out)
{
	if (node->type != YAML_SCALAR_NODE || bf_cfg__is_null(node))
		return false;
	for (size_t i = 0; words[i]; i++) {
		if (!strcmp(bf_cfg__scalar(node), words[i])) {
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
