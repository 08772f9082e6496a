#include "config/cfg_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"

#define DESC_SIZE 64

int bf_cfg__error(struct bf_cfg__ld *ld, const yaml_node_t *node,
                  const char *fmt, ...)
{
	char msg[BF_ERR_SIZE];
	size_t line = node ? node->start_mark.line + 1 : 1;
	size_t col = node ? node->start_mark.column + 1 : 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ld->all)
		bf_argv_pushf(ld->all, "%s:%zu:%zu: %s", ld->name, line, col,
		              msg);
	if (ld->nerrors++)
		return BF_EINVAL; /* err keeps the first */
	return bf_err_set(ld->err, BF_EINVAL, "%s:%zu:%zu: %s", ld->name, line,
	                  col, msg);
}

size_t bf_cfg__map_size(const yaml_node_t *map)
{
	return (size_t)(map->data.mapping.pairs.top -
	                map->data.mapping.pairs.start);
}

yaml_node_t *bf_cfg__pair_key(struct bf_cfg__ld *ld, yaml_node_t *map, size_t i)
{
	return yaml_document_get_node(ld->doc,
	                              map->data.mapping.pairs.start[i].key);
}

yaml_node_t *bf_cfg__pair_value(struct bf_cfg__ld *ld, yaml_node_t *map,
                                size_t i)
{
	return yaml_document_get_node(ld->doc,
	                              map->data.mapping.pairs.start[i].value);
}

size_t bf_cfg__seq_size(const yaml_node_t *seq)
{
	return (size_t)(seq->data.sequence.items.top -
	                seq->data.sequence.items.start);
}

yaml_node_t *bf_cfg__item(struct bf_cfg__ld *ld, yaml_node_t *seq, size_t i)
{
	return yaml_document_get_node(ld->doc,
	                              seq->data.sequence.items.start[i]);
}

static const char *scalar(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

bool bf_cfg__is_null(const yaml_node_t *node)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < BF_ARRAY_SIZE(nulls); i++) {
		if (!strcmp(scalar(node), nulls[i]))
			return true;
	}
	return false;
}

