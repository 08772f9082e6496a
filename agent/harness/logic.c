#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Jetpack's WarmupManager (reference section 1), in 32-bit floats. */

void bf_warmup_init(struct bf_warmup *w)
{
	memset(w, 0, sizeof(*w));
}

bool bf_warmup_add(struct bf_warmup *w, uint64_t d_ns)
{
	float ratio;

	w->iterations++;
	w->total_ns += d_ns;
	w->last_ns = d_ns;
	if (w->iterations == 1) {
		w->fast = w->slow = (float)d_ns;
		return false;
	}
	w->fast = BF_WARMUP_FAST_RATIO * (float)d_ns +
	          (1 - BF_WARMUP_FAST_RATIO) * w->fast;
	w->slow = BF_WARMUP_SLOW_RATIO * (float)d_ns +
	          (1 - BF_WARMUP_SLOW_RATIO) * w->slow;
	ratio = w->slow > 0 ? w->fast / w->slow : 1;
	if (ratio > 1 - BF_WARMUP_THRESHOLD && ratio < 1 + BF_WARMUP_THRESHOLD)
		w->similar++;
	else
		w->similar = 0;
	w->done = w->iterations >= BF_WARMUP_MIN_ITERATIONS &&
	          w->total_ns >= BF_WARMUP_MIN_DURATION_NS &&
	          (w->similar > BF_WARMUP_MIN_SIMILAR ||
	           w->total_ns >= BF_WARMUP_MAX_DURATION_NS);
	return w->done;
}

uint64_t bf_loop_iterations(uint64_t target_ns, uint64_t estimate_ns)
{
	uint64_t n = target_ns / (estimate_ns ? estimate_ns : 1);

	if (n < BF_ITERATIONS_MIN)
		return BF_ITERATIONS_MIN;
	return n > BF_ITERATIONS_MAX ? BF_ITERATIONS_MAX : n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Jetpack's percentile (reference section 2): linear between ranks. */
static double percentile(const double *sorted, size_t n, double p)
{
	double ideal = p / 100 * (double)(n - 1);
	size_t i = (size_t)floor(ideal);
	double f = ideal - (double)i;

	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] * (1 - f) + sorted[i + 1] * f;
}

void bf_bench_stats(struct bf_bench_stats *s, const double *v, size_t n)
{
	double *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	double sum = 0, ss = 0;

	memset(s, 0, sizeof(*s));
	if (!sorted || !n) {
		free(sorted);
		return;
	}
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	s->cv = s->mean != 0 ? s->stddev / s->mean : 0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = percentile(sorted, n, 50);
	s->p90 = percentile(sorted, n, 90);
	s->p95 = percentile(sorted, n, 95);
	s->p99 = percentile(sorted, n, 99);
	free(sorted);
}

void bf_throttle_init(struct bf_throttle *t, bool enabled, int retries,
                      double sleep_s)
{
	memset(t, 0, sizeof(*t));
	t->enabled = enabled;
	t->retries_left = retries;
	t->sleep_s = sleep_s;
}

void bf_throttle_begin(struct bf_throttle *t, const struct bf_throttle_env *e,
                       int retries)
{
	t->retries_left = retries;
	t->slept_s = 0;
	if (t->enabled && t->baseline_ns <= 0)
		t->baseline_ns = e->measure_work(e->ctx);
}

enum bf_throttle_verdict
bf_throttle_after_phase(struct bf_throttle *t, const struct bf_throttle_env *e)
{
	double work;

	if (!t->enabled || t->baseline_ns <= 0)
		return BF_THROTTLE_KEEP;
	work = e->measure_work(e->ctx);
	if (!(work > BF_THROTTLE_FACTOR * t->baseline_ns))
		return BF_THROTTLE_KEEP;
	if (t->retries_left <= 0) {
		/* budget spent: keep the data, measure a new baseline next */
		t->baseline_ns = 0;
		return BF_THROTTLE_KEEP;
	}
	fprintf(stderr,
	        "benchfarm-bench: thermal throttling detected (workload "
	        "%.0f ns, baseline %.0f ns): sleeping %.0f s\n",
	        work, t->baseline_ns, t->sleep_s);
	e->sleep(e->ctx, t->sleep_s);
	t->slept_s += t->sleep_s;
	t->retries_left--;
	return BF_THROTTLE_REDO;
}

size_t bf_json_escape(char *out, size_t cap, const char *s)
{
	size_t n = 0;

#define PUT(c)                        \
	do {                          \
		if (n + 1 < cap)      \
			out[n] = (c); \
		n++;                  \
	} while (0)
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			PUT('\\');
			PUT((char)c);
		} else if (c < 0x20) {
			char hex[7];

			snprintf(hex, sizeof(hex), "\\u%04x", c);
			for (int k = 0; k < 6; k++)
				PUT(hex[k]);
		} else {
			PUT((char)c);
		}
	}
#undef PUT
	if (cap)
		out[n < cap ? n : cap - 1] = '\0';
	return n;
}
