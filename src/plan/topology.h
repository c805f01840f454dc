/* topology.h - caches, cores and NUMA of the machine (hwloc); tiers, pinning, buffers. */
#ifndef PMB_TOPOLOGY_H
#define PMB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h" /* struct pmb_topology_info */

struct pmb_topology;

/* Load the topology of this machine (src NULL), or of a synthetic
 * description ("pack:1 l3:1 l2:2 l1d:1 core:1 pu:1") or an XML file (src
 * ending in ".xml").  Returns 0 or -errno. */
int pmb__topology_load(struct pmb_topology **t, const char *src);
/* NULL does nothing. */
void pmb__topology_free(struct pmb_topology *t);
/* Facts about PU `cpu` (OS index).  Returns 0, -EINVAL for no such PU. */
int pmb__topology_info(struct pmb_topology *t, int cpu,
		      struct pmb_topology_info *info);
/* Number of PUs / whether `cpu` is a valid PU allowed for this process. */
bool pmb__topology_cpu_valid(struct pmb_topology *t, int cpu);
/* The cores pmb__topology_cpu_valid accepts, as a list ("0-3,6"), into
 * buf; their first into *first (-1 where none). */
void pmb__topology_cpus(struct pmb_topology *t, char *buf, size_t size, int *first);
/* Bind the calling thread to PU `cpu` and its memory to that PU's NUMA
 * node (a refused memory binding on a one-node machine is no error).
 * Returns 0 or -errno; on a synthetic or XML topology binds nothing and
 * returns 0. */
int pmb__topology_pin(struct pmb_topology *t, int cpu);

/* Working-set sizes for PMB_TIERS from the caches in info (pure: no hwloc):
 * points well inside each tier, just past each boundary, and DRAM points up
 * to a multiple of the last level (capped by avail_memory / 4).  Returns 0
 * and the count in *n, PMB_ENOCACHE when info has no caches, -ENOSPC when
 * more than max points (PMB_MAX_TIER_POINTS always suffices).
 *
 * The rule.  S(i) is the size of level i, U(i) its usable size: S(i) for a
 * private cache; for a cache shared by c cores the per-core share S(i) / c
 * (other cores compete for the rest), but at least min(S(i), 2 * S(i-1)),
 * so that a crowded shared level keeps a range above the level below.
 * The label of a size x is the smallest level with x <= U(i), else DRAM.
 * Points are only generated in the zones [1.5 * S(i-1), U(i)] of level i
 * (S(0) = one line) and [1.5 * S(last), min(8 * S(last), avail/4)] of DRAM:
 * no point sits near a boundary, nor in the part of a shared cache beyond
 * the core's share.  Candidates per level: U/8, U/4, U/2 (rounded down to a
 * nice m * 2^k, m in 4..7) and 1.5 * S(i-1) (rounded up); DRAM: 1.5, 2
 * and 4 x S(last) (rounded up) and the cap (rounded down); then rounded up
 * to the largest line size, dropped if outside their zone, sorted,
 * deduplicated.  Line size 0 (unknown) counts as 64. */
int pmb__topology_tiers(const struct pmb_topology_info *info,
		       struct pmb_tier_point *out, size_t max, size_t *n);
/* The default sweep (--sweep=short): of pmb__topology_tiers' points
 * tier[0..*n), in place, the two largest of each cache level (well inside
 * it, the ones least near the level below) and the two smallest DRAM
 * points at or past twice the last level's size (the larger DRAM points
 * where fewer reach it): every tier keeps two points where it had them,
 * DRAM stays beyond the last level, and the largest working set is 4 x
 * the last level, not 8.  *n gets the count kept. */
void pmb__topology_tiers_short(const struct pmb_topology_info *info, struct pmb_tier_point *tier,
			       size_t *n);
/* Usable size U(i) (see pmb__topology_tiers) of each of info's caches into
 * usable[0..ncaches). */
void pmb__topology_usable(const struct pmb_topology_info *info, uint64_t *usable);
/* Tier label of a working set of `bytes` ("L1".."L4", "DRAM"; "DRAM" when
 * info has no caches) into buf. */
void pmb__topology_label(const struct pmb_topology_info *info, uint64_t bytes,
			char *buf, size_t len);
/* Whether t describes the machine this runs on (not synthetic or XML).
 * On other topologies pmb__topology_pin binds nothing and returns 0. */
bool pmb__topology_is_this_system(struct pmb_topology *t);

#endif
