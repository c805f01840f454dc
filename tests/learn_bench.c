/* learn_bench.c - synthetic kernels for test_learn.py: a cost per pass that falls with the pass index (an input being learned), one that does not, one whose repetitions run in two modes, one whose pair has roles but no .reference. */
#include <stdint.h>

#include "pmubench.h"

#define ITEMS 4096 /* per pass: under --backend=sim one pass per sample */
#define WORK 8192  /* dependent steps of a pass at its full cost */

/* A dependent chain of n steps: cost exactly proportional to n, under
 * valgrind's count and in time. */
static __attribute__((noinline)) uint64_t chain(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 3 + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* The pass index starts again at every sample: the prepare hook says one
 * begins.  A learned input does that too: its first passes are the dear
 * ones. */
static void restart(struct pmb_state *s, uint64_t passes)
{
	(void)passes;
	*(uint64_t *)pmb_user_data(s) = 0;
}

/* Pass k costs WORK / (k + 1): the marginal cost per pass falls along the
 * ladder (1, 1/2, 1/3, 1/4 of the first pass's), as no fixed cost does. */
static void bm_falling(struct pmb_state *s)
{
	uint64_t k = 0, x = 1;

	pmb_set_user_data(s, &k);
	while (pmb_loop_batch(s, ITEMS))
		x = chain(x, WORK / ++k);
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_falling, .group = "learn", .name = "falling", .prepare = restart);

/* The same hook and loop, every pass at the full cost. */
static void bm_flat(struct pmb_state *s)
{
	uint64_t k = 0, x = 1;

	pmb_set_user_data(s, &k);
	while (pmb_loop_batch(s, ITEMS)) {
		k++;
		x = chain(x, WORK);
	}
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_flat, .group = "learn", .name = "flat", .prepare = restart);

/* Every other call (repetition) costs twice as much: two modes between
 * repetitions that no single repetition shows. */
static void bm_modes(struct pmb_state *s)
{
	static int calls;
	uint64_t n = WORK * (uint64_t)(1 + (calls++ & 1)), x = 1;

	while (pmb_loop_batch(s, ITEMS))
		x = chain(x, n);
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_modes, .group = "learn", .name = "modes");

/* A user's own pair, roles given, no .reference and no seed used: the
 * branchy form costs 16x the branchless one. */
static void bm_pair_y(struct pmb_state *s)
{
	uint64_t x = 1;

	while (pmb_loop_batch(s, ITEMS))
		x = chain(x, 16 * WORK);
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_pair_y, .group = "pair", .name = "mine/branchy", .role = PMB_ROLE_BRANCHY);

static void bm_pair_l(struct pmb_state *s)
{
	uint64_t x = 1;

	while (pmb_loop_batch(s, ITEMS))
		x = chain(x, WORK);
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_pair_l, .group = "pair", .name = "mine/branchless", .role = PMB_ROLE_BRANCHLESS);

/* Named like a pair but without roles: no study. */
static void bm_noroles(struct pmb_state *s)
{
	uint64_t x = 1;

	while (pmb_loop_batch(s, ITEMS))
		x = chain(x, WORK);
	pmb_do_not_optimize(x);
}
PMB_BENCHMARK(bm_noroles, .group = "pair", .name = "named/branchy");
PMB_BENCHMARK(bm_noroles, .group = "pair", .name = "named/branchless");

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
