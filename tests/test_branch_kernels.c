/* test_branch_kernels.c - branch kernels agree; generators are deterministic, hit p. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmubench.h"
#include "registry.h"
#include "runner.h"
#include "kernels/branch.h"
#include "kernels/gen.h"
#include "tap.h"

static const unsigned p_axis[] = { 0, 1, 5, 10, 25, 50 };
static const uint64_t seeds[] = { 1, 2, 42, 0x9e3779b97f4a7c15ull };
/* Odd sizes catch loop tails; PMB_GEN_PASS_ITEMS is what the benchmarks use. */
static const size_t sizes[] = { 0, 1, 7, 64, 1001, PMB_GEN_PASS_ITEMS };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void test_rng(void)
{
	struct pmb_rng a, b, c;
	uint32_t perm[1000], seen[1000];
	int same = 1, differ = 0, ok = 1;

	pmb_rng_seed(&a, 7);
	pmb_rng_seed(&b, 7);
	pmb_rng_seed(&c, 8);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = pmb_rng_next(&a);

		same &= x == pmb_rng_next(&b);
		differ |= x != pmb_rng_next(&c);
	}
	tap_ok(same, "rng: same seed, same stream");
	tap_ok(differ, "rng: another seed, another stream");

	for (int i = 0; i < 10000; i++)
		ok &= pmb_gen_below(&a, 37) < 37;
	tap_ok(ok && pmb_gen_below(&a, 0) == 0 && pmb_gen_below(&a, 1) == 0,
	       "rng: below(n) stays in [0, n)");

	pmb_gen_cycle_u32(&a, perm, 1000);
	memset(seen, 0, sizeof(seen));
	{
		uint32_t at = 0;
		size_t steps = 0;

		do {
			seen[at]++;
			at = perm[at];
			steps++;
		} while (at != 0 && steps <= 1000);
		ok = steps == 1000;
		for (int i = 0; i < 1000; i++)
			ok &= seen[i] == 1;
	}
	tap_ok(ok, "rng: cycle_u32 is one cycle through all 1000 slots");

	for (uint32_t i = 0; i < 1000; i++)
		perm[i] = i;
	pmb_gen_shuffle_u32(&a, perm, 1000);
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 1000; i++)
		seen[perm[i]]++;
	ok = 1;
	for (int i = 0; i < 1000; i++)
		ok &= seen[i] == 1;
	tap_ok(ok, "rng: shuffle_u32 is a permutation");
}

/* The generators' share of passing items over the sizes the benchmarks
 * use, for every p of the axis and several seeds; and their determinism. */
