/* mem.c - memory kernels across the cache tiers: load latency (chase), sequential and random read. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmubench.h"
#include "mem.h"

/* Knuth's MMIX LCG: one multiply-add per index, cheap enough that four of
 * them in flight never limit the loads they feed. */
#define LCG_MUL 6364136223846793005ULL
#define LCG_ADD 1442695040888963407ULL

/* Loads per pass of chase and random_read: long enough to dwarf the
 * loop's own cost, short enough that a DRAM pass lasts milliseconds. */
#define MIN_PASS_ITEMS 16384

/* The largest cycle the run walks whole to verify it (16 MiB of lines).
 * The walk is one dependent miss per line: at 1.25 GiB it took 6.6 s on
 * huge pages and 9.3 s on 4 KiB ones (KVM guest), longer than all of the
 * chase's samples together.  Past it, the links are checked to be a
 * permutation of the lines as pmb_chase_build writes them (each target a
 * line, met once; a separate pass, pmb_chase_verify_links, cost 0.15-0.24 s
 * at 1.25 GiB more), and that the permutation is one cycle is Sattolo's
 * (pmb_chase_build): the very code the walk verifies at every smaller
 * size, and the unit tests at odd ones. */
#define WALK_VERIFY_LINES ((size_t)1 << 18)

/* Uniform in [0, n): multiply-shift on the high half (Lemire), exact
 * enough for shuffling and free of the division a modulo costs. */
static uint64_t rand_below(uint64_t *state, uint64_t n)
{
	uint64_t r = pmb_rng_splitmix64(state);

	if (n <= UINT32_MAX)
		return ((r >> 32) * n) >> 32;
	return r % n;
}

#define LINK(base, line, i) (*(uintptr_t *)((char *)(base) + (i) * (line)))

/* How far ahead the build prefetches the index it will swap with.  The
 * swaps' addresses come from the generator alone, so they are known in
 * advance; without the prefetch each swap waited for its own miss, and
 * building a 1.25 GiB cycle took 0.62 instead of 0.33 s on huge pages
 * (a KVM guest; 1.2 s when the swaps were made in the lines themselves).
 * 16 swaps ahead keeps about as many misses in flight as a core tracks. */
#define BUILD_AHEAD 16

/* rand_below(state, n) as it will be drawn `ahead` draws from now:
 * splitmix64 adds a constant per draw, so its state then is known. */
static uint64_t peek_below(uint64_t state, uint64_t ahead, uint64_t n)
{
	uint64_t st = state + (ahead - 1) * 0x9e3779b97f4a7c15ULL;

	return rand_below(&st, n);
}

/* Whether line k (of n) is a link's target for the first time, marking
 * it in hit (n bits): the permutation test of pmb_chase_build and
 * pmb_chase_verify_links. */
static bool first_target(uint64_t *hit, size_t k, size_t n)
{
	if (k >= n || (hit[k / 64] >> (k % 64)) & 1)
		return false;
	hit[k / 64] |= (uint64_t)1 << (k % 64);
	return true;
}

int pmb_chase_build(void *buf, size_t bytes, size_t line, uint64_t seed)
{
	size_t n, i, j, bad = 0;
	uint64_t st = seed, *hit;
	uint32_t *idx;

	if (!buf || line < sizeof(void *) || line % sizeof(void *))
		return -EINVAL;
	n = bytes / line;
	if (n < 2 || n - 1 > UINT32_MAX)
		return -EINVAL;
	/* Sattolo: swapping a[i] only with a j < i makes i -> a[i] a single
	 * n-cycle, uniformly chosen among them.  The swaps are made in a
	 * compact array of 32-bit indices, then the links written from it
	 * in one sequential pass: in the lines themselves each swap touched
	 * two random lines of the whole working set (a TLB walk each on 4 KiB
	 * pages), here two words of a 16 times smaller array.  The array is
	 * the last n * 4 bytes of the lines: the pass writing link i (at
	 * i * line) overwrites only indices below i + 1, already read, as
	 * line >= 8 (so the indices need no memory of their own: the run's
	 * peak is the working set, and the check's bitmap below 1/512 of
	 * it).  1.25 GiB: 0.65-0.72 s -> 0.31-0.37 s on huge pages, 0.70 ->
	 * 0.36-0.40 s on 4 KiB ones (KVM guest, side by side). */
	idx = (uint32_t *)(void *)((char *)buf + n * line - n * sizeof(*idx));
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (i = n - 1; i > 0; i--) {
		uint32_t t;

		/* The same draws as without it: the cycle of a seed is
		 * unchanged (peek_below reads, never advances, st). */
		if (i > BUILD_AHEAD)
			__builtin_prefetch(&idx[peek_below(st, BUILD_AHEAD + 1, i - BUILD_AHEAD)], 1);
		j = (size_t)rand_below(&st, i);
		t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	/* The links, each checked as it is written: a line of buf, the
	 * target of no other link (pmb_chase_verify_links' test, one bit per
	 * line, on the very values written, without reading the lines
	 * again). */
	hit = calloc((n + 63) / 64, sizeof(*hit));
	if (!hit)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t k = idx[i];

		bad += !first_target(hit, k, n);
		LINK(buf, line, i) = (uintptr_t)buf + (uintptr_t)k * line;
	}
	free(hit);
	/* The rest of the lines the indices were kept in, as the links alone
	 * would have left them: zero (the buffers' bytes are zero). */
	for (i = (n * line - n * sizeof(*idx)) / line; i < n; i++)
		memset((char *)buf + i * line + sizeof(uintptr_t), 0, line - sizeof(uintptr_t));
	return bad ? PMB_EVERIFY : 0;
}

