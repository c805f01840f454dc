/* report_study.c - the console report's working-set sweeps: median per cache tier, where the data step, against the cache boundaries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "report_fmt.h"
#include "report_study.h"

/* The figure a sweep is summarised by under simulation: a miss event
 * (what tells the tiers apart), else the first event. */
static int sweep_event(const struct pmb_context *c)
{
	int e = pmb__context_event(c, PMB_L1_MISS_EVENTS "|" PMB_LL_MISS_EVENTS);

	return e < 0 ? 0 : e;
}

/* Under simulation, the miss event that shows cache level k: L1d misses
 * for the first level, last-level misses for the last, -1 for the levels
 * valgrind does not model.  Time (-2) on the perf backend. */
static int level_event(const struct pmb_context *c, int k)
{
	int e;

	if (!pmb_context_sim(c))
		return -2;
	if (k != 0 && k != c->topo.ncaches - 1)
		return -1;
	e = pmb__context_event(c, k == 0 ? PMB_L1_MISS_EVENTS : PMB_LL_MISS_EVENTS);
	return e < 0 ? sweep_event(c) : e;
}

/* Step ratio between two sweep points: 0 where either is not measured or
 * b is not resolved, INFINITY from a zero (a simulated miss count going
 * from none to some). */
static double step(const struct pmb_figure *a, const struct pmb_figure *b)
{
	if (!a->valid || !b->valid || b->below_resolution)
		return 0;
	/* Counts that go from practically none (under 1 % of the next) to
	 * some are a step from zero, not a ratio of thousands. */
	if (a->below_resolution || a->s.median <= 0.01 * b->s.median)
		return b->s.median >= 0.01 ? INFINITY : 0;
	return b->s.median / a->s.median;
}

static void fmt_step(char *buf, size_t n, double ratio)
{
	if (isinf(ratio))
		snprintf(buf, n, "from ~0");
	else
		snprintf(buf, n, "x%.1f", ratio);
}

/* The figure a sweep point is compared by: time (e < 0) or event e. */
static const struct pmb_figure *fig(const struct pmb_result *x, int e)
{
	return e < 0 ? &x->time : &x->ev[e];
}

/* A point of family fam that was measured: not failed, not a repetition. */
static bool sweep_point(const struct pmb_result *x, const char *fam)
{
	return !strcmp(x->inst->family, fam) && !x->status && !x->repetition;
}

bool pmb__first_of_family(const struct pmb_result *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r[j].inst->family, r[i].inst->family))
			return false;
	return true;
}

/* The sweep points either side of a cache's size (a, b), and the largest
 * step (best, from sa to sb) between points above the level below it and
 * up to the size. */
struct crossing {
	const struct pmb_result *a, *b, *sa, *sb;
	double best;
};

static void find_crossing(struct crossing *x, const struct pmb_result *r, size_t n, size_t first, int e,
			  uint64_t size, uint64_t below)
{
	const char *fam = r[first].inst->family;
	const struct pmb_result *prev = NULL;

	*x = (struct crossing){ 0 };
	for (size_t j = first; j < n; j++) {
		const struct pmb_result *p = &r[j];

		if (!sweep_point(p, fam) || !fig(p, e)->valid)
			continue;
		if (prev) {
			double ratio = step(fig(prev, e), fig(p, e));

			if (prev->inst->working_set <= size && p->inst->working_set > size)
				x->a = prev, x->b = p;
			if (p->inst->working_set <= size && prev->inst->working_set >= below && ratio > x->best)
				x->best = ratio, x->sa = prev, x->sb = p;
		}
		prev = p;
	}
}

/* "x1.4, 32KiB to 64KiB" */
static void fmt_span(char *buf, size_t n, double ratio, const struct pmb_result *a, const struct pmb_result *b)
{
	char s1[24], s2[24], st[24];

	pmb__format_bytes(s1, sizeof(s1), a->inst->working_set);
	pmb__format_bytes(s2, sizeof(s2), b->inst->working_set);
	fmt_step(st, sizeof(st), ratio);
	snprintf(buf, n, "%s, %s to %s", st, s1, s2);
}

/* What the data do at cache level k: the step ratio of the two sweep
 * points around the cache's size, and where there is none the largest
 * step below it.  e: the figure (-1 not simulated: no verdict). */
struct level_verdict {
	int e;
	struct crossing x;
	double ratio;    /* 0: no points on both sides */
};

