/* branch_filter.c - branch study: copy the words that pass a predicate. */
#include <stdlib.h>
#include <string.h>

#include "pmubench.h"
#include "branch.h"
#include "gen.h"

PMB_KERNEL_BRANCHY
size_t pmb_filter_branchy(const uint32_t *v, size_t n, uint32_t t,
			  uint32_t *out)
{
	size_t k = 0;

	PMB_SCALAR_LOOP
	for (size_t i = 0; i < n; i++) {
		if (v[i] > t) {
			out[k++] = v[i];
			PMB_KEEP_BRANCH();
		}
	}
	return k;
}

PMB_KERNEL_BRANCHLESS
size_t pmb_filter_branchless(const uint32_t *v, size_t n, uint32_t t,
			     uint32_t *out)
{
	size_t k = 0;

	PMB_SCALAR_LOOP
	for (size_t i = 0; i < n; i++) {
		out[k] = v[i];
		k += v[i] > t;
	}
	return k;
}

PMB_KERNEL_COPY
size_t pmb_filter_sol(const uint32_t *v, size_t n, uint32_t *out)
{
	PMB_SCALAR_LOOP
	for (size_t i = 0; i < n; i++)
		out[i] = v[i];
	return n;
}

enum filter_form { FILTER_BRANCHY, FILTER_BRANCHLESS, FILTER_SOL };

/* Both forms must keep the same words in the same order. */
static int filter_verify(const uint32_t *v, size_t n, uint32_t *a, uint32_t *b)
{
	size_t ka = pmb_filter_branchy(v, n, PMB_GEN_U32_T, a);
	size_t kb = pmb_filter_branchless(v, n, PMB_GEN_U32_T, b);

	return ka == kb && memcmp(a, b, ka * sizeof(*a)) == 0;
}

/* The copy must be whole: out starts as the complement of v, so a word the
 * loop skipped cannot match by chance. */
static int filter_sol_verify(const uint32_t *v, size_t n, uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = ~v[i];
	return pmb_filter_sol(v, n, out) == n &&
	       memcmp(out, v, n * sizeof(*v)) == 0;
}

/* Every pass filters a slot of a stream prepared afresh before each
 * sample (gen.h), so the predictor never sees the same words twice. */
static void bm_filter(struct pmb_state *s, enum filter_form form)
{
	const size_t n = PMB_GEN_PASS_ITEMS;
	const uint32_t t = PMB_GEN_U32_T;
	const size_t bytes = n * sizeof(uint32_t);
	int64_t pct = pmb_arg(s, 0);
	unsigned upct = (unsigned)pct;
	struct pmb_gen_stream st;
	uint32_t *out, *check;
	const uint32_t *v;

	if (pct < 0 || pct > 100) {
		pmb_fail(s, "filter: p must be 0..100");
		return;
	}
	/* pN's bytes pass on N % of items, at random: the study's rate. */
	(void)pmb_set_mispredict_rate(s, pmb_gen_misp_rate(upct));
	out = malloc(bytes);
	check = malloc(bytes);
	if (pmb_gen_stream_init(&st, bytes, pmb_seed(s), pmb_gen_fill_u32_p, &upct) ||
	    pmb_gen_stream_prepare(&st, 1) || !out || !check) {
		pmb_fail(s, "filter: out of memory");
		goto out;
	}
	v = (const uint32_t *)(const void *)pmb_gen_stream_next(&st, NULL);
	if (form != FILTER_SOL && !filter_verify(v, n, out, check)) {
		pmb_fail(s, "filter: branchy and branchless outputs differ");
		goto out;
	}
	if (form == FILTER_SOL && !filter_sol_verify(v, n, out)) {
		pmb_fail(s, "filter: sol's copy differs from the input");
		goto out;
	}
	pmb_set_bytes(s, bytes);
	pmb_set_user_data(s, &st);
	/* out escapes, so the copies into it are not dead stores. */
	pmb_do_not_optimize(out);
#define NEXT_WORDS() ((const uint32_t *)(const void *)pmb_gen_stream_next(&st, NULL))
	switch (form) {
	case FILTER_BRANCHY:
		while (pmb_loop_batch(s, n))
			pmb_do_not_optimize(pmb_filter_branchy(NEXT_WORDS(), n, t, out));
		break;
	case FILTER_BRANCHLESS:
		while (pmb_loop_batch(s, n))
			pmb_do_not_optimize(pmb_filter_branchless(NEXT_WORDS(), n, t, out));
		break;
	case FILTER_SOL:
		while (pmb_loop_batch(s, n))
			pmb_do_not_optimize(pmb_filter_sol(NEXT_WORDS(), n, out));
		break;
	}
#undef NEXT_WORDS
out:
	pmb_gen_stream_free(&st);
	free(check);
	free(out);
}

static void bm_filter_branchy(struct pmb_state *s)
{
	bm_filter(s, FILTER_BRANCHY);
}

static void bm_filter_branchless(struct pmb_state *s)
{
	bm_filter(s, FILTER_BRANCHLESS);
}

static void bm_filter_sol(struct pmb_state *s)
{
	bm_filter(s, FILTER_SOL);
}

PMB_BENCHMARK(bm_filter_branchy, .name = "filter/branchy", .role = PMB_ROLE_BRANCHY, .group = "branch",
	      .args = PMB_NAMED_ARGS("p", 0, 1, 5, 10, 25, 50),
	      .reference = "filter/sol", .prepare = pmb_gen_stream_hook);
PMB_BENCHMARK(bm_filter_branchless, .name = "filter/branchless", .role = PMB_ROLE_BRANCHLESS,
	      .group = "branch",
	      .args = PMB_NAMED_ARGS("p", 0, 1, 5, 10, 25, 50),
	      .reference = "filter/branchy", .prepare = pmb_gen_stream_hook);
PMB_BENCHMARK(bm_filter_sol, .name = "filter/sol", .role = PMB_ROLE_SOL, .group = "branch",
	      .args = PMB_NAMED_ARGS("p", 0, 1, 5, 10, 25, 50), .prepare = pmb_gen_stream_hook);
