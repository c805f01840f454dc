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
};

struct pmb_tier_point {
	uint64_t bytes;  /* working-set size */
	char tier[8];    /* "L1", "L2", "L3", "L4", "DRAM" */
};

#endif
