/* branch.h - the branch study's pure kernels, for its benchmarks and tests. */
#ifndef PMB_KERNELS_BRANCH_H
#define PMB_KERNELS_BRANCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Code generation is pinned, not left to the optimizer: GCC if-converts small
 * branches and vectorizes cheap loops at -O2 and -O3, either of which would
 * turn a "branchy" kernel into a branchless one and make the study measure
 * nothing.  So:
 *  - every kernel is noipa: it stays one out-of-line function under its own
 *    symbol (no inlining, no .constprop/.isra clone), the code that
 *    tests/test_disasm.py reads in the binary is the code that runs;
 *  - every kernel is compiled at -O2 whatever the build type: at -O0, -Og
 *    and -Os GCC turns the branchless selects back into jumps, and one
 *    level for all build types keeps results comparable between builds;
 *  - no kernel is vectorized: the study compares one decision per item in
 *    scalar code, and its speed-of-light loops stay scalar to match;
 *  - the taken path of a branchy kernel holds PMB_KEEP_BRANCH(), an empty
 *    volatile asm: it costs no instruction, but no compiler may execute it
 *    speculatively, so the conditional jump around it must stay;
 *  - a speed-of-light copy loop is PMB_KERNEL_COPY: branchless, and GCC may
 *    not replace the loop by a call to memcpy (libc's memcpy picks its
 *    strategy by size and CPU, and its speed moves tenfold between runs on
 *    some virtual machines: no limit to measure against).
 * tests/test_disasm.py checks the result in the built binary.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define PMB_KERNEL_BRANCHY                                                     \
	__attribute__((noipa,                                                  \
		       optimize("O2", "no-if-conversion", "no-if-conversion2",  \
				"no-tree-vectorize", "no-tree-slp-vectorize")))
#define PMB_KERNEL_BRANCHLESS                                                  \
	__attribute__((noipa, optimize("O2", "no-tree-vectorize",              \
				       "no-tree-slp-vectorize")))
#define PMB_KERNEL_COPY                                                        \
	__attribute__((noipa,                                                  \
		       optimize("O2", "no-tree-vectorize",                     \
				"no-tree-slp-vectorize",                       \
				"no-tree-loop-distribute-patterns")))
#define PMB_SCALAR_LOOP
#else
#define PMB_KERNEL_BRANCHY __attribute__((noinline))
#define PMB_KERNEL_BRANCHLESS __attribute__((noinline))
#if defined(__has_attribute)
#if __has_attribute(no_builtin)
#define PMB_KERNEL_COPY __attribute__((noinline, no_builtin("memcpy")))
#endif
#endif
#ifndef PMB_KERNEL_COPY
#define PMB_KERNEL_COPY __attribute__((noinline))
#endif
#define PMB_SCALAR_LOOP                                                        \
	_Pragma("clang loop vectorize(disable) interleave(disable)")
#endif
#define PMB_KEEP_BRANCH() __asm__ volatile("")
/* Where the compiler has it (clang), asks for a select (cmov) rather than a
 * jump; GCC 12 picks cmov for the branchless kernels' selects by itself.
 * clang 14's x86 cmov converter still turns the bsearch select back into a
 * jump: GCC is the compiler this study is checked with. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_unpredictable)
#define PMB_UNPREDICTABLE(x) __builtin_unpredictable(x)
#endif
#endif
#ifndef PMB_UNPREDICTABLE
#define PMB_UNPREDICTABLE(x) (x)
#endif

/* ---- sum_if: sum of the bytes greater than t ------------------------------ */

/** `if (v[i] > t) sum += v[i]`, compiled to a conditional jump. */
uint64_t pmb_sum_if_branchy(const uint8_t *v, size_t n, uint8_t t);
/** The same sum through a mask: no jump but the loop's. */
uint64_t pmb_sum_if_branchless(const uint8_t *v, size_t n, uint8_t t);
/** Speed of light: the plain sum of the same bytes, the same scalar loop with
 * no decision. */
