/* test_mem_kernels.c - the pure parts of the memory kernels: chase cycles, read and random-read sums. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmubench.h"
#include "kernels/mem.h"
#include "tap.h"

/* Walk the chase from line 0 with a visit map: every line exactly once,
 * back at line 0 after exactly n steps. */
static bool one_cycle(const void *buf, size_t bytes, size_t line)
{
	size_t n = bytes / line, k, idx;
	uintptr_t base = (uintptr_t)buf, p = base;
	unsigned char *seen = calloc(n, 1);
	bool ok = true;

	if (!seen)
		return false;
	for (k = 0; k < n && ok; k++) {
		idx = (p - base) / line;
		if (seen[idx])
			ok = false;
		seen[idx] = 1;
		p = *(const uintptr_t *)p;
		if (p < base || p >= base + n * line || (p - base) % line)
			ok = false;
	}
	ok = ok && p == base;
	for (k = 0; k < n && ok; k++)
		ok = seen[k];
	free(seen);
	return ok;
}

static void test_chase(void)
{
	static const size_t lines[] = { 2, 3, 7, 64, 1000, 4096, 65537 };
	static const uint64_t seeds[] = { 0, 1, 42, 0xdeadbeefcafef00dULL };
	static const size_t line_sizes[] = { 64, 128, sizeof(void *) };
	size_t i, j, l;

	for (l = 0; l < sizeof(line_sizes) / sizeof(line_sizes[0]); l++)
		for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			for (j = 0; j < sizeof(seeds) / sizeof(seeds[0]); j++) {
				size_t ls = line_sizes[l], b = lines[i] * ls;
				void *buf = malloc(b + ls);
				bool ok;

				/* A partial line at the end must stay unused. */
				b += ls / 2;
				ok = pmb_chase_build(buf, b, ls, seeds[j]) == 0;
				ok = ok && one_cycle(buf, b, ls) &&
				     pmb_chase_verify(buf, b, ls) == 0 &&
				     pmb_chase_verify_links(buf, b, ls) == 0 &&
				     pmb_chase_walk(buf, lines[i]) == buf;
				tap_ok(ok, "%zu lines of %zu B, seed %llx: one "
				       "cycle through all", lines[i], ls,
				       (unsigned long long)seeds[j]);
				free(buf);
			}
}

/* The cycle of a seed, as Sattolo's algorithm makes it in the lines
 * themselves with the build's draws (the high half of splitmix64 times i):
 * the build's index array must give the same links, byte for byte, so that
 * simulated counts and goldens do not move with how it is built. */
static void reference_chase(char *buf, size_t n, size_t line, uint64_t seed)
{
	uint64_t st = seed;

	for (size_t i = 0; i < n; i++)
		*(uintptr_t *)(buf + i * line) = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(((pmb_rng_splitmix64(&st) >> 32) * i) >> 32);
		uintptr_t t = *(uintptr_t *)(buf + i * line);

		*(uintptr_t *)(buf + i * line) = *(uintptr_t *)(buf + j * line);
		*(uintptr_t *)(buf + j * line) = t;
	}
	for (size_t i = 0; i < n; i++)
		*(uintptr_t *)(buf + i * line) = (uintptr_t)buf + *(uintptr_t *)(buf + i * line) * line;
}

static void test_chase_reference(void)
{
	static const size_t lines[] = { 2, 3, 17, 1000, 65537 };
	static const size_t line_sizes[] = { sizeof(void *), 24, 64 };
	size_t differ = 0, cases = 0;

	for (size_t l = 0; l < sizeof(line_sizes) / sizeof(line_sizes[0]); l++)
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			for (uint64_t seed = 0; seed < 3; seed++) {
				size_t ls = line_sizes[l], b = lines[i] * ls + ls / 2;
				char *a = calloc(1, b), *c = calloc(1, b);

				pmb_chase_build(a, b, ls, seed);
				reference_chase(c, lines[i], ls, seed);
				for (size_t k = 0; k < lines[i]; k++) {
					*(uintptr_t *)(a + k * ls) -= (uintptr_t)a;
					*(uintptr_t *)(c + k * ls) -= (uintptr_t)c;
				}
				differ += memcmp(a, c, b) != 0;
				cases++;
				free(a);
				free(c);
			}
	tap_ok(differ == 0, "the build's cycle is Sattolo's in the lines, byte for byte "
	       "(%zu of %zu buffers differ)", differ, cases);
}

static void test_chase_seeds(void)
{
	size_t n = 4096, b = n * PMB_MEM_LINE;
	char *a = aligned_alloc(64, b), *c = aligned_alloc(64, b);
	size_t i, same = 0;

	pmb_chase_build(a, b, PMB_MEM_LINE, 7);
	pmb_chase_build(c, b, PMB_MEM_LINE, 7);
	for (i = 0; i < n; i++)
		same += *(uintptr_t *)(a + i * PMB_MEM_LINE) -
				(uintptr_t)a ==
			*(uintptr_t *)(c + i * PMB_MEM_LINE) - (uintptr_t)c;
	tap_ok(same == n, "same seed, same cycle");
	pmb_chase_build(c, b, PMB_MEM_LINE, 8);
	for (same = 0, i = 0; i < n; i++)
		same += *(uintptr_t *)(a + i * PMB_MEM_LINE) -
				(uintptr_t)a ==
			*(uintptr_t *)(c + i * PMB_MEM_LINE) - (uintptr_t)c;
	/* Two random cycles share about one link in n. */
	tap_ok(same < 32, "another seed, another cycle (%zu links shared)", same);
	/* No prefetcher help: few links go to the next line. */
	for (same = 0, i = 0; i < n; i++) {
		uintptr_t next = *(uintptr_t *)(a + i * PMB_MEM_LINE);

		same += next == (uintptr_t)a + (i + 1) * PMB_MEM_LINE;
	}
	tap_ok(same < 32, "links are not sequential (%zu to the next line)",
	       same);
	free(a);
	free(c);
}

