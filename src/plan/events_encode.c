/* events_encode.c - the events module: one event name to a perf_event_attr (generic, raw, libpfm4, Arm architectural, sysfs). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events_internal.h"
#include "events_arm.h"
#include "pmubench.h"

/* ---- perf generic names ---------------------------------------------------- */

#define HWC(c, op, res)                                                        \
	(PERF_COUNT_HW_CACHE_##c | (PERF_COUNT_HW_CACHE_OP_##op << 8) |        \
	 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

const struct pmb__generic pmb__generics[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES", "core cycles while not halted" },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "PERF_COUNT_HW_CPU_CYCLES", "core cycles while not halted" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "PERF_COUNT_HW_INSTRUCTIONS", "instructions retired" },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "branch instructions retired" },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "branch instructions retired" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "PERF_COUNT_HW_BRANCH_MISSES", "mispredicted branch instructions" },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "PERF_COUNT_HW_CACHE_REFERENCES", "last-level cache accesses (kernel's choice)" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "PERF_COUNT_HW_CACHE_MISSES", "last-level cache misses (kernel's choice)" },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "PERF_COUNT_HW_REF_CPU_CYCLES", "reference (constant-rate) cycles" },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "PERF_COUNT_HW_BUS_CYCLES", "bus cycles" },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", "cycles the front end delivered nothing" },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "cycles the back end executed nothing" },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, HWC(L1D, READ, ACCESS), "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS", "L1 data cache loads" },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS), "PERF_COUNT_HW_CACHE_L1D:READ:MISS", "L1 data cache load misses" },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, HWC(L1D, WRITE, ACCESS), "PERF_COUNT_HW_CACHE_L1D:WRITE:ACCESS", "L1 data cache stores" },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1I, READ, MISS), "PERF_COUNT_HW_CACHE_L1I:READ:MISS", "L1 instruction cache misses" },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS), "PERF_COUNT_HW_CACHE_LL:READ:ACCESS", "last-level cache loads" },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS), "PERF_COUNT_HW_CACHE_LL:READ:MISS", "last-level cache load misses" },
	{ "LLC-stores", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, ACCESS), "PERF_COUNT_HW_CACHE_LL:WRITE:ACCESS", "last-level cache stores" },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, MISS), "PERF_COUNT_HW_CACHE_LL:WRITE:MISS", "last-level cache store misses" },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, ACCESS), "PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS", "data TLB loads" },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS), "PERF_COUNT_HW_CACHE_DTLB:READ:MISS", "data TLB load misses" },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS), "PERF_COUNT_HW_CACHE_ITLB:READ:MISS", "instruction TLB misses" },
	{ "branch-loads", PERF_TYPE_HW_CACHE, HWC(BPU, READ, ACCESS), "PERF_COUNT_HW_CACHE_BPU:READ:ACCESS", "branch predictor lookups" },
	{ "branch-load-misses", PERF_TYPE_HW_CACHE, HWC(BPU, READ, MISS), "PERF_COUNT_HW_CACHE_BPU:READ:MISS", "branch predictor misses" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "PERF_COUNT_SW_TASK_CLOCK", "ns the task ran (software)" },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "PERF_COUNT_SW_CPU_CLOCK", "ns of the cpu clock (software)" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS", "page faults (software)" },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "PERF_COUNT_SW_PAGE_FAULTS", "page faults (software)" },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "PERF_COUNT_SW_PAGE_FAULTS_MIN", "minor page faults (software)" },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "PERF_COUNT_SW_PAGE_FAULTS_MAJ", "major page faults (software)" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "PERF_COUNT_SW_CONTEXT_SWITCHES", "context switches (software)" },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "PERF_COUNT_SW_CONTEXT_SWITCHES", "context switches (software)" },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS", "migrations to another cpu (software)" },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "PERF_COUNT_SW_CPU_MIGRATIONS", "migrations to another cpu (software)" },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "PERF_COUNT_SW_ALIGNMENT_FAULTS", "alignment faults (software)" },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "PERF_COUNT_SW_EMULATION_FAULTS", "emulation faults (software)" },
};
const int pmb__ngenerics = (int)(sizeof(pmb__generics) / sizeof(pmb__generics[0]));

/* Generic names match as perf spells them, or in any case where no alias
 * takes the name (the alias llc-misses is not perf's LLC-load-misses). */