static void test_gen_p(void)
{
	const size_t n = PMB_GEN_PASS_ITEMS;
	uint8_t *b1 = malloc(n), *b2 = malloc(n);
	uint32_t *w1 = malloc(n * 4), *w2 = malloc(n * 4);

	for (size_t i = 0; i < NELEM(p_axis); i++) {
		for (size_t j = 0; j < NELEM(seeds); j++) {
			unsigned p = p_axis[i];
			size_t pb = 0, pw = 0;
			double fb, fw;

			pmb_gen_bytes_p(b1, n, p, seeds[j]);
			pmb_gen_u32_p(w1, n, p, seeds[j]);
			for (size_t k = 0; k < n; k++) {
				pb += b1[k] > PMB_GEN_BYTE_T;
				pw += w1[k] > PMB_GEN_U32_T;
			}
			fb = (double)pb / (double)n;
			fw = (double)pw / (double)n;
			tap_ok(fb >= p / 100.0 - 0.01 && fb <= p / 100.0 + 0.01 &&
				       (p != 0 || pb == 0),
			       "gen bytes p%u seed %llu: passing share %.4f", p,
			       (unsigned long long)seeds[j], fb);
			tap_ok(fw >= p / 100.0 - 0.01 && fw <= p / 100.0 + 0.01 &&
				       (p != 0 || pw == 0),
			       "gen u32 p%u seed %llu: passing share %.4f", p,
			       (unsigned long long)seeds[j], fw);
		}
	}
	pmb_gen_bytes_p(b1, n, 100, 3);
	pmb_gen_u32_p(w1, n, 100, 3);
	{
		int all = 1;

		for (size_t k = 0; k < n; k++)
			all &= b1[k] > PMB_GEN_BYTE_T && w1[k] > PMB_GEN_U32_T;
		tap_ok(all, "gen p100: every item passes");
	}

	pmb_gen_bytes_p(b1, n, 25, 5);
	pmb_gen_bytes_p(b2, n, 25, 5);
	tap_ok(memcmp(b1, b2, n) == 0, "gen bytes: same seed, same bytes");
	pmb_gen_bytes_p(b2, n, 25, 6);
	tap_ok(memcmp(b1, b2, n) != 0, "gen bytes: another seed, other bytes");
	pmb_gen_u32_p(w1, n, 25, 5);
	pmb_gen_u32_p(w2, n, 25, 5);
	tap_ok(memcmp(w1, w2, n * 4) == 0, "gen u32: same seed, same words");
	pmb_gen_u32_p(w2, n, 25, 6);
	tap_ok(memcmp(w1, w2, n * 4) != 0, "gen u32: another seed, other words");
	free(b1);
	free(b2);
	free(w1);
	free(w2);
}

static void test_sum_if(void)
{
	uint8_t *v = malloc(PMB_GEN_PASS_ITEMS);
	int agree = 1, sol_ok = 1, cases = 0;

	for (size_t i = 0; i < NELEM(p_axis); i++)
		for (size_t j = 0; j < NELEM(seeds); j++)
			for (size_t k = 0; k < NELEM(sizes); k++) {
				size_t n = sizes[k];
				uint64_t want = 0, all = 0;

				pmb_gen_bytes_p(v, n, p_axis[i], seeds[j]);
				for (size_t x = 0; x < n; x++) {
					all += v[x];
					if (v[x] > PMB_GEN_BYTE_T)
						want += v[x];
				}
				agree &= pmb_sum_if_branchy(v, n, PMB_GEN_BYTE_T) == want &&
					 pmb_sum_if_branchless(v, n, PMB_GEN_BYTE_T) == want;
				sol_ok &= pmb_sum_if_sol(v, n) == all;
				cases++;
			}
	tap_ok(agree, "sum_if: branchy and branchless equal the reference sum (%d inputs)",
	       cases);
	tap_ok(sol_ok, "sum_if: sol is the plain sum");
	/* Thresholds other than the generators' one. */
	pmb_gen_bytes_p(v, 1000, 50, 9);
	agree = 1;
	for (unsigned t = 0; t < 256; t += 15)
		agree &= pmb_sum_if_branchy(v, 1000, (uint8_t)t) ==
			 pmb_sum_if_branchless(v, 1000, (uint8_t)t);
	tap_ok(agree, "sum_if: forms agree for thresholds 0..255");
	free(v);
}

