/* analysis_sweep.c - a working-set sweep's figures, once (issue 25): per tier the median cost, the steps, per cache level where the data step against hwloc's size and the capacity measured, the TLB share of 4 KiB pages per tier, the steps only 4 KiB pages take, the data TLB reach. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base.h"

/* The figure a sweep is summarised and drawn by under simulation: a miss
 * event (what tells the tiers apart), else the first event (the run's
 * sweep_event). */
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
	if (k != 0 && k != c->m.topo.ncaches - 1)
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

/* A step the samples establish: over PMB_STEP_RATIO, the two points'
 * intervals apart; simulated counts are exact (their figures carry no
 * interval), so there the ratio alone. */
static bool established(const struct pmb_figure *a, const struct pmb_figure *b, bool exact)
{
	return step(a, b) > PMB_STEP_RATIO && (exact || b->s.ci_lo > a->s.ci_hi);
}

/* A point of family fam that was measured: not failed, not a repetition. */
static bool sweep_point(const struct pmb_result *x, const char *fam)
{
	return !strcmp(x->m.inst->family, fam) && !x->m.status && !x->m.repetition;
}

/* The figures a sweep is summarised by: time, or under simulation the L1d
 * and last-level miss events (each shows its own boundary). */
static void sweep_figs(struct pmb_sweep_figures *s, const struct pmb_context *c)
{
	s->ev[0] = s->ev[1] = -2;
	s->nfig = 1;
	if (!s->sim)
		return;
	s->ev[0] = level_event(c, 0);
	s->ev[1] = level_event(c, c->m.topo.ncaches - 1);
	s->nfig = s->ev[1] >= 0 && s->ev[1] != s->ev[0] ? 2 : 1;
	if (s->ev[0] < 0)
		s->ev[0] = sweep_event(c);
}

static int tier_of_level(int level);

/* The tier a point counts in: hwloc's (its instance's); once the levels
 * are known (c given), where a level's measured capacity differs from
 * hwloc's size, the tier its cost was measured in: past the step of a
 * level that holds less, its to_tier; up to the step of one that holds
 * more, the level's own.  -1: no tier. */
static int point_tier(const struct pmb_sweep_figures *s, const struct pmb_context *c, const struct pmb_result *p)
{
	uint64_t ws = p->m.inst->working_set;
	int t = -1;

	for (int q = 0; q < PMB_SWEEP_TIERS && t < 0; q++)
		if (!strcmp(p->m.inst->tier, pmb_sweep_tier_name[q]))
			t = q;
	for (int k = 0; c && t >= 0 && k < s->nlevels; k++) {
		const struct pmb_sweep_level *v = &s->level[k];
		int own = tier_of_level(c->m.topo.cache[k].level);

		if (v->capacity == PMB_CAPACITY_LESS && t == own && v->to_tier >= 0 && ws >= v->cap_to)
			return v->to_tier;
		if (v->capacity == PMB_CAPACITY_MORE && own >= 0 && t > own && ws > c->m.topo.cache[k].size &&
		    ws <= v->cap_from)
			return own;
	}
	return t;
}

/* Median per figure over the points of each tier, and of their interval
 * ends; points: of the last figure.  c: the tiers by measurement
 * (point_tier), NULL hwloc's. */
static void tiers(struct pmb_sweep_figures *s, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	for (int t = 0; t < PMB_SWEEP_TIERS; t++) {
		struct pmb_sweep_tier *st = &s->tier[t];

		st->med[0] = st->med[1] = st->lo[0] = st->lo[1] = st->hi[0] = st->hi[1] = NAN;
		for (int q = 0; q < s->nfig; q++) {
			double v[PMB_MAX_TIER_POINTS], lo[PMB_MAX_TIER_POINTS], hi[PMB_MAX_TIER_POINTS];
			size_t m = 0;

			for (size_t j = s->first; j < n; j++) {
				const struct pmb_figure *fg = pmb__result_figure(&r[j], s->ev[q]);

				if (!sweep_point(&r[j], s->family) || point_tier(s, c, &r[j]) != t ||
				    m >= PMB_MAX_TIER_POINTS || !fg->valid)
					continue;
				/* below resolution counts as zero, not negative */
				v[m] = fg->below_resolution ? fmax(fg->s.median, 0) : fg->s.median;
				lo[m] = fg->s.ci_lo;
				hi[m++] = fg->s.ci_hi;
			}
			if (m) {
				st->med[q] = pmb__median(v, m);
				st->lo[q] = pmb__median(lo, m);
				st->hi[q] = pmb__median(hi, m);
			}
			st->points = m;
		}
	}
}

