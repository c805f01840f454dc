/* lat_mem_rd_bench.c - a pointer chase written the way lmbench's lat_mem_rd
 * writes it (issue 32): each line points one stride back, the walk wraps
 * from the first line to the last, and the loads are unrolled, stride 64
 * and 128, on 4 KiB pages (pmb_buffer_alloc_4k), over the sweep's sizes.
 * Built with the built-in kernels' src/kernels/mem.c (tests/meson.build),
 * so that tests/bench_tlb.py runs it beside mem/chase_4k and mem/chase in
 * one run.  Its own code: only the method is lmbench's. */
#include <stdint.h>
#include <string.h>

#include <pmubench.h>

#define UNROLL 16

static void lat_mem_rd(struct pmb_state *s, size_t stride)
{
	size_t bytes = (size_t)pmb_arg(s, 0), n = bytes / stride;
	char *buf;
	char **p;

	if (n < 2) {
		pmb_skip(s, "working set smaller than two strides");
		return;
	}
	buf = pmb_buffer_alloc_4k(s, bytes);
	if (!buf) {
		pmb_skip(s, "cannot allocate the working set");
		return;
	}
	/* Line i points to line i - 1; line 0 to the last: one stride back. */
	for (size_t i = 0; i < n; i++)
		*(char **)(buf + i * stride) = buf + (i ? i - 1 : n - 1) * stride;
	p = (char **)(buf + (n - 1) * stride);
	while (pmb_loop_batch(s, UNROLL)) {
#define STEP p = (char **)*p;
		STEP STEP STEP STEP STEP STEP STEP STEP
		STEP STEP STEP STEP STEP STEP STEP STEP
#undef STEP
	}
	pmb_do_not_optimize(p);
	pmb_buffer_free(buf, bytes);
}

static void bm_stride64(struct pmb_state *s)
{
	lat_mem_rd(s, 64);
}
PMB_BENCHMARK(bm_stride64, .group = "lmbench", .name = "lat_mem_rd_64", .args = PMB_TIERS);

static void bm_stride128(struct pmb_state *s)
{
	lat_mem_rd(s, 128);
}
PMB_BENCHMARK(bm_stride128, .group = "lmbench", .name = "lat_mem_rd_128", .args = PMB_TIERS);

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