static struct level_verdict level_verdict(const struct pmb_context *c, const struct pmb_result *r, size_t n,
					  size_t first, int k, uint64_t below)
{
	struct level_verdict v = { .e = level_event(c, k) };

	if (v.e == -1)
		return v;
	find_crossing(&v.x, r, n, first, v.e, c->topo.cache[k].size, below);
	if (v.x.a && v.x.b)
		v.ratio = step(fig(v.x.a, v.e), fig(v.x.b, v.e));
	return v;
}

/* Whether the data step at the level: a rise of over 30 % across it. */
#define STEP_RATIO 1.3

/* Where a level's data step well before hwloc's size (the step's upper
 * point at half of it or less) and not at the size: the level holds less
 * here than hwloc says (issue 32).  Says what was measured and the usual
 * causes; nothing where the data step at the boundary. */
static void effective_capacity(FILE *f, const struct pmb_context *c, int k, const struct level_verdict *v)
{
	const struct pmb_cache *ca = &c->topo.cache[k];
	char sz[24], hi[24], lo[24];

	const struct pmb_figure *a, *b;

	if (!v->x.sa || !v->x.sb || !(v->x.best > STEP_RATIO) || v->x.sb->inst->working_set * 2 > ca->size)
		return;
	/* A step the samples establish: the two points' intervals apart. */
	a = fig(v->x.sa, v->e);
	b = fig(v->x.sb, v->e);
	if (!(b->s.ci_lo > a->s.ci_hi))
		return;
	pmb__format_bytes(sz, sizeof(sz), ca->size);
	pmb__format_bytes(lo, sizeof(lo), v->x.sa->inst->working_set);
	pmb__format_bytes(hi, sizeof(hi), v->x.sb->inst->working_set);
	fprintf(f, "    measured: the step from %s to %s (intervals apart) is under half of L%d's %s: this core "
		"gets less of it than hwloc says", lo, hi, ca->level, sz);
	if (ca->sharing_cores > 1)
		fprintf(f, " (hwloc: %s shared by %d cores)", sz, ca->sharing_cores);
	fprintf(f, "; the usual causes, not told apart here: a VM's share of a shared cache, cache "
		"partitioning, other tenants' use\n");
}

/* Does the data step at cache level k?  The step is the cost ratio of the
 * two sweep points around the cache's size; where there is none, the
 * largest step below the boundary is named. */
static void compare_level(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
			  size_t first, int k, uint64_t below)
{
	struct level_verdict v = level_verdict(c, r, n, first, k, below);
	char sz[24], span[96];

	pmb__format_bytes(sz, sizeof(sz), c->topo.cache[k].size);
	fprintf(f, "  L%d %s: ", c->topo.cache[k].level, sz);
	if (v.e == -1) {
		fprintf(f, "not simulated (valgrind models L1 and the last level only)\n");
		return;
	}
	if (v.e >= 0)
		fprintf(f, "(%s) ", c->plan.ev[v.e].name);
	if (!v.x.a || !v.x.b) {
		fprintf(f, "no sweep points on both sides\n");
		return;
	}
	fmt_span(span, sizeof(span), v.ratio, v.x.a, v.x.b);
	if (v.ratio > STEP_RATIO) {
		fprintf(f, "the data step here too (%s)\n", span);
		return;
	}
	fprintf(f, "no step here (%s)", span);
	if (v.x.sa && v.x.sb && v.x.best > STEP_RATIO) {
		fmt_span(span, sizeof(span), v.x.best, v.x.sa, v.x.sb);
		fprintf(f, "; the data step earlier (%s)", span);
	}
	fputc('\n', f);
	effective_capacity(f, c, k, &v);
}

/* Per cache level: does the data step where hwloc puts the boundary? */
static void compare_boundaries(FILE *f, const struct pmb_context *c, const struct pmb_result *r,
			       size_t n, size_t first)
{
	uint64_t below = 0;

	for (int k = 0; k < c->topo.ncaches; k++) {
		compare_level(f, c, r, n, first, k, below);
		below = c->topo.cache[k].size;
	}
}

/* The figures a sweep is summarised by: time, or under simulation the L1d
 * and last-level miss events (each shows its own boundary). */
struct sweep_figs {
	int ev[2]; /* -2: time */
	int n;
};

static struct sweep_figs sweep_figs(const struct pmb_context *c)
{
	struct sweep_figs s = { { -2, -2 }, 1 };

