/* events_meaning.c - the events module: what an encoded event counts (means), whether it anchors groups, whether the core implements it. */
#include <stdio.h>
#include <string.h>

#include "events_internal.h"
#include "pmubench.h"

/* Meanings come from the encoding, not the name: "cycles", cpu-cycles,
 * UNHALTED_CORE_CYCLES, r3c and skx::CPU_CLK_THREAD_UNHALTED:THREAD_P are
 * one counter, and BR_MISP_RETIRED:c=1 (cycles with a misprediction) is not
 * BR_MISP_RETIRED.  libpfm4's event name would miss raw codes, sysfs
 * events, modifiers that change the count and the dozen spellings of one
 * event across PMUs; the config is what the PMU counts.  A code reads per
 * vendor, with every field that changes the count compared: on x86 all but
 * usr/os/pc/int/en (bits 16, 17, 19, 20, 22), so edge, any-thread, invert,
 * cmask and the TSX filters must be 0; on Arm the whole config (config1 may
 * hold bit 0, a 64-bit counter, not a threshold).  Intel's rows are its
 * architectural events (the same on every Intel core) plus the fixed-counter
 * pseudo-encodings libpfm4 emits (INST_RETIRED:ANY is 0x100 on icl, 0x1c0 on
 * spr, where 0x1c0 is also skl's PREC_DIST: instructions all the same).
 * Arm's BR_MIS_PRED (0x10, mispredicted branches speculatively executed) is
 * what the kernel itself counts for branch-misses, so it means that here
 * too.  BR_PRED (0x12) is no PMB_MEANS_BRANCHES: it counts predictable
 * branches speculatively executed, wrong-path ones included, so it grows
 * with the very misprediction rate a branch study varies; BR_RETIRED (0x21)
 * is the retired count, and cores without it have none.
 *
 * Cache events mean what the kernel counts for perf's generic names (as
 * BR_MIS_PRED does above): on Intel LONGEST_LAT_CACHE.MISS (2EH/41H, an
 * architectural event) is its cache-misses, every last-level miss, code,
 * stores and prefetches included; on Arm L1D_CACHE_REFILL is its
 * L1-dcache-load-misses (and the A57's, A72's L1D_CACHE_REFILL_RD, 0x42, a
 * number the Arm ARM recommends to every core) and LL_CACHE_MISS_RD its
 * LLC-load-misses.  Lookups (references), L2 and L1i misses get meanings
 * of their own, so that --backend=sim can name what it has instead of
 * guessing. */
#define X86_FIELDS (~0x5b0000ull)