static void test_filter(void)
{
	const size_t cap = PMB_GEN_PASS_ITEMS;
	uint32_t *v = malloc(cap * 4), *a = malloc(cap * 4), *b = malloc(cap * 4);
	uint32_t *want = malloc(cap * 4), *c = malloc((cap + 1) * 4);
	int agree = 1, copies = 1, cases = 0;

	for (size_t i = 0; i < NELEM(p_axis); i++)
		for (size_t j = 0; j < NELEM(seeds); j++)
			for (size_t k = 0; k < NELEM(sizes); k++) {
				size_t n = sizes[k], kw = 0, ka, kb;

				pmb_gen_u32_p(v, n, p_axis[i], seeds[j]);
				for (size_t x = 0; x < n; x++)
					if (v[x] > PMB_GEN_U32_T)
						want[kw++] = v[x];
				ka = pmb_filter_branchy(v, n, PMB_GEN_U32_T, a);
				kb = pmb_filter_branchless(v, n, PMB_GEN_U32_T, b);
				agree &= ka == kw && kb == kw &&
					 memcmp(a, want, kw * 4) == 0 &&
					 memcmp(b, want, kw * 4) == 0;
				/* sol: every word, even those the filters drop,
				 * and nothing past out[n - 1]. */
				for (size_t x = 0; x < n; x++)
					c[x] = ~v[x];
				c[n] = 0xdeadbeefu;
				copies &= pmb_filter_sol(v, n, c) == n &&
					  memcmp(c, v, n * 4) == 0 &&
					  c[n] == 0xdeadbeefu;
				cases++;
			}
	tap_ok(agree, "filter: branchy and branchless keep the reference words in order (%d inputs)",
	       cases);
	tap_ok(copies, "filter: sol copies all n words, and only them");
	free(v);
	free(a);
	free(b);
	free(want);
	free(c);
}

/* The bytes of v's varint add up to its base-128 digits plus the stop bit
 * (128) of every byte but the last: sol's expected sum from the value. */
static uint64_t varint_byte_sum(uint32_t v)
{
	uint64_t sum = 128 * (uint64_t)(pmb_varint_len(v) - 1);

	for (; v; v >>= 7)
		sum += v & 0x7f;
	return sum;
}

/* Decode one varint with a stream kernel: the stream of just that varint. */
static int decodes_to(struct pmb_varint_sum (*dec)(const uint8_t *,
						    const uint8_t *),
		      const uint8_t *buf, size_t len, uint32_t v)
{
	struct pmb_varint_sum r = dec(buf, buf + len);

	return r.sum == v && r.count == 1;
}

static void test_varint_roundtrip(int pext)
{
	static const uint32_t edges[] = {
		0, 1, 127, 128, 16383, 16384, (1u << 21) - 1, 1u << 21,
		(1u << 28) - 1, 1u << 28, 0x7fffffffu, 0x80000000u, UINT32_MAX,
	};
	static const size_t edge_len[] = { 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 5 };
	uint8_t buf[PMB_VARINT_MAX + PMB_VARINT_PAD];
	int lens = 1, by = 1, bl = 1, sol = 1;
	struct pmb_rng g;

	for (size_t i = 0; i < NELEM(edges); i++) {
		size_t len;

		memset(buf, 0xff, sizeof(buf)); /* garbage past the varint */
		len = pmb_varint_encode(buf, edges[i]);
		lens &= len == edge_len[i] && pmb_varint_len(edges[i]) == len;
		by &= decodes_to(pmb_varint_branchy, buf, len, edges[i]);
		/* The 0xff garbage would show in the sum if sol read past end. */
		sol &= pmb_varint_sol(buf, buf + len) == varint_byte_sum(edges[i]);
		if (pext)
			bl &= decodes_to(pmb_varint_branchless, buf, len, edges[i]);
	}
	pmb_rng_seed(&g, 11);
	for (int i = 0; i < 100000; i++) {
		uint32_t v = pmb_gen_varint_value(&g, 0);
		size_t len;

		memset(buf, 0xff, sizeof(buf));
		len = pmb_varint_encode(buf, v);
		lens &= pmb_varint_len(v) == len;
		by &= decodes_to(pmb_varint_branchy, buf, len, v);
		sol &= pmb_varint_sol(buf, buf + len) == varint_byte_sum(v);
		if (pext)
			bl &= decodes_to(pmb_varint_branchless, buf, len, v);
	}
	tap_ok(lens, "varint: encoded lengths at every 7-bit boundary");
	tap_ok(by, "varint: byte loop round-trips boundary and random values");
	tap_ok(sol && pmb_varint_sol(buf, buf) == 0,
	       "varint: sol sums exactly the varint's bytes (boundary and random values, empty)");
	if (pext)
		tap_ok(bl, "varint: pext decoder round-trips boundary and random values");
	else
		tap_skip("CPU lacks BMI2 (pext): pext decoder round trip");
}