/* Steps in the data by each figure: consecutive points whose cost rises
 * by more than 30 % with their intervals apart (established()), so that
 * "the cost steps" names no rise the noise could have made. */
static void steps(struct pmb_sweep_figures *s, const struct pmb_result *r, size_t n)
{
	for (int q = 0; q < s->nfig; q++) {
		const struct pmb_result *prev = NULL;
		int e = s->ev[q];

		for (size_t j = s->first; j < n; j++) {
			const struct pmb_result *x = &r[j];
			double ratio;

			if (!sweep_point(x, s->family))
				continue;
			ratio = prev ? step(pmb__result_figure(prev, e), pmb__result_figure(x, e)) : 0;
			if (prev && established(pmb__result_figure(prev, e), pmb__result_figure(x, e), s->sim) &&
			    s->nsteps < PMB_MAX_SWEEP_STEPS)
				s->step[s->nsteps++] = (struct pmb_sweep_step){ prev->m.inst->working_set,
					x->m.inst->working_set, e, ratio };
			prev = x;
		}
	}
}

/* The measured points of the family in order of working set, by figure e:
 * the two either side of size (a, b), and the largest step (sa, sb) between
 * points from the level below (below) up to the size. */
static void crossing(struct pmb_sweep_level *v, const struct pmb_sweep_figures *s, const struct pmb_result *r, size_t n,
		     uint64_t size, uint64_t below, const struct pmb_result **sa, const struct pmb_result **sb)
{
	const struct pmb_result *prev = NULL, *a = NULL, *b = NULL;

	*sa = *sb = NULL;
	for (size_t j = s->first; j < n; j++) {
		const struct pmb_result *p = &r[j];

		if (!sweep_point(p, s->family) || !pmb__result_figure(p, v->e)->valid)
			continue;
		if (prev) {
			double ratio = step(pmb__result_figure(prev, v->e), pmb__result_figure(p, v->e));

			if (prev->m.inst->working_set <= size && p->m.inst->working_set > size)
				a = prev, b = p;
			if (p->m.inst->working_set <= size && prev->m.inst->working_set >= below && ratio > v->best)
				v->best = ratio, *sa = prev, *sb = p;
		}
		prev = p;
	}
	if (a && b) {
		v->crossed = true;
		v->a = a->m.inst->working_set;
		v->b = b->m.inst->working_set;
		v->ratio = step(pmb__result_figure(a, v->e), pmb__result_figure(b, v->e));
		v->rose = v->ratio > PMB_STEP_RATIO;
		v->stepped = established(pmb__result_figure(a, v->e), pmb__result_figure(b, v->e), s->sim);
	}
	if (*sa && *sb && v->best > PMB_STEP_RATIO &&
	    established(pmb__result_figure(*sa, v->e), pmb__result_figure(*sb, v->e), s->sim)) {
		v->earlier = true;
		v->sa = (*sa)->m.inst->working_set;
		v->sb = (*sb)->m.inst->working_set;
	}
}

/* The tier (index) whose median cost x's matches within PMB_STEP_RATIO,
 * among those after tier t0; -1 none. */
static int matching_tier(const struct pmb_sweep_figures *s, const struct pmb_figure *x, int t0)
{
	for (int t = t0 + 1; t < PMB_SWEEP_TIERS; t++) {
		double m = s->tier[t].med[0];

		if (s->tier[t].points && m > 0 && x->s.median > 0 && x->s.median / m <= PMB_STEP_RATIO &&
		    m / x->s.median <= PMB_STEP_RATIO)
			return t;
	}
	return -1;
}

/* The tier index of a cache level ("L2" -> 1); -1 none. */
static int tier_of_level(int level)
{
	return level >= 1 && level <= 4 ? level - 1 : -1;
}

