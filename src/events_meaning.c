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
 * is the retired count, and cores without it have none. */
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
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x0076, PMB_MEANS_CYCLES },          /* CYCLES_NOT_IN_HALT */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x00c0, PMB_MEANS_INSTRUCTIONS },    /* RETIRED_INSTRUCTIONS */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x00c2, PMB_MEANS_BRANCHES },        /* RETIRED_BRANCH_INSTRUCTIONS */
	{ PMB_VENDOR_AMD, X86_FIELDS, 0x00c3, PMB_MEANS_BRANCH_MISSES },   /* RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0011, PMB_MEANS_CYCLES },               /* CPU_CYCLES */
	{ PMB_VENDOR_ARM, ~0ull, 0x0008, PMB_MEANS_INSTRUCTIONS },         /* INST_RETIRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0021, PMB_MEANS_BRANCHES },             /* BR_RETIRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0022, PMB_MEANS_BRANCH_MISSES },        /* BR_MIS_PRED_RETIRED */
	{ PMB_VENDOR_ARM, ~0ull, 0x0010, PMB_MEANS_BRANCH_MISSES },        /* BR_MIS_PRED */
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

		if (pmb__pmu_info(p, &pi) && pi.is_present && pi.type == PFM_PMU_TYPE_CORE &&
		    !strcmp(pi.name, ev->pmu))
			return pmb__pmu_vendor(pi.name, pi.desc);
	}
	return PMB_VENDOR_NONE;
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
		default:
			return PMB_MEANS_OTHER;
		}
	}
	if (v == PMB_VENDOR_ARM && (a->config1 & ~1ull))
		return PMB_MEANS_OTHER;
	for (size_t i = 0; i < sizeof(meanings) / sizeof(meanings[0]); i++)
		if (meanings[i].vendor == v && (a->config & meanings[i].mask) == meanings[i].config)
			return meanings[i].means;
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
			snprintf(ev->unsupported, sizeof(ev->unsupported),
				 "%.40s does not implement %s is not in its sysfs events/)", c->arm.name, what);
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
