/*
 * Skia Perf's step fit (core/src/detect_skia.c) against the expected
 * values Skia publishes in its own tests, bit for bit in float32.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "unit/detect_stepfit/stepfit.h"

/*
 * Skia's own expected values: every case of perf/go/stepfit/
 * stepfit_test.go in google/skia-buildbot (the version stored at commit
 * 67fde9121075f73310c6d7dba52a3df7dedf831b), run through
 * GetStepFitAtMid(value, minStdDev = 0.1, interesting, algorithm) and
 * compared there with assert.Equal, so bit for bit in float32: the
 * decimals below are Go's shortest float32 spellings. X is the file's
 * "x" (vec32.MissingDataSentinel, 1e32), which those tests append to
 * the non-original windows and the odd-length trim (1.3) drops.
 * Invalid LeastSquares is -1 (InvalidLeastSquaresError); the empty
 * window is Skia's zero StepFit. The simple steps' LeastSquares is
 * left out of Skia's expected StepFit, so it is 0 there: in float32
 * both sides of 0 0 1 1 1 normalise to equal values, D is exactly 0,
 * and Regression is the step over minStdDev.
 */
#define X 1e32

static void test_skia__published_stepfit_test_values(void **state)
{
	static const struct {
		const char *name; /* the Go test function */
		double v[8];
		size_t n;
		double interesting;
		enum bf_skia_algo algo;
		size_t turning_point;
		float step_size, least_squares, regression;
		const char *status;
	} c[] = {
		{ "Empty",
		  { 0 },
		  0,
		  20,
		  BF_SKIA_ORIGINAL,
		  0,
		  0,
		  0,
		  0,
		  "Uninteresting" },
		{ "SimpleStepUp",
		  { 0, 0, 1, 1, 1 },
		  5,
		  20,
		  BF_SKIA_ORIGINAL,
		  2,
		  -2.0412414f,
		  0,
		  -20.412415f,
		  "High" },
		{ "RealWorldExample",
		  { 608100, 672970, 653180 },
		  3,
		  2,
		  BF_SKIA_ORIGINAL,
		  1,
		  -2.0251877f,
		  0.17183419f,
		  -11.785709f,
		  "High" },
		{ "SimpleStepDown",
		  { 1, 1, 0, 0, 0 },
		  5,
		  20,
		  BF_SKIA_ORIGINAL,
		  2,
		  2.0412414f,
		  0,
		  20.412415f,
		  "Low" },
		{ "NoStep",
		  { 1, 1, 1, 1, 1 },
		  5,
		  50,
		  BF_SKIA_ORIGINAL,
		  2,
		  -1,
		  3.6893486e+18f,
		  -2.7105057e-19f,
		  "Uninteresting" },
		{ "Absolute_NoStep",
		  { 1, 2, 1, 2, X },
		  5,
		  1.0,
		  BF_SKIA_ABSOLUTE,
		  2,
		  0,
		  -1,
		  0,
		  "Uninteresting" },
		{ "Absolute_StepExactMatch",
		  { 1, 1, 2, 2, X },
		  5,
		  1.0,
		  BF_SKIA_ABSOLUTE,
		  2,
		  -1,
		  -1,
		  -1,
		  "High" },
		{ "Absolute_StepTooSmall",
		  { 1, 1, 1.5, 1.5, X },
		  5,
		  1.0,
		  BF_SKIA_ABSOLUTE,
		  2,
		  -0.5f,
		  -1,
		  -0.5f,
		  "Uninteresting" },
		{ "Percent_NoStep",
		  { 1, 2, 1, 2, X },
		  5,
		  1.0,
		  BF_SKIA_PERCENT,
		  2,
		  0,
		  -1,
		  0,
		  "Uninteresting" },
		{ "Percent_StepExactMatch",
		  { 1, 2, X },
		  3,
		  1.0,
		  BF_SKIA_PERCENT,
		  1,
		  -1,
		  -1,
		  -1,
		  "High" },
		{ "Percent_StepTooSmall",
		  { 1, 1.5, X },
		  3,
		  1.0,
		  BF_SKIA_PERCENT,
		  1,
		  -0.5f,
		  -1,
		  -0.5f,
		  "Uninteresting" },
		{ "Cohen_NoStep",
		  { 1, 1.1, 0.9, 1.02, 1.12, 0.92, X },
		  7,
		  1.0,
		  BF_SKIA_COHEN,
		  3,
		  -0.1999998f,
		  -1,
		  -0.1999998f,
		  "Uninteresting" },
		{ "Cohen_Step",
		  { 1, 1.1, 0.9, 1.02, 1.12, 0.92, X },
		  7,
		  0.1,
		  BF_SKIA_COHEN,
		  3,
		  -0.1999998f,
		  -1,
		  -0.1999998f,
		  "High" },
		{ "Cohen_StepWithZeroStandardDeviation",
		  { 1, 1, 2, 2, X },
		  5,
		  0.2,
		  BF_SKIA_COHEN,
		  2,
		  -10,
		  -1,
		  -10,
		  "High" },
		{ "Cohen_StepWithLargeStandardDeviation",
		  { 1, 2, 3, 4, X },
		  5,
		  0.2,
		  BF_SKIA_COHEN,
		  2,
		  -2.828427f,
		  -1,
		  -2.828427f,
		  "High" },
	};
	struct bf_detect_params p;
	struct bf_step_window w;
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		p = sk(c[i].algo, 7, c[i].interesting);
		p.skia_stddev_threshold = 0.1;
		w = sk_win(&p, c[i].v, c[i].n);
		if (w.turning_point != c[i].turning_point ||
		    (float)w.step_size != c[i].step_size ||
		    (float)w.least_squares != c[i].least_squares ||
		    (float)w.regression != c[i].regression ||
		    strcmp(w.status, c[i].status)) {
			print_error(
			        "TestStepFit_%s: got %zu %.9g %.9g %.9g %s, "
			        "want %zu %.9g %.9g %.9g %s\n",
			        c[i].name, w.turning_point, w.step_size,
			        w.least_squares, w.regression, w.status,
			        c[i].turning_point, (double)c[i].step_size,
			        (double)c[i].least_squares,
			        (double)c[i].regression, c[i].status);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skia__published_stepfit_test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