/* Where the data step not at hwloc's size: the level holds less (an
 * established step at half the size or earlier, the largest below it) or
 * more (no step at the size, the first established step after it from
 * twice the size on, before the next level's size) than hwloc says. */
static void capacity(struct pmb_sweep_level *v, const struct pmb_sweep_figures *s, const struct pmb_context *c, int k,
		     const struct pmb_result *r, size_t n, const struct pmb_result *sa, const struct pmb_result *sb)
{
	uint64_t size = c->m.topo.cache[k].size;
	uint64_t next = k + 1 < c->m.topo.ncaches ? c->m.topo.cache[k + 1].size : UINT64_MAX;
	const struct pmb_result *prev = NULL, *a = NULL, *b = NULL;

	/* A rise at the size, even one the intervals do not establish: no
	 * other capacity is claimed. */
	if (v->rose)
		return;
	if (v->earlier && sb->m.inst->working_set * 2 <= size &&
	    established(pmb__result_figure(sa, v->e), pmb__result_figure(sb, v->e), s->sim)) {
		v->capacity = PMB_CAPACITY_LESS;
		a = sa, b = sb;
	} else if (v->crossed) {
		for (size_t j = s->first; j < n && !a; j++) {
			const struct pmb_result *p = &r[j];

			if (!sweep_point(p, s->family) || !pmb__result_figure(p, v->e)->valid)
				continue;
			if (prev && prev->m.inst->working_set > size && p->m.inst->working_set <= next &&
			    established(pmb__result_figure(prev, v->e), pmb__result_figure(p, v->e), s->sim)) {
				if (prev->m.inst->working_set >= 2 * size)
					a = prev, b = p, v->capacity = PMB_CAPACITY_MORE;
				else
					break;
			}
			prev = p;
		}
	}
	if (!a)
		return;
	v->cap_from = a->m.inst->working_set;
	v->cap_to = b->m.inst->working_set;
	v->cap_ratio = step(pmb__result_figure(a, v->e), pmb__result_figure(b, v->e));
	v->cap_tier = v->e == -2 ? matching_tier(s, pmb__result_figure(b, v->e), tier_of_level(c->m.topo.cache[k].level)) : -1;
	/* Where the points past a step that came early are counted: fixed
	 * here, from hwloc's tiers, before the tiers are counted again. */
	v->to_tier = v->cap_tier;
	for (int q = tier_of_level(c->m.topo.cache[k].level) + 1;
	     v->capacity == PMB_CAPACITY_LESS && v->to_tier < 0 && q > 0 && q < PMB_SWEEP_TIERS; q++)
		if (s->tier[q].points)
			v->to_tier = q;
}

/* Per cache level: where the data step against hwloc's size. */
static void levels(struct pmb_sweep_figures *s, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	uint64_t below = 0;

	s->nlevels = c->m.topo.ncaches;
	for (int k = 0; k < c->m.topo.ncaches; k++) {
		struct pmb_sweep_level *v = &s->level[k];
		const struct pmb_result *sa, *sb;

		*v = (struct pmb_sweep_level){ .e = level_event(c, k), .cap_tier = -1, .to_tier = -1 };
		if (v->e != -1) {
			crossing(v, s, r, n, c->m.topo.cache[k].size, below, &sa, &sb);
			capacity(v, s, c, k, r, n, sa, sb);
		}
		below = c->m.topo.cache[k].size;
	}
}

/* The share of the family's buffers on huge pages, where it was measured. */
static void huge_pages(struct pmb_sweep_figures *s, const struct pmb_result *r, size_t n)
{
	s->huge_min = 2;
	s->huge_max = -1;
	for (size_t j = s->first; j < n; j++)
		if (!strcmp(r[j].m.inst->family, s->family) && r[j].m.huge_fraction >= 0) {
			s->huge_min = fmin(s->huge_min, r[j].m.huge_fraction);
			s->huge_max = fmax(s->huge_max, r[j].m.huge_fraction);
		}
}

/* The data TLBs' reach per page size (4 MiB pages, 32-bit paging's, left
 * out), in page-size order, then in the CPU's order. */
