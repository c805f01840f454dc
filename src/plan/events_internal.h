/* events_internal.h - the events module's private declarations, shared by events.c and events_*.c only. */
#ifndef PMB_EVENTS_INTERNAL_H
#define PMB_EVENTS_INTERNAL_H

/* The events module is events.c (resolving lists, sets, aliases and derived
 * figures), events_pmu.c (choosing the core PMU), events_encode.c (one name
 * to an attr), events_meaning.c (what an event counts and whether the core
 * can), events_suggest.c (close matches for a bad name) and events_list.c
 * (--list-events).  It alone uses libpfm4: PFM_* codes and pfm types never
 * leave these files.
 *
 * events.h brings <linux/perf_event.h> first: libpfm's own copy of struct
 * perf_event_attr then stays out, and the kernel's (newer) one is used. */
#include "events.h"
#include <perfmon/pfmlib_perf_event.h>

#include <stdbool.h>
#include <stdint.h>

#include "event_tables.h"

#define PMB__NAME_LEN PMB_TABLE_NAME_LEN

/* ---- module state (events.c) ------------------------------------------------ */

struct pmb__events_state {
	bool init;              /* pmb__events_init() ran */
	bool pfm_ok;            /* and libpfm4 initialized */
	bool foreign;           /* ... encoding for absent PMUs too (sim) */
	char forced_pmu[PMB__NAME_LEN]; /* LIBPFM_FORCE_PMU before foreign */
	struct pmb_tables tab;  /* of events/ (event_tables.c) */
	char sysfs_root[256];   /* /sys/bus/event_source/devices, or a test's */
};

extern struct pmb__events_state pmb__events;

/* pmb__events_init(NULL) unless done; no tables is no error here (aliases
 * and sets are then unknown).  Returns 0 or pmb__events_init()'s error. */
int pmb__events_lazy_init(void);

/* ---- the core PMU (events_pmu.c) ---------------------------------------------- */

/* Whose numbering a core PMU's raw codes follow.  The codes that mean
 * cycles, instructions and branches are fixed per vendor: Intel's
 * architectural events, AMD's PMCx076/0C0/0C2/0C3, Arm's common events. */
enum pmb__vendor { PMB_VENDOR_NONE, PMB_VENDOR_INTEL, PMB_VENDOR_AMD, PMB_VENDOR_ARM };

/* The kernel's Arm PMUv3 as sysfs shows it (armv8_pmuv3, armv8_pmuv3_0,
 * armv8_cortex_a57...). */
struct pmb__arm_sysfs {
	char name[PMB__NAME_LEN]; /* "" none */
	uint32_t type;          /* its perf type */
	bool listed_ok;         /* events/ was read: listed[] is the truth */
	uint64_t listed[2];     /* common events 0x00-0x3f, 0x4000-0x403f */
};

/* What resolving a list knows about the core PMU, besides the plan. */
struct pmb__events_ctx {
	struct pmb_event_plan *plan;
	char pfm_pmu[PMB__NAME_LEN]; /* libpfm PMU that qualifies bare names; "" */
	int pmu_id;             /* its pfm_pmu_t; -1 none */
	bool hybrid;            /* generic and raw events carry hybrid_type */
	uint32_t hybrid_type;   /* sysfs type of the core PMU of the cpu */
	enum pmb__vendor vendor; /* of the core PMU */
	struct pmb__arm_sysfs arm; /* PMB_VENDOR_ARM: the core's PMU in sysfs, if any */
	bool kernel;
	unsigned char *set_state; /* per set of the tables while a list resolves:
	                             0 not seen, 1 expanding, 2 done; NULL none */
};

/* Choose the core PMU of cpu (-1: any) for c: libpfm4's, the hybrid one
 * owning cpu, or a sysfs-only Arm PMUv3; fills c and the plan's pmu_*
 * fields.  With none of them, c->pmu_id is -1 and the plan's pmu_name "". */
void pmb__pmu_pick(struct pmb__events_ctx *c, int cpu);
/* libpfm4's information on PMU p; false if it has none. */
bool pmb__pmu_info(pfm_pmu_t p, pfm_pmu_info_t *pi);
/* Call fn for every event of libpfm4's present PMUs that want accepts
 * (want NULL: every present PMU), with the PMU, the event's index and its
 * information.  Returns the sum of fn's returns (0 without libpfm4). */
