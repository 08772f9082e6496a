/*
 * go-moremath's two-sided Mann-Whitney U test, for Skia Perf's
 * mannwhitneyu step fit (detect_skia.c): exact with or without ties for
 * small samples, else the normal approximation.
 */
#include "detect_stepfit_int.h"

#include <math.h>

#include "benchfarm/alloc.h"

struct obs {
	double v;
	bool left;
};

static int cmp_obs(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* The pooled sample, sorted, and its tie groups (sizes, in order). */
struct pooled {
	size_t n1, n2, ngroups;
	size_t *t;
	double u1; /* pairs (l, r) with l > r, ties counting 0.5 */
};

static void pool(struct pooled *pl, const float *l, size_t n1, const float *r,
                 size_t n2)
{
	size_t n = n1 + n2, i, j;
	struct obs *o = bf_xcalloc(n, sizeof(*o));
	double r1 = 0;

	for (i = 0; i < n; i++) {
		o[i].v = i < n1 ? (double)l[i] : (double)r[i - n1];
		o[i].left = i < n1;
	}
	qsort(o, n, sizeof(*o), cmp_obs);
	pl->n1 = n1;
	pl->n2 = n2;
	pl->ngroups = 0;
	pl->t = bf_xcalloc(n, sizeof(*pl->t));
	for (i = 0; i < n; i = j) {
		size_t in_left = 0;

		for (j = i; j < n && o[j].v == o[i].v; j++)
			in_left += o[j].left;
		/* ranks i + 1 .. j share their average */
		r1 += (double)(i + 1 + j) / 2 * (double)in_left;
		pl->t[pl->ngroups++] = j - i;
	}
	pl->u1 = r1 - (double)(n1 * (n1 + 1)) / 2;
	free(o);
}

/*
 * The number of ways (tied values told apart) of picking the n1 left
 * values with 2U <= cap2u, by going through the tie groups in order:
 * taking r of a group's t values when a left values came from earlier
 * groups adds 2r(before - a) (each beats the right values before it) plus
 * r(t - r) (ties within the group count a half). Contributions are never
 * negative, so states above cap2u are dropped. Exact Mann-Whitney
 * distribution without ties, Klotz's with them.
 */
static double u_count(const struct pooled *pl, size_t cap2u)
{
	size_t n1 = pl->n1, w = cap2u + 1, before = 0;
	double *c = bf_xcalloc((n1 + 1) * w, sizeof(*c));
	double total = 0;

	c[0] = 1;
	for (size_t g = 0; g < pl->ngroups; before += pl->t[g++]) {
		size_t tg = pl->t[g];

		/* a descending: a + r is already done when it is written */
		for (size_t a = (before < n1 ? before : n1) + 1; a-- > 0;) {
			for (size_t u = 0; u < w; u++) {
				double ways = c[a * w + u], binom = 1;

				for (size_t r = 1;
				     ways != 0 && r <= tg && a + r <= n1; r++) {
					size_t du = 2 * r * (before - a) +
					            r * (tg - r);

					binom = binom * (double)(tg - r + 1) /
					        (double)r;
					if (u + du < w)
						c[(a + r) * w + u + du] +=
						        ways * binom;
				}
			}
		}
	}
	for (size_t u = 0; u < w; u++)
		total += c[n1 * w + u];
	free(c);
	return total;
}

static double choose(size_t n, size_t k)
{
	double c = 1;

	for (size_t i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c;
}

/* Normal approximation with tie and continuity corrections. */
static double mwu_normal_p(const struct pooled *pl)
{
	double t = 0, nn = (double)(pl->n1 + pl->n2);
	double prod = (double)(pl->n1 * pl->n2), mu = prod / 2;
	double sd, numer, z, phi;

	for (size_t g = 0; g < pl->ngroups; g++) {
		double tg = (double)pl->t[g];

		t += tg * tg * tg - tg;
	}
	sd = sqrt(prod * ((nn + 1) - t / (nn * (nn - 1))) / 12);
	numer = pl->u1 - mu;
	numer -= (double)((numer > 0) - (numer < 0)) * 0.5;
	z = numer / sd;
	phi = (1 + erf(z / sqrt(2.0))) / 2;
	return 2 * fmin(phi, 1 - phi);
}

/*
 * go-moremath stats.MannWhitneyUTest(l, r, LocationDiffers) (§1.4): the
 * exact distribution when there are no ties and both samples have at most
 * 50 values, or ties and both at most 25; then p = 1 when U1 == U2, else
 * 2·CDF(min(U1, U2)). Otherwise the normal approximation. Returns false
 * (the test's error) when a sample is empty or every value is equal.
 */
bool bf_skia__mwu_test(double *u1, double *p, const float *l, size_t n1,
                       const float *r, size_t n2)
{
	struct pooled pl;
	bool ok, exact;
	double u2;

	if (!n1 || !n2)
		return false;
	pool(&pl, l, n1, r, n2);
	ok = pl.ngroups > 1;
	exact = pl.ngroups == n1 + n2 ? n1 <= 50 && n2 <= 50
	                              : n1 <= 25 && n2 <= 25;
	*u1 = pl.u1;
	u2 = (double)(n1 * n2) - pl.u1;
	/* every value equal: the test fails (whichever way it goes) */
	if (ok && !exact)
		*p = mwu_normal_p(&pl);
	else if (ok && pl.u1 == u2)
		*p = 1;
	else if (ok)
		*p = 2 * (u_count(&pl, (size_t)llround(2 * fmin(pl.u1, u2))) /
		          choose(n1 + n2, n1));
	free(pl.t);
	return ok;
}
