/* mem.h - the pure, testable pieces of the memory kernels (mem.c). */
#ifndef PMB_KERNELS_MEM_H
#define PMB_KERNELS_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h" /* pmb_rng_splitmix64(): fills, chase cycles, stream starts */

/* Bytes per chase link and per mem/read item: one x86 cache line. */
#define PMB_MEM_LINE 64

/* Link the bytes / line lines of buf (line >= sizeof(void *), a multiple of
 * it) into one random cycle: the first word of each line points to the next
 * line.  Sattolo's algorithm on 32-bit line indices kept in the lines' last
 * n * 4 bytes, then written as links: linear time, no extra memory, the
 * same cycle for the same seed; the rest of the lines that held the
 * indices is zeroed, other bytes past the links are left alone.  The
 * links are checked as they are written to be a permutation of the lines
 * (pmb_chase_verify_links' test, with a bitmap of bytes / line bits).
 * Returns 0, PMB_EVERIFY if they are not (a wrong build), -ENOMEM (the
 * bitmap), or -EINVAL for fewer than 2 or more than 2^32 lines or a bad
 * line size. */
int pmb_chase_build(void *buf, size_t bytes, size_t line, uint64_t seed);

/* Follow `steps` links from p; returns where it ends.  One dependent load
 * per step. */
void *pmb_chase_walk(void *p, size_t steps);

/* Check that buf holds one cycle through all its lines: every link points
 * to the start of a line inside buf, and the walk from line 0 first comes
 * back after exactly bytes / line steps (so it met every line once).
 * Returns 0, or PMB_EVERIFY. */
int pmb_chase_verify(const void *buf, size_t bytes, size_t line);

/* The check of a cycle too large to walk, on the links in buf (the one
 * pmb_chase_build makes as it writes them, as a separate pass: the tests'
 * oracle): every link points to the start of a line inside buf, and every
 * line is the target of exactly one link (the links are a permutation of
 * the lines; one cycle it is by pmb_chase_build's construction).  Reads
 * the lines in order, no load depending on another.  Returns 0,
 * PMB_EVERIFY, or -ENOMEM (its bitmap of bytes / line bits). */
int pmb_chase_verify_links(const void *buf, size_t bytes, size_t line);

/* Sum of v[0..n) (wrapping), the mem/read kernel; n a multiple of 8 (one
 * 64-byte line of words per step). */
uint64_t pmb_read_sum(const uint64_t *v, size_t n);

/* Number of interleaved generators in pmb_random_read_sum. */
#define PMB_RANDOM_STREAMS 4

/* The mem/random_read kernel: `loads` loads (a multiple of
 * PMB_RANDOM_STREAMS) of words v[i] at indices from PMB_RANDOM_STREAMS
 * independent LCGs (stream k starts from splitmix64 of seed + k); returns the
 * wrapping sum of the loaded words. */
uint64_t pmb_random_read_sum(const uint64_t *v, size_t n, uint64_t seed,
			     size_t loads);
/* The same sum computed plainly, one generator after the other. */
uint64_t pmb_random_read_ref(const uint64_t *v, size_t n, uint64_t seed,
			     size_t loads);

#endif
