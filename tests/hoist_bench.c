/* hoist_bench.c - issue 34's example as a user writes it: work from
 * loop-invariant inputs, kept with pmb_do_not_optimize alone (gcc computes
 * it once before the loop) and with its input made opaque by pmb_opaque
 * (computed every pass); and the result kept by nothing (removed).
 * tests/test_hoist.py runs it under --backend=sim;
 * hoist_bench.cc builds this same file as C++, its own group. */
#include <stdint.h>
#include <stdlib.h>
#include <pmubench.h>

#ifdef __cplusplus
#define GROUP "hoistcc"
#else
#define GROUP "hoist"
#endif

static void bm_inv(struct pmb_state *s)
{
	uint64_t a = (uint64_t)pmb_arg(s, 0);

	while (pmb_loop(s)) {
		uint64_t r = a * a * a + 3 * a / 7;

		pmb_do_not_optimize(r);
	}
}
PMB_BENCHMARK(bm_inv, .group = GROUP, .name = "inv", .args = PMB_ARGS(5));

static void bm_inv_opaque(struct pmb_state *s)
{
	uint64_t a = (uint64_t)pmb_arg(s, 0);

	while (pmb_loop(s)) {
		uint64_t b = pmb_opaque(a);
		uint64_t r = b * b * b + 3 * b / 7;

		pmb_do_not_optimize(r);
	}
}
PMB_BENCHMARK(bm_inv_opaque, .group = GROUP, .name = "inv_opaque", .args = PMB_ARGS(5));

/* The result kept by nothing: the compiler removes the work, and the
 * function computes nothing outside its loop either. */
static void bm_unkept(struct pmb_state *s)
{
	uint64_t a = (uint64_t)pmb_arg(s, 0), r = 0;

	while (pmb_loop(s))
		r = a * a * a + 3 * a / 7;
	(void)r;
}
PMB_BENCHMARK(bm_unkept, .group = GROUP, .name = "unkept", .args = PMB_ARGS(5));

/* Setup arithmetic (a buffer's size, computed and passed to malloc) beside
 * a result kept by nothing: the work is removed, and the arithmetic outside
 * the loop is setup, not hoisted work (it goes to a call first). */
static void bm_setup_unkept(struct pmb_state *s)
{
	uint64_t a = (uint64_t)pmb_arg(s, 0), r = 0;
	uint64_t *v = (uint64_t *)malloc((a * 3 + 7) * 8);

	if (!v) {
		pmb_skip(s, "out of memory");
		return;
	}
	v[0] = a;
	while (pmb_loop(s))
		r = v[0] * v[0] + 3;
	(void)r;
	free(v);
}
PMB_BENCHMARK(bm_setup_unkept, .group = GROUP, .name = "setup_unkept", .args = PMB_ARGS(5));

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
