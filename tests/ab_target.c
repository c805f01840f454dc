/* ab_target.c - a benchmark program whose kernel is made k % slower by
 * PMB_TEST_SLOWDOWN=k (tests/test_ab.py, tests/bench_ab.py).
 *
 * The kernel is a chain of dependent adds, STEPS of them per item: each add
 * waits for the one before, so time, cycles and instructions all grow in
 * proportion to the steps (the pass's loop aside, 1 in 51200 steps).
 * PMB_TEST_SLOWDOWN=k makes it STEPS * (1 + k/100) steps, rounded: 5 gives
 * 210 steps for 200, 5 % more work per item. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmubench.h"

#define STEPS 200
#define ITEMS 256

/* The steps per item: STEPS, or more by PMB_TEST_SLOWDOWN percent (0 to
 * 1000; anything else is refused: a test must not run the wrong kernel). */
static long steps_per_item(void)
{
	const char *s = getenv("PMB_TEST_SLOWDOWN");
	char *end;
	double k;

	if (!s || !*s)
		return STEPS;
	errno = 0;
	k = strtod(s, &end);
	if (errno || *end || !(k >= 0 && k <= 1000)) {
		fprintf(stderr, "ab_target: PMB_TEST_SLOWDOWN=%s: expected a "
			"percentage from 0 to 1000\n", s);
		exit(2);
	}
	return lround(STEPS * (1 + k / 100));
}

static void bm_chain(struct pmb_state *s)
{
	long steps = steps_per_item();
	uint64_t x = pmb_seed(s), k = 3;

	/* One loop over the pass's steps, not one per item: a loop per item
	 * would add a fixed cost per item (its exit, mispredicted) that the
	 * slowdown does not scale, and 5 % more steps would be less than 5 %
	 * more time. */
	while (pmb_loop_batch(s, ITEMS)) {
		for (long j = 0; j < ITEMS * steps; j++) {
			x += k;
			/* One add per step, kept: the compiler may neither fold
			 * the chain nor vectorise it. */
			__asm__ volatile("" : "+r"(x));
		}
	}
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_chain, .group = "abt", .name = "chain");

/* A second benchmark the slowdown does not touch: an A/B run must call it
 * unchanged beside the one that moved. */
static void bm_fixed(struct pmb_state *s)
{
	uint64_t x = pmb_seed(s), k = 5;

	while (pmb_loop_batch(s, ITEMS)) {
		for (int i = 0; i < ITEMS * 50; i++) {
			x += k;
			__asm__ volatile("" : "+r"(x));
		}
	}
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_fixed, .group = "abt", .name = "fixed");

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
