/* sweep.h - a working-set sweep's figures (analyse/analysis_sweep.c makes them, report/report_study.c and the plot render them): per tier the cost, the steps, per cache level where the data step against hwloc's size, the measured capacity, the TLB share and reach. */
#ifndef PMB_SWEEP_H
#define PMB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"

#define PMB_SWEEP_TIERS 5   /* L1, L2, L3, L4, DRAM */
#define PMB_MAX_SWEEP_STEPS 64
#define PMB_MAX_TLB_STEPS 16

/* The tiers a sweep's points are named by (pmb_instance.tier). */
static const char *const pmb_sweep_tier_name[PMB_SWEEP_TIERS] = { "L1", "L2", "L3", "L4", "DRAM" };

/* Whether the data step at cache level k: a rise of over 30 %. */
#define PMB_STEP_RATIO 1.3

/* One tier of a sweep: the median over its points of each figure, and
 * the medians of the points' interval ends. */
struct pmb_sweep_tier {
	size_t points;   /* 0: no point in this tier */
	double med[2], lo[2], hi[2];
	double est_cycles;  /* med[0] in cycles, estimated from the frequency
	                       where cycles are not counted (perf); NAN else */
	double over_prev;   /* med[0] over the median of the tier before it with
	                       points (perf); NAN none */
};

/* A step between two consecutive points of figure e (-2: time; an event's
 * plan index): ratio over PMB_STEP_RATIO, INFINITY from ~0. */
struct pmb_sweep_step {
	uint64_t from, to;
	int e;
	double ratio;
};

/* What a level holds against hwloc's size. */
enum pmb_capacity {
	PMB_CAPACITY_NOT_TOLD,  /* no step the intervals establish away from the size */
	PMB_CAPACITY_LESS,      /* the data step at half the size or earlier */
	PMB_CAPACITY_MORE,      /* the data step only at twice the size or later */
};

/* Cache level k of a sweep: the step across hwloc's size (a, b), the
 * largest step between the level below and the size (sa, sb), and the
 * capacity measured. */
struct pmb_sweep_level {
	int e;            /* -1 not simulated (no verdict), -2 time, else the event */
	bool crossed;     /* points on both sides of the size */
	uint64_t a, b;
	double ratio;
	bool rose;        /* ratio over PMB_STEP_RATIO, established or not */
	bool stepped;     /* the step across the size is established: over
	                     PMB_STEP_RATIO, the two points' intervals apart
	                     (simulated counts: the ratio alone, they are exact) */
	bool earlier;     /* a step over PMB_STEP_RATIO below the size */
	uint64_t sa, sb;
	double best;
	enum pmb_capacity capacity;
	uint64_t cap_from, cap_to;  /* the step that tells the capacity: fits at from, not at to */
	double cap_ratio;
	int cap_tier;     /* the tier whose median cost cap_to's matches (within
	                     PMB_STEP_RATIO), -1 none */
	int to_tier;      /* less: the tier its points from cap_to on count in
	                     (cap_tier, else the next with points), -1 none */
};

/* The TLB share of one tier: the 4 KiB family's cost over the huge-page
 * family's, per working set; medians of the difference, its interval
 * crosswise, the huge-page cost. */
struct pmb_sweep_share {
	size_t points;   /* 0: no pair in this tier */
	double diff, lo, hi, base;
	double pct;      /* 100 diff / base where the share is told (lo > 0,
	                    base > 0); NAN else */
};

/* A step only the 4 KiB family takes, with the data TLB reach between. */
struct pmb_sweep_tlb_step {
	uint64_t from, to;
	double ratio;
	int reach_level;  /* 0 none */
	uint64_t reach;
};

/* A data TLB's reach with one page size. */
struct pmb_sweep_reach {
	int level;
	char kind;        /* pmb_tlb.kind: 'd', 'u' or 'l' */
	int page;         /* index into pmb_tlb_page_bytes/name */
	uint64_t bytes;
};

struct pmb_sweep_figures {
	size_t first;             /* index of the family's first result */
	char family[160];
	bool sim;
	int nfig, ev[2];          /* the figures: -2 time, else events */
	struct pmb_sweep_tier tier[PMB_SWEEP_TIERS];
	bool by_measure;          /* the tiers' points by the measured capacity
	                             of a level (pmb_sweep_level.capacity), not
	                             hwloc's size: the instances' tier names differ */
	int nsteps;               /* over all figures, in figure order */
	struct pmb_sweep_step step[PMB_MAX_SWEEP_STEPS];
	int nlevels;
	struct pmb_sweep_level level[PMB_MAX_CACHES];
	double huge_min, huge_max; /* share on huge pages; huge_max < 0 not measured */
	char family_4k[160];      /* "" no 4 KiB family beside it (or not compared) */
	struct pmb_sweep_share share[PMB_SWEEP_TIERS];
	char family_huge[160];    /* this is X_4k: X, the huge-page family; "" else */
	int ntlb_steps;
	struct pmb_sweep_tlb_step tlb_step[PMB_MAX_TLB_STEPS];
	int nreach;               /* data TLB reach, per page size, then level */
	struct pmb_sweep_reach reach[2 * PMB_MAX_TLBS];
};

#endif