static const struct {
	enum pmb__vendor vendor;
	uint64_t mask, config;
	enum pmb_event_meaning means;
} meanings[] = {
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x003c, PMB_MEANS_CYCLES },        /* UNHALTED_CORE_CYCLES, CPU_CLK_UNHALTED.THREAD_P */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x0200, PMB_MEANS_CYCLES },        /* CPU_CLK_UNHALTED.THREAD, fixed counter 1 */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x00c0, PMB_MEANS_INSTRUCTIONS },  /* INST_RETIRED.ANY_P */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x0100, PMB_MEANS_INSTRUCTIONS },  /* INST_RETIRED.ANY, fixed counter 0 */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x01c0, PMB_MEANS_INSTRUCTIONS },  /* INST_RETIRED.ANY (spr), .PREC_DIST (skl) */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x00c4, PMB_MEANS_BRANCHES },      /* BR_INST_RETIRED.ALL_BRANCHES */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x00c5, PMB_MEANS_BRANCH_MISSES }, /* BR_MISP_RETIRED.ALL_BRANCHES */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x412e, PMB_MEANS_CACHE_MISSES },  /* LONGEST_LAT_CACHE.MISS, LLC_MISSES */
	{ PMB_VENDOR_INTEL, X86_FIELDS, 0x4f2e, PMB_MEANS_CACHE_REFS },    /* LONGEST_LAT_CACHE.REFERENCE */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x0076, PMB_MEANS_CYCLES },          /* CYCLES_NOT_IN_HALT */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x00c0, PMB_MEANS_INSTRUCTIONS },    /* RETIRED_INSTRUCTIONS */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x00c2, PMB_MEANS_BRANCHES },        /* RETIRED_BRANCH_INSTRUCTIONS */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x00c3, PMB_MEANS_BRANCH_MISSES },   /* RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0011, PMB_MEANS_CYCLES },               /* CPU_CYCLES */
	{ PMB_VENDOR_ARM, ~0ull, 0x0008, PMB_MEANS_INSTRUCTIONS },         /* INST_RETIRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0021, PMB_MEANS_BRANCHES },             /* BR_RETIRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0022, PMB_MEANS_BRANCH_MISSES },        /* BR_MIS_PRED_RETIRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0010, PMB_MEANS_BRANCH_MISSES },        /* BR_MIS_PRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0003, PMB_MEANS_L1D_MISSES },           /* L1D_CACHE_REFILL */
	{ PMB_VENDOR_ARM, ~0ull, 0x0042, PMB_MEANS_L1D_MISSES },           /* L1D_CACHE_REFILL_RD */
	{ PMB_VENDOR_ARM, ~0ull, 0x0037, PMB_MEANS_LLC_MISSES },           /* LL_CACHE_MISS_RD */
	{ PMB_VENDOR_ARM, ~0ull, 0x0033, PMB_MEANS_CACHE_MISSES },         /* LL_CACHE_MISS */
	{ PMB_VENDOR_ARM, ~0ull, 0x0001, PMB_MEANS_L1I_MISSES },           /* L1I_CACHE_REFILL */
	{ PMB_VENDOR_ARM, ~0ull, 0x0017, PMB_MEANS_L2_MISSES },            /* L2D_CACHE_REFILL */
	{ PMB_VENDOR_ARM, ~0ull, 0x0052, PMB_MEANS_L2_MISSES },            /* L2D_CACHE_REFILL_RD */
	{ PMB_VENDOR_ARM, ~0ull, 0x0004, PMB_MEANS_CACHE_REFS },           /* L1D_CACHE */
	{ PMB_VENDOR_ARM, ~0ull, 0x0014, PMB_MEANS_CACHE_REFS },           /* L1I_CACHE */
	{ PMB_VENDOR_ARM, ~0ull, 0x0016, PMB_MEANS_CACHE_REFS },           /* L2D_CACHE */
	{ PMB_VENDOR_ARM, ~0ull, 0x0032, PMB_MEANS_CACHE_REFS },           /* LL_CACHE */
	{ PMB_VENDOR_ARM, ~0ull, 0x0036, PMB_MEANS_CACHE_REFS },           /* LL_CACHE_RD */
};

/* Model-specific events, whose codes differ from core to core (Intel's
 * MEM_LOAD_RETIRED, AMD's fills): an event means what one of these means
 * where it encodes to the same count on the event's own PMU.  A row is a
 * portable alias of events/aliases.txt, which names each PMU's own event
 * (only its PMU rows: the '*' rows are generic events, judged above), or a
 * libpfm4 event, which only the PMUs that know it by that name have
 * (L1D:REPLACEMENT, the kernel's L1-dcache-load-misses on Intel cores since
 * Sandy Bridge; Goldmont's 51H/01H is dirty evictions and no L1D:REPLACEMENT
 * of libpfm4's).  The first row that matches wins: on Skylake llc-loads is
 * l2-misses' MEM_LOAD_RETIRED.L2_MISS, a middle level's misses. */
static const struct {
	const char *event;
	enum pmb_event_meaning means;
} pmu_meanings[] = {
	{ "l1d-misses", PMB_MEANS_L1D_MISSES },
	{ "llc-misses", PMB_MEANS_LLC_MISSES },
	{ "l2-misses", PMB_MEANS_L2_MISSES },
	{ "L1D:REPLACEMENT", PMB_MEANS_L1D_MISSES },
	{ "MEM_LOAD_UOPS_RETIRED:L1_MISS", PMB_MEANS_L1D_MISSES }, /* hsw, bdw, glm: no alias rows */
	{ "MEM_LOAD_UOPS_RETIRED:L3_MISS", PMB_MEANS_LLC_MISSES },
	{ "MEM_LOAD_UOPS_RETIRED:L2_MISS", PMB_MEANS_L2_MISSES },
	{ "L2_RQSTS:MISS", PMB_MEANS_L2_MISSES },
	{ "ICACHE:MISSES", PMB_MEANS_L1I_MISSES },          /* snb to bdw, glm */
	{ "ICACHE_64B:IFTAG_MISS", PMB_MEANS_L1I_MISSES },  /* skl on */
};

/* The vendor whose numbering ev's config follows: an event of the core PMU
 * (the raw type, or the core's own sysfs type) reads as the PMU it was
 * encoded for; uncore and other PMUs' events are PMB_VENDOR_NONE. */
static enum pmb__vendor event_vendor(const struct pmb__events_ctx *c, const struct pmb_event *ev)
{
	uint32_t t = ev->attr.type;
	pfm_pmu_t p;

