#include "config/cfg_int.h"

#include <stdio.h>

#include "benchfarm/argv.h"
#include "benchfarm/err.h"

/*
 * Loading a mapping by its table: each key's value by its field's type,
 * unknown keys (with a suggestion), missing required ones.
 */

static int load_field(struct bf_cfg__ld *ld, const struct bf_cfg__field *f,
                      yaml_node_t *node, void *obj, const char *path)
{
	char *p = (char *)obj + f->off;
	size_t i;
	int ret;

	switch (f->type) {
	case BF_CFG__MAP:
		return bf_cfg__load_map(ld, node, path, f->sub, obj);
	case BF_CFG__FN:
		return f->fn(ld, node, p, path);
	case BF_CFG__WORD:
		ret = bf_cfg__get_word(ld, node, path, f->words, f->what, &i);
		if (!ret)
			*(int *)p = (int)i;
		return ret;
	case BF_CFG__WORDS:
		return bf_cfg__get_words(ld, node, path, f->words, f->what,
		                         f->flags & BF_CFG__EXEC_OK,
		                         (struct bf_argv *)p);
	default:
		return bf_cfg__get_value(ld, f, node, p, path);
	}
}

static int unknown_key(struct bf_cfg__ld *ld, yaml_node_t *key,
                       const char *path, const struct bf_cfg__table *t)
{
	const char *keys[33];
	const char *k = bf_cfg__scalar(key), *near;
	char where[BF_CFG__PATH_SIZE + 8] = "";

	for (size_t i = 0; i < t->n; i++)
		keys[i] = t->fields[i].key;
	keys[t->n] = NULL;
	near = bf_cfg__suggest(k, keys);
	if (*path)
		snprintf(where, sizeof(where), " in '%s'", path);
	if (near)
		return bf_cfg__error(ld, key,
		                     "unknown key '%s'%s (did you mean '%s'?)",
		                     k, where, near);
	return bf_cfg__error(ld, key, "unknown key '%s'%s", k, where);
}

static int check_required(struct bf_cfg__ld *ld, yaml_node_t *node,
                          const char *path, const struct bf_cfg__table *t,
                          uint32_t seen)
{
	const struct bf_cfg__field *f;

	for (size_t i = 0; i < t->n; i++) {
		f = &t->fields[i];
		if (!(f->flags & BF_CFG__REQUIRED) || (seen & (1u << i)))
			continue;
		if (!*path)
			return bf_cfg__error(
			        ld, node, "missing required key '%s'", f->key);
		return bf_cfg__error(ld, node,
		                     "missing required key '%s' in '%s'",
		                     f->key, path);
	}
	return 0;
}

static int load_pair(struct bf_cfg__ld *ld, yaml_node_t *map, size_t i,
                     const char *path, const struct bf_cfg__table *t, void *obj,
                     uint32_t *seen)
{
	yaml_node_t *key = bf_cfg__pair_key(ld, map, i);
	char sub[BF_CFG__PATH_SIZE];

	for (size_t j = 0; j < t->n; j++) {
		if (strcmp(bf_cfg__scalar(key), t->fields[j].key))
			continue;
		*seen |= 1u << j;
		bf_cfg__join(sub, sizeof(sub), path, t->fields[j].key);
		return load_field(ld, &t->fields[j],
		                  bf_cfg__pair_value(ld, map, i), obj, sub);
	}
	return unknown_key(ld, key, path, t);
}

int bf_cfg__load_map(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     const struct bf_cfg__table *t, void *obj)
{
	uint32_t seen = 0;
	int ret = 0;

	if (t->n > 32)
		BF_BUG("table for '%s' has %zu keys", path, t->n);
	if (bf_cfg__is_null(node))
		return check_required(ld, node, path, t, seen);
	if (node->type != YAML_MAPPING_NODE)
		return bf_cfg__want(ld, node, *path ? path : "the config",
		                    "a mapping of keys");
	if ((ret = bf_cfg__check_keys(ld, node, path)))
		return ret;
	/* every key, so that one run names every error (the first returns) */
	for (size_t i = 0; i < bf_cfg__map_size(node); i++) {
		int r = load_pair(ld, node, i, path, t, obj, &seen);

		ret = ret ? ret : r;
	}
	if (check_required(ld, node, path, t, seen) && !ret)
		ret = BF_EINVAL;
	return ret;
}
