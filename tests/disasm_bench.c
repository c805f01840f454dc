/* disasm_bench.c - a user's benchmarks whose work --disasm must find however the loop reaches it: through a function pointer, through the PLT into a shared library, a nop in the loop (tests/test_disasm_reach.py). */
#include <stdint.h>

#include "disasm_kernel.h"
#include "pmubench.h"

#define ITEMS 4096 /* bytes per pass */

static PMBT_BRANCHY uint64_t count_hi(const uint8_t *p, size_t n)
PMBT_COUNT_HI_BODY(p, n)

/* volatile: the compiler cannot see which function the loop calls, as
 * when a user picks a kernel from a table at run time. */
static uint64_t (*volatile kernel)(const uint8_t *, size_t) = count_hi;

static void bm_pointer(struct pmb_state *s)
{
	uint8_t *p = pmbt_bytes(pmb_seed(s), ITEMS);

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
	uint8_t *p = pmbt_bytes(pmb_seed(s), ITEMS);

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
