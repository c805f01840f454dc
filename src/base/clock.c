/* clock.c - the monotonic clock: resolution and read cost probes, core-frequency estimate. */
#include <errno.h>
#include <stdlib.h>

#include "clock.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int pmb__clock_probe(struct pmb_clock_probe *p)
{
	enum { N = 2048 };
	uint64_t d[N];
	uint64_t min_step = UINT64_MAX;

	/* Resolution: the smallest non-zero difference between back-to-back
	 * reads.  clock_getres() reports what the kernel promises (1 ns on
	 * most machines), not what the reads actually resolve. */
	for (int i = 0; i < N; i++) {
		uint64_t t0 = pmb_clock_ns(), t1;

		do
			t1 = pmb_clock_ns();
		while (t1 == t0);
		if (t1 - t0 < min_step)
			min_step = t1 - t0;
	}
	/* Cost: time 64 reads at once, many times; median of the batches. */
	for (int i = 0; i < N; i++) {
		uint64_t t0 = pmb_clock_ns();

		for (int k = 0; k < 63; k++)
			(void)pmb_clock_ns();
		d[i] = pmb_clock_ns() - t0;
	}
	qsort(d, N, sizeof(d[0]), cmp_u64);
	p->resolution_ns = (double)min_step;
	p->read_cost_ns = (double)d[N / 2] / 64.0;
	p->source = "CLOCK_MONOTONIC";
	return 0;
}

uint64_t pmb__clock_add_chain(uint64_t n, uint64_t x)
{
#ifdef PMB__ADD64
	for (uint64_t i = 0; i < n / 64; i++)
		__asm__ volatile(PMB__ADD64 : "+r"(x) : "r"(i | 1));
	return x;
#else
	(void)n;
	return x;
#endif
}

int pmb__clock_estimate_ghz(double *ghz)
{
#ifdef PMB__ADD64
	const uint64_t n = 1u << 20;
	double best = 0;

	/* Warm up: let the core leave any low-power state first.  Best of
	 * several trials: interruptions only ever make a trial slower. */
	(void)pmb__clock_add_chain(n * 8, 1);
	for (int t = 0; t < 15; t++) {
		uint64_t t0 = pmb_clock_ns();
		uint64_t x = pmb__clock_add_chain(n, (uint64_t)t);
		uint64_t dt = pmb_clock_ns() - t0;
		double g = dt ? (double)n / (double)dt : 0;

		__asm__ volatile("" : : "r"(x));
		if (g > best)
			best = g;
	}
	*ghz = best;
	return 0;
#else
	*ghz = 0;
	return -ENOTSUP;
#endif
}
