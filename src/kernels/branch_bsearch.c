/* branch_bsearch.c - branch study: lower bound across cache tiers, jump vs cmov. */
#include "pmubench.h"
#include "branch.h"
#include "gen.h"

PMB_KERNEL_BRANCHY
size_t pmb_bsearch_branchy(const uint32_t *a, size_t n, uint32_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < key) {
			lo = mid + 1;
			PMB_KEEP_BRANCH();
		} else {
			hi = mid;
		}
	}
	return lo;
}

PMB_KERNEL_BRANCHLESS
size_t pmb_bsearch_branchless(const uint32_t *a, size_t n, uint32_t key)
{
	const uint32_t *base = a;

	if (n == 0)
		return 0;
	/* The answer stays within [base, base + n]; halving n, not the
	 * comparison, ends the loop, so its only jump is perfectly
	 * predictable. */
	while (n > 1) {
		size_t half = n / 2;

		base = PMB_UNPREDICTABLE(base[half] < key) ? base + half : base;
		n -= half;
	}
	return (size_t)(base - a) + (*base < key);
}

PMB_KERNEL_BRANCHLESS
uint64_t pmb_bsearch_sol(const uint32_t *a, size_t n, uint32_t key)
{
	const uint32_t *base = a;
	uint64_t acc = 0;
	uint64_t bits = (uint64_t)key << 32;

	if (n == 0)
		return 0;
	while (n > 1) {
		size_t half = n / 2;

		acc += base[half];
		base += half & (size_t)-(int64_t)(bits >> 63);
		bits <<= 1;
		n -= half;
	}
	return acc + *base;
}

/* One pass: `keys` lookups of fresh keys.  Inlined with a constant
 * kernel, so each form's loop calls its kernel directly. */
static inline __attribute__((always_inline)) uint64_t
lookups(size_t (*search)(const uint32_t *, size_t, uint32_t),
	const uint32_t *a, size_t n, uint64_t *x, size_t keys)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < keys; i++)
		sum += search(a, n, (uint32_t)pmb_gen_xorshift64(x));
	return sum;
}

static size_t sol_search(const uint32_t *a, size_t n, uint32_t key)
{
	return (size_t)pmb_bsearch_sol(a, n, key);
}

enum bsearch_form { BSEARCH_BRANCHY, BSEARCH_BRANCHLESS, BSEARCH_SOL };

static int fill_sorted(void *buf, size_t bytes, uint64_t seed)
{
	pmb_gen_sorted_u32(buf, bytes / sizeof(uint32_t), seed);
	return 0;
}

/* pmb_arg(s, 0): the array's bytes, one point per cache tier. */
static void bm_bsearch(struct pmb_state *s, enum bsearch_form form)
{
	int64_t bytes = pmb_arg(s, 0);
	size_t n = (size_t)bytes / sizeof(uint32_t);
	size_t keys = (size_t)bytes > PMB_BSEARCH_NEAR_BYTES ? PMB_BSEARCH_KEYS_FAR : PMB_BSEARCH_KEYS;
	uint64_t x, x0;
	uint32_t *a;

	if (n == 0) {
		pmb_fail(s, "bsearch: working set below one element");
		return;
	}
	/* One array for the cohort's three forms: they search the same keys
	 * in the same sorted array (same seed), and three copies of a DRAM
	 * point made the run's peak three times its largest working set. */
	a = pmb_buffer_shared(s, (size_t)bytes, fill_sorted);
	if (!a) {
		pmb_fail(s, "bsearch: cannot allocate the working set");
		return;
	}
	/* xorshift must not start at 0; the seed's mix sets the top bit. */
	x0 = (pmb_seed(s) * 0x9e3779b97f4a7c15ull) | (1ull << 63);
	if (form != BSEARCH_SOL) {
		uint64_t xa = x0, xb = x0;

		if (lookups(pmb_bsearch_branchy, a, n, &xa, keys) !=
		    lookups(pmb_bsearch_branchless, a, n, &xb, keys)) {
			pmb_fail(s, "bsearch: branchy and branchless results differ");
			goto out;
		}
	}
	x = x0;
	switch (form) {
	case BSEARCH_BRANCHY:
		while (pmb_loop_batch(s, keys))
			pmb_do_not_optimize(lookups(pmb_bsearch_branchy, a, n, &x, keys));
		break;
	case BSEARCH_BRANCHLESS:
		while (pmb_loop_batch(s, keys))
			pmb_do_not_optimize(lookups(pmb_bsearch_branchless, a, n, &x, keys));
		break;
	case BSEARCH_SOL:
		while (pmb_loop_batch(s, keys))
			pmb_do_not_optimize(lookups(sol_search, a, n, &x, keys));
		break;
	}
out:
	pmb_buffer_release(a);
}

static void bm_bsearch_branchy(struct pmb_state *s)
{
	bm_bsearch(s, BSEARCH_BRANCHY);
}

static void bm_bsearch_branchless(struct pmb_state *s)
{
	bm_bsearch(s, BSEARCH_BRANCHLESS);
}

static void bm_bsearch_sol(struct pmb_state *s)
{
	bm_bsearch(s, BSEARCH_SOL);
}

PMB_BENCHMARK(bm_bsearch_branchy, .name = "bsearch/branchy", .role = PMB_ROLE_BRANCHY, .group = "branch",
	      .args = PMB_TIERS, .reference = "bsearch/sol");
PMB_BENCHMARK(bm_bsearch_branchless, .name = "bsearch/branchless", .role = PMB_ROLE_BRANCHLESS,
	      .group = "branch", .args = PMB_TIERS,
	      .reference = "bsearch/branchy");
PMB_BENCHMARK(bm_bsearch_sol, .name = "bsearch/sol", .role = PMB_ROLE_SOL, .group = "branch",
	      .args = PMB_TIERS);