	if (t != PERF_TYPE_RAW && !(c->hybrid && t == c->hybrid_type) &&
	    !(c->arm.name[0] && t == c->arm.type))
		return PMB_VENDOR_NONE;
	if (!strcmp(ev->pmu, c->plan->pmu_name) || (c->arm.name[0] && !strcmp(ev->pmu, c->arm.name)))
		return c->vendor;
	if (!pmb__events.pfm_ok)
		return PMB_VENDOR_NONE;
	/* qualified with another core PMU of libpfm's (amd64_fam17h_zen1::) */
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;

		if (pmb__pmu_info(p, &pi) && (pi.is_present || pmb__events.foreign) && pi.type == PFM_PMU_TYPE_CORE &&
		    !strcmp(pi.name, ev->pmu))
			return pmb__pmu_vendor(pi.name, pi.desc);
	}
	return PMB_VENDOR_NONE;
}

/* perf's generic cache events (PERF_TYPE_HW_CACHE: cache | op << 8 |
 * result << 16): the read misses of L1d, the last level and L1i, and every
 * lookup of those levels. */
static enum pmb_event_meaning hw_cache_meaning(uint64_t config)
{
	unsigned id = config & 0xff, op = (config >> 8) & 0xff, res = (config >> 16) & 0xff;
	bool cache = id == PERF_COUNT_HW_CACHE_L1D || id == PERF_COUNT_HW_CACHE_LL ||
		     id == PERF_COUNT_HW_CACHE_L1I;

	if (cache && res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		return PMB_MEANS_CACHE_REFS;
	if (res != PERF_COUNT_HW_CACHE_RESULT_MISS || op != PERF_COUNT_HW_CACHE_OP_READ)
		return PMB_MEANS_OTHER;
	return id == PERF_COUNT_HW_CACHE_L1D ? PMB_MEANS_L1D_MISSES :
	       id == PERF_COUNT_HW_CACHE_LL ? PMB_MEANS_LLC_MISSES :
	       id == PERF_COUNT_HW_CACHE_L1I ? PMB_MEANS_L1I_MISSES : PMB_MEANS_OTHER;
}

static enum pmb_event_meaning meaning(enum pmb__vendor v, const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE) {
		/* the upper half may name a hybrid PMU */
		switch (a->config & 0xffffffffu) {
		case PERF_COUNT_HW_CPU_CYCLES:
			return PMB_MEANS_CYCLES;
		case PERF_COUNT_HW_INSTRUCTIONS:
			return PMB_MEANS_INSTRUCTIONS;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
			return PMB_MEANS_BRANCHES;
		case PERF_COUNT_HW_BRANCH_MISSES:
			return PMB_MEANS_BRANCH_MISSES;
		case PERF_COUNT_HW_CACHE_MISSES:
			return PMB_MEANS_CACHE_MISSES;
		case PERF_COUNT_HW_CACHE_REFERENCES:
			return PMB_MEANS_CACHE_REFS;
		default:
			return PMB_MEANS_OTHER;
		}
	}
	if (a->type == PERF_TYPE_HW_CACHE)
		return hw_cache_meaning(a->config & 0xffffffffu);
	if (v == PMB_VENDOR_ARM && (a->config1 & ~1ull))
		return PMB_MEANS_OTHER;
	for (size_t i = 0; i < sizeof(meanings) / sizeof(meanings[0]); i++)
		if (meanings[i].vendor == v && (a->config & meanings[i].mask) == meanings[i].config)
			return meanings[i].means;
	return PMB_MEANS_OTHER;
}

/* Whether ev counts what the libpfm4 event str counts on ev's own PMU. */
static bool same_count(const struct pmb__events_ctx *c, const struct pmb_event *ev, const char *str)
{
	struct pmb_event ref;
	char full[160];

	memset(&ref, 0, sizeof(ref));
	snprintf(full, sizeof(full), "%s::%s", ev->pmu, str);
	return pmb__event_encode_named(c, full, &ref) == PFM_SUCCESS && ref.attr.type == ev->attr.type &&
	       (ref.attr.config & X86_FIELDS) == (ev->attr.config & X86_FIELDS) &&
	       ref.attr.config1 == ev->attr.config1;
}

/* The meaning of an x86 core event by the rows of pmu_meanings, each
 * encoded for ev's PMU: a dozen libpfm4 look-ups, for events no vendor row
 * gave a meaning only. */