static void test_varint_streams(int pext)
{
	const size_t nmax = PMB_GEN_VARINTS;
	uint8_t *b1 = malloc(nmax * PMB_VARINT_MAX + PMB_VARINT_PAD);
	uint8_t *b2 = malloc(nmax * PMB_VARINT_MAX + PMB_VARINT_PAD);
	static const size_t ns[] = { 1, 3, 1000, PMB_GEN_VARINTS };
	int by = 1, bl = 1, widths = 1, sol = 1;

	for (int w = 0; w <= PMB_VARINT_MAX; w++)
		for (size_t j = 0; j < NELEM(seeds); j++)
			for (size_t k = 0; k < NELEM(ns); k++) {
				uint64_t sum;
				size_t len = pmb_gen_varints(b1, ns[k], w, seeds[j], &sum);
				struct pmb_varint_sum r;

				if (w)
					widths &= len == ns[k] * (size_t)w;
				uint64_t bytes = 0;

				r = pmb_varint_branchy(b1, b1 + len);
				by &= r.sum == sum && r.count == ns[k];
				for (size_t x = 0; x < len; x++)
					bytes += b1[x];
				sol &= pmb_varint_sol(b1, b1 + len) == bytes;
				if (pext) {
					r = pmb_varint_branchless(b1, b1 + len);
					bl &= r.sum == sum && r.count == ns[k];
				}
			}
	tap_ok(widths, "varint: fixed-width streams are n * width bytes");
	tap_ok(by, "varint: byte loop decodes every stream (widths 1..5, mix)");
	tap_ok(sol, "varint: sol is the plain byte sum of every stream (widths 1..5, mix)");
	if (pext)
		tap_ok(bl, "varint: pext decoder decodes every stream (widths 1..5, mix)");
	else
		tap_skip("CPU lacks BMI2 (pext): pext decoder on streams");

	/* The mix: bit length uniform in 1..32, so 7/32 per width 1..4 and
	 * 4/32 for width 5. */
	{
		struct pmb_rng g;
		size_t count[PMB_VARINT_MAX + 1] = { 0 };
		int ok = 1;

		pmb_rng_seed(&g, 4);
		for (size_t i = 0; i < nmax; i++)
			count[pmb_varint_len(pmb_gen_varint_value(&g, 0))]++;
		for (int w = 1; w <= PMB_VARINT_MAX; w++) {
			double want = (w == 5 ? 4.0 : 7.0) / 32.0;
			double got = (double)count[w] / (double)nmax;

			ok &= got >= want - 0.01 && got <= want + 0.01;
		}
		tap_ok(ok, "varint mix: widths 1..5 at 7,7,7,7,4 /32 within 1%%");
	}

	{
		uint64_t s1, s2;
		size_t l1 = pmb_gen_varints(b1, 1000, 0, 5, &s1);
		size_t l2 = pmb_gen_varints(b2, 1000, 0, 5, &s2);

		tap_ok(l1 == l2 && s1 == s2 && memcmp(b1, b2, l1 + PMB_VARINT_PAD) == 0,
		       "gen varints: same seed, same stream (and zeroed pad)");
		l2 = pmb_gen_varints(b2, 1000, 0, 6, &s2);
		tap_ok(l1 != l2 || memcmp(b1, b2, l1) != 0,
		       "gen varints: another seed, another stream");
	}
	free(b1);
	free(b2);
}

static int is_lower_bound(const uint32_t *a, size_t n, uint32_t key, size_t i)
{
	return i <= n && (i == n || a[i] >= key) && (i == 0 || a[i - 1] < key);
}

