/* report_study.c - the console report's working-set sweeps, rendered from the figures the analysis made (analyse/analysis_sweep.c, struct pmb_sweep_figures): median per tier, where the data step, against the cache boundaries and the TLBs' reach. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "report_fmt.h"
#include "report_study.h"

static void fmt_step(char *buf, size_t n, double ratio)
{
	if (isinf(ratio))
		snprintf(buf, n, "from ~0");
	else
		snprintf(buf, n, "x%.1f", ratio);
}

/* "x1.4, 32KiB to 64KiB" */
static void fmt_span(char *buf, size_t n, double ratio, uint64_t a, uint64_t b)
{
	char s1[24], s2[24], st[24];

	pmb__format_bytes(s1, sizeof(s1), a);
	pmb__format_bytes(s2, sizeof(s2), b);
	fmt_step(st, sizeof(st), ratio);
	snprintf(buf, n, "%s, %s to %s", st, s1, s2);
}

/* Where a level's data step well before hwloc's size: the level holds
 * less here than hwloc says (issue 32).  Says what was measured. */
static void effective_capacity(FILE *f, const struct pmb_context *c, int k, const struct pmb_sweep_level *v,
			       bool sim)
{
	const struct pmb_cache *ca = &c->m.topo.cache[k];
	char sz[24], hi[24], lo[24];

	if (v->capacity != PMB_CAPACITY_LESS)
		return;
	pmb__format_bytes(sz, sizeof(sz), ca->size);
	pmb__format_bytes(lo, sizeof(lo), v->cap_from);
	pmb__format_bytes(hi, sizeof(hi), v->cap_to);
	fprintf(f, "    measured: the step from %s to %s (%s) is under half of L%d's %s: this core "
		"gets less of it than hwloc says", lo, hi, sim ? "simulated counts, exact" : "intervals apart", ca->level,
		sz);
	if (ca->sharing_cores > 1)
		fprintf(f, " (hwloc: %s shared by %d cores)", sz, ca->sharing_cores);
	fputc('\n', f);
}

/* Does the data step at cache level k?  The step is the cost ratio of the
 * two sweep points around the cache's size; where there is none, the
 * largest step below the boundary is named. */
static void compare_level(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s, int k)
{
	const struct pmb_sweep_level *v = &s->level[k];
	char sz[24], span[96];

	pmb__format_bytes(sz, sizeof(sz), c->m.topo.cache[k].size);
	fprintf(f, "  L%d %s: ", c->m.topo.cache[k].level, sz);
	if (v->e == -1) {
		fprintf(f, "not simulated (valgrind models L1 and the last level only)\n");
		return;
	}
	if (v->e >= 0)
		fprintf(f, "(%s) ", c->m.plan.ev[v->e].name);
	if (!v->crossed) {
		fprintf(f, "no sweep points on both sides\n");
		return;
	}
	fmt_span(span, sizeof(span), v->ratio, v->a, v->b);
	if (v->stepped) {
		fprintf(f, "the data step here too (%s)\n", span);
		return;
	}
	/* A rise over PMB_STEP_RATIO whose intervals overlap is no step the
	 * analysis established: said as such, not as "no step". */
	fprintf(f, "no step %shere (%s)", v->rose ? "the intervals establish " : "", span);
	if (v->earlier) {
		fmt_span(span, sizeof(span), v->best, v->sa, v->sb);
		fprintf(f, "; the data step earlier (%s)", span);
	}
	fputc('\n', f);
	effective_capacity(f, c, k, v, s->sim);
}

/* "  L2    median 3.1 ns per item over 2 points, 2.5x the tier before" */
static void tier_line(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s, int t)
{
	const struct pmb_sweep_tier *st = &s->tier[t];
	char b[32];

	fprintf(f, "  %-5s median ", pmb_sweep_tier_name[t]);
	for (int q = 0; q < s->nfig; q++) {
		if (s->sim) {
			pmb__fmt_num(b, sizeof(b), st->med[q]);
			fprintf(f, "%s%s %s", q ? ", " : "", b, c->m.plan.ev[s->ev[q]].name);
		} else {
			pmb__fmt_time(b, sizeof(b), st->med[q]);
			fprintf(f, "%s", b);
		}
	}
	fprintf(f, " per item%s over %zu point%s", s->sim ? " (simulated)" : "", st->points,
		st->points == 1 ? "" : "s");
	if (isfinite(st->est_cycles))
		fprintf(f, " (est. %.1f cycles)", st->est_cycles);
	if (isfinite(st->over_prev))
		fprintf(f, ", %.1fx the tier before", st->over_prev);
	fputc('\n', f);
}

