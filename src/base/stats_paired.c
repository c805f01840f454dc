/* stats_paired.c - tests on paired differences: Wilcoxon's signed-rank test. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

/* |d| of the non-zero differences, with their signs kept apart. */
struct signed_abs {
	double a;
	int pos;
};

static int by_abs(const void *pa, const void *pb)
{
	double a = ((const struct signed_abs *)pa)->a;
	double b = ((const struct signed_abs *)pb)->a;

	return (a > b) - (a < b);
}

/* W+ (the sum of the ranks of the positive differences, tied |d| sharing
 * their mean rank) and the tie term sum(t^3 - t) over s[0..n), sorted. */
static void rank_sums(const struct signed_abs *s, size_t n, double *wplus,
		      double *ties)
{
	size_t i = 0, j;

	*wplus = 0;
	*ties = 0;
	while (i < n) {
		double rank, t;

		for (j = i + 1; j < n && s[j].a == s[i].a; j++)
			;
		rank = (double)(i + 1 + j) / 2; /* mean of ranks i+1 .. j */
		t = (double)(j - i);
		*ties += t * t * t - t;
		for (; i < j; i++)
			if (s[i].pos)
				*wplus += rank;
	}
}

double pmb__signed_rank(const double *d, size_t n, size_t *used)
{
	struct signed_abs *s;
	double wplus, ties, m, mu, var, z;
	size_t k = 0;

	if (used)
		*used = 0;
	s = d && n ? malloc(n * sizeof(*s)) : NULL;
	if (!s)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0 && !isnan(d[i]))
			s[k++] = (struct signed_abs){ fabs(d[i]), d[i] > 0 };
	if (used)
		*used = k;
	qsort(s, k, sizeof(*s), by_abs);
	rank_sums(s, k, &wplus, &ties);
	free(s);
	m = (double)k;
	mu = m * (m + 1) / 4;
	var = m * (m + 1) * (2 * m + 1) / 24 - ties / 48;
	if (!(var > 0))
		return 1; /* no non-zero difference: no evidence either way */
	z = (fabs(wplus - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	z = erfc(z / sqrt(2.0));
	return z < 1 ? z : 1;
}

double pmb__signed_rank_min_p(size_t m)
{
	double x = (double)m, mu = x * (x + 1) / 4;
	double var = x * (x + 1) * (2 * x + 1) / 24;
	double z;

	if (!(var > 0))
		return 1;
	/* W+ at its largest, m(m+1)/2: |W+ - mu| = mu. */
	z = (mu - 0.5) / sqrt(var);
	z = erfc((z < 0 ? 0 : z) / sqrt(2.0));
	return z < 1 ? z : 1;
}
