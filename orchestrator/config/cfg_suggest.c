#include "config/cfg_int.h"

#include <stdint.h>
#include <string.h>

/*
 * Did-you-mean: the closest of a fixed set of words (keys, formats,
 * detectors, check ids, ...) to a misspelt one.
 */

/* Words longer than this get no suggestion. */
#define SUGGEST_MAX_LEN 64

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