static void test_bsearch(void)
{
	static const size_t ns[] = { 1, 2, 3, 5, 16, 1000, 4099, 1u << 16 };
	uint32_t *a = malloc((1u << 16) * 4), *b = malloc((1u << 16) * 4);
	int sorted = 1, lb = 1, cases = 0;
	struct pmb_rng g;

	pmb_rng_seed(&g, 99);
	for (size_t k = 0; k < NELEM(ns); k++)
		for (size_t j = 0; j < NELEM(seeds); j++) {
			size_t n = ns[k];

			pmb_gen_sorted_u32(a, n, seeds[j]);
			for (size_t i = 0; i + 1 < n; i++)
				sorted &= a[i] <= a[i + 1];
			/* Slice i of 2^32 / n: the spread a uniform key needs. */
			for (size_t i = 0; i < n; i++)
				sorted &= a[i] >= (uint32_t)(((uint64_t)i << 32) / n) &&
					  (i + 1 == n ||
					   a[i] < (uint64_t)((((uint64_t)i + 1) << 32) / n));
			for (int t = 0; t < 2000; t++) {
				uint32_t key;
				size_t x, y;

				/* Half the keys hit an element or its neighbours. */
				if (t & 1) {
					size_t at = (size_t)pmb_gen_below(&g, n);

					key = a[at] + (uint32_t)((int)pmb_gen_below(&g, 3) - 1);
				} else {
					key = (uint32_t)pmb_rng_next(&g);
				}
				if (t == 0)
					key = 0;
				if (t == 2)
					key = UINT32_MAX;
				x = pmb_bsearch_branchy(a, n, key);
				y = pmb_bsearch_branchless(a, n, key);
				lb &= x == y && is_lower_bound(a, n, key, x);
				cases++;
			}
		}
	tap_ok(sorted, "gen sorted: non-decreasing, element i in slice i");
	tap_ok(lb, "bsearch: branchy and branchless give the lower bound (%d lookups)",
	       cases);

	/* Duplicates: the first of a run. */
	for (size_t i = 0; i < 100; i++)
		a[i] = (uint32_t)(i / 10);
	lb = 1;
	for (uint32_t key = 0; key <= 11; key++)
		lb &= pmb_bsearch_branchy(a, 100, key) == (key > 10 ? 100 : key * 10) &&
		      pmb_bsearch_branchless(a, 100, key) == (key > 10 ? 100 : key * 10);
	tap_ok(lb, "bsearch: runs of equal elements give their first index");
	tap_ok(pmb_bsearch_branchy(a, 0, 5) == 0 && pmb_bsearch_branchless(a, 0, 5) == 0 &&
		       pmb_bsearch_sol(a, 0, 5) == 0,
	       "bsearch: empty array");

	/* sol: n = 1 loads a[0]; n = 4 loads a[2], then a[1] or a[3] by the
	 * key's top bit, then the element it stands on. */
	a[0] = 10;
	a[1] = 20;
	a[2] = 30;
	a[3] = 40;
	tap_ok(pmb_bsearch_sol(a, 1, 0) == 10 &&
		       pmb_bsearch_sol(a, 4, 0) == 30 + 20 + 10 &&
		       pmb_bsearch_sol(a, 4, 0x40000000u) == 30 + 20 + 20 &&
		       pmb_bsearch_sol(a, 4, 0x80000000u) == 30 + 40 + 30 &&
		       pmb_bsearch_sol(a, 4, 0xc0000000u) == 30 + 40 + 40,
	       "bsearch sol: walks by the key's bits, one load per step");

	pmb_gen_sorted_u32(a, 1u << 16, 5);
	pmb_gen_sorted_u32(b, 1u << 16, 5);
	tap_ok(memcmp(a, b, (1u << 16) * 4) == 0, "gen sorted: same seed, same array");
	pmb_gen_sorted_u32(b, 1u << 16, 6);
	tap_ok(memcmp(a, b, (1u << 16) * 4) != 0, "gen sorted: another seed, another array");
	free(a);
	free(b);
}

