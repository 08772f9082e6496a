#ifndef BF_INDEX_H
#define BF_INDEX_H

#include <stdbool.h>
#include <stddef.h>

/*
 * An index of the items 0..n-1 of a caller's array by a hash of their
 * keys: open addressing, linear probing, never more than half full. The
 * caller keeps the items and says how to hash them and match a key, so
 * one piece of code serves the symbol table of a trace, its functions
 * and the series of a comparison.
 */
/*
 * FNV-1a over the bytes of s, continuing from h: start from
 * BF_HASH_INIT, chain several keys by passing the last result on.
 */
#define BF_HASH_INIT ((size_t)14695981039346656037ULL)

static inline size_t bf_hash_str(size_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
	return h;
}

struct bf_index {
	size_t *slots; /* an item's index + 1; 0: free */
	size_t nslots; /* 0, or a power of two */
};

#define BF_INDEX_INIT   \
	{               \
		NULL, 0 \
	}

struct bf_index_ops {
	/* the hash of item i's key; ctx is the caller's */
	size_t (*hash)(const void *ctx, size_t i);
	/* whether item i's key is key */
	bool (*is)(const void *ctx, size_t i, const void *key);
};

/*
 * The slot of key, whose hash is h, among n items: the slot of the item
 * that has it (*slot is its index + 1), or the free slot where it goes
 * (*slot is 0: the caller adds its item n and stores n + 1 there). The
 * index grows first (placing items 0..n-1 again) when one more item
 * would make it more than half full. Cannot fail.
 */
size_t *bf_index_slot(struct bf_index *x, size_t n, size_t h,
                      const struct bf_index_ops *ops, const void *ctx,
                      const void *key);

void bf_index_release(struct bf_index *x);

#endif
