/* imul_chain.c - a chain of 64 dependent 64-bit imuls per pass, one imul an
 * item, for x86-pmu.sh's known answer: 3 cycles per imul (the latency of
 * imul r64 on Intel and AMD cores since 2011).  Built by x86-pmu.sh as a
 * shared object and run by `pmubench --load`; only the public header, as
 * any user's benchmark would be. */
#include <stdint.h>

#include <pmubench.h>

#if defined(__x86_64__)
#define IMUL8 "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t" \
	      "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
#define IMUL64 IMUL8 IMUL8 IMUL8 IMUL8 IMUL8 IMUL8 IMUL8 IMUL8
#endif

static void bm_imul_chain(struct pmb_state *s)
{
#ifdef IMUL64
	/* As calib/add_chain (src/kernels/calib.c): x stays in one
	 * callee-saved register across the loop, so a pass is the 64 imuls
	 * plus the harness's own loop, which the harness overhead removes;
	 * each imul waits for the one before, so a pass costs 64 latencies. */
	register uint64_t x __asm__("rbx") = pmb_seed(s) | 1;
	uint64_t k = 0x9e3779b97f4a7c15u;

	while (pmb_loop_batch(s, 64)) {
		__asm__ volatile(IMUL64
				 : "+r"(x)
				 : "r"(k));
	}
	pmb_do_not_optimize(x);
#else
	pmb_skip(s, "the imul chain is x86-64 code");
#endif
}
PMB_BENCHMARK(bm_imul_chain, .group = "x86check", .name = "imul_chain");