/* The names and links the lead's report relies on. */
static void test_registry(void)
{
	static const char *const pairs[] = { "sum_if", "varint", "bsearch", "filter" };

	for (size_t i = 0; i < NELEM(pairs); i++) {
		const struct pmb_benchmark_def *d[3] = { NULL, NULL, NULL };
		static const char *const forms[] = { "branchy", "branchless", "sol" };
		char name[64], ref[3][64];

		for (int f = 0; f < 3; f++) {
			snprintf(name, sizeof(name), "%s/%s", pairs[i], forms[f]);
			for (size_t r = 0; r < pmb__registry_count(); r++) {
				const struct pmb_benchmark_def *x = pmb__registry_get(r);

				if (x->name && strcmp(x->name, name) == 0 && x->group &&
				    strcmp(x->group, "branch") == 0)
					d[f] = x;
			}
		}
		snprintf(ref[0], sizeof(ref[0]), "%s/sol", pairs[i]);
		snprintf(ref[1], sizeof(ref[1]), "%s/branchy", pairs[i]);
		tap_ok(d[0] && d[1] && d[2], "registry: branch/%s/{branchy,branchless,sol}",
		       pairs[i]);
		if (!(d[0] && d[1] && d[2]))
			continue;
		tap_ok(d[0]->reference && strcmp(d[0]->reference, ref[0]) == 0 &&
			       d[1]->reference && strcmp(d[1]->reference, ref[1]) == 0 &&
			       !d[2]->reference,
		       "registry: %s branchy -> sol, branchless -> branchy", pairs[i]);
		tap_ok(d[0]->args.kind == d[1]->args.kind &&
			       d[1]->args.kind == d[2]->args.kind &&
			       d[0]->args.n == d[1]->args.n && d[1]->args.n == d[2]->args.n &&
			       (d[0]->args.n == 0 ||
				(memcmp(d[0]->args.list, d[1]->args.list, d[0]->args.n * 8) == 0 &&
				 memcmp(d[1]->args.list, d[2]->args.list, d[0]->args.n * 8) == 0)),
		       "registry: %s forms share one argument axis", pairs[i]);
	}
}

/* FNV-1a over one pass's input: equal hashes, equal bytes (for the sizes
 * here, a collision of distinct inputs is a 2^-64 event). */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether h[0..n) holds no value twice. */
