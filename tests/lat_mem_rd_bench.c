/* lat_mem_rd_bench.c - a pointer chase written the way lmbench's lat_mem_rd
 * writes it (issue 32), and the two variants that tell why it reads lower
 * than mem/chase_4k.  Built with the built-in kernels' src/kernels/mem.c
 * (tests/meson.build), so that tests/bench_tlb.py runs all of them beside
 * mem/chase_4k and mem/chase in one run.  Its own code: only the method is
 * lmbench's.
 *
 * All four families share one walk (lat_mem_rd's: 16 dependent loads
 * unrolled, one pmb_loop_batch per 16) on 4 KiB pages (pmb_buffer_alloc_4k)
 * and differ only in where each line points:
 *   lat_mem_rd_64, _128  lmbench's chain: each line one stride back, the
 *                        first to the last; bytes / stride lines.
 *   lat_mem_rd_far       every 64-byte line, each 65 lines (4 KiB + 64 B)
 *                        back modulo the buffer: a constant stride still,
 *                        but every load on another page, which a
 *                        prefetcher that stays inside a 4 KiB page cannot
 *                        follow.
 *   lat_mem_rd_rand      every 64-byte line in one random cycle (Sattolo),
 *                        as lmbench's later lat_mem_rd -t: mem/chase_4k's
 *                        order, lat_mem_rd's code. */
#include <stdint.h>
#include <string.h>

#include <pmubench.h>

#define UNROLL 16
#define LINE 64
/* lat_mem_rd_far's stride in lines: just over a page. */
#define FAR_LINES (4096 / LINE + 1)

#define SLOT(buf, stride, i) (*(uintptr_t *)((buf) + (size_t)(i) * (stride)))

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* xorshift64*: the test's own generator, independent of mem.c's. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

/* Line i -> line i - back (mod n): one cycle through all n lines when
 * back and n are coprime. */
static void link_back(char *buf, size_t stride, size_t n, size_t back)
{
	for (size_t i = 0; i < n; i++)
		SLOT(buf, stride, i) = (uintptr_t)(buf + ((i + n - back) % n) * stride);
}

/* One random n-cycle: Sattolo's shuffle of the slots as indices (a swap
 * only with a j < i), then the indices turned into addresses. */
static void link_random(char *buf, size_t stride, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < n; i++)
		SLOT(buf, stride, i) = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_random(&x) % i);
		uintptr_t t = SLOT(buf, stride, i);

		SLOT(buf, stride, i) = SLOT(buf, stride, j);
		SLOT(buf, stride, j) = t;
	}
	for (size_t i = 0; i < n; i++)
		SLOT(buf, stride, i) = (uintptr_t)(buf + SLOT(buf, stride, i) * stride);
}

/* A walk from line 0 back to it after k steps met k lines: k == n means
 * one cycle through all of them, so every size measures its whole set. */
static int one_cycle(const char *buf, size_t n)
{
	uintptr_t p = (uintptr_t)buf;
	size_t k = 0;

	do {
		p = *(const uintptr_t *)p;
		k++;
	} while (p != (uintptr_t)buf && k <= n);
	return k == n;
}

enum order { BACK, FAR, RANDOM };

static void lat_mem_rd(struct pmb_state *s, size_t stride, enum order order)
{
	size_t bytes = (size_t)pmb_arg(s, 0), n = bytes / stride, back = 1;
	char *buf;
	char **p;

	if (n < 2) {
		pmb_skip(s, "working set smaller than two strides");
		return;
	}
	if (order == FAR) {
		/* 65 lines, or the next count coprime with n (one cycle). */
		for (back = FAR_LINES; gcd(back, n) != 1; back++)
			;
		if (back >= n) {
			pmb_skip(s, "working set within two pages: no stride leaves the page");
			return;
		}
	}
	buf = pmb_buffer_alloc_4k(s, bytes);
	if (!buf) {
		pmb_skip(s, "cannot allocate the working set");
		return;
	}
	if (order == RANDOM)
		link_random(buf, stride, n, pmb_seed(s));
	else
		link_back(buf, stride, n, back);
	if (!one_cycle(buf, n)) {
		pmb_fail(s, "the chain is not one cycle through all lines");
		goto out;
	}
	p = (char **)buf;
	while (pmb_loop_batch(s, UNROLL)) {
#define STEP p = (char **)*p;
		STEP STEP STEP STEP STEP STEP STEP STEP
		STEP STEP STEP STEP STEP STEP STEP STEP
#undef STEP
	}
	pmb_do_not_optimize(p);
out:
	pmb_buffer_free(buf, bytes);
}

static void bm_stride64(struct pmb_state *s)
{
	lat_mem_rd(s, 64, BACK);
}
PMB_BENCHMARK(bm_stride64, .group = "lmbench", .name = "lat_mem_rd_64", .args = PMB_TIERS);

static void bm_stride128(struct pmb_state *s)
{
	lat_mem_rd(s, 128, BACK);
}
PMB_BENCHMARK(bm_stride128, .group = "lmbench", .name = "lat_mem_rd_128", .args = PMB_TIERS);

static void bm_far(struct pmb_state *s)
{
	lat_mem_rd(s, LINE, FAR);
}
PMB_BENCHMARK(bm_far, .group = "lmbench", .name = "lat_mem_rd_far", .args = PMB_TIERS);

static void bm_random(struct pmb_state *s)
{
	lat_mem_rd(s, LINE, RANDOM);
}
PMB_BENCHMARK(bm_random, .group = "lmbench", .name = "lat_mem_rd_rand", .args = PMB_TIERS);

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
