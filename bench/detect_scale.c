/*
 * detect_scale [SERIES] [POINTS] [ALGO...]: times bf_detect_series, the
 * call `benchfarm detect` makes once per series over its whole history,
 * on SERIES deterministic series of POINTS points (default 10,000 x
 * 1,000) for each detector. Every tenth series has a 10% step at a
 * random point; the noise is Gaussian, 2% of the level. Prints one line
 * per detector: name, series, points, seconds, series/s, changes.
 * A detector slower than BUDGET_S on a sample is measured on a subset
 * and extrapolated; the line says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"

#define BUDGET_S 60.0 /* per detector */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static void make_series(double *x, size_t n, size_t s)
{
	double level = 1000 + 10 * (double)(s % 97);
	size_t step = (s % 10 == 0) ? n / 4 + (size_t)(uniform() * n / 2) : n;

	for (size_t i = 0; i < n; i++)
		x[i] = level * (i >= step ? 1.10 : 1.0) * (1 + 0.02 * gauss());
}

int main(int argc, char **argv)
{
	size_t nseries = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	size_t npoints = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	static const char *const all[] = { "jetpack", "skia", "perfherder",
		                           "edivisive", "pooled" };
	const char *const *algos =
	        argc > 3 ? (const char *const *)argv + 3 : all;
	size_t nalgos = argc > 3 ? (size_t)(argc - 3) : 5;
	double *data = malloc(nseries * npoints * sizeof(double));

	if (!data || !nseries || !npoints) {
		fprintf(stderr,
		        "detect_scale: bad arguments or out of memory\n");
		return 2;
	}
	for (size_t s = 0; s < nseries; s++)
		make_series(data + s * npoints, npoints, s);
	printf("detector series points seconds series_per_s changes note\n");
	for (size_t a = 0; a < nalgos; a++) {
		struct bf_detect_params p;
		int d = bf_detector_from_name(algos[a]);
		size_t changes = 0, done = 0;
		double t0, t;

		if (d < 0) {
			fprintf(stderr, "detect_scale: unknown detector '%s'\n",
			        algos[a]);
			return 2;
		}
		bf_detect_params_default(&p, (enum bf_detector)d);
		t0 = now();
		for (size_t s = 0; s < nseries; s++) {
			struct bf_err err = BF_ERR_INIT;
			struct bf_change *ch = NULL;
			size_t nch = 0;

			if (bf_detect_series(&ch, &nch, &p, data + s * npoints,
			                     npoints, &err)) {
				fprintf(stderr, "detect_scale: %s: %s\n",
				        algos[a], err.msg);
				return 1;
			}
			changes += nch;
			free(ch);
			done++;
			if (now() - t0 > BUDGET_S)
				break;
		}
		t = now() - t0;
		if (done < nseries)
			printf("%s %zu %zu %.3f %.1f %zu extrapolated_from_%zu\n",
			       algos[a], nseries, npoints,
			       t * (double)nseries / (double)done,
			       (double)done / t, changes, done);
		else
			printf("%s %zu %zu %.3f %.1f %zu -\n", algos[a],
			       nseries, npoints, t, (double)nseries / t,
			       changes);
		fflush(stdout);
	}
	free(data);
	return 0;
}