static bool all_distinct(uint64_t *h, size_t n)
{
	qsort(h, n, sizeof(*h), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (h[i] == h[i - 1])
			return false;
	return true;
}

/* The stream of fresh input (gen.h): every slot of every sample holds
 * bytes no other sample read, checked on the bytes themselves; a sample of
 * more passes than slots goes round its own slots only. */
static void test_stream_fresh(void)
{
	static const uint64_t passes[] = { 1, 3, 2, 4, 70, 1, 64, 2 };
	unsigned pct = 50;
	struct pmb_gen_stream st;
	uint64_t h[256], wrap[70];
	size_t nh = 0;
	bool wrapped = true;

	int err = pmb_gen_stream_init(&st, PMB_GEN_PASS_ITEMS, 42, pmb_gen_fill_bytes_p, &pct);

	/* Small enough to stay in a core's L2 (gen.h): 2 slots of 64 KiB. */
	tap_ok(err == 0 && st.max_slots == 2 && st.max_slots == PMB_GEN_STREAM_BYTES / PMB_GEN_PASS_ITEMS,
	       "stream: 2 slots of 64 KiB (%zu)", st.max_slots);
	for (size_t k = 0; k < NELEM(passes); k++) {
		tap_ok(pmb_gen_stream_prepare(&st, passes[k]) == 0, "stream: prepared for %llu passes",
		       (unsigned long long)passes[k]);
		for (uint64_t j = 0; j < passes[k]; j++) {
			size_t len;
			const uint8_t *v = pmb_gen_stream_next(&st, &len);
			uint64_t x = hash_bytes(v, len);

			if (passes[k] == 70)
				wrap[j] = x;
			if (j < st.max_slots)
				h[nh++] = x;
		}
	}
	for (size_t j = st.max_slots; j < 70; j++)
		wrapped = wrapped && wrap[j] == wrap[j - st.max_slots];
	tap_ok(all_distinct(h, nh), "stream: the same input bytes never repeat across %zu slots of %zu samples",
	       nh, NELEM(passes));
	tap_ok(wrapped, "stream: past its slots a sample reads its own slots again");
	pmb_gen_stream_free(&st);
}

/* Hashes of what the built-in sum_if benchmark's samples read, taken in
 * its own prepare hook right after the stream is refilled. */
static uint64_t run_hash[4096];
static size_t run_nh;
static uint64_t hook_passes[1024];
static size_t hook_calls;

static void hash_hook(struct pmb_state *s, uint64_t passes)
{
	const struct pmb_gen_stream *st;

	pmb_gen_stream_hook(s, passes);
	st = pmb_user_data(s);
	if (hook_calls < NELEM(hook_passes))
		hook_passes[hook_calls++] = passes;
	for (size_t k = 0; st && k < st->filled && run_nh < NELEM(run_hash); k++)
		run_hash[run_nh++] = hash_bytes(st->buf + k * st->slot_bytes, st->len[k]);
}

/* branch/sum_if/branchy/p50 through the runner: its prepare hook runs
 * before every sample with that sample's passes, and no sample reads bytes
 * an earlier one read. */
static void test_sum_if_fresh(void)
{
	const struct pmb_benchmark_def *d = NULL;
	struct pmb_benchmark_def wrapped;
	struct pmb_meter meter = { 0 };
	struct pmb_instance in;
	struct pmb_result res;
	struct pmb_runner_opts o = { .min_sample_ns = 2e5, .samples = 8, .samples_given = true,
				     .warmup_ns = 1e6, .repetitions = 1 };

	for (size_t r = 0; r < pmb__registry_count(); r++)
		if (pmb__registry_get(r)->name && !strcmp(pmb__registry_get(r)->name, "sum_if/branchy"))
			d = pmb__registry_get(r);
	if (!tap_ok(d && d->prepare == pmb_gen_stream_hook, "sum_if/branchy has the stream's prepare hook"))
		return;
	wrapped = *d;
	wrapped.prepare = hash_hook;
	memset(&in, 0, sizeof(in));
	in.def = &wrapped;
	in.arg[0] = 50;
	snprintf(in.name, sizeof(in.name), "branch/sum_if/branchy/p50");
	in.baseline = in.reference = -1;
	int err = pmb__runner_run(&o, &meter, &in, 1, &res);

	tap_ok(err == 0 && res.m.status == 0 && res.m.nsamples == 8,
	       "sum_if p50 ran 8 samples (%zu, %s)", res.m.nsamples, res.m.reason);
	/* The recorded samples are the last ones prepared, in order. */
	bool same = hook_calls >= res.m.nsamples;
	for (size_t i = 0; same && i < res.m.nsamples; i++)
		same = hook_passes[hook_calls - res.m.nsamples + i] == res.m.samples[i].passes;
	tap_ok(same, "the hook ran before each sample, told its passes (%zu calls)", hook_calls);
	tap_ok(run_nh > res.m.nsamples && all_distinct(run_hash, run_nh),
	       "no sample read bytes another sample read, nor two slots of one (%zu slots)", run_nh);
	pmb__result_free_samples(&res);
}

int main(void)
{
	int pext = pmb_varint_have_pext();

	if (!pext)
		tap_diag("CPU lacks BMI2 (pext): the pext decoder checks are skipped");
	test_rng();
	test_gen_p();
	test_sum_if();
	test_filter();
	test_varint_roundtrip(pext);
	test_varint_streams(pext);
	test_bsearch();
	test_registry();
	test_stream_fresh();
	test_sum_if_fresh();
	return tap_done();
}
