/*
 * The harness's decisions, apart from any real clock: Jetpack's warmup
 * manager, loop sizing, statistics, the throttle controller, and JSON
 * string escaping.
 */
#include "harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/utf8.h"

/* Jetpack's WarmupManager (reference section 1), in 32-bit floats. */

void bf_bench__warmup_init(struct bf_bench_warmup *w)
{
	memset(w, 0, sizeof(*w));
}

bool bf_bench__warmup_add(struct bf_bench_warmup *w, uint64_t d_ns)
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

uint64_t bf_bench__loop_iterations(uint64_t target_ns, uint64_t estimate_ns)
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

void bf_bench__stats(struct bf_bench_stats *s, const double *v, size_t n)
{
	double *sorted;
	double sum = 0, ss = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		fputs("benchfarm-bench: out of memory\n", stderr);
		abort();
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

void bf_bench__throttle_init(struct bf_bench_throttle *t, bool enabled,
                             int retries, uint64_t sleep_ns)
{
	memset(t, 0, sizeof(*t));
	t->enabled = enabled;
	t->retries = t->retries_left = retries;
	t->sleep_ns = sleep_ns;
}

void bf_bench__throttle_begin(struct bf_bench_throttle *t,
                              const struct bf_bench_throttle_env *env)
{
	t->retries_left = t->retries;
	t->slept_ns = 0;
	if (t->enabled && t->baseline_ns <= 0)
		t->baseline_ns = env->measure_work(env->ctx);
}

enum bf_bench_throttle_verdict
bf_bench__throttle_after_phase(struct bf_bench_throttle *t,
                               const struct bf_bench_throttle_env *env,
                               FILE *log)
{
	double work;

	if (!t->enabled || t->baseline_ns <= 0)
		return BF_THROTTLE_KEEP;
	work = env->measure_work(env->ctx);
	if (!(work > BF_THROTTLE_FACTOR * t->baseline_ns))
		return BF_THROTTLE_KEEP;
	if (t->retries_left <= 0) {
		/* budget spent: keep the data, measure a new baseline next */
		if (log)
			fprintf(log,
			        "benchfarm-bench: still throttled after %d sleeps (workload %.0f ns, baseline %.0f ns): keeping the measurements\n",
			        t->retries, work, t->baseline_ns);
		t->baseline_ns = 0;
		return BF_THROTTLE_KEEP;
	}
	if (log)
		fprintf(log,
		        "benchfarm-bench: thermal throttling detected (workload %.0f ns, baseline %.0f ns): sleeping %.0f s\n",
		        work, t->baseline_ns, (double)t->sleep_ns / 1e9);
	env->clock->sleep_ns(env->clock->ctx, t->sleep_ns);
	t->slept_ns += t->sleep_ns;
	t->retries_left--;
	return BF_THROTTLE_REDO;
}

double bf_bench__throttle_work(void *ctx)
{
	static char a[400000], b[400000];
	static volatile float m[16];
	const struct bf_bench_clock *c = ctx;
	double best = 0;

	/* disturb the caches, as Jetpack's measureWorkNs does */
	for (int i = 0; i < 10; i++) {
		memcpy(b, a, sizeof(a));
		a[i] = b[sizeof(b) - 1 - (size_t)i];
	}
	for (int r = 0; r < 20; r++) {
		uint64_t t0 = c->now_ns(c->ctx), t;

		for (int i = 0; i < 10000; i++)
			for (int k = 0; k < 4; k++)
				m[12 + k] += m[k] * 1.0f + m[4 + k] * 2.0f +
				             m[8 + k] * 3.0f;
		t = c->now_ns(c->ctx) - t0;
		if (!r || (double)t / 10000 < best)
			best = (double)t / 10000;
	}
	return best;
}

struct sink {
	char *out;
	size_t cap, n;
};

static void put(struct sink *k, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++, k->n++)
		if (k->n + 1 < k->cap)
			k->out[k->n] = s[i];
}

size_t bf_bench__json_escape(char *out, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct sink k = { out, cap, 0 };
	char hex[8];
	size_t n;

	while (*p) {
		if (*p == '"' || *p == '\\') {
			put(&k, "\\", 1);
			put(&k, (const char *)p++, 1);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(hex, sizeof(hex), "\\u%04x", *p++);
			put(&k, hex, 6);
		} else if ((n = bf_utf8_len(p, SIZE_MAX))) {
			put(&k, (const char *)p, n);
			p += n;
		} else {
			put(&k, "\\ufffd", 6);
			p++;
		}
	}
	if (cap)
		out[k.n < cap ? k.n : cap - 1] = '\0';
	return k.n;
}
