/*
 * The default detector on the held-in corpus of real histories
 * (tests/data/histories/, its README says where each came from): every
 * documented step of 10% or more is found at its commit, and no series
 * has more than one alert per 100 commits away from its documented
 * steps (a series under 100 commits: none). Held in: the corpus is also
 * what pooled's defaults were chosen on, so this guards them against
 * change rather than proving them on new data.
 */
#include <stdio.h>
#include <stdlib.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "benchfarm/stats.h"
#include "corpus.h"
#include "unit/testutil.h"

static const char *const files[] = {
	"tests/data/histories/lz4.hist",
	"tests/data/histories/xxhash.hist",
};

static void load(struct hc_corpus *c)
{
	char err[512];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int rc = hc_load(c, files[i], err, sizeof(err));

		if (rc)
			print_error("%s\n", err);
		assert_int_equal(rc, 0);
	}
}

static void test_corpus__default_finds_every_documented_step(void **state)
{
	struct hc_corpus c = { NULL, 0 };
	struct bf_detect_params p;
	size_t steps = 0;

	(void)state;
	load(&c);
	bf_detect_params_default(&p, BF_DETECT_POOLED);
	for (size_t i = 0; i < c.n; i++) {
		struct hc_score sc;

		assert_int_equal(hc_score(&sc, &c.s[i], &p), 0);
		if (sc.exact != c.s[i].nsteps ||
		    sc.false_alerts * 100 > c.s[i].n)
			print_error("%s: %zu of %zu steps at their commit, %zu "
			            "false alerts in %zu commits\n",
			            c.s[i].name, sc.exact, c.s[i].nsteps,
			            sc.false_alerts, c.s[i].n);
		assert_int_equal(sc.exact, c.s[i].nsteps);
		/* at most one per 100 commits: none below 100 */
		assert_true(sc.false_alerts * 100 <= c.s[i].n);
		steps += c.s[i].nsteps;
	}
	assert_true(c.n >= 4);
	assert_true(steps >= 2);
	hc_release(&c);
}

static void test_corpus__steps_near_the_head(void **state)
{
	/*
	 * Each documented step as it lands: the series cut 3 to 12 commits
	 * after it (its own commit counted). pooled names it at its commit
	 * from 3 on, by the shorter window's stricter threshold; jetpack
	 * cannot before 5, its WIDTH.
	 */
	struct hc_corpus c = { NULL, 0 };
	struct bf_detect_params p, jp;
	struct bf_err err = { 0 };

	(void)state;
	load(&c);
	bf_detect_params_default(&p, BF_DETECT_POOLED);
	bf_detect_params_default(&jp, BF_DETECT_JETPACK);
	for (size_t i = 0; i < c.n; i++) {
		const struct hc_series *s = &c.s[i];

		for (size_t j = 0; j < s->nsteps; j++) {
			for (size_t k = 3; k <= 12; k++) {
				struct bf_change *ch = NULL;
				size_t nch = 0, hits = 0;

				assert_int_equal(bf_detect_series_reps(
				                         &ch, &nch, &p, s->v,
				                         s->off, s->step[j] + k,
				                         &err),
				                 0);
				for (size_t a = 0; a < nch; a++)
					hits += ch[a].index == s->step[j];
				assert_int_equal(hits, 1);
				free(ch);
				assert_int_equal(bf_detect_series_reps(
				                         &ch, &nch, &jp, s->v,
				                         s->off, s->step[j] + 4,
				                         &err),
				                 0);
				for (size_t a = 0; a < nch; a++)
					assert_true(ch[a].index != s->step[j]);
				free(ch);
			}
		}
	}
	hc_release(&c);
}

static void test_corpus__jetpack_is_unchanged(void **state)
{
	/*
	 * jetpack by name reads each commit's median as before: the same
	 * alerts as bf_detect_series on the medians.
	 */
	struct hc_corpus c = { NULL, 0 };
	struct bf_detect_params p;

	(void)state;
	load(&c);
	bf_detect_params_default(&p, BF_DETECT_JETPACK);
	for (size_t i = 0; i < c.n; i++) {
		const struct hc_series *s = &c.s[i];
		double *x = calloc(s->n + 1, sizeof(*x));
		struct bf_change *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		struct bf_err err = { 0 };

		for (size_t k = 0; k < s->n; k++)
			x[k] = bf_stats_median(s->v + s->off[k],
			                       s->off[k + 1] - s->off[k]);
		assert_int_equal(bf_detect_series_reps(&a, &na, &p, s->v,
		                                       s->off, s->n, &err),
		                 0);
		assert_int_equal(bf_detect_series(&b, &nb, &p, x, s->n, &err),
		                 0);
		assert_int_equal(na, nb);
		for (size_t k = 0; k < na; k++) {
			assert_int_equal(a[k].index, b[k].index);
			assert_true(a[k].score == b[k].score);
		}
		free(a);
		free(b);
		free(x);
	}
	hc_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		        test_corpus__default_finds_every_documented_step),
		cmocka_unit_test(test_corpus__steps_near_the_head),
		cmocka_unit_test(test_corpus__jetpack_is_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