/* Under the tier of a cache level whose measured capacity is under half
 * or over twice hwloc's: the tier named by what was measured.  Less:
 * "DRAM from 4MiB (the step x7.5, 1MiB to 4MiB); hwloc says L3 32MiB,
 * shared by 4 cores" (the tier whose cost the point past the step has,
 * else "past L3"); more: "L2's cost up to 1MiB (the step x21.4, 1MiB to
 * 4MiB); hwloc says L2 512KiB". */
static void tier_by_measure(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s, int k)
{
	const struct pmb_sweep_level *v = &s->level[k];
	const struct pmb_cache *ca = &c->m.topo.cache[k];
	char from[24], to[24], sz[24], span[96];

	pmb__format_bytes(from, sizeof(from), v->cap_from);
	pmb__format_bytes(to, sizeof(to), v->cap_to);
	pmb__format_bytes(sz, sizeof(sz), ca->size);
	fmt_span(span, sizeof(span), v->cap_ratio, v->cap_from, v->cap_to);
	fprintf(f, "        by measurement: ");
	if (v->capacity == PMB_CAPACITY_LESS && v->cap_tier >= 0)
		fprintf(f, "%s from %s (the step %s)", pmb_sweep_tier_name[v->cap_tier], to, span);
	else if (v->capacity == PMB_CAPACITY_LESS)
		fprintf(f, "past L%d from %s (the step %s)", ca->level, to, span);
	else
		fprintf(f, "L%d's cost up to %s (the step %s)", ca->level, from, span);
	fprintf(f, "; hwloc says L%d %s", ca->level, sz);
	if (ca->sharing_cores > 1)
		fprintf(f, ", shared by %d cores", ca->sharing_cores);
	fputc('\n', f);
}

static void tier_summary(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s)
{
	bool less = false, more = false;

	for (int t = 0; t < PMB_SWEEP_TIERS; t++) {
		bool named = false;

		for (int k = 0; k < s->nlevels; k++)
			named |= s->level[k].capacity != PMB_CAPACITY_NOT_TOLD && c->m.topo.cache[k].level == t + 1;
		if (!s->tier[t].points && !named)
			continue;
		/* A tier whose points all cost as another's (the analysis
		 * counted them there) still says what was measured of it. */
		if (s->tier[t].points) {
			tier_line(f, c, s, t);
		} else {
			fprintf(f, "  %-5s no point at a cost of its own: those hwloc puts in it cost as "
				"another tier's\n", pmb_sweep_tier_name[t]);
		}
		for (int k = 0; k < s->nlevels; k++)
			if (s->level[k].capacity != PMB_CAPACITY_NOT_TOLD && c->m.topo.cache[k].level == t + 1) {
				tier_by_measure(f, c, s, k);
				less |= s->level[k].capacity == PMB_CAPACITY_LESS;
				more |= s->level[k].capacity == PMB_CAPACITY_MORE;
			}
	}
	/* The causes, once per sweep. */
	if (less)
		fprintf(f, "  a level holding under half of what hwloc says: the usual causes, not told apart here: a "
			"VM's share of a shared cache, cache partitioning (Intel CAT, AMD QoS), other tenants' use\n");
	if (more)
		fprintf(f, "  a level holding over twice what hwloc says: the usual causes, not told apart here: a "
			"victim (exclusive) or non-inclusive level after it whose cost is too close to this one's to "
			"step, or a wrong size from hwloc (a VM's made-up topology)\n");
}

/* "; between 16KiB and 256KiB (l1d-read-misses from ~0)" per step. */
static void data_steps(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s)
{
	for (int i = 0; i < s->nsteps; i++) {
		const struct pmb_sweep_step *st = &s->step[i];
		char s1[24], s2[24], r[24];

		pmb__format_bytes(s1, sizeof(s1), st->from);
		pmb__format_bytes(s2, sizeof(s2), st->to);
		fmt_step(r, sizeof(r), st->ratio);
		fprintf(f, "%s between %s and %s (%s%s%s)", i ? ";" : "", s1, s2, st->e >= 0 ? c->m.plan.ev[st->e].name : "",
			st->e >= 0 ? " " : "", r);
	}
}

/* The cache sizes the sweep is compared with: hwloc's, or assumed ones
 * where hwloc reports no data caches (a synthetic topology, some VMs). */
