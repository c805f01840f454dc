/* test_report_sweep.c - a sweep's section on constructed results (issue 32), its figures made by the analysis (pmb__analyze_sweeps) and rendered: the data TLB reach read from the CPU beside hwloc's boundaries (or why it is not known), the TLB share of mem/chase_4k against mem/chase per tier with its interval (not told from 0 where that holds 0), and an effective capacity under half of hwloc's named only where a step the intervals establish came before the boundary; the tier table naming a tier by measurement where a level holds under half (L3 at DRAM's cost from 4 MiB) or over twice (L2's cost to 1 MiB) of hwloc's size, the causes of each said once; the points past such a step counted in the tier whose cost they have; no sweep for a family a signal left unmeasured; a rise over PMB_STEP_RATIO across a size whose intervals overlap said as no step established, never "steps". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"
#include "report.h"
#include "report_study.h"
#include "tap.h"

static struct pmb_benchmark_def def = { .name = "chase" };

#define NP 6 /* points per family */

struct world {
	struct pmb_context ctx;
	struct pmb_instance in[2 * NP];
	struct pmb_result r[2 * NP];
};

static const uint64_t sizes[NP] = { 16 << 10, 128 << 10, 1 << 20, 4 << 20, 64 << 20, 128 << 20 };
static const char *const tiers[NP] = { "L1", "L2", "L3", "L3", "DRAM", "DRAM" };

static void point(struct world *w, int i, const char *fam, int k, double ns, double half)
{
	struct pmb_instance *in = &w->in[i];
	struct pmb_result *r = &w->r[i];

	memset(in, 0, sizeof(*in));
	memset(r, 0, sizeof(*r));
	in->def = &def;
	snprintf(in->family, sizeof(in->family), "%s", fam);
	snprintf(in->name, sizeof(in->name), "%s/%llu", fam, (unsigned long long)sizes[k]);
	snprintf(in->tier, sizeof(in->tier), "%s", tiers[k]);
	in->working_set = sizes[k];
	in->baseline = in->reference = -1;
	r->m.inst = in;
	r->f.time.valid = true;
	r->f.time.s.median = ns;
	r->f.time.s.ci_lo = ns - half;
	r->f.time.s.ci_hi = ns + half;
	r->m.huge_fraction = strstr(fam, "_4k") ? 0 : 1;
	r->f.rep_spread = NAN;
}

/* hwloc: L1 32 KiB, L2 512 KiB, L3 32 MiB shared by 4; the data steps to
 * DRAM's cost at 4 MiB (well before L3's 32 MiB); 4 KiB pages cost 1 ns
 * more in L3, 20 ns more in DRAM, nothing told in L1 and L2. */
static void build(struct world *w, bool tlbs)
{
	static const double huge[NP] = { 1.0, 4.0, 12.0, 90.0, 100.0, 102.0 };
	static const double extra[NP] = { 0.0, 0.1, 1.0, 1.0, 20.0, 20.0 };
	struct pmb_context *c = &w->ctx;

	pmb__context_free(&w->ctx);
	memset(w, 0, sizeof(*w));
	c->m.backend = PMB_BACKEND_PERF;
	c->m.hugepages = true;
	c->m.topo_ok = true;
	c->m.topo.ncaches = 3;
	c->m.topo.cache[0] = (struct pmb_cache){ .level = 1, .size = 32 << 10, .sharing_cores = 1 };
	c->m.topo.cache[1] = (struct pmb_cache){ .level = 2, .size = 512 << 10, .sharing_cores = 1 };
	c->m.topo.cache[2] = (struct pmb_cache){ .level = 3, .size = 32 << 20, .sharing_cores = 4 };
	if (tlbs) {
		struct pmb_tlb_info *t = &c->m.topo.tlb;

		t->n = 3;
		t->tlb[0] = (struct pmb_tlb){ .level = 1, .kind = 'd', .pages = PMB_TLB_4K, .entries = 64, .assoc = -1 };
		t->tlb[1] = (struct pmb_tlb){ .level = 2, .kind = 'd', .pages = PMB_TLB_4K | PMB_TLB_2M,
					      .entries = 2048, .assoc = 8 };
		t->tlb[2] = (struct pmb_tlb){ .level = 1, .kind = 'i', .pages = PMB_TLB_4K, .entries = 64, .assoc = -1 };
		snprintf(t->source, sizeof(t->source), "CPUID leaf 0x18");
	} else {
		snprintf(c->m.topo.tlb.why, sizeof(c->m.topo.tlb.why), "a given topology (--topology-source)");
	}
	for (int k = 0; k < NP; k++) {
		point(w, k, "mem/chase", k, huge[k], 0.2);
		point(w, NP + k, "mem/chase_4k", k, huge[k] + extra[k], 0.2);
	}
	c->view.width = 200;
}