static void test_chase_verify_rejects(void)
{
	size_t n = 256, b = n * PMB_MEM_LINE;
	char *buf = aligned_alloc(64, b);
	uintptr_t *l0, *l1, t;

	tap_ok(pmb_chase_build(buf, PMB_MEM_LINE, PMB_MEM_LINE, 1) == -EINVAL,
	       "one line: -EINVAL");
	tap_ok(pmb_chase_build(buf, b, 4, 1) == -EINVAL,
	       "line smaller than a pointer: -EINVAL");
	pmb_chase_build(buf, b, PMB_MEM_LINE, 3);
	l0 = (uintptr_t *)buf;
	l1 = (uintptr_t *)*l0;
	/* Swapping two links splits the cycle in two. */
	t = *l0;
	*l0 = *l1;
	*l1 = t;
	tap_ok(pmb_chase_verify(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "two cycles are refused");
	/* Still a permutation of the lines: the link check (for cycles too
	 * large to walk) passes it, one cycle being the build's. */
	tap_ok(pmb_chase_verify_links(buf, b, PMB_MEM_LINE) == 0,
	       "two cycles are a permutation: the link check passes them");
	*l1 = *l0;
	*l0 = t;
	tap_ok(pmb_chase_verify(buf, b, PMB_MEM_LINE) == 0, "restored");
	*l1 = (uintptr_t)buf + b;
	tap_ok(pmb_chase_verify(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "a link out of the buffer is refused");
	tap_ok(pmb_chase_verify_links(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "a link out of the buffer is refused by the link check");
	*l1 = (uintptr_t)buf + 8;
	tap_ok(pmb_chase_verify(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "a link into the middle of a line is refused");
	tap_ok(pmb_chase_verify_links(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "a link into the middle of a line is refused by the link check");
	*l1 = (uintptr_t)l1;
	tap_ok(pmb_chase_verify(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "a line linked to itself is refused");
	/* l1 now points to itself, and l1's old target has no link in. */
	tap_ok(pmb_chase_verify_links(buf, b, PMB_MEM_LINE) == PMB_EVERIFY,
	       "two links to one line are refused by the link check");
	free(buf);
}

static void test_read(void)
{
	static const size_t sizes[] = { 0, 1, 7, 8, 9, 63, 64, 4096, 100003 };
	uint64_t *v = malloc(100003 * sizeof(*v)), st = 5;
	size_t i, k;

	for (i = 0; i < 100003; i++)
		v[i] = pmb_rng_splitmix64(&st);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint64_t ref = 0;

		for (i = 0; i < sizes[k]; i++)
			ref += v[i];
		tap_ok(pmb_read_sum(v, sizes[k]) == ref,
		       "read sum of %zu words matches", sizes[k]);
	}
	free(v);
}

static void test_random_read(void)
{
	static const size_t words[] = { 8, 100, 4096, 1 << 20 };
	static const size_t loads[] = { 4, 4096, 65536 };
	static const uint64_t seeds[] = { 1, 99 };
	size_t w, l, s, i;

	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t n = words[w];
		/* Guards after v: a load past n would read them. */
		uint64_t *v = malloc((n + 64) * sizeof(*v)), st = n;

		for (i = 0; i < n; i++)
			v[i] = pmb_rng_splitmix64(&st);
		for (i = n; i < n + 64; i++)
			v[i] = (uint64_t)1 << 40;
		for (l = 0; l < sizeof(loads) / sizeof(loads[0]); l++)
			for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++)
				tap_ok(pmb_random_read_sum(v, n, seeds[s], loads[l]) ==
				       pmb_random_read_ref(v, n, seeds[s], loads[l]),
				       "random read of %zu words, %zu loads, seed "
				       "%llu matches", n, loads[l],
				       (unsigned long long)seeds[s]);
		/* All ones: the sum counts the loads, all inside v. */
		for (i = 0; i < n; i++)
			v[i] = 1;
		tap_ok(pmb_random_read_sum(v, n, 3, 65536) == 65536,
		       "%zu words: 65536 loads, all inside the array", n);
		free(v);
	}
}

/* The loads spread evenly over the whole array. */
static void test_random_spread(void)
{
	size_t n = 1024, loads = 1 << 20, i, lo = SIZE_MAX, hi = 0;
	uint64_t *v = calloc(n, sizeof(*v));
	size_t *hits = calloc(n, sizeof(*hits));

	/* Counting hits one word at a time is slow: sample every 64th. */
	for (i = 0; i < n; i += 64) {
		memset(v, 0, n * sizeof(*v));
		v[i] = 1;
		hits[i] = (size_t)pmb_random_read_sum(v, n, 11, loads);
		if (hits[i] < lo)
			lo = hits[i];
		if (hits[i] > hi)
			hi = hits[i];
	}
	/* Expected 1024 hits per word; 30 % off is over 9 sigmas. */
	tap_ok(lo > 1024 * 7 / 10 && hi < 1024 * 13 / 10,
	       "loads spread evenly (per word %zu..%zu of ~1024)", lo, hi);
	free(v);
	free(hits);
}

int main(void)
{
	test_chase();
	test_chase_reference();
	test_chase_seeds();
	test_chase_verify_rejects();
	test_read();
	test_random_read();
	test_random_spread();
	return tap_done();
}