static void reach(struct pmb_sweep_figures *s, const struct pmb_context *c)
{
	const struct pmb_tlb_info *t = &c->m.topo.tlb;

	for (int p = 0; p < PMB_TLB_NPAGES; p++)
		for (int i = 0; i < t->n && (1u << p) != PMB_TLB_4M; i++) {
			const struct pmb_tlb *b = &t->tlb[i];

			if (pmb_tlb_for_loads(b) && (b->pages & (1u << p)) && s->nreach < 2 * PMB_MAX_TLBS)
				s->reach[s->nreach++] = (struct pmb_sweep_reach){ b->level, b->kind, p,
					pmb_tlb_reach(b, 1u << p) };
		}
}

/* The family measured on 4 KiB pages beside fam (huge pages): "X_4k". */
static size_t pages_4k_family(const struct pmb_result *r, size_t n, const char *fam)
{
	char want[sizeof(r->m.inst->family) + 4];

	snprintf(want, sizeof(want), "%s_4k", fam);
	for (size_t j = 0; j < n; j++)
		if (!strcmp(r[j].m.inst->family, want) && !r[j].m.repetition)
			return j;
	return n;
}

/* Per tier, what 4 KiB pages cost over huge pages (X_4k against X): per
 * working set the difference of the medians, its interval crosswise from
 * the two; per tier the median of each. */
static void tlb_share(struct pmb_sweep_figures *s, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	size_t k4 = pages_4k_family(r, n, s->family);

	if (s->sim || k4 == n || !c->m.hugepages)
		return;
	snprintf(s->family_4k, sizeof(s->family_4k), "%s", r[k4].m.inst->family);
	for (int t = 0; t < PMB_SWEEP_TIERS; t++) {
		double d[PMB_MAX_TIER_POINTS], lo[PMB_MAX_TIER_POINTS], hi[PMB_MAX_TIER_POINTS], base[PMB_MAX_TIER_POINTS];
		size_t m = 0;

		for (size_t i = s->first; i < n; i++) {
			const struct pmb_result *h = &r[i];

			if (!sweep_point(h, s->family) || point_tier(s, s->by_measure ? c : NULL, h) != t ||
			    !h->f.time.valid)
				continue;
			for (size_t j = k4; j < n && m < PMB_MAX_TIER_POINTS; j++) {
				const struct pmb_result *x = &r[j];

				if (!sweep_point(x, s->family_4k) || x->m.inst->working_set != h->m.inst->working_set ||
				    !x->f.time.valid)
					continue;
				d[m] = x->f.time.s.median - h->f.time.s.median;
				lo[m] = x->f.time.s.ci_lo - h->f.time.s.ci_hi;
				hi[m] = x->f.time.s.ci_hi - h->f.time.s.ci_lo;
				base[m++] = h->f.time.s.median;
			}
		}
		if (m) {
			struct pmb_sweep_share *sh = &s->share[t];

			*sh = (struct pmb_sweep_share){ m, pmb__median(d, m), pmb__median(lo, m), pmb__median(hi, m),
							pmb__median(base, m), NAN };
			if (sh->base > 0 && sh->lo > 0)
				sh->pct = 100 * sh->diff / sh->base;
		}
	}
}

/* The point of family fam at working set ws, measured; NULL none. */
static const struct pmb_result *point_at(const struct pmb_result *r, size_t n, const char *fam, uint64_t ws)
{
	for (size_t j = 0; j < n; j++)
		if (sweep_point(&r[j], fam) && r[j].m.inst->working_set == ws && r[j].f.time.valid)
			return &r[j];
	return NULL;
}

/* In a family on 4 KiB pages (X_4k): its established steps that X on huge
 * pages does not take between the same sizes (30 % or less), with the
 * data TLB reach that lies between them where one does. */
