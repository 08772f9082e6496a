#include "parse/parse.h"

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/index.h"
#include "benchfarm/json.h"

/*
 * What the format parsers share (parse.h's bf_parse__*): the opening of
 * a JSON format, iteration counters, undoing a failed parse, time
 * units. Below the parsers and the dispatcher in parse.c, so that the
 * calls go one way.
 */

static bool is_blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", text[i]) || !text[i])
			return false;
	return true;
}

/* The text of a JSON format parsed into *root, after the input checks. */
static int open_json(json_t **root, const char *text, size_t len,
                     const char *what,
                     const struct bf_parse__json_format *format,
                     struct bf_err *err)
{
	char *fixed = NULL;
	int ret;

	if (len > BF_PARSE_INPUT_MAX)
		return bf_err_set(err, BF_ETOOBIG,
		                  "%s: %zu bytes exceed the limit of %zu bytes",
		                  what, len, BF_PARSE_INPUT_MAX);
	if (is_blank(text, len))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: empty output, expected %s", what,
		                  format->expected);
	if (format->fix)
		fixed = format->fix(text, len);
	ret = bf_json_parse(root, fixed ? fixed : text, len, what, err);
	free(fixed);
	return ret;
}

int bf_parse__json(struct bf_samples *out, const char *text, size_t len,
                   const char *what, const struct bf_parse__json_format *format,
                   void *state, struct bf_err *err)
{
	size_t n0 = out->n;
	json_t *root = NULL;
	int ret = open_json(&root, text, len, what, format, err);

	if (!ret)
		ret = format->doc(state, root, err);
	if (ret)
		bf_parse__samples_truncate(out, n0);
	json_decref(root);
	return ret;
}

/* One slot of the open-addressing table behind struct bf_parse__counter. */
struct bf_parse__slot {
	const char *name; /* borrowed; NULL for an empty slot */
	int count;
};

static struct bf_parse__slot *find_slot(struct bf_parse__slot *v, size_t alloc,
                                        const char *name)
{
	size_t i = bf_hash_str(BF_HASH_INIT, name) & (alloc - 1);

	while (v[i].name && strcmp(v[i].name, name))
		i = (i + 1) & (alloc - 1);
	return &v[i];
}

static void counter_grow(struct bf_parse__counter *c)
{
	size_t alloc = c->alloc ? c->alloc * 2 : 64;
	struct bf_parse__slot *v = bf_xcalloc(alloc, sizeof(*v));

	for (size_t i = 0; i < c->alloc; i++)
		if (c->v[i].name)
			*find_slot(v, alloc, c->v[i].name) = c->v[i];
	free(c->v);
	c->v = v;
	c->alloc = alloc;
}

void bf_parse__counter_release(struct bf_parse__counter *c)
{
	if (!c)
		return;
	BF_FREE(c->v);
	c->alloc = 0;
	c->n = 0;
}

int bf_parse__counter_get(const struct bf_parse__counter *c, const char *name)
{
	if (!c->alloc)
		return 0;
	return find_slot(c->v, c->alloc, name)->count;
}

int bf_parse__counter_next(struct bf_parse__counter *c, const char *name)
{
	struct bf_parse__slot *slot;

	/* Keep the load factor at or below one half. */
	if (2 * (c->n + 1) > c->alloc)
		counter_grow(c);
	slot = find_slot(c->v, c->alloc, name);
	if (!slot->name) {
		slot->name = name;
		c->n++;
	}
	return slot->count++;
}

void bf_parse__samples_truncate(struct bf_samples *s, size_t n)
{
	while (s->n > n) {
		struct bf_sample *x = &s->v[--s->n];

		free(x->benchmark);
		free(x->metric);
		free(x->unit);
	}
}

double bf_parse__ns_per_unit(const char *unit)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {
		{ "ns", 1 },          { "us", 1e3 }, { "\xc2\xb5s", 1e3 },
		{ "\xce\xbcs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	for (size_t i = 0; i < BF_ARRAY_SIZE(units); i++)
		if (!strcmp(units[i].name, unit))
			return units[i].ns;
	return 0;
}
