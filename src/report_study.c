/* report_study.c - the console report's studies: working-set sweeps against hwloc's boundaries, branch pairs and their verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "report_fmt.h"
#include "report_study.h"

/* The figure a sweep is summarised by under simulation: a miss event
 * (what tells the tiers apart), else the first event. */
static int sweep_event(const struct pmb_context *c)
{
	int e = pmb_context_event(c, PMB_L1_MISS_EVENTS "|" PMB_LL_MISS_EVENTS);

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
	e = pmb_context_event(c, k == 0 ? PMB_L1_MISS_EVENTS : PMB_LL_MISS_EVENTS);
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

/* Per cache level: does the data step where hwloc puts the boundary?  The
 * step is the cost ratio of the two sweep points around the cache's size;
 * where there is none, the largest step below the boundary is named. */
static void compare_boundaries(FILE *f, const struct pmb_context *c, const struct pmb_result *r,
			       size_t n, size_t first)
{
	const char *fam = r[first].inst->family;
	uint64_t below = 0;

	for (int k = 0; k < c->topo.ncaches; k++) {
		uint64_t size = c->topo.cache[k].size;
		const struct pmb_result *a = NULL, *b = NULL, *sa = NULL, *sb = NULL, *prev = NULL;
		int e = level_event(c, k);
		double best = 0;
		char s1[24], s2[24], sz[24], st[24];

		pmb_format_bytes(sz, sizeof(sz), size);
		fprintf(f, "  L%d %s: ", c->topo.cache[k].level, sz);
		if (e == -1) {
			fprintf(f, "not simulated (valgrind models L1 and the last level only)\n");
			below = size;
			continue;
		}
		for (size_t j = first; j < n; j++) {
			const struct pmb_result *x = &r[j];
			const struct pmb_figure *fx = e < 0 ? &x->time : &x->ev[e];

			if (strcmp(x->inst->family, fam) || x->status || x->repetition || !fx->valid)
				continue;
			if (prev) {
				double ratio = step(e < 0 ? &prev->time : &prev->ev[e], fx);

				if (prev->inst->working_set <= size && x->inst->working_set > size)
					a = prev, b = x;
				if (x->inst->working_set <= size && prev->inst->working_set >= below &&
				    ratio > best)
					best = ratio, sa = prev, sb = x;
			}
			prev = x;
		}
		if (e >= 0)
			fprintf(f, "(%s) ", c->plan.ev[e].name);
		if (!a || !b) {
			fprintf(f, "no sweep points on both sides\n");
			below = size;
			continue;
		}
		double ratio = step(e < 0 ? &a->time : &a->ev[e], e < 0 ? &b->time : &b->ev[e]);

		pmb_format_bytes(s1, sizeof(s1), a->inst->working_set);
		pmb_format_bytes(s2, sizeof(s2), b->inst->working_set);
		fmt_step(st, sizeof(st), ratio);
		if (ratio > 1.3) {
			fprintf(f, "the data step here too (%s, %s to %s)\n", st, s1, s2);
		} else {
			fprintf(f, "no step here (%s, %s to %s)", st, s1, s2);
			if (sa && sb && best > 1.3) {
				pmb_format_bytes(s1, sizeof(s1), sa->inst->working_set);
				pmb_format_bytes(s2, sizeof(s2), sb->inst->working_set);
				fmt_step(st, sizeof(st), best);
				fprintf(f, "; the data step earlier (%s, %s to %s)", st, s1, s2);
			}
			fputc('\n', f);
		}
		below = size;
	}
}

/* Per family of PMB_TIERS points: median per tier and where the latency
 * steps, compared with the boundaries hwloc reported. */
void pmb__report_sweeps(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	bool sim = pmb_context_sim(c);

	for (size_t i = 0; i < n; i++) {
		bool first = true;

		if (!r[i].inst->tier[0] || r[i].repetition)
			continue;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r[j].inst->family, r[i].inst->family))
				first = false;
		if (!first)
			continue;
		fprintf(f, "\n%s across the cache tiers:\n", r[i].inst->family);
		static const char *tiers[] = { "L1", "L2", "L3", "L4", "DRAM" };
		/* The figures per tier: time, or under simulation the L1d and
		 * last-level miss events (each shows its own boundary). */
		int evs[2] = { -2, -2 }, nevs = 1;
		if (sim) {
			evs[0] = level_event(c, 0);
			evs[1] = level_event(c, c->topo.ncaches - 1);
			nevs = evs[1] >= 0 && evs[1] != evs[0] ? 2 : 1;
			if (evs[0] < 0)
				evs[0] = sweep_event(c);
		}
		double prev_tier = NAN;
		for (int k = 0; k < 5; k++) {
			double med[2] = { NAN, NAN };
			size_t m = 0;

			for (int q = 0; q < nevs; q++) {
				double v[PMB_MAX_TIER_POINTS];

				m = 0;
				for (size_t j = i; j < n; j++) {
					const struct pmb_figure *fg = evs[q] < 0 ? &r[j].time : &r[j].ev[evs[q]];

					if (!strcmp(r[j].inst->family, r[i].inst->family) && !r[j].status &&
					    !r[j].repetition && !strcmp(r[j].inst->tier, tiers[k]) &&
					    m < PMB_MAX_TIER_POINTS && fg->valid)
						/* below resolution counts as zero, not negative */
						v[m++] = fg->below_resolution ? fmax(fg->s.median, 0) : fg->s.median;
				}
				if (m)
					med[q] = pmb_median(v, m);
			}
			if (!m)
				continue;
			char b[32];
			fprintf(f, "  %-5s median ", tiers[k]);
			for (int q = 0; q < nevs; q++) {
				if (sim) {
					pmb__fmt_num(b, sizeof(b), med[q]);
					fprintf(f, "%s%s %s", q ? ", " : "", b, c->plan.ev[evs[q]].name);
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
			prev_tier = med[0];
		}
		/* Steps in the data: consecutive points whose cost rises by
		 * more than 30 %. */
		const struct pmb_result *prev = NULL;
		fprintf(f, "  steps seen in the data:");
		int steps = 0;
		for (int q = 0; q < nevs; q++) {
			prev = NULL;
			for (size_t j = i; j < n; j++) {
				const struct pmb_result *x = &r[j];

				if (strcmp(x->inst->family, r[i].inst->family) || x->status || x->repetition)
					continue;
				if (prev) {
					double ratio = evs[q] < 0 ? step(&prev->time, &x->time)
								  : step(&prev->ev[evs[q]], &x->ev[evs[q]]);

					if (ratio > 1.3) {
						char s1[24], s2[24], st[24];

						pmb_format_bytes(s1, sizeof(s1), prev->inst->working_set);
						pmb_format_bytes(s2, sizeof(s2), x->inst->working_set);
						fmt_step(st, sizeof(st), ratio);
						fprintf(f, "%s between %s and %s (%s%s%s)", steps ? ";" : "", s1, s2,
							evs[q] >= 0 ? c->plan.ev[evs[q]].name : "", evs[q] >= 0 ? " " : "",
							st);
						steps++;
					}
				}
				prev = x;
			}
		}
		fprintf(f, "%s\n  boundaries hwloc reports:", steps ? "" : " none");
		for (int k = 0; k < c->topo.ncaches; k++) {
			char s[24];

			pmb_format_bytes(s, sizeof(s), c->topo.cache[k].size);
			fprintf(f, " L%d %s%s", c->topo.cache[k].level, s,
				c->topo.cache[k].sharing_cores > 1 ? " (shared)" : "");
		}
		fputc('\n', f);
		compare_boundaries(f, c, r, n, i);
		double hmin = 2, hmax = -1;
		for (size_t j = i; j < n; j++)
			if (!strcmp(r[j].inst->family, r[i].inst->family) && r[j].huge_fraction >= 0) {
				hmin = fmin(hmin, r[j].huge_fraction);
				hmax = fmax(hmax, r[j].huge_fraction);
			}
		if (hmax >= 0)
			fprintf(f, "  huge pages backing the buffers: %.0f%%..%.0f%% (measured in /proc/self/smaps; "
				"--hugepages=%s)\n", hmin * 100, hmax * 100, c->hugepages ? "on" : "off");
		if (sim)
			fprintf(f, "  (simulated: valgrind models L1 and the last level only; L2 "
				"effects cannot show here)\n");
	}
}

/* The verdict over a pair's inputs, in their order: w[k] is +1 where
 * branchless wins (ratio interval below 1), -1 where branchy wins, 0 tie. */
static void verdict(FILE *f, const int *w, char (*arg)[64], int n, bool ordered)
{
	int from = n, wins = 0, losses = 0;

	for (int k = 0; k < n; k++) {
		wins += w[k] > 0;
		losses += w[k] < 0;
	}
	/* The first input from which branchless wins at every later one. */
	while (from > 0 && w[from - 1] > 0)
		from--;
	fprintf(f, "  verdict: ");
	if (!wins && !losses) {
		fprintf(f, "no significant difference at any input\n");
		return;
	}
	if (ordered && from < n && from > 0)
		fprintf(f, "branchless wins from %s on", arg[from]);
	else if (ordered && from == 0)
		fprintf(f, "branchless wins at every input");
	else if (wins)
		fprintf(f, "branchless wins at %d of %d inputs", wins, n);
	else
		fprintf(f, "branchless never wins");
	if (losses) {
		const char *sep = "; branchy wins at ";

		for (int k = 0; k < n; k++)
			if (w[k] < 0) {
				fprintf(f, "%s%s", sep, arg[k]);
				sep = ", ";
			}
	}
	if (ordered) {
		/* Where the winner changes from one input to the next. */
		int prev = 0;

		for (int k = 0; k < n; k++) {
			if (w[k] && prev && w[k] != prev)
				fprintf(f, "; they cross between %s and %s", arg[k - 1], arg[k]);
			if (w[k])
				prev = w[k];
		}
	}
	fputc('\n', f);
}

/* Branch study: per pair K (branch/K/branchy, branch/K/branchless, branch/K/sol).
 * Under simulation there is no time: the table shows instructions and
 * mispredictions, and no winner is named. */
int pmb__report_branch_studies(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int err = 0;
	bool sim = pmb_context_sim(c);
	int bm = pmb_context_event(c, "branch-misses|cond-branch-misses");
	int cyc = pmb_context_event(c, "cycles");
	int ins = pmb_context_event(c, "instructions");

	for (size_t i = 0; i < n; i++) {
		const char *fam = r[i].inst->family;
		char prefix[200];
		bool first = true;

		if (r[i].inst->def->role != PMB_ROLE_BRANCHY || r[i].repetition ||
		    !pmb_result_study(&r[i], prefix, sizeof(prefix)))
			continue;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r[j].inst->family, fam))
				first = false;
		if (!first)
			continue;
		fprintf(f, "\nbranch study %s: branchless / branchy%s; inputs seeded with %llu\n", prefix,
			sim ? " (SIMULATED counts: no time, so no winner)" : "",
			(unsigned long long)r[i].seed);
		struct pmb__table t = { 0 };
		t.head[t.ncol] = "input", t.left[t.ncol++] = true;
		t.head[t.ncol++] = sim ? "branchy instr" : "branchy";
		t.head[t.ncol++] = sim ? "branchless instr" : "branchless";
		t.head[t.ncol++] = sim ? "sol instr" : "sol";
		if (!sim)
			t.head[t.ncol++] = c->has_cycles ? "cycles (y/l)" : "est.cycles (y/l)";
		t.head[t.ncol++] = sim ? "misp/item (y/l, sim)" : "misp/item (y/l)";
		if (!sim) {
			t.head[t.ncol++] = "ratio [95% CI]";
			t.head[t.ncol++] = "winner";
		}
		int w[64], nw = 0;
		char args[64][64];
		bool ordered = true;
		double c0 = NAN, c50 = NAN, m0 = NAN, m50 = NAN;
		for (size_t j = 0; j < n; j++) {
			const struct pmb_result *y = &r[j], *l, *s;
			char b[32];
			int k = 0;

			if (strcmp(y->inst->family, fam) || y->repetition)
				continue;
			l = pmb_result_in_study(r, n, prefix, PMB_ROLE_BRANCHLESS, y->inst->args);
			s = pmb_result_in_study(r, n, prefix, PMB_ROLE_SOL, y->inst->args);
			pmb__table_add_row(&t);
			pmb__table_set(&t, k++, "%s", y->inst->args[0] ? y->inst->args : "-");
			if (y->status || !l || l->status) {
				pmb__table_set(&t, k, "%s", y->status ? "skipped" : l ? "branchless skipped" : "no branchless form");
				continue;
			}
			const struct pmb_figure *fy = sim ? (ins >= 0 ? &y->ev[ins] : NULL) : &y->time;
			const struct pmb_figure *fl = sim ? (ins >= 0 ? &l->ev[ins] : NULL) : &l->time;
			const struct pmb_figure *fs = s && !s->status ? (sim ? (ins >= 0 ? &s->ev[ins] : NULL) : &s->time) : NULL;
			const struct pmb_figure *col[3] = { fy, fl, fs };
			for (int q = 0; q < 3; q++, k++) {
				if (!col[q] || !col[q]->valid)
					continue;
				pmb__fmt_figure(b, sizeof(b), col[q], !sim);
				pmb__table_set(&t, k, "%s", b);
			}
			const struct pmb_figure *cy = cyc >= 0 ? &y->ev[cyc] : &y->est_cycles;
			const struct pmb_figure *cl = cyc >= 0 ? &l->ev[cyc] : &l->est_cycles;
			if (!sim) {
				if (cy->valid && cl->valid)
					pmb__table_set(&t, k, "%.2f / %.2f", cy->s.median, cl->s.median);
				k++;
			}
			if (bm >= 0 && y->ev[bm].valid && l->ev[bm].valid)
				pmb__table_set(&t, k, "%.3f / %.3f", fmax(y->ev[bm].s.median, 0), fmax(l->ev[bm].s.median, 0));
			else
				pmb__table_set(&t, k, "n/a");
			k++;
			if (!strcmp(y->inst->args, "p0") && cy->valid && bm >= 0 && y->ev[bm].valid)
				c0 = cy->s.median, m0 = y->ev[bm].s.median;
			if (!strcmp(y->inst->args, "p50") && cy->valid && bm >= 0 && y->ev[bm].valid)
				c50 = cy->s.median, m50 = y->ev[bm].s.median;
			if (sim || nw == 64)
				continue;
			if (isfinite(fl->ratio)) {
				pmb__fmt_ratio(b, sizeof(b), fl->ratio, fl->ratio_lo, fl->ratio_hi);
				pmb__table_set(&t, k, "%s", b);
			}
			k++;
			int win = 0; /* a win is a ratio interval that excludes 1 */
			if (isfinite(fl->ratio_hi) && fl->ratio_hi < 1)
				win = 1;
			else if (isfinite(fl->ratio_lo) && fl->ratio_lo > 1)
				win = -1;
			pmb__table_set(&t, k, "%s", win > 0 ? "branchless" : win < 0 ? "branchy" : "tie");
			snprintf(args[nw], sizeof(args[nw]), "%s", y->inst->args);
			/* p-inputs and tier sizes are ordered; a mix is not. */
			if (!strcmp(y->inst->args, "mix"))
				ordered = false;
			w[nw++] = win;
		}
		int terr = pmb__table_print(f, &t);

		if (!err)
			err = terr;
		if (!sim)
			verdict(f, w, args, nw, ordered);
		if (isfinite(c0) && isfinite(c50) && m50 - m0 > 0.01 && cyc >= 0)
			fprintf(f, "  misprediction penalty, ESTIMATED: %.1f cycles "
				"(delta cycles / delta mispredicts between p0 and p50)\n",
				(c50 - c0) / (m50 - m0));
	}
	return err;
}

