/* branch_fresh.c - not a test: the reference figures for the branch study's inputs (issue 19).  Per pass, one pass timed at a time (short windows, so a loaded machine's preemptions fall out of the median): branchy sum_if at p50 over fresh random bytes every pass (the cost of an unpredictable branch), over one fixed 64 KiB input repeated, and the three forms over rings of 64 KiB slots read in order (what a stream of fresh input costs in memory). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels/branch.h"
#include "kernels/gen.h"

#define N PMB_GEN_PASS_ITEMS

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp);
	return t[n / 2];
}

/* ns per item of one pass of form f over v. */
static double pass_ns(int f, const uint8_t *v, volatile uint64_t *sink)
{
	double t0 = now_ns();

	*sink += f == 0 ? pmb_sum_if_branchy(v, N, PMB_GEN_BYTE_T)
	       : f == 1 ? pmb_sum_if_branchless(v, N, PMB_GEN_BYTE_T)
			: pmb_sum_if_sol(v, N);
	return (now_ns() - t0) / N;
}

int main(int argc, char **argv)
{
	static const size_t slots[] = { 1, 2, 4, 8, 16, 64 };
	static const char *const form[] = { "branchy", "branchless", "sol" };
	size_t passes = argc > 1 ? (size_t)atoll(argv[1]) : 1000;
	uint8_t *ring = aligned_alloc(64, 64 * (size_t)N);
	double *t = malloc(passes * sizeof(double));
	volatile uint64_t sink = 0;

	if (!ring || !t || passes == 0)
		return 1;
	for (size_t k = 0; k < passes; k++) {
		pmb_gen_bytes_p(ring, N, 50, 1000 + k);
		t[k] = pass_ns(0, ring, &sink);
	}
	printf("branchy p50, fresh bytes every pass: %.3f ns/item (median of %zu passes)\n",
	       median(t, passes), passes);
	for (size_t k = 0; k < passes; k++)
		t[k] = pass_ns(0, ring, &sink);
	printf("branchy p50, one 64 KiB input repeated: %.3f ns/item\n", median(t, passes));
	for (size_t k = 0; k < 64; k++)
		pmb_gen_bytes_p(ring + k * N, N, 50, 7 + k);
	for (int f = 0; f < 3; f++) {
		printf("%-10s p50, ring of", form[f]);
		for (size_t m = 0; m < sizeof(slots) / sizeof(slots[0]); m++) {
			for (size_t k = 0; k < passes; k++)
				t[k] = pass_ns(f, ring + (k % slots[m]) * N, &sink);
			printf("  %zuK %.3f", slots[m] * 64, median(t, passes));
		}
		printf("\n");
	}
	free(t);
	free(ring);
	return 0;
}