/* What one renderer prints of the analysis's sweep figures. */
static char *rendered(struct world *w, void (*render)(FILE *, const struct pmb_context *,
						      const struct pmb_result *, size_t))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (pmb__analyze_sweeps(&w->ctx, w->r, 2 * NP))
		return strdup("");
	f = open_memstream(&text, &len);
	render(f, &w->ctx, w->r, 2 * NP);
	fclose(f);
	return text;
}

/* The sweep section as the run prints it: the analysis's figures, then
 * their rendering. */
static char *sweeps(struct world *w)
{
	return rendered(w, pmb__report_sweeps);
}

/* The findings' sweep lines as the run prints them. */
static char *findings_of(struct world *w)
{
	return rendered(w, pmb__sweep_findings);
}

int main(void)
{
	static struct world w;
	char *t;

	build(&w, true);
	t = sweeps(&w);
	/* The figures themselves, before any wording. */
	const struct pmb_sweep_figures *sf = w.ctx.f.sweeps;
	tap_ok(w.ctx.f.nsweeps == 2 && !strcmp(sf[0].family, "mem/chase") && !strcmp(sf[1].family, "mem/chase_4k") &&
	       sf[0].by_measure && sf[0].tier[2].points == 1 && sf[0].tier[2].med[0] == 12 &&
	       sf[0].tier[2].lo[0] == 11.8 && sf[0].tier[2].hi[0] == 12.2 && sf[0].tier[4].points == 3 &&
	       sf[0].tier[4].med[0] == 100 && !sf[1].by_measure && sf[1].tier[2].points == 2,
	       "figures: a sweep per family; L3 holding less, its 4 MiB point counts in DRAM, whose cost it has: "
	       "L3's median 12 ns [11.8, 12.2] over 1 point, DRAM's 100 ns over 3 (hwloc's tiers: 51 and 101)");
	tap_ok(sf[0].nsteps == 3 && sf[0].step[2].from == 1 << 20 && sf[0].step[2].to == 4 << 20 &&
	       sf[0].step[2].ratio == 7.5 && sf[0].level[2].capacity == PMB_CAPACITY_LESS &&
	       sf[0].level[2].cap_from == 1 << 20 && sf[0].level[2].cap_to == 4 << 20 && sf[0].level[2].cap_tier == 4 &&
	       sf[0].level[0].capacity == PMB_CAPACITY_NOT_TOLD && sf[0].level[1].capacity == PMB_CAPACITY_NOT_TOLD,
	       "figures: 3 steps, the last x7.5 from 1 to 4 MiB; L3 holds less (to 1 MiB, DRAM's cost from 4 MiB)");
	tap_ok(!strcmp(sf[0].family_4k, "mem/chase_4k") && sf[0].share[4].points == 3 && sf[0].share[4].diff == 20 &&
	       sf[0].share[4].base == 100 && sf[0].nreach == 3 && sf[0].reach[0].level == 1 &&
	       sf[0].reach[0].bytes == 64 * 4096 && sf[0].reach[2].page == 1 && sf[0].reach[2].bytes == 2048ull << 21 &&
	       sf[1].ntlb_steps == 1 && sf[1].tlb_step[0].reach_level == 2 && sf[1].tlb_step[0].reach == 8 << 20,
	       "figures: DRAM's TLB share +20 ns over 101, the data TLB reach (2 on 4 KiB pages, 1 on 2 MiB), the "
	       "4 KiB family's own step across the L2 dTLB's 8 MiB");
	tap_ok(isnan(sf[0].tier[0].over_prev) && sf[0].tier[1].over_prev == 4 && sf[0].tier[2].over_prev == 3 &&
	       sf[0].tier[4].over_prev == 100 / 12.0 && isnan(sf[0].tier[3].over_prev) && isnan(sf[0].tier[2].est_cycles) &&
	       sf[0].share[4].pct == 20 && sf[0].share[2].pct == 100 / 12.0 && isnan(sf[0].share[0].pct),
	       "figures: each tier over the one before with points (L3 x3, DRAM over L3 past the empty L4), no "
	       "cycles estimated without a frequency; the TLB share in %% only where told (DRAM +20 %%, L1 none)");
	tap_ok(strstr(t, "  data TLB reach (CPUID leaf 0x18): L1 256KiB, L2 8MiB (4 KiB pages); L2 4GiB (2 MiB "
			 "pages)\n") != NULL, "the data TLBs' reach per page size, the instruction TLB left out (%zu bytes of report)", strlen(t));
	tap_ok(strstr(t, "  TLB share, mem/chase_4k (4 KiB pages) against these huge pages, per item: L1 not told from "
			 "0 [-0.400 ns, 0.400 ns]; L2 not told from 0 [-0.300 ns, 0.500 ns]; L3 +1.000 ns [0.600 ns, "
			 "1.400 ns] (+8 %); DRAM +20.00 ns [19.60 ns, 20.40 ns] (+20 %)\n") != NULL,
	       "the TLB share per tier: the median difference, its interval crosswise, 0 not claimed as a share");
	tap_ok(strstr(t, "    measured: the step from 1MiB to 4MiB (intervals apart) is under half of L3's 32MiB: "
			 "this core gets less of it than hwloc says (hwloc: 32MiB shared by 4 cores)") != NULL,
	       "L3's step at 1 to 4 MiB, under half of hwloc's 32 MiB: the effective capacity said, with sharing");
	tap_ok(strstr(t, "  L3    median 12.00 ns per item over 1 point, 3.0x the tier before\n"
			 "        by measurement: DRAM from 4MiB (the step x7.5, 1MiB to 4MiB); hwloc says L3 32MiB, shared by 4 "
			 "cores\n  DRAM") != NULL,
	       "the L3 tier named by measurement: DRAM's cost from 4 MiB, hwloc's L3 and its sharing beside");
	tap_ok(strstr(t, "\n  a level holding under half of what hwloc says: the usual causes, not told apart here: "
			 "a VM's share of a shared cache, cache partitioning (Intel CAT, AMD QoS), other tenants' "
			 "use\n  boundaries hwloc reports:") != NULL && !strstr(t, "over twice what hwloc says"),
	       "the causes of 'less' said once, after the tier table; none of 'more'");
	tap_ok(strstr(strstr(t, "mem/chase_4k across") ? strstr(t, "mem/chase_4k across") : "", "TLB share") == NULL,
	       "the 4 KiB family's own section claims no TLB share of its own");
	tap_ok(strstr(t, "  4 KiB pages alone step x1.3 from 4MiB to 64MiB (mem/chase on huge pages, no step), across "
			 "the L2 data TLB's reach (8MiB): the TLB's, not a cache's\n") != NULL,
	       "the step only 4 KiB pages take, across the L2 dTLB's reach: named the TLB's");
	free(t);

	/* mem/chase's step from 1 to 4 MiB with intervals that overlap: no
	 * capacity claimed in its section (mem/chase_4k's still has one). */
	w.r[2].f.time.s.ci_hi = 95;
	t = sweeps(&w);
	char *own = strstr(t, "mem/chase across"), *next = strstr(t, "mem/chase_4k across");
	if (own && next)
		*next = '\0';
	tap_ok(own && next && !strstr(own, "measured:"), "a step whose intervals overlap: no capacity claimed");
	free(t);

	/* 4 KiB pages measured 30 ns faster in DRAM, intervals apart: no TLB
	 * share is claimed (a TLB miss only adds). */
	build(&w, true);
	w.r[NP + 4].f.time.s.median = 70, w.r[NP + 4].f.time.s.ci_lo = 69.8, w.r[NP + 4].f.time.s.ci_hi = 70.2;
	w.r[NP + 5].f.time.s.median = 72, w.r[NP + 5].f.time.s.ci_lo = 71.8, w.r[NP + 5].f.time.s.ci_hi = 72.2;
	t = sweeps(&w);
	tap_ok(strstr(t, "; DRAM no TLB share: 4 KiB pages measured faster (-30.00 ns [-30.40 ns, -29.60 ns]), which "
			 "TLB misses cannot make; something else differed between the two: rerun\n") != NULL,
	       "4 KiB pages faster, intervals apart: no TLB share claimed, the contradiction said");
	free(t);

	/* Caches larger than measured and smaller: hwloc's L2 of 512 KiB
	 * with no step across it (128 KiB 4.0 ns, 1 MiB 4.2 ns) and the step
	 * from 1 to 4 MiB: L2's cost to twice its size, so more than hwloc
	 * says; the same step is under half of L3's 32 MiB: less. */
	build(&w, true);
	w.r[2].f.time.s.median = 4.2, w.r[2].f.time.s.ci_lo = 4.0, w.r[2].f.time.s.ci_hi = 4.4;
	w.ctx.m.hugepages = false;
	t = sweeps(&w);
	own = strstr(t, "mem/chase across");
	next = strstr(t, "mem/chase_4k across");
	if (own && next)
		*next = '\0';
	tap_ok(own && strstr(own, "  L2    median 4.100 ns per item over 2 points, 4.1x the tier before\n"
			 "        by measurement: L2's cost up to 1MiB (the step x21.4, 1MiB to 4MiB); hwloc says L2 "
			 "512KiB\n  L3    no point at a cost of its own: those hwloc puts in it cost as another "
			 "tier's\n"
			 "        by measurement: DRAM from 4MiB (the step x21.4, 1MiB to 4MiB); hwloc says L3 32MiB, shared by 4 "
			 "cores\n  DRAM  median 100.0 ns per item over 3 points, 24.4x the tier before\n") != NULL,
	       "L2 named by measurement as holding to 1 MiB (more than hwloc's 512 KiB), its 1 MiB point counted "
	       "in it; L3 as DRAM from 4 MiB (less), its points in DRAM, none left at a cost of its own");
	tap_ok(own && strstr(own, "other tenants' use\n  a level holding over twice what hwloc says: the usual "
			     "causes, not told apart here: a victim (exclusive) or non-inclusive level after it whose "
			     "cost is too close to this one's to step, or a wrong size from hwloc (a VM's made-up "
			     "topology)\n  boundaries") != NULL, "the causes of 'less' and of 'more', once each");
	free(t);

	/* The step at twice L2's size has intervals that overlap: nothing
	 * named by measurement for L2. */
	w.r[2].f.time.s.ci_hi = 90;
	t = sweeps(&w);
	own = strstr(t, "mem/chase across");
	tap_ok(own && !strstr(own, "L2's cost up to") && !strstr(own, "over twice"),
	       "a later step the intervals do not establish: no 'more' claimed");
	free(t);

	/* Across L2's 512 KiB the cost rises x3.0 (128 KiB 4 ns, 1 MiB 12
	 * ns) but 1 MiB's interval reaches down to 3.9 ns, under 128 KiB's
	 * 4.2: the ratio is over PMB_STEP_RATIO, the step not established,
	 * and no sentence says the data step there. */
	build(&w, true);
	w.r[2].f.time.s.ci_lo = 3.9;
	t = sweeps(&w);
	own = strstr(t, "mem/chase across");
	next = strstr(t, "mem/chase_4k across");
	if (own && next)
		*next = '\0';
	tap_ok(w.ctx.f.nsweeps == 2 && w.ctx.f.sweeps[0].level[1].crossed && w.ctx.f.sweeps[0].level[1].ratio == 3 &&
	       w.ctx.f.sweeps[0].level[1].rose && !w.ctx.f.sweeps[0].level[1].stepped &&
	       w.ctx.f.sweeps[0].level[0].stepped,
	       "figures: L2's rise x3.0 with intervals that overlap is not stepped; L1's, apart, is");
	{
		const struct pmb_sweep_figures *s = &w.ctx.f.sweeps[0];
		bool listed = false;

		for (int i = 0; i < s->nsteps; i++)
			listed |= s->step[i].from == 128 * 1024 && s->step[i].to == 1024 * 1024;
		tap_ok(s->nsteps > 0 && !listed,
		       "the steps in the data list no rise the intervals do not establish (x3.0, 128KiB to 1MiB; "
		       "%d listed)", s->nsteps);
	}
	tap_ok(own && strstr(own, "  L2 512KiB: no step the intervals establish here (x3.0, 128KiB to 1MiB)\n") &&
	       !strstr(own, "  L2 512KiB: the data step"), "the L2 line claims no step the intervals do not establish");
	free(t);
	t = findings_of(&w);
	tap_ok(strstr(t, "mem/chase: ") && !strstr(t, "steps x3.0 at L2") &&
	       strstr(t, "; no established step at L2 512KiB (x3.0, intervals overlap);"),
	       "the finding's words for L2: no established step, the ratio beside");
	free(t);

	/* A signal left mem/chase_4k unmeasured (not_run, as the runner
	 * marks it): the reports walk the results without it, and no sweep
	 * opens for it; mem/chase's opens at its first measured point. */
	build(&w, true);
	for (int k = 0; k < NP; k++)
		w.r[NP + k].m.not_run = true, w.r[NP + k].m.status = PMB_ESKIPPED;
	w.r[0].m.not_run = true, w.r[0].m.status = PMB_ESKIPPED;
	t = sweeps(&w);
	tap_ok(w.ctx.f.nsweeps == 1 && w.ctx.f.sweeps[0].first == 1 && !strstr(t, "mem/chase_4k across"),
	       "a family a signal left unmeasured opens no sweep; one whose first point it left opens at its "
	       "second (%d sweeps)", w.ctx.f.nsweeps);
	free(t);

	build(&w, false);
	t = sweeps(&w);
	tap_ok(strstr(t, "  TLB reach not known: a given topology (--topology-source)\n") != NULL,
	       "no TLB geometry: the reach line says why");
	free(t);
	pmb__context_free(&w.ctx);
	return tap_done();
}