const struct pmb__generic *pmb__generic_find(const char *name, bool exact)
{
	for (int i = 0; i < pmb__ngenerics; i++)
		if (exact ? !strcmp(pmb__generics[i].name, name) : !strcasecmp(pmb__generics[i].name, name))
			return &pmb__generics[i];
	return NULL;
}

void pmb__event_fill_generic(const struct pmb__events_ctx *c, const struct pmb__generic *g,
			     struct pmb_event *ev)
{
	ev->attr.type = g->type;
	ev->attr.config = g->config;
	/* perf's extended type for hybrid: the PMU in the upper 32 bits */
	if (c->hybrid && g->type != PERF_TYPE_SOFTWARE)
		ev->attr.config |= (uint64_t)c->hybrid_type << 32;
	ev->attr.exclude_kernel = !c->kernel;
	snprintf(ev->encoding, sizeof(ev->encoding), "perf::%s", g->sym);
	pmb__str_copy(ev->pmu, sizeof(ev->pmu), "perf");
	ev->kind = g->type == PERF_TYPE_SOFTWARE ? PMB_EV_SW : PMB_EV_HW;
}

/* ---- raw codes -------------------------------------------------------------- */

/* rNNNN: a raw hex event code for the core PMU, as perf writes it. */
static bool parse_raw(const char *s, uint64_t *code)
{
	size_t n;

	if (s[0] != 'r' || !s[1])
		return false;
	n = strspn(s + 1, "0123456789abcdefABCDEF");
	if (s[1 + n] || n > 16)
		return false;
	*code = strtoull(s + 1, NULL, 16);
	return true;
}

bool pmb__event_encode_raw(const struct pmb__events_ctx *c, const char *name, struct pmb_event *ev)
{
	uint64_t code;

	if (!parse_raw(name, &code))
		return false;
	ev->attr.type = c->hybrid ? c->hybrid_type : PERF_TYPE_RAW;
	ev->attr.config = code;
	ev->attr.exclude_kernel = !c->kernel;
	snprintf(ev->encoding, sizeof(ev->encoding), "raw %#llx", (unsigned long long)code);
	pmb__str_copy(ev->pmu, sizeof(ev->pmu), c->plan->pmu_name[0] ? c->plan->pmu_name : "perf");
	ev->kind = PMB_EV_HW;
	return true;
}

/* ---- libpfm4 names ------------------------------------------------------------ */

/* Encode a libpfm4 event string; a bare name is looked up on the plan's
 * PMU first (libpfm skips deprecated PMUs, e.g. amd64_fam17h, in unqualified
 * lookups, and a hybrid CPU has two core PMUs), then on every present PMU.
 * Returns a PFM_* code. */
static int encode_pfm(const struct pmb__events_ctx *c, const char *str, struct pmb_event *ev)
{
	char full[256], *fstr = NULL;
	int ret = PFM_ERR_NOTFOUND;
	int plm = c->kernel ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;

	if (!pmb__events.pfm_ok)
		return PFM_ERR_NOINIT;
	for (int pass = 0; pass < 2 && ret == PFM_ERR_NOTFOUND; pass++) {
		const char *s = str;

		if (pass == 0) {
			if (strstr(str, "::") || !c->pfm_pmu[0])
				continue;
			snprintf(full, sizeof(full), "%s::%s", c->pfm_pmu, str);
			s = full;
		}
		memset(&ev->attr, 0, sizeof(ev->attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &ev->attr;
		arg.fstr = &fstr;
		arg.size = sizeof(arg);
		ret = pfm_get_os_event_encoding(s, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	}
	if (ret != PFM_SUCCESS)
		return ret;
	pmb__str_copy(ev->encoding, sizeof(ev->encoding), fstr ? fstr : str);
	free(fstr);
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS &&
	    pmb__pmu_info(ei.pmu, &pi))
		pmb__str_copy(ev->pmu, sizeof(ev->pmu), pi.name);
	ev->kind = ev->attr.type == PERF_TYPE_SOFTWARE ? PMB_EV_SW : PMB_EV_HW;
	return PFM_SUCCESS;
}

/* libpfm4's name for event number code of PMU pmu_id, or NULL.  O(events
 * of the PMU), a few hundred at most. */
const char *pmb__pfm_name_of_code(int pmu_id, uint64_t code)
{
	pfm_pmu_info_t pi;

	if (!pmb__events.pfm_ok || pmu_id < 0 || !pmb__pmu_info((pfm_pmu_t)pmu_id, &pi))
		return NULL;
	for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ei;

		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS &&
		    ei.code == code)
			return ei.name;
	}
	return NULL;
}