const char *bf_cfg__describe(const yaml_node_t *node, char *buf, size_t size)
{
	size_t n = 0, max = size > 16 ? size - 6 : 0;
	const char *s;

	if (node->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (node->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (bf_cfg__is_null(node))
		return "an empty value";
	/* Quote the value, without controls, cut at a character boundary. */
	s = scalar(node);
	buf[n++] = '\'';
	for (; *s && n < max; s++)
		buf[n++] = (unsigned char)*s < 0x20 ? '?' : *s;
	if (((unsigned char)*s & 0xc0) == 0x80) {
		while (n > 1 && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 1)
			n--;
	}
	if (*s) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

void bf_cfg__join(char *out, size_t size, const char *path, const char *key)
{
	int n = snprintf(out, size, "%s%s%s", path, *path ? "." : "", key);

	if (n < 0 && size)
		out[0] = '\0';
}

int bf_cfg__check_keys(struct bf_cfg__ld *ld, yaml_node_t *map,
                       const char *path)
{
	size_t n = bf_cfg__map_size(map);
	yaml_node_t *key, *prev;

	for (size_t i = 0; i < n; i++) {
		key = bf_cfg__pair_key(ld, map, i);
		if (key->type != YAML_SCALAR_NODE || bf_cfg__is_null(key) ||
		    strlen(scalar(key)) != key->data.scalar.length)
			return bf_cfg__error(
			        ld, key,
			        "keys in '%s' must be non-empty strings",
			        *path ? path : "the config");
		for (size_t j = 0; j < i; j++) {
			prev = bf_cfg__pair_key(ld, map, j);
			if (strcmp(scalar(prev), scalar(key)))
				continue;
			return bf_cfg__error(
			        ld, key,
			        "duplicate key '%s' in '%s' (first at line %zu)",
			        scalar(key), *path ? path : "the config",
			        prev->start_mark.line + 1);
		}
	}
	return 0;
}

yaml_node_t *bf_cfg__find_key(struct bf_cfg__ld *ld, yaml_node_t *map,
                              const char *key)
{
	yaml_node_t *k;

	if (map->type != YAML_MAPPING_NODE)
		return NULL;
	for (size_t i = 0; i < bf_cfg__map_size(map); i++) {
		k = bf_cfg__pair_key(ld, map, i);
		if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key))
			return bf_cfg__pair_value(ld, map, i);
	}
	return NULL;
}

int bf_cfg__want(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                 const char *what)
{
	char desc[DESC_SIZE];

	return bf_cfg__error(ld, node, "'%s' must be %s, not %s", path, what,
	                     bf_cfg__describe(node, desc, sizeof(desc)));
}

/* A plain (unquoted) scalar: numbers and booleans are never quoted. */
static int plain(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                 const char *what)
{
	if (node->type != YAML_SCALAR_NODE || bf_cfg__is_null(node))
		return bf_cfg__want(ld, node, path, what);
	if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return bf_cfg__error(
		        ld, node,
		        "'%s' must be %s, not the quoted string '%s' (remove the quotes)",
		        path, what, scalar(node));
	return 0;
}

int bf_cfg__get_str(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                    char **out)
{
	if (node->type != YAML_SCALAR_NODE || bf_cfg__is_null(node) ||
	    !*scalar(node))
		return bf_cfg__want(ld, node, path, "a non-empty string");
	if (strlen(scalar(node)) != node->data.scalar.length)
		return bf_cfg__error(
		        ld, node, "'%s' must not contain NUL characters", path);
	free(*out);
	*out = bf_xstrdup(scalar(node));
	return 0;
}

static int get_bool(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                    bool *out)
{
	const char *what = "true or false";

	if (plain(ld, node, path, what))
		return BF_EINVAL;
	if (!strcmp(scalar(node), "true"))
		*out = true;
	else if (!strcmp(scalar(node), "false"))
		*out = false;
	else
		return bf_cfg__want(ld, node, path, what);
	return 0;
}

/* "between 2 and 10000", "greater than 0 and less than 1", ... */
static void range_text(char *out, size_t size, const struct bf_cfg__field *f)
{
	bool lo_open = f->flags & BF_CFG__LO_OPEN;
	bool hi_open = f->flags & BF_CFG__HI_OPEN;

	if (isinf(f->hi))
		snprintf(out, size, "%s %.15g",
		         lo_open ? "greater than" : "at least", f->lo);
	else if (!lo_open && !hi_open)
		snprintf(out, size, "between %.15g and %.15g", f->lo, f->hi);
	else
		snprintf(out, size, "%s %.15g and %s %.15g",
		         lo_open ? "greater than" : "at least", f->lo,
		         hi_open ? "less than" : "at most", f->hi);
}

static bool in_range(double v, const struct bf_cfg__field *f)
{
	if (v < f->lo || ((f->flags & BF_CFG__LO_OPEN) && v == f->lo))
		return false;
	if (v > f->hi || ((f->flags & BF_CFG__HI_OPEN) && v == f->hi))
		return false;
	return true;
}

int bf_cfg__parse_number(const struct bf_cfg__field *f, const char *text,
                         double *out, char *range, size_t size,
                         struct bf_err *err)
{
	int64_t i;
	int ret;

	if (f->type == BF_CFG__INT) {
		ret = bf_parse_i64(&i, text, err);
		if (!ret)
			*out = (double)i;
	} else {
		ret = bf_parse_double(out, text, false, err);
	}
	if (ret)
		return BF_CFG__NOT_A_NUMBER;
	if (in_range(*out, f))
		return 0;
	range_text(range, size, f);
	return BF_CFG__OUT_OF_RANGE;
}

static int get_number(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const struct bf_cfg__field *f,
                      double *out)
{
	const char *what = f->type == BF_CFG__INT ? "an integer" : "a number";
	char range[96];

	if (plain(ld, node, path, what))
		return BF_EINVAL;
	switch (bf_cfg__parse_number(f, scalar(node), out, range, sizeof(range),
	                             NULL)) {
	case 0:
		return 0;
	case BF_CFG__NOT_A_NUMBER:
		return bf_cfg__want(ld, node, path, what);
	default:
		return bf_cfg__error(ld, node, "'%s' must be %s, not %s", path,
		                     range, scalar(node));
	}
}

static int get_u64(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                   uint64_t *out)
{
	const char *what = "a non-negative integer";

	if (plain(ld, node, path, what))
		return BF_EINVAL;
	if (bf_parse_u64(out, scalar(node), NULL))
		return bf_cfg__want(ld, node, path, what);
	return 0;
}

int bf_cfg__get_argv(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                     unsigned flags, struct bf_argv *out)
{
	const char *what = "a list of strings, e.g. [make, -C, bench]";
	yaml_node_t *item;
	size_t n;

	if (node->type != YAML_SEQUENCE_NODE)
		return bf_cfg__want(ld, node, path, what);
	n = bf_cfg__seq_size(node);
	if (n == 0 && (flags & BF_CFG__NONEMPTY))
		return bf_cfg__error(ld, node, "'%s' must not be empty", path);
	bf_argv_release(out);
	for (size_t i = 0; i < n; i++) {
		item = bf_cfg__item(ld, node, i);
		if (item->type != YAML_SCALAR_NODE || bf_cfg__is_null(item) ||
		    strlen(scalar(item)) != item->data.scalar.length)
			return bf_cfg__want(ld, item, path,
			                    "a list of strings");
		bf_argv_push(out, scalar(item));
	}
	return 0;
}

static int load_field(struct bf_cfg__ld *ld, const struct bf_cfg__field *f,
                      yaml_node_t *node, void *obj, const char *path)
{
	char *p = (char *)obj + f->off;
	double v;
	int ret;

	switch (f->type) {
	case BF_CFG__STR:
		return bf_cfg__get_str(ld, node, path, (char **)p);
	case BF_CFG__INT:
	case BF_CFG__DOUBLE:
		ret = get_number(ld, node, path, f, &v);
		if (!ret && f->type == BF_CFG__INT)
			*(int *)p = (int)v;
		else if (!ret)
			*(double *)p = v;
		return ret;
	case BF_CFG__U64:
		return get_u64(ld, node, path, (uint64_t *)p);
	case BF_CFG__BOOL:
		return get_bool(ld, node, path, (bool *)p);
	case BF_CFG__ARGV:
		return bf_cfg__get_argv(ld, node, path, f->flags,
		                        (struct bf_argv *)p);
	case BF_CFG__MAP:
		return bf_cfg__load_map(ld, node, path, f->sub, obj);
	case BF_CFG__FN:
		return f->fn(ld, node, obj, path);
	}
	BF_BUG("unknown field type %d", (int)f->type);
}

static int unknown_key(struct bf_cfg__ld *ld, yaml_node_t *key,
                       const char *path, const struct bf_cfg__table *t)
{
	const char *keys[33];
	const char *k = scalar(key), *near;
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
		if (strcmp(scalar(key), t->fields[j].key))
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