	if (!pmb_context_sim(c))
		return s;
	s.ev[0] = level_event(c, 0);
	s.ev[1] = level_event(c, c->topo.ncaches - 1);
	s.n = s.ev[1] >= 0 && s.ev[1] != s.ev[0] ? 2 : 1;
	if (s.ev[0] < 0)
		s.ev[0] = sweep_event(c);
	return s;
}

/* Median per figure over the points of one tier, in med[]; returns the
 * number of points (of the last figure). */
static size_t tier_medians(const struct pmb_result *r, size_t n, size_t first, const struct sweep_figs *s,
			   const char *tier, double med[2])
{
	const char *fam = r[first].inst->family;
	size_t m = 0;

	for (int q = 0; q < s->n; q++) {
		double v[PMB_MAX_TIER_POINTS];

		m = 0;
		for (size_t j = first; j < n; j++) {
			const struct pmb_figure *fg = fig(&r[j], s->ev[q]);

			if (sweep_point(&r[j], fam) && !strcmp(r[j].inst->tier, tier) &&
			    m < PMB_MAX_TIER_POINTS && fg->valid)
				/* below resolution counts as zero, not negative */
				v[m++] = fg->below_resolution ? fmax(fg->s.median, 0) : fg->s.median;
		}
		if (m)
			med[q] = pmb__median(v, m);
	}
	return m;
}

/* "  L2    median 3.1 ns per item over 2 points, 2.5x the tier before" */
static void tier_line(FILE *f, const struct pmb_context *c, const struct sweep_figs *s, const char *tier,
		      const double med[2], size_t m, double prev_tier)
{
	bool sim = pmb_context_sim(c);
	char b[32];

	fprintf(f, "  %-5s median ", tier);
	for (int q = 0; q < s->n; q++) {
		if (sim) {
			pmb__fmt_num(b, sizeof(b), med[q]);
			fprintf(f, "%s%s %s", q ? ", " : "", b, c->plan.ev[s->ev[q]].name);
		} else {
			pmb__fmt_time(b, sizeof(b), med[q]);
			fprintf(f, "%s", b);
		}
	}
	fprintf(f, " per item%s over %zu point%s", sim ? " (simulated)" : "", m, m == 1 ? "" : "s");
	if (!sim && !c->has_cycles && c->ghz > 0)
		fprintf(f, " (est. %.1f cycles)", med[0] * c->ghz);
	if (!sim && isfinite(prev_tier) && prev_tier > 0)
		fprintf(f, ", %.1fx the tier before", med[0] / prev_tier);
	fputc('\n', f);
}

static void tier_summary(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
			 size_t first, const struct sweep_figs *s)
{
	static const char *tiers[] = { "L1", "L2", "L3", "L4", "DRAM" };
	double prev_tier = NAN;

	for (int k = 0; k < 5; k++) {
		double med[2] = { NAN, NAN };
		size_t m = tier_medians(r, n, first, s, tiers[k], med);

		if (!m)
			continue;
		tier_line(f, c, s, tiers[k], med, m, prev_tier);
		prev_tier = med[0];
	}
}

/* Steps in the data by figure e: consecutive points whose cost rises by
 * more than 30 %.  Returns the count so far, starting from steps. */
static int data_steps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
		      size_t first, int e, int steps)
{
	const char *fam = r[first].inst->family;
	const struct pmb_result *prev = NULL;

	for (size_t j = first; j < n; j++) {
		const struct pmb_result *x = &r[j];
		double ratio;
		char s1[24], s2[24], st[24];

		if (!sweep_point(x, fam))
			continue;
		ratio = prev ? step(fig(prev, e), fig(x, e)) : 0;
		if (ratio > STEP_RATIO) {
			pmb__format_bytes(s1, sizeof(s1), prev->inst->working_set);
			pmb__format_bytes(s2, sizeof(s2), x->inst->working_set);
			fmt_step(st, sizeof(st), ratio);
			fprintf(f, "%s between %s and %s (%s%s%s)", steps ? ";" : "", s1, s2,
				e >= 0 ? c->plan.ev[e].name : "", e >= 0 ? " " : "", st);
			steps++;
		}
		prev = x;
	}
	return steps;
}

/* The cache sizes the sweep is compared with: hwloc's, or assumed ones
 * where hwloc reports no data caches (a synthetic topology, some VMs). */
