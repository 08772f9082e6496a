#include "benchfarm/stats.h"

#include <math.h>

/*
 * The regularized incomplete beta function I_x(a, b) (Numerical Recipes'
 * betai and betacf: the continued fraction evaluated with the modified
 * Lentz method). The iteration count grows like sqrt(max(a, b)), so the
 * cap leaves room for series of millions of values.
 */
#define BETACF_MAXIT 10000
#define BETACF_EPS   1e-16
#define BETACF_TINY  1e-300

static double betacf(double a, double b, double x)
{
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < BETACF_TINY)
		d = BETACF_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= BETACF_MAXIT; m++) {
		double m2 = 2.0 * m, aa, del;

		/* the even step of the recurrence */
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < BETACF_TINY)
			d = BETACF_TINY;
		c = 1 + aa / c;
		if (fabs(c) < BETACF_TINY)
			c = BETACF_TINY;
		d = 1 / d;
		h *= d * c;
		/* the odd step */
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < BETACF_TINY)
			d = BETACF_TINY;
		c = 1 + aa / c;
		if (fabs(c) < BETACF_TINY)
			c = BETACF_TINY;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < BETACF_EPS)
			break;
	}
	return h;
}

double bf_stats_beta_inc(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	         b * log1p(-x));
	/* the continued fraction converges fast on this side of the mean */
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}