static void tlb_steps(struct pmb_sweep_figures *s, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	size_t len = strlen(s->family);
	const struct pmb_result *prev = NULL;

	if (s->sim || len < 4 || strcmp(s->family + len - 3, "_4k"))
		return;
	snprintf(s->family_huge, sizeof(s->family_huge), "%.*s", (int)(len - 3), s->family);
	for (size_t j = s->first; j < n; j++) {
		const struct pmb_result *x = &r[j], *ha, *hb;

		if (!sweep_point(x, s->family) || !x->f.time.valid)
			continue;
		if (!prev || !(ha = point_at(r, n, s->family_huge, prev->m.inst->working_set)) ||
		    !(hb = point_at(r, n, s->family_huge, x->m.inst->working_set)) ||
		    !established(&prev->f.time, &x->f.time, false) || step(&ha->f.time, &hb->f.time) > PMB_STEP_RATIO ||
		    s->ntlb_steps == PMB_MAX_TLB_STEPS) {
			prev = x;
			continue;
		}
		struct pmb_sweep_tlb_step *ts = &s->tlb_step[s->ntlb_steps++];

		*ts = (struct pmb_sweep_tlb_step){ prev->m.inst->working_set, x->m.inst->working_set,
						   step(&prev->f.time, &x->f.time), 0, 0 };
		for (int i = 0; i < c->m.topo.tlb.n && !ts->reach_level; i++) {
			const struct pmb_tlb *b = &c->m.topo.tlb.tlb[i];
			uint64_t rb = pmb_tlb_reach(b, PMB_TLB_4K);

			if (pmb_tlb_for_loads(b) && rb > prev->m.inst->working_set && rb <= x->m.inst->working_set)
				ts->reach_level = b->level, ts->reach = rb;
		}
		prev = x;
	}
}

/* Per tier with points (perf), its median in estimated cycles where
 * cycles are not counted, and over the tier before's. */
static void tier_ratios(struct pmb_sweep_figures *s, const struct pmb_context *c)
{
	double prev = NAN, ghz = pmb__analysis_est_ghz(c);

	for (int t = 0; t < PMB_SWEEP_TIERS; t++) {
		struct pmb_sweep_tier *st = &s->tier[t];

		st->est_cycles = st->over_prev = NAN;
		if (!st->points || s->sim)
			continue;
		if (ghz > 0)
			st->est_cycles = st->med[0] * ghz;
		if (isfinite(prev) && prev > 0)
			st->over_prev = st->med[0] / prev;
		prev = st->med[0];
	}
}

static void one_sweep(struct pmb_sweep_figures *s, const struct pmb_context *c, const struct pmb_result *r, size_t n,
		      size_t first)
{
	memset(s, 0, sizeof(*s));
	s->first = first;
	snprintf(s->family, sizeof(s->family), "%s", r[first].m.inst->family);
	s->sim = pmb_context_sim(c);
	sweep_figs(s, c);
	tiers(s, NULL, r, n);
	steps(s, r, n);
	levels(s, c, r, n);
	/* A level that holds less or more than hwloc says: its points are
	 * counted in the tier their cost was measured in (issue 32: an "L3"
	 * median of 65.7 ns over 13 to 16 ns points and two at 115 to 126 ns,
	 * past the step at 4 MiB, was neither). */
	for (int k = 0; k < s->nlevels; k++)
		if (s->level[k].capacity != PMB_CAPACITY_NOT_TOLD) {
			s->by_measure = true;
			tiers(s, c, r, n);
			break;
		}
	tier_ratios(s, c);
	huge_pages(s, r, n);
	if (c->m.topo_ok)
		reach(s, c);
	tlb_share(s, c, r, n);
	tlb_steps(s, c, r, n);
}

int pmb__analysis_sweeps(const struct pmb_context *c, struct pmb_run_figures *out, const struct pmb_result *r,
			 size_t n)
{
	int m = 0;

	free(out->sweeps);
	out->sweeps = NULL;
	out->nsweeps = 0;
	out->sweep_event = pmb_context_sim(c) ? sweep_event(c) : -2;
	for (size_t i = 0; i < n; i++)
		m += r[i].m.inst->tier[0] && !r[i].m.repetition && pmb__first_of_family(r, i);
	if (!m)
		return 0;
	out->sweeps = calloc((size_t)m, sizeof(*out->sweeps));
	if (!out->sweeps)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (r[i].m.inst->tier[0] && !r[i].m.repetition && pmb__first_of_family(r, i))
			one_sweep(&out->sweeps[out->nsweeps++], c, r, n, i);
	return 0;
}

int pmb__analyze_sweeps(struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	return pmb__analysis_sweeps(c, &c->f, r, n);
}
