/* disasm_kernel.h - the kernel of tests/disasm_bench.c and its plugin: a byte count with one data-dependent branch, its code pinned. */
#ifndef PMB_TESTS_DISASM_KERNEL_H
#define PMB_TESTS_DISASM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Count the bytes of p[0..n) at 128 or above.  noipa keeps it one
 * function under its own name; no if-conversion and the volatile asm on
 * the taken path keep its conditional jump (as src/kernels/branch.h
 * does): one decision per byte, taken on random bytes half the time. */
#define PMBT_BRANCHY                                                           \
	__attribute__((noipa, optimize("O2", "no-if-conversion",               \
				       "no-if-conversion2", "no-tree-vectorize"))) \
	__attribute__((unused))

#define PMBT_COUNT_HI_BODY(p, n)                                               \
	{                                                                      \
		uint64_t c = 0;                                                \
		for (size_t i = 0; i < (n); i++)                               \
			if ((p)[i] >= 128) {                                   \
				__asm__ volatile("");                          \
				c++;                                           \
			}                                                      \
		return c;                                                      \
	}

/* n random bytes from seed, each >= 128 with probability 1/2 (xorshift);
 * NULL out of memory. */
static inline uint8_t *pmbt_bytes(uint64_t seed, size_t n)
{
	uint8_t *p = malloc(n);
	uint64_t x = seed | 1;

	for (size_t i = 0; p && i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (uint8_t)(x >> 32);
	}
	return p;
}

/* tests/disasm_lib.c: the same kernel in a shared library, called through
 * the PLT. */
uint64_t pmbt_count_hi_lib(const uint8_t *p, size_t n);

#endif
