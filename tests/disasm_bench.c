/* disasm_bench.c - a user's benchmarks whose work --disasm must find however the loop reaches it: through a function pointer, through the PLT into a shared library, a nop in the loop (tests/test_disasm_reach.py). */
#include <stdint.h>
#include <stdlib.h>

#include "disasm_kernel.h"
#include "pmubench.h"

#define ITEMS 4096 /* bytes per pass */

static PMBT_BRANCHY uint64_t count_hi(const uint8_t *p, size_t n)
PMBT_COUNT_HI_BODY(p, n)

/* volatile: the compiler cannot see which function the loop calls, as
 * when a user picks a kernel from a table at run time. */
static uint64_t (*volatile kernel)(const uint8_t *, size_t) = count_hi;

/* Random bytes: each >= 128 with probability 1/2. */
static uint8_t *bytes(struct pmb_state *s)
{
	uint8_t *p = malloc(ITEMS);
	uint64_t x = pmb_seed(s) | 1;

	for (size_t i = 0; p && i < ITEMS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (uint8_t)(x >> 32);
	}
	return p;
}

static void bm_pointer(struct pmb_state *s)
{
	uint8_t *p = bytes(s);

	if (!p) {
		pmb_skip(s, "out of memory");
		return;
	}
	while (pmb_loop_batch(s, ITEMS))
		pmb_do_not_optimize(kernel(p, ITEMS));
	free(p);
}
PMB_BENCHMARK(bm_pointer, .group = "reach", .name = "pointer", .role = PMB_ROLE_BRANCHY);

static void bm_plt(struct pmb_state *s)
{
	uint8_t *p = bytes(s);

	if (!p) {
		pmb_skip(s, "out of memory");
		return;
	}
	while (pmb_loop_batch(s, ITEMS))
		pmb_do_not_optimize(pmbt_count_hi_lib(p, ITEMS));
	free(p);
}
PMB_BENCHMARK(bm_plt, .group = "reach", .name = "plt", .role = PMB_ROLE_BRANCHY);

/* One nop per item beside the loop's own: the +1 instruction per item
 * the listing must show. */
static void bm_nop(struct pmb_state *s)
{
	while (pmb_loop_batch(s, ITEMS))
		for (unsigned i = 0; i < ITEMS; i++)
			__asm__ volatile("nop");
}
PMB_BENCHMARK(bm_nop, .group = "reach", .name = "nop");

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
