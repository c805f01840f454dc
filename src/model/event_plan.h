/* event_plan.h - the events a run counts, as resolved (plan/events.c, meter/sim.c) and as the stages after it read them. */
#ifndef PMB_EVENT_PLAN_H
#define PMB_EVENT_PLAN_H

#include <linux/perf_event.h>
#include <stdbool.h>

#include "count.h" /* PMB_MAX_EVENTS */

#define PMB_MAX_DERIVED 8

enum pmb_event_kind {
	PMB_EV_HW,  /* needs the PMU (hardware, raw, or a PMU-specific event) */
	PMB_EV_SW,  /* kernel software event: works without a PMU */
	PMB_EV_SIM, /* simulated by valgrind (sim.c fills these) */
};

/* What an event counts, whatever it is called: the generic "cycles", the
 * PMU's own CPU_CYCLES or cpu-cycles are all PMB_MEANS_CYCLES.  Set by
 * pmb__events_resolve() from the encoding, so that no consumer compares
 * names.  The cache meanings after BRANCH_MISSES are what --backend=sim
 * maps a PMU's event to (sim.c): the first three to a simulated count, the
 * last three to a refusal that names the nearest simulated events. */
enum pmb_event_meaning {
	PMB_MEANS_OTHER,
	PMB_MEANS_CYCLES,        /* core cycles */
	PMB_MEANS_INSTRUCTIONS,  /* instructions retired */
	PMB_MEANS_BRANCHES,      /* branch instructions retired */
	PMB_MEANS_BRANCH_MISSES, /* mispredicted branches */
	PMB_MEANS_L1D_MISSES,    /* L1 data cache (load) misses: l1d-misses,
	                            L1-dcache-load-misses, L1D.REPLACEMENT */
	PMB_MEANS_LLC_MISSES,    /* loads that missed the last level: llc-misses,
	                            LLC-load-misses, LL_CACHE_MISS_RD */
	PMB_MEANS_CACHE_MISSES,  /* every last-level miss (loads, stores, code,
	                            prefetches): cache-misses, LONGEST_LAT_CACHE.MISS */
	PMB_MEANS_CACHE_REFS,    /* lookups of a cache, hits included */
	PMB_MEANS_L2_MISSES,     /* misses of a middle level (L2) */
	PMB_MEANS_L1I_MISSES,    /* instruction-fetch misses of L1i */
	PMB_MEANS_COUNT
};

struct pmb_event {
	char name[64];       /* as the user asked, or the alias: "branch-misses" */
	char encoding[192];  /* what it resolved to, for provenance:
	                        "perf::PERF_COUNT_HW_BRANCH_MISSES",
	                        "skx::BR_MISP_RETIRED:ALL_BRANCHES:k=0:u=1",
	                        "raw 0x1c4" */
	char pmu[32];        /* the PMU it was encoded for: libpfm's name
	                        ("skx", "arm_ac57"), the kernel's sysfs name
	                        of an Arm PMU libpfm4 does not know
	                        ("armv8_cortex_a72", "armv8_pmuv3_0"), or
	                        "perf" for generic events */
	enum pmb_event_kind kind;
	bool anchor;         /* cycles or instructions: kept in every group */
	enum pmb_event_meaning means;
	char unsupported[160]; /* "" or why this PMU cannot count the event
	                        although the kernel would open it (it would read
	                        0, which is no true zero): e.g. "armv8_pmuv3 does
	                        not list it in its sysfs events/ (the common
	                        events it implements)".  Such an event is not
	                        opened; it is reported as n/a with this reason. */
	struct perf_event_attr attr; /* type, config, config1/2, exclude_* */
	unsigned sim_mask;   /* PMB_EV_SIM: callgrind events summed (sim.c) */
	char also[128];      /* other names asked for that denote this same
	                        event, counted once: "INST_RETIRED, inst-retired"
	                        ("" none); the reports name them */
};

/* Record that `name` was asked for and denotes ev, which is counted once
 * under ev->name: added to ev->also unless it is ev's name or there. */
void pmb__event_also(struct pmb_event *ev, const char *name);

/* A figure computed from two counted events: num / den * scale, either per
 * item (den == -1: divided by items) or as a ratio of per-item values.
 * Operands are found by name, or for cycles, instructions, branches and
 * branch-misses by what the event counts (means): ipc is INST_RETIRED /
 * CPU_CYCLES on an Arm core. */
struct pmb_derived {
	char name[32];       /* "ipc", "mpki", "mispredict_ratio" */
	int num, den;        /* event indices into the plan; den -1: per item */
	double scale;        /* 1, or 1000 for "per 1000 instructions" */
};

struct pmb_event_plan {
	struct pmb_event ev[PMB_MAX_EVENTS];
	int nev;
	struct pmb_derived der[PMB_MAX_DERIVED];
	int nder;
	char pmu_name[64];   /* the core PMU events were encoded for ("clx",
	                        "adl_glc"; on hybrid CPUs, the pinned core's;
	                        an Arm core's sysfs PMU where libpfm4 knows
	                        none, "armv8_pmuv3"; "" if there is none) */
	char pmu_desc[128];  /* its description ("Intel CascadeLake X") */
	int pmu_counters;    /* generic counters it offers (0 unknown) */
	int pmu_fixed;       /* fixed counters */
	bool kernel;         /* --kernel: count kernel mode too */
};

#endif
