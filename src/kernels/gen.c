/* gen.c - seeded, deterministic input generators for the built-in kernels. */
#include "gen.h"

#include "pmubench.h"

#include <stdlib.h>
#include <string.h>

/* The mask of pmb_gen_below(g, n): n - 1 with every bit below its top set. */
static uint64_t cover_mask(uint64_t n)
{
	uint64_t mask = n - 1;

	mask |= mask >> 1;
	mask |= mask >> 2;
	mask |= mask >> 4;
	mask |= mask >> 8;
	mask |= mask >> 16;
	mask |= mask >> 32;
	return mask;
}

uint64_t pmb_gen_below(struct pmb_rng *g, uint64_t n)
{
	uint64_t mask, x;

	if (n == 0)
		return 0;
	/* Rejection under the covering power of two: unbiased, no division,
	 * fewer than two draws on average. */
	mask = cover_mask(n);
	do
		x = pmb_rng_next(g) & mask;
	while (x >= n);
	return x;
}

/* The top 53 bits of x against pct %: exact to 2^-53, and it leaves the low
 * 11 bits of x free for the caller. */
static int chance_bits(uint64_t x, unsigned pct)
{
	if (pct >= 100)
		return 1;
	return (x >> 11) * 100 < (uint64_t)pct << 53;
}

int pmb_gen_chance(struct pmb_rng *g, unsigned pct)
{
	return chance_bits(pmb_rng_next(g), pct);
}

void pmb_gen_shuffle_u32(struct pmb_rng *g, uint32_t *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)pmb_gen_below(g, i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

void pmb_gen_cycle_u32(struct pmb_rng *g, uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	/* Sattolo: j < i - 1 strictly, which makes one cycle of length n. */
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)pmb_gen_below(g, i - 1);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

void pmb_gen_bytes_p(uint8_t *v, size_t n, unsigned pct, uint64_t seed)
{
	struct pmb_rng g;

	pmb_rng_seed(&g, seed);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = pmb_rng_next(&g);
		uint8_t low = (uint8_t)(x & PMB_GEN_BYTE_T);

		v[i] = chance_bits(x, pct) ? (uint8_t)(PMB_GEN_BYTE_T + 1 + low) : low;
	}
}

void pmb_gen_u32_p(uint32_t *v, size_t n, unsigned pct, uint64_t seed)
{
	struct pmb_rng g;

	pmb_rng_seed(&g, seed);
	for (size_t i = 0; i < n; i++) {
		int pass = chance_bits(pmb_rng_next(&g), pct);
		uint32_t low = (uint32_t)pmb_rng_next(&g) & PMB_GEN_U32_T;

		v[i] = pass ? PMB_GEN_U32_T + 1 + low : low;
	}
}

int pmb_gen_stream_init(struct pmb_gen_stream *st, size_t slot_bytes, uint64_t seed,
			pmb_gen_fill_fn fill, void *arg)
{
	memset(st, 0, sizeof(*st));
	st->in_bytes = slot_bytes;
	/* Slots start on cache lines: a pass's first load never straddles
	 * two, whichever slot it reads. */
	st->slot_bytes = (slot_bytes + 63) & ~(size_t)63;
	st->max_slots = PMB_GEN_STREAM_BYTES / st->slot_bytes;
	if (st->max_slots == 0)
		st->max_slots = 1;
	st->len = calloc(st->max_slots, sizeof(*st->len));
	st->seed = seed;
	st->fill = fill;
	st->arg = arg;
	return st->len ? 0 : -1;
}

/* Room for k slots: grown only as samples ask, since most are short. */
static int stream_reserve(struct pmb_gen_stream *st, size_t k)
{
	uint8_t *p;

	if (k <= st->nslots)
		return 0;
	p = aligned_alloc(64, k * st->slot_bytes);
	if (!p)
		return -1;
	free(st->buf);
	st->buf = p;
	st->nslots = k;
	return 0;
}

int pmb_gen_stream_prepare(struct pmb_gen_stream *st, uint64_t passes)
{
	size_t k = passes < st->max_slots ? (size_t)passes : st->max_slots;

	if (k == 0)
		k = 1;
	if (stream_reserve(st, k))
		return -1;
	/* Each pass's data from its own seed, the run's seed and the number
	 * of passes drawn before it: a stream that never repeats, the same
	 * on every machine for the same seed and pass counts. */
	for (size_t i = 0; i < k; i++) {
		uint64_t x = st->seed ^ (0x9e3779b97f4a7c15ull * ++st->drawn);

		st->len[i] = st->fill(st->buf + i * st->slot_bytes, st->in_bytes,
				      pmb_rng_splitmix64(&x), st->arg);
	}
	st->filled = k;
	st->next = 0;
	return 0;
}

