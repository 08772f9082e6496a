#include "benchfarm/stats.h"

#include <math.h>

#include "benchfarm/alloc.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = bf_xmalloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/*
 * Reorder a so that a[k] holds the value it would have after sorting,
 * with no larger value before it and no smaller one after it (Wirth's
 * selection, expected linear time).
 */
static double select_kth(double *a, size_t n, size_t k)
{
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (l < r) {
		double pivot = a[kk];
		ptrdiff_t i = l, j = r;

		do {
			while (a[i] < pivot)
				i++;
			while (pivot < a[j])
				j--;
			if (i <= j) {
				double t = a[i];

				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return a[kk];
}

double bf_stats_mid(double a, double b)
{
	double m = (a + b) / 2;

	/*
	 * (a + b) / 2 where the sum is finite (the same bits as ever); the
	 * halves' sum where it is not: halving is exact for such values.
	 */
	if (isfinite(m) || !isfinite(a) || !isfinite(b))
		return m;
	return a / 2 + b / 2;
}

double bf_stats_median_inplace(double *x, size_t n)
{
	double hi, lo;

	if (n == 0)
		return NAN;
	hi = select_kth(x, n, n / 2);
	if (n % 2)
		return hi;
	/* x[0 .. n/2 - 1] now holds the lower half; its maximum is next. */
	lo = x[0];
	for (size_t i = 1; i < n / 2; i++)
		if (x[i] > lo)
			lo = x[i];
	return bf_stats_mid(lo, hi);
}

double bf_stats_median(const double *x, size_t n)
{
	double *s, m;

	if (n == 0)
		return NAN;
	s = bf_xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	m = bf_stats_median_inplace(s, n);
	free(s);
	return m;
}

double bf_stats_mean(const double *x, size_t n)
{
	double sum = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	if (isfinite(sum))
		return sum / (double)n;
	/* finite values whose sum overflows: a running mean cannot */
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (x[i] - sum) / (double)(i + 1);
	return sum;
}

double bf_stats_stddev(const double *x, size_t n)
{
	double mean, ss = 0, scale;

	if (n == 0)
		return NAN;
	if (n == 1)
		return 0;
	mean = bf_stats_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	if (isfinite(ss) || !isfinite(mean))
		return sqrt(ss / (double)(n - 1));
	/* squares past DBL_MAX (values near it): scaled by the widest */
	scale = 0;
	for (size_t i = 0; i < n; i++)
		scale = fmax(scale, fabs(x[i] - mean));
	ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += ((x[i] - mean) / scale) * ((x[i] - mean) / scale);
	return scale * sqrt(ss / (double)(n - 1));
}

double bf_stats_cv(const double *x, size_t n)
{
	double mean = bf_stats_mean(x, n);

	if (n == 0 || mean == 0)
		return NAN;
	return bf_stats_stddev(x, n) / mean;
}

double bf_stats_min(const double *x, size_t n)
{
	double m;

	if (n == 0)
		return NAN;
	m = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] < m)
			m = x[i];
	return m;
}

double bf_stats_max(const double *x, size_t n)
{
	double m;

	if (n == 0)
		return NAN;
	m = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] > m)
			m = x[i];
	return m;
}

double bf_stats_mad(const double *x, size_t n)
{
	double *d, med, mad;

	if (n == 0)
		return NAN;
	med = bf_stats_median(x, n);
	d = bf_xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	mad = bf_stats_median_inplace(d, n);
	free(d);
	return mad;
}

double bf_stats_mad_scaled(const double *x, size_t n)
{
	return 1.4826 * bf_stats_mad(x, n);
}

/* numpy's "linear" method on sorted data: h = (n - 1) q / 100. */
static double percentile_sorted(const double *s, size_t n, double q)
{
	double h, t, a, b;
	size_t lo;

	if (n == 0 || !(q >= 0 && q <= 100))
		return NAN;
	h = (double)(n - 1) * (q / 100);
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	t = h - (double)lo;
	a = s[lo];
	b = s[lo + 1];
	/* b - a overflows only for signs apart: weigh each end instead */
	if (!isfinite(b - a))
		return a * (1 - t) + b * t;
	/* numpy's _lerp: exact at both ends, monotone in between */
	return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;
}

double bf_stats_percentile(const double *x, size_t n, double q)
{
	double *s, v;

	if (n == 0 || !(q >= 0 && q <= 100))
		return NAN;
	s = sorted_copy(x, n);
	v = percentile_sorted(s, n, q);
	free(s);
	return v;
}

void bf_summary_compute(struct bf_summary *out, const double *x, size_t n)
{
	double *s;

	out->n = n;
	if (n == 0) {
		out->min = out->max = out->mean = out->stddev = NAN;
		out->cv = out->median = out->mad = out->p05 = out->p95 = NAN;
		return;
	}
	s = sorted_copy(x, n);
	out->min = s[0];
	out->max = s[n - 1];
	out->mean = bf_stats_mean(x, n);
	out->stddev = bf_stats_stddev(x, n);
	out->cv = out->mean == 0 ? NAN : out->stddev / out->mean;
	out->median = n % 2 ? s[n / 2] : bf_stats_mid(s[n / 2 - 1], s[n / 2]);
	out->p05 = percentile_sorted(s, n, 5);
	out->p95 = percentile_sorted(s, n, 95);
	free(s);
	out->mad = bf_stats_mad(x, n);
}

/* splitmix64, used only to expand a seed into xoshiro state. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void bf_rng_seed(struct bf_rng *rng, uint64_t seed)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(rng->s); i++)
		rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t bf_rng_next_u64(struct bf_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double bf_rng_uniform(struct bf_rng *rng)
{
	return (double)(bf_rng_next_u64(rng) >> 11) * 0x1.0p-53;
}

uint64_t bf_rng_below(struct bf_rng *rng, uint64_t bound)
{
	uint64_t threshold, r;

	if (bound == 0)
		BF_BUG("bf_rng_below: bound is 0");
	/* Reject the first 2^64 mod bound values so that r % bound is fair. */
	threshold = (0 - bound) % bound;
	do {
		r = bf_rng_next_u64(rng);
	} while (r < threshold);
	return r % bound;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

void bf_stats_bh_adjust(double *adjusted_out, const double *p, size_t n)
{
	struct pidx *v;
	size_t m = 0;
	double run = 1;

	if (n == 0)
		return;
	v = bf_xmalloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		v[m].p = p[i];
		v[m].i = i;
		m++;
	}
	qsort(v, m, sizeof(*v), cmp_pidx);
	/* Step up from the largest p, keeping a running minimum. */
	for (size_t k = m; k > 0; k--) {
		double q = v[k - 1].p * (double)m / (double)k;

		if (q < run)
			run = q;
		v[k - 1].p = run;
	}
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			adjusted_out[i] = NAN;
	for (size_t k = 0; k < m; k++)
		adjusted_out[v[k].i] = v[k].p;
	free(v);
}
