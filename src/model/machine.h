/* machine.h - the machine a run is planned for (plan/topology.c fills it): caches, tiers. */
#ifndef PMB_MACHINE_H
#define PMB_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#define PMB_MAX_CACHES 5
#define PMB_MAX_TIER_POINTS 64

struct pmb_cache {
	int level;            /* 1, 2, 3, 4 */
	uint64_t size;        /* bytes */
	unsigned line;        /* line size in bytes (0 unknown) */
	int assoc;            /* ways; -1 fully associative; 0 unknown */
	int sharing_cores;    /* cores sharing this cache */
	char shared_with[64]; /* PU list sharing it, e.g. "0-7" */
};

/* Page sizes a TLB holds, as bits of pmb_tlb.pages. */
#define PMB_TLB_4K 1u
#define PMB_TLB_2M 2u
#define PMB_TLB_4M 4u
#define PMB_TLB_1G 8u

#define PMB_MAX_TLBS 12

/* One translation lookaside buffer of the core, as the CPU describes it
 * (plan/tlb.c: CPUID on x86). */
struct pmb_tlb {
	int level;            /* 1, 2 */
	char kind;            /* 'd' data, 'i' instructions, 'u' unified,
	                         'l' loads only, 's' stores only */
	unsigned pages;       /* PMB_TLB_* it holds */
	int entries;          /* for each page size it holds */
	int assoc;            /* ways; -1 fully associative; 0 unknown */
};

struct pmb_tlb_info {
	int n;
	struct pmb_tlb tlb[PMB_MAX_TLBS];
	char source[48];      /* where the geometry was read: "CPUID 0x18" */
	char why[160];        /* n == 0: why none could be read */
};

/* The page sizes of PMB_TLB_* bits, bit i: their bytes and names (the
 * one table the reach, the JSON both ways and the reports use). */
#define PMB_TLB_NPAGES 4
static const uint64_t pmb_tlb_page_bytes[PMB_TLB_NPAGES] = { 4096, 2u << 20, 4u << 20, 1u << 30 };
static const char *const pmb_tlb_page_name[PMB_TLB_NPAGES] = { "4 KiB", "2 MiB", "4 MiB", "1 GiB" };

/* The PMB_TLB_* bit of a page of bytes, 0 for none. */
static inline unsigned pmb_tlb_page_of(uint64_t bytes)
{
	for (int i = 0; i < PMB_TLB_NPAGES; i++)
		if (pmb_tlb_page_bytes[i] == bytes)
			return 1u << i;
	return 0;
}

/* Whether t translates the addresses loads use: a data, unified or
 * loads-only TLB (what a pointer chase's reach is told by). */
static inline bool pmb_tlb_for_loads(const struct pmb_tlb *t)
{
	return t->kind == 'd' || t->kind == 'u' || t->kind == 'l';
}

/* The bytes t covers with pages of one size (PMB_TLB_4K, ...): entries x
 * page size; 0 where it holds no page of that size. */
static inline uint64_t pmb_tlb_reach(const struct pmb_tlb *t, unsigned page)
{
	for (int i = 0; i < PMB_TLB_NPAGES; i++)
		if (page == 1u << i)
			return (t->pages & page) ? (uint64_t)t->entries * pmb_tlb_page_bytes[i] : 0;
	return 0;
}

struct pmb_topology_info {
	int cpu;                /* the OS index of the PU described */
	int ncaches;            /* data/unified caches of that PU, L1d first */
	struct pmb_cache cache[PMB_MAX_CACHES];
	int numa_node;          /* -1 unknown */
	uint64_t numa_memory;   /* bytes of that node (0 unknown) */
	int ncores, npus;       /* whole machine */
	uint64_t avail_memory;  /* MemAvailable, bytes */
	bool caches_assumed;    /* hwloc had no caches: sizes are assumed ones */
	char fallback[192];     /* "" or what was assumed where hwloc had nothing */
	struct pmb_tlb_info tlb; /* the core's TLBs, read from the CPU */
};

struct pmb_tier_point {
	uint64_t bytes;  /* working-set size */
	char tier[8];    /* "L1", "L2", "L3", "L4", "DRAM" */
};

#endif
