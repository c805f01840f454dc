/* calib.c - calibration kernels with a known cost: the add chain and the empty body. */
#include "pmubench.h"

/* add_chain.h's 64 adds, each depending on the one before: exactly one
 * cycle each on any x86-64 or Arm core, and exactly 64 instructions (a
 * header of macros: the kernels use the public API only, as a user's
 * benchmark would). */
#include "add_chain.h"

/* The chain with `per_item` adds to an item: 64 / per_item items a pass. */
static void add_chain(struct pmb_state *s, uint64_t per_item)
{
#ifdef PMB__ADD64
	/* x lives in one callee-saved register for the whole loop, so the
	 * pass is exactly the 64 adds plus the loop every benchmark has:
	 * without it the compiler copies x in and out of the asm's register,
	 * two instructions per pass that the harness overhead does not have. */
#if defined(__x86_64__)
	register uint64_t x __asm__("rbx") = pmb_seed(s);
#else
	register uint64_t x __asm__("x19") = pmb_seed(s);
#endif
	uint64_t k = 3;

	while (pmb_loop_batch(s, 64 / per_item)) {
		__asm__ volatile(PMB__ADD64
				 : "+r"(x)
				 : "r"(k));
	}
	pmb_do_not_optimize(x);
#else
	(void)per_item;
	pmb_skip(s, "no add chain for this architecture");
#endif
}

/* One instruction and one cycle per item. */
static void bm_add_chain(struct pmb_state *s)
{
	add_chain(s, 1);
}
PMB_BENCHMARK(bm_add_chain, .group = "calib", .name = "add_chain");

/* The same 64 adds counted as 16 items: exactly 4 instructions and 4
 * cycles per item, a second known figure for the counters to read. */
static void bm_add_chain4(struct pmb_state *s)
{
	add_chain(s, 4);
}
PMB_BENCHMARK(bm_add_chain4, .group = "calib", .name = "add_chain4");

/* Nothing but the loop: what the harness subtracts, so it must come out
 * as zero within the noise. */
static void bm_empty(struct pmb_state *s)
{
	while (pmb_loop(s)) {
	}
}
PMB_BENCHMARK(bm_empty, .group = "calib", .name = "empty", .empty = true);