__attribute__((noinline)) void *pmb_chase_walk(void *p, size_t steps)
{
	void **q = p;

	for (; steps >= 8; steps -= 8) {
		q = (void **)*q;
		q = (void **)*q;
		q = (void **)*q;
		q = (void **)*q;
		q = (void **)*q;
		q = (void **)*q;
		q = (void **)*q;
		q = (void **)*q;
	}
	while (steps--)
		q = (void **)*q;
	return q;
}

int pmb_chase_verify(const void *buf, size_t bytes, size_t line)
{
	uintptr_t base = (uintptr_t)buf, p = base, next;
	size_t n, k;

	if (!buf || line < sizeof(void *))
		return PMB_EVERIFY;
	n = bytes / line;
	/* A walk first back at its start after k steps met k distinct lines,
	 * so k == n proves one cycle through all of them. */
	for (k = 1; k <= n; k++) {
		next = *(const uintptr_t *)p;
		if (next < base || next - base >= n * line ||
		    (next - base) % line)
			return PMB_EVERIFY;
		if (next == base)
			return k == n ? 0 : PMB_EVERIFY;
		p = next;
	}
	return PMB_EVERIFY;
}

int pmb_chase_verify_links(const void *buf, size_t bytes, size_t line)
{
	uintptr_t base = (uintptr_t)buf;
	size_t n, i, bad = 0;
	uint64_t *hit;

	if (!buf || line < sizeof(void *))
		return PMB_EVERIFY;
	n = bytes / line;
	hit = calloc((n + 63) / 64, sizeof(*hit));
	if (!hit)
		return -ENOMEM;
	/* One word per line in order, one bit per line at random: the bits
	 * (n / 8 bytes) stay in the caches, and no load waits on another. */
	for (i = 0; i < n; i++) {
		uintptr_t next = *(const uintptr_t *)(base + i * line);
		size_t k = (next - base) / line;

		bad += next < base || (next - base) % line || !first_target(hit, k, n);
	}
	free(hit);
	return bad ? PMB_EVERIFY : 0;
}

__attribute__((noinline)) uint64_t pmb_read_sum(const uint64_t *v, size_t n)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;
	size_t i;

	/* Four sums: the adds are no chain, only the loads set the pace. */
	for (i = 0; i + 8 <= n; i += 8) {
		a += v[i] + v[i + 4];
		b += v[i + 1] + v[i + 5];
		c += v[i + 2] + v[i + 6];
		d += v[i + 3] + v[i + 7];
	}
	for (; i < n; i++)
		a += v[i];
	return a + b + c + d;
}

static uint64_t random_start(uint64_t seed, int k)
{
	uint64_t st = seed + (uint64_t)k;

	return pmb_rng_splitmix64(&st);
}

/* Index in [0, n) from the high half of an LCG state (its low bits are
 * weak); n is at most 2^32. */
static inline size_t lcg_index(uint64_t x, uint64_t n)
{
	return (size_t)(((x >> 32) * n) >> 32);
}

