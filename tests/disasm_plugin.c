/* disasm_plugin.c - a --load plugin whose loop reaches its kernel directly and through a function pointer (tests/test_disasm_reach.py). */
#include <stdint.h>

#include "disasm_kernel.h"
#include "pmubench.h"

#define ITEMS 4096

static PMBT_BRANCHY uint64_t plug_count_hi(const uint8_t *p, size_t n)
PMBT_COUNT_HI_BODY(p, n)

static uint64_t (*volatile plug_kernel)(const uint8_t *, size_t) = plug_count_hi;

static void bm_plug_direct(struct pmb_state *s)
{
	uint8_t *p = pmbt_bytes(pmb_seed(s), ITEMS);

	if (!p) {
		pmb_skip(s, "out of memory");
		return;
	}
	while (pmb_loop_batch(s, ITEMS))
		pmb_do_not_optimize(plug_count_hi(p, ITEMS));
	free(p);
}
PMB_BENCHMARK(bm_plug_direct, .group = "plug", .name = "direct", .role = PMB_ROLE_BRANCHY);

static void bm_plug_pointer(struct pmb_state *s)
{
	uint8_t *p = pmbt_bytes(pmb_seed(s), ITEMS);

	if (!p) {
		pmb_skip(s, "out of memory");
		return;
	}
	while (pmb_loop_batch(s, ITEMS))
		pmb_do_not_optimize(plug_kernel(p, ITEMS));
	free(p);
}
PMB_BENCHMARK(bm_plug_pointer, .group = "plug", .name = "pointer", .role = PMB_ROLE_BRANCHY);