static void boundaries_line(FILE *f, const struct pmb_context *c)
{
	if (c->topo.caches_assumed)
		fprintf(f, "  boundaries ASSUMED (hwloc reports no data caches):");
	else
		fprintf(f, "  boundaries hwloc reports:");
	for (int k = 0; k < c->topo.ncaches; k++) {
		char s[24];

		pmb__format_bytes(s, sizeof(s), c->topo.cache[k].size);
		fprintf(f, " L%d %s%s", c->topo.cache[k].level, s,
			c->topo.cache[k].sharing_cores > 1 ? " (shared)" : "");
	}
	fputc('\n', f);
}

/* The share of the family's buffers on huge pages, where it was measured. */
static void huge_pages_line(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
			    size_t first)
{
	double hmin = 2, hmax = -1;

	for (size_t j = first; j < n; j++)
		if (!strcmp(r[j].inst->family, r[first].inst->family) && r[j].huge_fraction >= 0) {
			hmin = fmin(hmin, r[j].huge_fraction);
			hmax = fmax(hmax, r[j].huge_fraction);
		}
	if (hmax >= 0)
		fprintf(f, "  huge pages backing the buffers: %.0f%%..%.0f%% (measured in /proc/self/smaps; "
			"--hugepages=%s)\n", hmin * 100, hmax * 100, c->hugepages ? "on" : "off");
}

/* The data TLBs' reach beside the caches' sizes, per page size: where a
 * working set outgrows it, a load of a random chase may miss the TLB too. */
static void tlb_reach_line(FILE *f, const struct pmb_context *c)
{
	const struct pmb_tlb_info *t = &c->topo.tlb;
	int groups = 0;

	if (!c->topo_ok)
		return;
	if (!t->n) {
		fprintf(f, "  TLB reach not known: %s\n", t->why);
		return;
	}
	fprintf(f, "  data TLB reach (%s):", t->source);
	for (int p = 0; p < PMB_TLB_NPAGES; p++) {
		unsigned page = 1u << p;
		int shown = 0;

		for (int i = 0; i < t->n && page != PMB_TLB_4M; i++) {
			const struct pmb_tlb *b = &t->tlb[i];
			char sz[24];

			if (!pmb_tlb_for_loads(b) || !(b->pages & page))
				continue;
			pmb__format_bytes(sz, sizeof(sz), pmb_tlb_reach(b, page));
			fprintf(f, "%s L%d %s", shown++ ? "," : groups ? ";" : "", b->level, sz);
		}
		if (shown) {
			fprintf(f, " (%s pages)", pmb_tlb_page_name[p]);
			groups++;
		}
	}
	fputc('\n', f);
}

/* The family measured on 4 KiB pages beside fam (huge pages): "X_4k". */
static size_t pages_4k_family(const struct pmb_result *r, size_t n, const char *fam)
{
	char want[sizeof(r->inst->family) + 4];

	snprintf(want, sizeof(want), "%s_4k", fam);
	for (size_t j = 0; j < n; j++)
		if (!strcmp(r[j].inst->family, want) && !r[j].repetition)
			return j;
	return n;
}

/* Per tier, what 4 KiB pages cost over huge pages (mem/chase_4k against
 * mem/chase): per working set the difference of the medians, its interval
 * crosswise from the two; per tier the median of each. */