int pmb__pfm_for_events(bool (*want)(void *ctx, pfm_pmu_t p, const pfm_pmu_info_t *pi),
			int (*fn)(void *ctx, const pfm_pmu_info_t *pi, int i, const pfm_event_info_t *ei),
			void *ctx);
/* Call fn for every umask of libpfm4 event i (ei its information), with
 * its full name "EVENT:UMASK" and description.  Returns the sum of fn's
 * returns. */
int pmb__pfm_for_umasks(int i, const pfm_event_info_t *ei,
			int (*fn)(void *ctx, const char *full, const char *desc), void *ctx);
/* The vendor of a core PMU by its libpfm4 or sysfs name and libpfm4
 * description (desc may be NULL). */
enum pmb__vendor pmb__pmu_vendor(const char *name, const char *desc);
/* A file of a sysfs events/ folder that is a bare event number,
 * "event=0x0011": true with *code set; false for others. */
bool pmb__sysfs_read_event(const char *path, uint64_t *code);
/* Bit of an Arm common event number in pmb__arm_sysfs.listed; -1 for the
 * others (implementation defined events, which events/ never lists). */
int pmb__arm_common_bit(uint64_t code);

/* ---- one name to an attr (events_encode.c) ------------------------------------ */

/* A perf generic event name and what it encodes to. */
struct pmb__generic {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *sym;   /* perf's symbol, for the provenance string */
	const char *desc;
};

extern const struct pmb__generic pmb__generics[];
extern const int pmb__ngenerics;

/* The generic event called name, as perf spells it (exact) or in any case;
 * NULL if none. */
const struct pmb__generic *pmb__generic_find(const char *name, bool exact);
/* Encode generic event g for c's PMU into ev. */
void pmb__event_fill_generic(const struct pmb__events_ctx *c, const struct pmb__generic *g,
			     struct pmb_event *ev);
/* rNNNN, a raw hex code for the core PMU as perf writes it, into ev;
 * false (ev untouched) if name is no such code. */
bool pmb__event_encode_raw(const struct pmb__events_ctx *c, const char *name, struct pmb_event *ev);
/* A PMU event by name: libpfm4's (with modifiers), then on Arm cores the
 * architectural names and sysfs files.  Returns a PFM_* code. */
int pmb__event_encode_named(const struct pmb__events_ctx *c, const char *str, struct pmb_event *ev);
/* libpfm4's name for event number code of PMU pmu_id, or NULL. */
const char *pmb__pfm_name_of_code(int pmu_id, uint64_t code);
/* The Arm architectural name of common event code, or NULL. */
const char *pmb__arm_event_name(uint64_t code);
/* The i-th Arm architectural name (events_arm.h), NULL past the last. */
const char *pmb__arm_event_at(int i);

/* ---- what an event counts (events_meaning.c) ----------------------------------- */

/* Set ev's means, anchor and unsupported from its encoding. */
void pmb__event_judge(const struct pmb__events_ctx *c, struct pmb_event *ev);
/* What a generic name (cycles, cpu-cycles, branch-misses...) or an alias
 * standing for one on every PMU without a row of its own (br-misp-retired)
 * counts; PMB_MEANS_OTHER for every other name. */
enum pmb_event_meaning pmb__name_meaning(const char *name);

/* ---- errors for bad names (events_suggest.c) ----------------------------------- */

/* Set the error detail for a name that did not encode (pfmerr: libpfm4's
 * PFM_* code for it), with up to three close matches.  Returns
 * PMB_EBADEVENT. */
int pmb__events_unknown_event(const struct pmb__events_ctx *c, const char *name, int pfmerr);
/* The same for an unknown @set ref (with its '@').  Returns PMB_EBADEVENT. */
int pmb__events_unknown_set(const char *ref);

/* ---- aliases (events.c) ---------------------------------------------------------- */

/* The row of alias name for c's PMU, else (Arm) its family's row, else its
 * '*' row, else NULL. */
const struct pmb_alias_row *pmb__events_alias_for(const struct pmb__events_ctx *c, const char *name);

#endif
