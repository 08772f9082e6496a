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

bool bf_cfg__is_null(const yaml_node_t *node)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < BF_ARRAY_SIZE(nulls); i++) {
		if (!strcmp(bf_cfg__scalar(node), nulls[i]))
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
	s = bf_cfg__scalar(node);
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
		    strlen(bf_cfg__scalar(key)) != key->data.scalar.length)
			return bf_cfg__error(
			        ld, key,
			        "keys in '%s' must be non-empty strings",
			        *path ? path : "the config");
		for (size_t j = 0; j < i; j++) {
			prev = bf_cfg__pair_key(ld, map, j);
			if (strcmp(bf_cfg__scalar(prev), bf_cfg__scalar(key)))
				continue;
			return bf_cfg__error(
			        ld, key,
			        "duplicate key '%s' in '%s' (first at line %zu)",
			        bf_cfg__scalar(key),
			        *path ? path : "the config",
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
		if (k->type == YAML_SCALAR_NODE &&
		    !strcmp(bf_cfg__scalar(k), key))
			return bf_cfg__pair_value(ld, map, i);
	}
	return NULL;
}

int bf_cfg__get_names(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const char *what, size_t *n)
{
	*n = 0;
	if (bf_cfg__is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return bf_cfg__error(ld, node, "'%s' must be a mapping of %s",
		                     path, what);
	*n = bf_cfg__map_size(node);
	return bf_cfg__check_keys(ld, node, path);
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
		        path, what, bf_cfg__scalar(node));
	return 0;
}

int bf_cfg__get_str(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                    char **out)
{
	if (node->type != YAML_SCALAR_NODE || bf_cfg__is_null(node) ||
	    !*bf_cfg__scalar(node))
		return bf_cfg__want(ld, node, path, "a non-empty string");
	if (strlen(bf_cfg__scalar(node)) != node->data.scalar.length)
		return bf_cfg__error(
		        ld, node, "'%s' must not contain NUL characters", path);
	free(*out);
	*out = bf_xstrdup(bf_cfg__scalar(node));
	return 0;
}

static int get_bool(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                    bool *out)
{
	const char *what = "true or false";

	if (plain(ld, node, path, what))
		return BF_EINVAL;
	if (!strcmp(bf_cfg__scalar(node), "true"))
		*out = true;
	else if (!strcmp(bf_cfg__scalar(node), "false"))
		*out = false;
	else
		return bf_cfg__want(ld, node, path, what);
	return 0;
}

enum { NOT_A_NUMBER = 1, OUT_OF_RANGE = 2 };

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

/*
 * text as the INT or DOUBLE field f's value: 0, NOT_A_NUMBER (err, which
 * may be NULL, says why: not a number, out of range), or OUT_OF_RANGE
 * with f's range in words ("between 1 and 100000") in range.
 */
static int parse_number(const struct bf_cfg__field *f, const char *text,
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
		return NOT_A_NUMBER;
	if (in_range(*out, f))
		return 0;
	range_text(range, size, f);
	return OUT_OF_RANGE;
}

/* v into the INT or DOUBLE field f's member at p. */
static void store_number(void *p, const struct bf_cfg__field *f, double v)
{
	if (f->type == BF_CFG__INT)
		*(int *)p = (int)v;
	else
		*(double *)p = v;
}

int bf_cfg__set_number(void *out, const struct bf_cfg__field *f,
                       const char *text, const char *name, struct bf_err *err)
{
	char range[96];
	double v;

	switch (parse_number(f, text, &v, range, sizeof(range), err)) {
	case NOT_A_NUMBER:
		return BF_EINVAL; /* err says why: not a number, out of range */
	case OUT_OF_RANGE:
		if (name)
			return bf_err_set(err, BF_EINVAL,
			                  "must be %s (as %s), not %s", range,
			                  name, text);
		return bf_err_set(err, BF_EINVAL, "must be %s, not %s", range,
		                  text);
	}
	store_number(out, f, v);
	return 0;
}

static int get_number(struct bf_cfg__ld *ld, yaml_node_t *node,
                      const char *path, const struct bf_cfg__field *f,
                      double *out)
{
	const char *what = f->type == BF_CFG__INT ? "an integer" : "a number";
	char range[96];

	if (plain(ld, node, path, what))
		return BF_EINVAL;
	switch (parse_number(f, bf_cfg__scalar(node), out, range, sizeof(range),
	                     NULL)) {
	case 0:
		return 0;
	case NOT_A_NUMBER:
		return bf_cfg__want(ld, node, path, what);
	default:
		return bf_cfg__error(ld, node, "'%s' must be %s, not %s", path,
		                     range, bf_cfg__scalar(node));
	}
}

static int get_u64(struct bf_cfg__ld *ld, yaml_node_t *node, const char *path,
                   uint64_t *out)
{
	const char *what = "a non-negative integer";

	if (plain(ld, node, path, what))
		return BF_EINVAL;
	if (bf_parse_u64(out, bf_cfg__scalar(node), NULL))
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
		    strlen(bf_cfg__scalar(item)) != item->data.scalar.length)
			return bf_cfg__want(ld, item, path,
			                    "a list of strings");
		bf_argv_push(out, bf_cfg__scalar(item));
	}
	return 0;
}

int bf_cfg__get_value(struct bf_cfg__ld *ld, const struct bf_cfg__field *f,
                      yaml_node_t *node, void *p, const char *path)
{
	double v;
	int ret;

	switch (f->type) {
	case BF_CFG__STR:
		return bf_cfg__get_str(ld, node, path, (char **)p);
	case BF_CFG__INT:
	case BF_CFG__DOUBLE:
		ret = get_number(ld, node, path, f, &v);
		if (!ret)
			store_number(p, f, v);
		return ret;
	case BF_CFG__U64:
		return get_u64(ld, node, path, (uint64_t *)p);
	case BF_CFG__BOOL:
		return get_bool(ld, node, path, (bool *)p);
	case BF_CFG__ARGV:
		return bf_cfg__get_argv(ld, node, path, f->flags,
		                        (struct bf_argv *)p);
	default:
		BF_BUG("field '%s' is not a value", f->key);
	}
}