__attribute__((noinline)) uint64_t
pmb_random_read_sum(const uint64_t *v, size_t n, uint64_t seed, size_t loads)
{
	uint64_t x0 = random_start(seed, 0), x1 = random_start(seed, 1);
	uint64_t x2 = random_start(seed, 2), x3 = random_start(seed, 3);
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	uint64_t m = n > UINT32_MAX ? UINT32_MAX : n;
	size_t i;

	/* Addresses come from the generators, never from loaded data: the
	 * loads are independent and overlap as far as the core allows. */
	for (i = 0; i + PMB_RANDOM_STREAMS <= loads; i += PMB_RANDOM_STREAMS) {
		x0 = x0 * LCG_MUL + LCG_ADD;
		x1 = x1 * LCG_MUL + LCG_ADD;
		x2 = x2 * LCG_MUL + LCG_ADD;
		x3 = x3 * LCG_MUL + LCG_ADD;
		s0 += v[lcg_index(x0, m)];
		s1 += v[lcg_index(x1, m)];
		s2 += v[lcg_index(x2, m)];
		s3 += v[lcg_index(x3, m)];
	}
	return s0 + s1 + s2 + s3;
}

uint64_t pmb_random_read_ref(const uint64_t *v, size_t n, uint64_t seed,
			     size_t loads)
{
	uint64_t m = n > UINT32_MAX ? UINT32_MAX : n, sum = 0;
	size_t i;
	int k;

	for (k = 0; k < PMB_RANDOM_STREAMS; k++) {
		uint64_t x = random_start(seed, k);

		for (i = 0; i < loads / PMB_RANDOM_STREAMS; i++) {
			x = x * LCG_MUL + LCG_ADD;
			sum += v[lcg_index(x, m)];
		}
	}
	return sum;
}

/* ---- the benchmarks ----------------------------------------------------- */

/* The working set of pmb_arg(s, 0) bytes in whole lines, or 0 (the
 * instance is then skipped) when it has under two lines. */
static size_t working_lines(struct pmb_state *s)
{
	int64_t bytes = pmb_arg(s, 0);

	if (bytes < 2 * PMB_MEM_LINE) {
		pmb_skip(s, "working set smaller than two cache lines");
		return 0;
	}
	return (size_t)bytes / PMB_MEM_LINE;
}

/* Fills v[0..n) from splitmix64 at seed; returns their wrapping sum (taken
 * as they are made: a second pass over a DRAM point's words cost 0.6 ns
 * per word more). */
static uint64_t fill_random(uint64_t *v, size_t n, uint64_t seed)
{
	uint64_t st = seed, sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		v[i] = pmb_rng_splitmix64(&st);
		sum += v[i];
	}
	return sum;
}

/* Load-to-use latency: one item is one dependent load of a line picked at
 * random (a random cycle defeats the prefetchers and allows no overlap);
 * its buffer from alloc. */
static void chase(struct pmb_state *s, void *(*alloc)(struct pmb_state *, size_t))
{
	size_t n = working_lines(s), bytes = n * PMB_MEM_LINE, steps;
	void *buf, *p;
	int err;

	if (!n)
		return;
	if (n - 1 > UINT32_MAX) {
		/* pmb_chase_build's indices are 32-bit. */
		pmb_skip(s, "working set over 2^32 lines (256 GiB)");
		return;
	}
	buf = alloc(s, bytes);
	if (!buf) {
		pmb_skip(s, "cannot allocate the working set");
		return;
	}
	err = pmb_chase_build(buf, bytes, PMB_MEM_LINE, pmb_seed(s));
	if (!err && n <= WALK_VERIFY_LINES)
		err = pmb_chase_verify(buf, bytes, PMB_MEM_LINE);
	if (err == -ENOMEM) {
		pmb_skip(s, "cannot allocate the check of the pointer chase");
		goto out;
	}
	if (err) {
		pmb_fail(s, "pointer chase is not one cycle through all lines");
		goto out;
	}
	/* A fixed walk per pass, not the whole cycle: a DRAM-sized cycle
	 * would make one pass last a second.  Each pass goes on where the
	 * last one stopped, so over the samples every line is visited with
	 * the same reuse distance (the whole working set) as a full walk. */
	steps = MIN_PASS_ITEMS;
	p = buf;
	while (pmb_loop_batch(s, steps)) {
		p = pmb_chase_walk(p, steps);
		pmb_do_not_optimize(p);
	}
out:
	pmb_buffer_free(buf, bytes);
}

/* On huge pages (unless --hugepages=off): the caches' latency, the TLB's
 * reach being far larger than the working set up to hundreds of MiB. */
