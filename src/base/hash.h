/* hash.h - FNV-1a, the one string hash (result files' names, the events tables' index, compare's seeds). */
#ifndef PMB_HASH_H
#define PMB_HASH_H

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

#endif
