#include "benchfarm/index.h"

#include <stdlib.h>

#include "benchfarm/alloc.h"

/* The first slot of h that is free or holds key. */
static size_t *probe(const struct bf_index *x, size_t h,
                     const struct bf_index_ops *ops, const void *ctx,
                     const void *key)
{
	size_t i = h & (x->nslots - 1);

	while (x->slots[i] && !ops->is(ctx, x->slots[i] - 1, key))
		i = (i + 1) & (x->nslots - 1);
	return &x->slots[i];
}

/* The free slot for item i, whose key is in no other slot. */
static size_t *free_slot(const struct bf_index *x, size_t h)
{
	size_t i = h & (x->nslots - 1);

	while (x->slots[i])
		i = (i + 1) & (x->nslots - 1);
	return &x->slots[i];
}

size_t *bf_index_slot(struct bf_index *x, size_t n, size_t h,
                      const struct bf_index_ops *ops, const void *ctx,
                      const void *key)
{
	if (2 * (n + 1) > x->nslots) {
		size_t want = x->nslots ? 2 * x->nslots : 64;

		while (2 * (n + 1) > want)
			want *= 2;
		free(x->slots);
		x->nslots = want;
		x->slots = bf_xcalloc(x->nslots, sizeof(*x->slots));
		for (size_t i = 0; i < n; i++)
			*free_slot(x, ops->hash(ctx, i)) = i + 1;
	}
	return probe(x, h, ops, ctx, key);
}

void bf_index_release(struct bf_index *x)
{
	free(x->slots);
	x->slots = NULL;
	x->nslots = 0;
}