uint64_t pmb_sum_if_sol(const uint8_t *v, size_t n);

/* ---- filter: copy the words greater than t -------------------------------- */

/** `if (v[i] > t) out[k++] = v[i]`; returns k.  out holds n words. */
size_t pmb_filter_branchy(const uint32_t *v, size_t n, uint32_t t,
			  uint32_t *out);
/** Store every word, advance by the predicate; returns k.  out holds n
 * words (out[k] may be written too). */
size_t pmb_filter_branchless(const uint32_t *v, size_t n, uint32_t t,
			     uint32_t *out);
/** Speed of light: copy all n words to out, one load and one store each,
 * with no decision and no call to memcpy; returns n.  out holds n words. */
size_t pmb_filter_sol(const uint32_t *v, size_t n, uint32_t *out);

/* ---- varint: decode a stream of LEB128 uint32 varints -------------------- */

/** What a decoder found in a stream: the sum of the values and their
 * number. */
struct pmb_varint_sum {
	uint64_t sum;
	uint64_t count;
};

/** Byte-by-byte decoder over [p, end): one data-dependent jump per byte.
 * The stream must be well formed (every varint at most 5 bytes, the last one
 * ending at end). */
struct pmb_varint_sum pmb_varint_branchy(const uint8_t *p, const uint8_t *end);
/** Whether pmb_varint_branchless can run here: x86-64 with BMI2 (pext,
 * bzhi) at run time. */
bool pmb_varint_have_pext(void);
/** BMI2 decoder: one 8-byte load, the length from the stop bits, the value
 * by pext; no jump but the loop's.  Needs PMB_VARINT_PAD readable bytes past
 * end, and pmb_varint_have_pext(); elsewhere it returns {0, 0}. */
struct pmb_varint_sum pmb_varint_branchless(const uint8_t *p,
					    const uint8_t *end);
/** Speed of light: the plain sum of every byte of [p, end), each read once
 * by a scalar loop with no decision; the stream is still the benchmark's, so
 * one item is still one varint. */
uint64_t pmb_varint_sol(const uint8_t *p, const uint8_t *end);

/* ---- bsearch: lower bound in a sorted uint32 array ------------------------ */

/* Lookups per pass: few enough for a pass of the DRAM tier to stay in the
 * milliseconds; the keys come from an in-loop xorshift whose state carries
 * over between passes, so no pass repeats the keys of another.  An array
 * over PMB_BSEARCH_NEAR_BYTES takes PMB_BSEARCH_KEYS_FAR per pass: 4096
 * lookups in 640 MiB made one pass 12 ms (a KVM guest, ~10 levels from
 * DRAM), so each of a cohort's 10 samples was a whole pass or more, 0.3 s
 * per form and point of the default run's floor; 512 keep a pass near a
 * millisecond. */
#define PMB_BSEARCH_KEYS 4096
#define PMB_BSEARCH_KEYS_FAR 512
#define PMB_BSEARCH_NEAR_BYTES ((size_t)16 << 20)

/** Classic binary search: index of the first element >= key (n if none);
 * each halving step is a conditional jump on the loaded element. */
size_t pmb_bsearch_branchy(const uint32_t *a, size_t n, uint32_t key);
/** The same index by conditional moves: the trip count depends on n only. */
size_t pmb_bsearch_branchless(const uint32_t *a, size_t n, uint32_t key);
/** Speed of light: the branchless search's loads, ceil(log2 n) + 1 of them,
 * with each half chosen by the next bit of the key instead of by the loaded
 * element.  Over pmb_gen_sorted_u32 data a uniform key walks to about the
 * position its search would, so the loads hit the same cache levels, but no
 * address waits for a load: the cost of the memory traffic alone.  Returns
 * the sum of the loaded elements. */
uint64_t pmb_bsearch_sol(const uint32_t *a, size_t n, uint32_t key);

#endif