static void boundaries_line(FILE *f, const struct pmb_context *c)
{
	if (c->m.topo.caches_assumed)
		fprintf(f, "  boundaries ASSUMED (hwloc reports no data caches):");
	else
		fprintf(f, "  boundaries hwloc reports:");
	for (int k = 0; k < c->m.topo.ncaches; k++) {
		char s[24];

		pmb__format_bytes(s, sizeof(s), c->m.topo.cache[k].size);
		fprintf(f, " L%d %s%s", c->m.topo.cache[k].level, s,
			c->m.topo.cache[k].sharing_cores > 1 ? " (shared)" : "");
	}
	fputc('\n', f);
}

/* The share of the family's buffers on huge pages, where it was measured. */
static void huge_pages_line(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s)
{
	if (s->huge_max >= 0)
		fprintf(f, "  huge pages backing the buffers: %.0f%%..%.0f%% (measured in /proc/self/smaps; "
			"--hugepages=%s)\n", s->huge_min * 100, s->huge_max * 100, c->m.hugepages ? "on" : "off");
}

/* The data TLBs' reach beside the caches' sizes, per page size: where a
 * working set outgrows it, a load of a random chase may miss the TLB too. */
static void tlb_reach_line(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s)
{
	const struct pmb_tlb_info *t = &c->m.topo.tlb;

	if (!c->m.topo_ok)
		return;
	if (!t->n) {
		fprintf(f, "  TLB reach not known: %s\n", t->why);
		return;
	}
	fprintf(f, "  data TLB reach (%s):", t->source);
	for (int i = 0; i < s->nreach; i++) {
		const struct pmb_sweep_reach *r = &s->reach[i];
		bool first = !i || s->reach[i - 1].page != r->page;
		char sz[24];

		pmb__format_bytes(sz, sizeof(sz), r->bytes);
		fprintf(f, "%s L%d %s", first ? (i ? ";" : "") : ",", r->level, sz);
		if (i + 1 == s->nreach || s->reach[i + 1].page != r->page)
			fprintf(f, " (%s pages)", pmb_tlb_page_name[r->page]);
	}
	fputc('\n', f);
}

