/* hash.h - FNV-1a, the one string hash (result files' names, the events tables' index, compare's seeds), and the seeded index of a hash table. */
#ifndef PMB_HASH_H
#define PMB_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMB_FNV1A_INIT 0xcbf29ce484222325ull

/* h with one more byte hashed in: start from PMB_FNV1A_INIT. */
static inline uint64_t pmb__fnv1a_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * 0x100000001b3ull;
}

/* h with the bytes of s hashed in (s NULL: none). */
static inline uint64_t pmb__fnv1a(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = pmb__fnv1a_byte(h, (unsigned char)*s);
	return h;
}

/* A random number drawn once per process (getrandom), never 0. */
uint64_t pmb__hash_seed(void);

/* The slot number of FNV-1a hash h in a table (before masking): h mixed
 * with the process's seed, every bit of h reaching every bit of the
 * result (MurmurHash3's finalizer).  Unseeded FNV-1a with linear probing
 * let a file of 50 k names crafted to share low bits take 30 s to read
 * instead of 0.3 s; with the seed unknown to who wrote the file, names
 * cannot be chosen to collide. */
static inline uint64_t pmb__hash_index(uint64_t h)
{
	h ^= pmb__hash_seed();
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Names to positions, by seeded FNV-1a and open addressing (the names
 * are the caller's and must outlive the index): a file's names found in
 * O(1) each, however many and however they were chosen. */
struct pmb_name_index {
	const char **name;
	size_t *at;
	size_t mask;
};

/* Room for n names; 0 or -ENOMEM (pmb__name_index_free() it either way). */
int pmb__name_index_init(struct pmb_name_index *x, size_t n);
/* The slot of name: its own (name[i] set, at[i] its position) or the
 * empty one it would take. */
size_t pmb__name_index_slot(const struct pmb_name_index *x, const char *name);
/* Add name at position at; false where it was there already. */
bool pmb__name_index_add(struct pmb_name_index *x, const char *name, size_t at);
void pmb__name_index_free(struct pmb_name_index *x);

#endif