static void bm_chase(struct pmb_state *s)
{
	chase(s, pmb_buffer_alloc);
}
PMB_BENCHMARK(bm_chase, .group = "mem", .name = "chase", .args = PMB_TIERS);

/* `len` words of v[0..words) from *off on, going on at v[0] past the end;
 * *off moves past them. */
static uint64_t read_pass(const uint64_t *v, size_t words, size_t *off, size_t len)
{
	size_t first = words - *off < len ? words - *off : len;
	uint64_t sum = pmb_read_sum(v + *off, first);

	if (first < len)
		sum += pmb_read_sum(v, len - first);
	*off = (*off + len) % words;
	return sum;
}

/* Sequential read bandwidth: one item is one 64-byte line (8 words), so
 * the per-item time compares with mem/chase's per-line latency. */
static void bm_read(struct pmb_state *s)
{
	size_t n = working_lines(s), bytes = n * PMB_MEM_LINE, words;
	uint64_t *v, ref;

	if (!n)
		return;
	v = pmb_buffer_alloc(s, bytes);
	if (!v) {
		pmb_skip(s, "cannot allocate the working set");
		return;
	}
	words = bytes / sizeof(*v);
	ref = fill_random(v, words, pmb_seed(s));
	if (pmb_read_sum(v, words) != ref) {
		pmb_fail(s, "sequential sum differs from the reference");
		goto out;
	}
	/* A pass reads at most MIN_PASS_ITEMS lines, from where the last one
	 * stopped, wrapping at the end: the stream of loads is the one whole
	 * passes make (the same order, each line reused after the whole
	 * working set), cut into passes.  A whole 1.25 GiB per pass made each
	 * sample at least one pass of 0.15-0.3 s, and the 10 samples of a
	 * DRAM point 8 s of the default run. */
	size_t per = n < MIN_PASS_ITEMS ? n : MIN_PASS_ITEMS, off = 0;

	pmb_set_bytes(s, (uint64_t)per * PMB_MEM_LINE);
	while (pmb_loop_batch(s, per))
		pmb_do_not_optimize(read_pass(v, words, &off, per * (PMB_MEM_LINE / sizeof(*v))));
out:
	pmb_buffer_free(v, bytes);
}
PMB_BENCHMARK(bm_read, .group = "mem", .name = "read", .args = PMB_TIERS);

/* Random loads with memory-level parallelism: one item is one 8-byte load
 * at a random word; addresses do not depend on loaded data. */
static void bm_random_read(struct pmb_state *s)
{
	size_t n = working_lines(s), bytes = n * PMB_MEM_LINE, words, loads;
	uint64_t *v, seed = pmb_seed(s);

	if (!n)
		return;
	v = pmb_buffer_alloc(s, bytes);
	if (!v) {
		pmb_skip(s, "cannot allocate the working set");
		return;
	}
	words = bytes / sizeof(*v);
	(void)fill_random(v, words, seed);
	loads = MIN_PASS_ITEMS - MIN_PASS_ITEMS % PMB_RANDOM_STREAMS;
	if (pmb_random_read_sum(v, words, ~seed, loads) !=
	    pmb_random_read_ref(v, words, ~seed, loads)) {
		pmb_fail(s, "random-read sum differs from the reference");
		goto out;
	}
	/* A fixed number of loads per pass, each pass from a new stream
	 * seed: the footprint is the whole working set without a pass over
	 * a DRAM-sized buffer lasting a second. */
	uint64_t st = ~seed;
	while (pmb_loop_batch(s, loads)) {
		pmb_do_not_optimize(pmb_random_read_sum(v, words, st, loads));
		st += 0x9e3779b97f4a7c15ull;
	}
out:
	pmb_buffer_free(v, bytes);
}
PMB_BENCHMARK(bm_random_read, .group = "mem", .name = "random_read",
	      .args = PMB_TIERS);

/* Defined last, so the sweeps run on huge pages first and on 4 KiB pages
 * after (the memory one page size faulted in serves the next kernel of
 * that size: buffer.c).
 *
 * On 4 KiB pages, as lmbench's lat_mem_rd: the same chase, plus the TLB
 * misses of a working set beyond the TLBs' reach (--topology lists it).
 * Against mem/chase at the same size, the difference is the TLB's share
 * (issue 32). */
static void bm_chase_4k(struct pmb_state *s)
{
	chase(s, pmb_buffer_alloc_4k);
}
PMB_BENCHMARK(bm_chase_4k, .group = "mem", .name = "chase_4k", .args = PMB_TIERS);