static const struct pmb_arm_event *arm_event_by_name(const char *name)
{
	for (int i = 0; i < PMB_NARM_EVENTS; i++)
		if (!strcasecmp(pmb_arm_events[i].name, name))
			return &pmb_arm_events[i];
	return NULL;
}

const char *pmb__arm_event_name(uint64_t code)
{
	for (int i = 0; i < PMB_NARM_EVENTS; i++)
		if (pmb_arm_events[i].code == code)
			return pmb_arm_events[i].name;
	return NULL;
}

const char *pmb__arm_event_at(int i)
{
	return i >= 0 && i < PMB_NARM_EVENTS ? pmb_arm_events[i].name : NULL;
}

/* An Arm architectural name (BR_MIS_PRED) or a file of the sysfs events/
 * (br_mis_pred) on an Arm core.  libpfm4 spells some common events its own
 * way (Cortex-A57's BRANCH_MISPRED for 0x10) and has no tables for cores it
 * cannot identify (QEMU's -cpu max, cores newer than it).  Tried in turn:
 * libpfm4's event of that number, the sysfs file, the bare number (which the
 * core may not implement: pmb__event_judge() says so where that is known).  Bare names
 * only, no modifiers.  Returns a PFM_* code. */
static int encode_arm(const struct pmb__events_ctx *c, const char *name, struct pmb_event *ev)
{
	const struct pmb_arm_event *a = arm_event_by_name(name);
	const struct pmb_event_plan *pl = c->plan;
	char low[PMB__NAME_LEN], path[768];
	const char *pfm;
	uint64_t code;
	size_t i;

	if (strlen(name) >= sizeof(low) || !name[0])
		return PFM_ERR_NOTFOUND;
	for (i = 0; name[i]; i++) {
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return PFM_ERR_NOTFOUND; /* no modifiers, no path out of events/ */
		low[i] = (char)tolower((unsigned char)name[i]);
	}
	low[i] = '\0';
	if (a && (pfm = pmb__pfm_name_of_code(c->pmu_id, a->code))) {
		int ret = encode_pfm(c, pfm, ev);
		size_t len = strlen(ev->encoding);

		if (ret == PFM_SUCCESS)
			snprintf(ev->encoding + len, sizeof(ev->encoding) - len,
				 " (Arm %s, event %#x)", a->name, a->code);
		return ret;
	}
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.exclude_kernel = !c->kernel;
	ev->kind = PMB_EV_HW;
	snprintf(path, sizeof(path), "%s/%s/events/%s", pmb__events.sysfs_root, c->arm.name, low);
	if (c->arm.name[0] && pmb__sysfs_read_event(path, &code)) {
		ev->attr.type = c->arm.type;
		ev->attr.config = code;
		snprintf(ev->encoding, sizeof(ev->encoding), "%s/%s (sysfs event=%#llx)", c->arm.name,
			 low, (unsigned long long)code);
		pmb__str_copy(ev->pmu, sizeof(ev->pmu), c->arm.name);
		return PFM_SUCCESS;
	}
	if (!a)
		return PFM_ERR_NOTFOUND;
	/* the core's own type where only sysfs knows it, as for its files */
	ev->attr.type = c->pmu_id < 0 && c->arm.name[0] ? c->arm.type : PERF_TYPE_RAW;
	ev->attr.config = a->code;
	snprintf(ev->encoding, sizeof(ev->encoding), "raw %#x (Arm %s, which %s does not list)",
		 a->code, a->name, pl->pmu_name);
	pmb__str_copy(ev->pmu, sizeof(ev->pmu), pl->pmu_name);
	return PFM_SUCCESS;
}

/* A PMU event by name: libpfm4's, then on Arm cores the architectural
 * names and sysfs files.  Returns a PFM_* code. */
int pmb__event_encode_named(const struct pmb__events_ctx *c, const char *str, struct pmb_event *ev)
{
	int ret = encode_pfm(c, str, ev);

	if ((ret == PFM_ERR_NOTFOUND || ret == PFM_ERR_NOINIT) && c->vendor == PMB_VENDOR_ARM &&
	    encode_arm(c, str, ev) == PFM_SUCCESS)
		return PFM_SUCCESS;
	return ret;
}