static void tlb_share(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n, size_t first)
{
	static const char *tiers[] = { "L1", "L2", "L3", "L4", "DRAM" };
	const char *fam = r[first].inst->family;
	size_t k4 = pages_4k_family(r, n, fam);
	bool any = false;

	if (pmb_context_sim(c) || k4 == n || !c->hugepages)
		return;
	for (int t = 0; t < 5; t++) {
		double d[PMB_MAX_TIER_POINTS], lo[PMB_MAX_TIER_POINTS], hi[PMB_MAX_TIER_POINTS], base[PMB_MAX_TIER_POINTS];
		size_t m = 0;
		char b1[32], b2[32], b3[32];

		for (size_t i = first; i < n; i++) {
			const struct pmb_result *h = &r[i];

			if (!sweep_point(h, fam) || strcmp(h->inst->tier, tiers[t]) || !h->time.valid)
				continue;
			for (size_t j = k4; j < n && m < PMB_MAX_TIER_POINTS; j++) {
				const struct pmb_result *s = &r[j];

				if (!sweep_point(s, r[k4].inst->family) || s->inst->working_set != h->inst->working_set ||
				    !s->time.valid)
					continue;
				d[m] = s->time.s.median - h->time.s.median;
				lo[m] = s->time.s.ci_lo - h->time.s.ci_hi;
				hi[m] = s->time.s.ci_hi - h->time.s.ci_lo;
				base[m++] = h->time.s.median;
			}
		}
		if (!m)
			continue;
		if (!any)
			fprintf(f, "  TLB share, %s (4 KiB pages) against these huge pages, per item:", r[k4].inst->family);
		double md = pmb__median(d, m), mb = pmb__median(base, m);

		pmb__fmt_time(b1, sizeof(b1), md);
		pmb__fmt_time(b2, sizeof(b2), pmb__median(lo, m));
		pmb__fmt_time(b3, sizeof(b3), pmb__median(hi, m));
		double l = pmb__median(lo, m), h = pmb__median(hi, m);

		if (l <= 0 && h >= 0)
			fprintf(f, "%s %s not told from 0 [%s, %s]", any ? ";" : "", tiers[t], b2, b3);
		else if (h < 0)
			/* A TLB miss only adds: 4 KiB pages faster, intervals
			 * apart, is the two families measured apart (a run
			 * disturbed between them), not a share. */
			fprintf(f, "%s %s no TLB share: 4 KiB pages measured faster (%s [%s, %s]), which TLB misses "
				"cannot make; something else differed between the two: rerun", any ? ";" : "", tiers[t],
				b1, b2, b3);
		else
			fprintf(f, "%s %s %s%s [%s, %s]", any ? ";" : "", tiers[t], md >= 0 ? "+" : "", b1, b2, b3);
		if (mb > 0 && l > 0)
			fprintf(f, " (%+.0f %%)", 100 * md / mb);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

/* The point of family fam at working set ws, measured; NULL none. */
static const struct pmb_result *point_at(const struct pmb_result *r, size_t n, const char *fam, uint64_t ws)
{
	for (size_t j = 0; j < n; j++)
		if (sweep_point(&r[j], fam) && r[j].inst->working_set == ws && r[j].time.valid)
			return &r[j];
	return NULL;
}

/* In a family on 4 KiB pages (X_4k): its steps (over 30 %, the two
 * points' intervals apart) that X on huge pages does not take between the
 * same sizes (30 % or less), said as the TLB's, with the data TLB reach
 * that lies between them where one does. */
static void tlb_steps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n, size_t first)
{
	const char *fam = r[first].inst->family;
	size_t len = strlen(fam);
	char base[sizeof(r->inst->family)];
	const struct pmb_result *prev = NULL;

	if (pmb_context_sim(c) || len < 4 || strcmp(fam + len - 3, "_4k"))
		return;
	snprintf(base, sizeof(base), "%.*s", (int)(len - 3), fam);
	for (size_t j = first; j < n; j++) {
		const struct pmb_result *x = &r[j], *ha, *hb;
		char s1[24], s2[24], st[24], reach[64] = "";

		if (!sweep_point(x, fam) || !x->time.valid)
			continue;
		if (!prev || !(ha = point_at(r, n, base, prev->inst->working_set)) ||
		    !(hb = point_at(r, n, base, x->inst->working_set)) ||
		    !(step(&prev->time, &x->time) > STEP_RATIO && x->time.s.ci_lo > prev->time.s.ci_hi) ||
		    step(&ha->time, &hb->time) > STEP_RATIO) {
			prev = x;
			continue;
		}
		for (int i = 0; i < c->topo.tlb.n && !reach[0]; i++) {
			const struct pmb_tlb *b = &c->topo.tlb.tlb[i];
			uint64_t rb = pmb_tlb_reach(b, PMB_TLB_4K);

			if (pmb_tlb_for_loads(b) && rb > prev->inst->working_set && rb <= x->inst->working_set) {
				char sz[24];

				pmb__format_bytes(sz, sizeof(sz), rb);
				snprintf(reach, sizeof(reach), ", across the L%d data TLB's reach (%s)", b->level, sz);
			}
		}
		pmb__format_bytes(s1, sizeof(s1), prev->inst->working_set);
		pmb__format_bytes(s2, sizeof(s2), x->inst->working_set);
		fmt_step(st, sizeof(st), step(&prev->time, &x->time));
		fprintf(f, "  4 KiB pages alone step %s from %s to %s (%s on huge pages, no step)%s: the TLB's, not "
			"a cache's\n", st, s1, s2, base, reach);
		prev = x;
	}
}

/* One family's sweep, from its first point r[first]. */
static void report_sweep(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
			 size_t first)
{
	struct sweep_figs s = sweep_figs(c);
	int steps = 0;

	/* The finding first: where the cost steps; then the tiers. */
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	for (int q = 0; mem && q < s.n; q++)
		steps = data_steps(mem, c, r, n, first, s.ev[q], steps);
	if (mem)
		fclose(mem);
	fprintf(f, "\n%s across the cache tiers: %s%s\n", r[first].inst->family,
		steps ? "the cost steps" : "no step in the data", steps && text ? text : "");
	free(text);
	tier_summary(f, c, r, n, first, &s);
	boundaries_line(f, c);
	if (!pmb_context_sim(c))
		tlb_reach_line(f, c);
	compare_boundaries(f, c, r, n, first);
	huge_pages_line(f, c, r, n, first);
	tlb_share(f, c, r, n, first);
	tlb_steps(f, c, r, n, first);
	if (pmb_context_sim(c))
		fprintf(f, "  (simulated: valgrind models L1 and the last level only; L2 "
			"effects cannot show here)\n");
}

/* One cache level's verdict in a few words: "steps x2.7 at L1 32KiB". */
static void level_words(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n, size_t first,
			int k, uint64_t below)
{
	struct level_verdict v = level_verdict(c, r, n, first, k, below);
	char sz[24], st[24];

	pmb__format_bytes(sz, sizeof(sz), c->topo.cache[k].size);
	if (v.e == -1) {
		fprintf(f, "L%d %s not simulated", c->topo.cache[k].level, sz);
		return;
	}
	if (!v.x.a || !v.x.b) {
		fprintf(f, "no points around L%d %s", c->topo.cache[k].level, sz);
		return;
	}
	fmt_step(st, sizeof(st), v.ratio);
	if (v.ratio > STEP_RATIO) {
		fprintf(f, "steps %s at L%d %s", st, c->topo.cache[k].level, sz);
		return;
	}
	fprintf(f, "no step at L%d %s (%s", c->topo.cache[k].level, sz, st);
	if (v.x.sa && v.x.sb && v.x.best > STEP_RATIO) {
		char s1[24], s2[24];

		pmb__format_bytes(s1, sizeof(s1), v.x.sa->inst->working_set);
		pmb__format_bytes(s2, sizeof(s2), v.x.sb->inst->working_set);
		fmt_step(st, sizeof(st), v.x.best);
		fprintf(f, "; earlier %s from %s to %s", st, s1, s2);
	}
	fputc(')', f);
}

/* One sweep's finding on one line: its median cost per tier (the tier
 * summary's figures), then per cache boundary hwloc reports whether the
 * data step there (the boundary comparison's verdicts). */
static void sweep_finding(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
			  size_t first)
{
	static const char *tiers[] = { "L1", "L2", "L3", "L4", "DRAM" };
	struct sweep_figs s = sweep_figs(c);
	bool sim = pmb_context_sim(c), any = false;
	uint64_t below = 0;

	fprintf(f, "%s%s:", r[first].inst->family, sim ? " (simulated, per item)" : "");
	for (int k = 0; k < 5; k++) {
		double med[2] = { NAN, NAN };
		char b[32];

		if (!tier_medians(r, n, first, &s, tiers[k], med))
			continue;
		fprintf(f, "%s %s ", any ? (sim ? ";" : ",") : "", tiers[k]);
		any = true;
		for (int q = 0; q < s.n; q++) {
			/* Under sim each count with its event, joined by a
			 * no-break space: "0.0001 l1d-read-misses". */
			if (sim)
				pmb__fmt_num(b, sizeof(b), med[q]);
			else
				pmb__fmt_time(b, sizeof(b), med[q]);
			fprintf(f, "%s%s%s%s", q ? ", " : "", b, sim ? "\u00a0" : "", sim ? c->plan.ev[s.ev[q]].name : "");
		}
	}
	if (any && !sim)
		fprintf(f, " per item");
	for (int k = 0; k < c->topo.ncaches; k++) {
		fprintf(f, "%s", any || k ? "; " : " ");
		level_words(f, c, r, n, first, k, below);
		below = c->topo.cache[k].size;
	}
	fputc('\n', f);
}

void pmb__sweep_findings(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].inst->tier[0] && !r[i].repetition && pmb__first_of_family(r, i))
			sweep_finding(f, c, r, n, i);
}

/* Per family of PMB_TIERS points: median per tier and where the latency
 * steps, compared with the boundaries hwloc reported. */
void pmb__report_sweeps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].inst->tier[0] && !r[i].repetition && pmb__first_of_family(r, i))
			report_sweep(f, c, r, n, i);
}