/* Per tier, what 4 KiB pages cost over huge pages. */
static void tlb_share(FILE *f, const struct pmb_sweep_figures *s)
{
	bool any = false;

	for (int t = 0; t < PMB_SWEEP_TIERS; t++) {
		const struct pmb_sweep_share *sh = &s->share[t];
		const char *tier = pmb_sweep_tier_name[t];
		char b1[32], b2[32], b3[32];

		if (!sh->points)
			continue;
		if (!any)
			fprintf(f, "  TLB share, %s (4 KiB pages) against these huge pages, per item:", s->family_4k);
		pmb__fmt_time(b1, sizeof(b1), sh->diff);
		pmb__fmt_time(b2, sizeof(b2), sh->lo);
		pmb__fmt_time(b3, sizeof(b3), sh->hi);
		if (sh->lo <= 0 && sh->hi >= 0)
			fprintf(f, "%s %s not told from 0 [%s, %s]", any ? ";" : "", tier, b2, b3);
		else if (sh->hi < 0)
			/* A TLB miss only adds: 4 KiB pages faster, intervals
			 * apart, is the two families measured apart (a run
			 * disturbed between them), not a share. */
			fprintf(f, "%s %s no TLB share: 4 KiB pages measured faster (%s [%s, %s]), which TLB misses "
				"cannot make; something else differed between the two: rerun", any ? ";" : "", tier,
				b1, b2, b3);
		else
			fprintf(f, "%s %s %s%s [%s, %s]", any ? ";" : "", tier, sh->diff >= 0 ? "+" : "", b1, b2, b3);
		if (isfinite(sh->pct))
			fprintf(f, " (%+.0f %%)", sh->pct);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

/* The steps only 4 KiB pages take, said as the TLB's. */
static void tlb_steps(FILE *f, const struct pmb_sweep_figures *s)
{
	for (int i = 0; i < s->ntlb_steps; i++) {
		const struct pmb_sweep_tlb_step *ts = &s->tlb_step[i];
		char s1[24], s2[24], st[24], reach[64] = "";

		if (ts->reach_level) {
			char sz[24];

			pmb__format_bytes(sz, sizeof(sz), ts->reach);
			snprintf(reach, sizeof(reach), ", across the L%d data TLB's reach (%s)", ts->reach_level, sz);
		}
		pmb__format_bytes(s1, sizeof(s1), ts->from);
		pmb__format_bytes(s2, sizeof(s2), ts->to);
		fmt_step(st, sizeof(st), ts->ratio);
		fprintf(f, "  4 KiB pages alone step %s from %s to %s (%s on huge pages, no step)%s: the TLB's, not "
			"a cache's\n", st, s1, s2, s->family_huge, reach);
	}
}

/* One family's sweep. */
static void report_sweep(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s)
{
	/* The finding first: where the cost steps; then the tiers. */
	fprintf(f, "\n%s across the cache tiers: %s", s->family, s->nsteps ? "the cost steps" : "no step in the data");
	data_steps(f, c, s);
	fputc('\n', f);
	tier_summary(f, c, s);
	boundaries_line(f, c);
	if (!s->sim)
		tlb_reach_line(f, c, s);
	for (int k = 0; k < s->nlevels; k++)
		compare_level(f, c, s, k);
	huge_pages_line(f, c, s);
	tlb_share(f, s);
	tlb_steps(f, s);
	if (s->sim)
		fprintf(f, "  (simulated: valgrind models L1 and the last level only; L2 "
			"effects cannot show here)\n");
}

/* One cache level's verdict in a few words: "steps x2.7 at L1 32KiB". */
static void level_words(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s, int k)
{
	const struct pmb_sweep_level *v = &s->level[k];
	char sz[24], st[24];

	pmb__format_bytes(sz, sizeof(sz), c->m.topo.cache[k].size);
	if (v->e == -1) {
		fprintf(f, "L%d %s not simulated", c->m.topo.cache[k].level, sz);
		return;
	}
	if (!v->crossed) {
		fprintf(f, "no points around L%d %s", c->m.topo.cache[k].level, sz);
		return;
	}
	fmt_step(st, sizeof(st), v->ratio);
	if (v->stepped) {
		fprintf(f, "steps %s at L%d %s", st, c->m.topo.cache[k].level, sz);
		return;
	}
	if (v->rose)
		fprintf(f, "no established step at L%d %s (%s, intervals overlap", c->m.topo.cache[k].level, sz, st);
	else
		fprintf(f, "no step at L%d %s (%s", c->m.topo.cache[k].level, sz, st);
	if (v->earlier) {
		char s1[24], s2[24];

		pmb__format_bytes(s1, sizeof(s1), v->sa);
		pmb__format_bytes(s2, sizeof(s2), v->sb);
		fmt_step(st, sizeof(st), v->best);
		fprintf(f, "; earlier %s from %s to %s", st, s1, s2);
	}
	fputc(')', f);
}

/* One sweep's finding on one line: its median cost per tier (the tier
 * summary's figures), then per cache boundary hwloc reports whether the
 * data step there (the boundary comparison's verdicts). */
static void sweep_finding(FILE *f, const struct pmb_context *c, const struct pmb_sweep_figures *s)
{
	bool any = false;

	fprintf(f, "%s%s:", s->family, s->sim ? " (simulated, per item)" : "");
	for (int t = 0; t < PMB_SWEEP_TIERS; t++) {
		char b[32];

		if (!s->tier[t].points)
			continue;
		fprintf(f, "%s %s ", any ? (s->sim ? ";" : ",") : "", pmb_sweep_tier_name[t]);
		any = true;
		for (int q = 0; q < s->nfig; q++) {
			/* Under sim each count with its event, joined by a
			 * no-break space: "0.0001 l1d-read-misses". */
			if (s->sim)
				pmb__fmt_num(b, sizeof(b), s->tier[t].med[q]);
			else
				pmb__fmt_time(b, sizeof(b), s->tier[t].med[q]);
			fprintf(f, "%s%s%s%s", q ? ", " : "", b, s->sim ? "\u00a0" : "",
				s->sim ? c->m.plan.ev[s->ev[q]].name : "");
		}
	}
	if (any && !s->sim)
		fprintf(f, " per item");
	for (int k = 0; k < s->nlevels; k++) {
		fprintf(f, "%s", any || k ? "; " : " ");
		level_words(f, c, s, k);
	}
	fputc('\n', f);
}

void pmb__sweep_findings(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	(void)r;
	(void)n;
	for (int i = 0; i < c->f.nsweeps; i++)
		sweep_finding(f, c, &c->f.sweeps[i]);
}

/* Per family of PMB_TIERS points: median per tier and where the latency
 * steps, compared with the boundaries hwloc reported. */
void pmb__report_sweeps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	(void)r;
	(void)n;
	for (int i = 0; i < c->f.nsweeps; i++)
		report_sweep(f, c, &c->f.sweeps[i]);
}
