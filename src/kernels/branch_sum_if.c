/* branch_sum_if.c - branch study: sum of the bytes above a threshold. */
#include <stdlib.h>

#include "pmubench.h"
#include "branch.h"
#include "gen.h"

PMB_KERNEL_BRANCHY
uint64_t pmb_sum_if_branchy(const uint8_t *v, size_t n, uint8_t t)
{
	uint64_t sum = 0;

	PMB_SCALAR_LOOP
	for (size_t i = 0; i < n; i++) {
		if (v[i] > t) {
			sum += v[i];
			PMB_KEEP_BRANCH();
		}
	}
	return sum;
}

PMB_KERNEL_BRANCHLESS
uint64_t pmb_sum_if_branchless(const uint8_t *v, size_t n, uint8_t t)
{
	uint64_t sum = 0;

	PMB_SCALAR_LOOP
	for (size_t i = 0; i < n; i++)
		sum += v[i] & -(uint64_t)(v[i] > t);
	return sum;
}

PMB_KERNEL_BRANCHLESS
uint64_t pmb_sum_if_sol(const uint8_t *v, size_t n)
{
	uint64_t sum = 0;

	PMB_SCALAR_LOOP
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

enum sum_if_form { SUM_IF_BRANCHY, SUM_IF_BRANCHLESS, SUM_IF_SOL };

/* One benchmark body for the three forms: the same input, the same
 * verification, only the kernel in the loop differs.  Every pass reads a
 * slot of a stream prepared afresh before each sample (gen.h): an input
 * repeated every pass is learned by the predictor, and the branchy figure
 * would be that of a predicted branch. */
static void bm_sum_if(struct pmb_state *s, enum sum_if_form form)
{
	const size_t n = PMB_GEN_PASS_ITEMS;
	const uint8_t t = PMB_GEN_BYTE_T;
	int64_t pct = pmb_arg(s, 0);
	unsigned upct = (unsigned)pct;
	struct pmb_gen_stream st;
	const uint8_t *v;

	if (pct < 0 || pct > 100) {
		pmb_fail(s, "sum_if: p must be 0..100");
		return;
	}
	/* pN's bytes pass on N % of items, at random: the study's rate. */
	(void)pmb_set_mispredict_rate(s, pmb_gen_misp_rate(upct));
	if (pmb_gen_stream_init(&st, n, pmb_seed(s), pmb_gen_fill_bytes_p, &upct) ||
	    pmb_gen_stream_prepare(&st, 1)) {
		pmb_fail(s, "sum_if: out of memory");
		goto out;
	}
	v = pmb_gen_stream_next(&st, NULL);
	if (form != SUM_IF_SOL &&
	    pmb_sum_if_branchy(v, n, t) != pmb_sum_if_branchless(v, n, t)) {
		pmb_fail(s, "sum_if: branchy and branchless sums differ");
		goto out;
	}
	pmb_set_bytes(s, n);
	pmb_set_user_data(s, &st);
	switch (form) {
	case SUM_IF_BRANCHY:
		while (pmb_loop_batch(s, n))
			pmb_do_not_optimize(pmb_sum_if_branchy(pmb_gen_stream_next(&st, NULL), n, t));
		break;
	case SUM_IF_BRANCHLESS:
		while (pmb_loop_batch(s, n))
			pmb_do_not_optimize(pmb_sum_if_branchless(pmb_gen_stream_next(&st, NULL), n, t));
		break;
	case SUM_IF_SOL:
		while (pmb_loop_batch(s, n))
			pmb_do_not_optimize(pmb_sum_if_sol(pmb_gen_stream_next(&st, NULL), n));
		break;
	}
out:
	pmb_gen_stream_free(&st);
}

static void bm_sum_if_branchy(struct pmb_state *s)
{
	bm_sum_if(s, SUM_IF_BRANCHY);
}

static void bm_sum_if_branchless(struct pmb_state *s)
{
	bm_sum_if(s, SUM_IF_BRANCHLESS);
}

static void bm_sum_if_sol(struct pmb_state *s)
{
	bm_sum_if(s, SUM_IF_SOL);
}

PMB_BENCHMARK(bm_sum_if_branchy, .name = "sum_if/branchy", .role = PMB_ROLE_BRANCHY, .group = "branch",
	      .args = PMB_NAMED_ARGS("p", 0, 1, 5, 10, 25, 50),
	      .reference = "sum_if/sol", .prepare = pmb_gen_stream_hook);
PMB_BENCHMARK(bm_sum_if_branchless, .name = "sum_if/branchless", .role = PMB_ROLE_BRANCHLESS,
	      .group = "branch",
	      .args = PMB_NAMED_ARGS("p", 0, 1, 5, 10, 25, 50),
	      .reference = "sum_if/branchy", .prepare = pmb_gen_stream_hook);
PMB_BENCHMARK(bm_sum_if_sol, .name = "sum_if/sol", .role = PMB_ROLE_SOL, .group = "branch",
	      .args = PMB_NAMED_ARGS("p", 0, 1, 5, 10, 25, 50), .prepare = pmb_gen_stream_hook);