static enum pmb_event_meaning pmu_meaning(const struct pmb__events_ctx *c, const struct pmb_event *ev)
{
	for (size_t i = 0; i < sizeof(pmu_meanings) / sizeof(pmu_meanings[0]); i++) {
		const char *name = pmu_meanings[i].event;
		const struct pmb_alias_row *r;
		char alts[sizeof(r->event)], *save, *p;

		if (!pmb__tables_has_alias(&pmb__events.tab, name)) {
			if (same_count(c, ev, name))
				return pmu_meanings[i].means;
			continue;
		}
		r = pmb__tables_alias(&pmb__events.tab, name, ev->pmu, NULL);
		if (!r || !strcmp(r->pmu, "*"))
			continue;
		pmb__str_copy(alts, sizeof(alts), r->event);
		for (p = strtok_r(alts, "|", &save); p; p = strtok_r(NULL, "|", &save))
			if (same_count(c, ev, p))
				return pmu_meanings[i].means;
	}
	return PMB_MEANS_OTHER;
}

/* An Arm common event the core does not implement opens all the same and
 * reads 0 forever.  The kernel refuses such generic events itself (ENOENT:
 * it checks PMCEID), so only raw and PMU events are judged here: against
 * the sysfs list, or, where the kernel gives none, libpfm4's table of the
 * core.  Implementation defined events (0x40-0x3fff) are never listed and
 * never judged. */
static void check_implemented(const struct pmb__events_ctx *c, struct pmb_event *ev)
{
	uint64_t code = ev->attr.config;
	const char *name = pmb__arm_event_name(code);
	int bit = pmb__arm_common_bit(code);
	char what[40];

	if (bit < 0 || (ev->attr.type != PERF_TYPE_RAW && !(c->arm.name[0] && ev->attr.type == c->arm.type)))
		return;
	if (name)
		snprintf(what, sizeof(what), "%s (event %#llx", name, (unsigned long long)code);
	else
		snprintf(what, sizeof(what), "common event %#llx (it", (unsigned long long)code);
	if (c->arm.listed_ok) {
		if (!(c->arm.listed[bit / 64] >> (bit % 64) & 1))
			/* The sysfs list is what the kernel read from the PMU
			 * as presented: under a hypervisor or emulator its
			 * virtual PMU's, not the CPU model's (issue 26). */
			snprintf(ev->unsupported, sizeof(ev->unsupported),
				 "%.40s does not implement %s is not in its sysfs events/, which a hypervisor "
				 "may trim)", c->arm.name, what);
	} else if (c->pmu_id >= 0 && !pmb__pfm_name_of_code(c->pmu_id, code)) {
		snprintf(ev->unsupported, sizeof(ev->unsupported),
			 "%.40s does not implement %s is not in libpfm4's table for it)", c->pfm_pmu, what);
	}
}

/* What ev counts, whether it anchors groups and whether the core can count
 * it at all, from its encoding. */
void pmb__event_judge(const struct pmb__events_ctx *c, struct pmb_event *ev)
{
	enum pmb__vendor v = event_vendor(c, ev);

	ev->means = meaning(v, &ev->attr);
	if (ev->means == PMB_MEANS_OTHER && (v == PMB_VENDOR_INTEL || v == PMB_VENDOR_AMD) &&
	    pmb__events.pfm_ok)
		ev->means = pmu_meaning(c, ev);
	ev->anchor = ev->kind == PMB_EV_HW &&
		     (ev->means == PMB_MEANS_CYCLES || ev->means == PMB_MEANS_INSTRUCTIONS);
	ev->unsupported[0] = '\0';
	if (v == PMB_VENDOR_ARM)
		check_implemented(c, ev);
}

/* A derived figure's operand is written as a name ("instructions"), yet on
 * Arm the plan may hold CPU_CYCLES and INST_RETIRED, on Intel
 * UNHALTED_CORE_CYCLES: the names perf's generic hardware events stand for
 * are read as the meaning of their encoding.  An alias counts only through
 * its '*' row (br-misp-retired is branch-misses): its PMU rows may count
 * something else (BR_PRED on a Cortex-A57 is no retired branch count). */
enum pmb_event_meaning pmb__name_meaning(const char *name)
{
	const struct pmb__generic *g = pmb__generic_find(name, true);
	const struct pmb_alias_row *r;
	struct perf_event_attr a;

	if (!g && (r = pmb__tables_alias(&pmb__events.tab, name, NULL, NULL)) && !strcmp(r->pmu, "*"))
		g = pmb__generic_find(r->event, true);
	if (!g || g->type != PERF_TYPE_HARDWARE)
		return PMB_MEANS_OTHER;
	memset(&a, 0, sizeof(a));
	a.type = g->type;
	a.config = g->config;
	return meaning(PMB_VENDOR_NONE, &a);
}