void pmb_gen_stream_hook(struct pmb_state *s, uint64_t passes)
{
	struct pmb_gen_stream *st = pmb_user_data(s);

	if (st && pmb_gen_stream_prepare(st, passes))
		pmb_fail(s, "out of memory for a sample's fresh input");
}

void pmb_gen_stream_free(struct pmb_gen_stream *st)
{
	free(st->buf);
	free(st->len);
	memset(st, 0, sizeof(*st));
}

size_t pmb_gen_fill_bytes_p(uint8_t *slot, size_t slot_bytes, uint64_t seed, void *arg)
{
	pmb_gen_bytes_p(slot, slot_bytes, *(const unsigned *)arg, seed);
	return slot_bytes;
}

size_t pmb_gen_fill_u32_p(uint8_t *slot, size_t slot_bytes, uint64_t seed, void *arg)
{
	size_t n = slot_bytes / sizeof(uint32_t);

	pmb_gen_u32_p((uint32_t *)(void *)slot, n, *(const unsigned *)arg, seed);
	return n * sizeof(uint32_t);
}

size_t pmb_gen_fill_varints(uint8_t *slot, size_t slot_bytes, uint64_t seed, void *arg)
{
	struct pmb_gen_varint_arg *a = arg;
	size_t n = (slot_bytes - PMB_VARINT_PAD) / PMB_VARINT_MAX;

	return pmb_gen_varints(slot, n, a->width, seed, &a->sum);
}

size_t pmb_varint_encode(uint8_t *p, uint32_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

size_t pmb_varint_len(uint32_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

uint32_t pmb_gen_varint_value(struct pmb_rng *g, int width)
{
	uint64_t lo, hi;

	if (width <= 0 || width > PMB_VARINT_MAX) {
		unsigned bits = 1 + (unsigned)pmb_gen_below(g, 32);

		if (bits == 1)
			return (uint32_t)pmb_gen_below(g, 2);
		lo = 1ull << (bits - 1);
		return (uint32_t)(lo + pmb_gen_below(g, lo));
	}
	lo = width == 1 ? 0 : 1ull << (7 * (width - 1));
	hi = width == PMB_VARINT_MAX ? UINT32_MAX : (1ull << (7 * width)) - 1;
	return (uint32_t)(lo + pmb_gen_below(g, hi - lo + 1));
}

size_t pmb_gen_varints(uint8_t *buf, size_t n, int width, uint64_t seed,
		       uint64_t *sum)
{
	struct pmb_rng g;
	uint64_t total = 0;
	size_t len = 0;

	pmb_rng_seed(&g, seed);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = pmb_gen_varint_value(&g, width);

		total += v;
		len += pmb_varint_encode(buf + len, v);
	}
	memset(buf + len, 0, PMB_VARINT_PAD);
	if (sum)
		*sum = total;
	return len;
}


void pmb_gen_sorted_u32(uint32_t *a, size_t n, uint64_t seed)
{
	__extension__ typedef unsigned __int128 u128;
	const uint64_t range = 1ull << 32;
	uint64_t q, r, lo = 0, rem = 0;
	struct pmb_rng g;

	if (n == 0)
		return;
	pmb_rng_seed(&g, seed);
	/* Slice i starts at floor(i * 2^32 / n); stepping it with a running
	 * remainder avoids a 64-bit division per element, which matters for
	 * the DRAM tier's hundreds of millions of elements. */
	q = range / n;
	r = range % n;
	for (size_t i = 0; i < n; i++) {
		uint64_t nrem = rem + r, step = nrem >= n;
		/* A slice is q or q + 1 wide (w <= 2^32): the high half of 64
		 * random bits times w is below w, each value within 2^-32 of
		 * uniform, with no rejection.  pmb_gen_below's rejection loop
		 * took 3.7 ns per element (its exit branch mispredicted), and
		 * branch/bsearch's DRAM points fill 480 M elements per run. */
		uint64_t w = q + step;

		a[i] = (uint32_t)(lo + (uint64_t)(((u128)pmb_rng_next(&g) * w) >> 64));
		lo += w;
		rem = nrem - (step ? n : 0);
	}
}
