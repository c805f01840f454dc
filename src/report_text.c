/* report_text.c - the console report: aligned table with auto-scaled units, sweep and branch summaries. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "report.h"

#define MAXCOL 24

struct table {
	int ncol;
	const char *head[MAXCOL];
	bool left[MAXCOL];
	int width[MAXCOL];
	char (*cell)[MAXCOL][40];
	size_t nrow, cap;
};

static void t_add_row(struct table *t)
{
	if (t->nrow == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		void *p = realloc(t->cell, cap * sizeof(*t->cell));

		if (!p)
			return;
		t->cell = p;
		t->cap = cap;
	}
	memset(t->cell[t->nrow], 0, sizeof(*t->cell));
	t->nrow++;
}

static void t_set(struct table *t, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void t_set(struct table *t, int col, const char *fmt, ...)
{
	va_list ap;

	if (!t->nrow)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cell[t->nrow - 1][col], 40, fmt, ap);
	va_end(ap);
}

static void t_print(FILE *f, struct table *t)
{
	for (int c = 0; c < t->ncol; c++) {
		t->width[c] = (int)strlen(t->head[c]);
		for (size_t r = 0; r < t->nrow; r++) {
			int w = (int)strlen(t->cell[r][c]);

			if (w > t->width[c])
				t->width[c] = w;
		}
	}
	for (int pass = -1; pass < (int)t->nrow; pass++) {
		for (int c = 0; c < t->ncol; c++) {
			const char *s = pass < 0 ? t->head[c] : t->cell[pass][c];

			fprintf(f, t->left[c] ? "%-*s" : "%*s", t->width[c], s);
			fputs(c + 1 < t->ncol ? "  " : "\n", f);
		}
		if (pass < 0) {
			int total = 0;

			for (int c = 0; c < t->ncol; c++)
				total += t->width[c] + (c + 1 < t->ncol ? 2 : 0);
			for (int k = 0; k < total; k++)
				fputc('-', f);
			fputc('\n', f);
		}
	}
	free(t->cell);
	t->cell = NULL;
	t->nrow = t->cap = 0;
}

/* Time in ns with an auto-scaled unit and 3-4 significant digits. */
static void fmt_time(char *b, size_t n, double ns)
{
	static const struct { double div; const char *u; } units[] = {
		{ 1e-3, "ps" }, { 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	int k = 1;
	double a = fabs(ns);

	if (!isfinite(ns)) {
		snprintf(b, n, "-");
		return;
	}
	if (a < 0.1)
		k = 0;
	else
		while (k < 4 && a >= units[k + 1].div)
			k++;
	double v = ns / units[k].div;
	snprintf(b, n, "%.*f %s", fabs(v) >= 100 ? 1 : fabs(v) >= 10 ? 2 : 3, v, units[k].u);
}

static void fmt_num(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(b, n, "-");
	else if (a >= 1e9)
		snprintf(b, n, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(b, n, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(b, n, "%.3gk", v / 1e3);
	else if (a >= 100)
		snprintf(b, n, "%.1f", v);
	else if (a >= 1 || a == 0)
		snprintf(b, n, "%.3f", v);
	else
		snprintf(b, n, "%.4f", v);
}

static void fmt_figure(char *b, size_t n, const struct pmb_figure *f, bool time)
{
	char v[32];

	if (f->scaled == -1) {
		snprintf(b, n, "never ran");
		return;
	}
	if (!f->valid) {
		snprintf(b, n, "-");
		return;
	}
	if (f->below_resolution) {
		/* Zero within what the measurement resolves: say so, never
		 * print the negative or tiny number the subtraction left. */
		if (time)
			fmt_time(v, sizeof(v), f->resolution);
		else
			snprintf(v, sizeof(v), "%.1g", f->resolution);
		snprintf(b, n, "< %s", v);
		return;
	}
	if (time)
		fmt_time(v, sizeof(v), f->s.median);
	else
		fmt_num(v, sizeof(v), f->s.median);
	snprintf(b, n, "%.20s%s", v, f->scaled == 1 ? " (scaled)" : "");
}

/* A ratio with its interval, or alone where there is none. */
static void fmt_ratio(char *b, size_t n, double ratio, double lo, double hi)
{
	if (isfinite(lo) && isfinite(hi))
		snprintf(b, n, "%.2f [%.2f, %.2f]", ratio, lo, hi);
	else
		snprintf(b, n, "%.2f", ratio);
}

static bool any_link(const struct pmb_result *r, size_t n, bool ref)
{
	for (size_t i = 0; i < n; i++)
		if (ref ? r[i].inst->reference >= 0 : r[i].inst->baseline >= 0)
			return true;
	return false;
}

static void header(FILE *f, const struct pmb_context *c)
{
	fprintf(f, "pmubench %s  %s  core %d  backend %s\n", PMB_VERSION_STRING, c->host, c->cpu,
		c->backend);
	if (!strcmp(c->backend, "sim")) {
		fprintf(f, "counts SIMULATED by valgrind/callgrind (%s); time is not measured under "
			"simulation\n", c->sim_geometry);
	} else {
		fprintf(f, "clock %s: resolution %.0f ns, read %.1f ns; core %.2f GHz (measured); ",
			c->clock.source, c->clock.resolution_ns, c->clock.read_cost_ns, c->ghz);
		if (c->pmu_ok)
			fprintf(f, "PMU %s, ", c->plan.pmu_name);
		else
			fprintf(f, "no hardware counters: cycles are ESTIMATED from time; ");
		fprintf(f, "%d counter group%s\n", c->ngroups, c->ngroups == 1 ? "" : "s");
	}
	if (!strcmp(c->backend, "sim"))
		fprintf(f, "harness overhead (the empty loop, simulated the same way) subtracted from "
			"every event; figures are per item\n\n");
	else
		fprintf(f, "harness overhead subtracted: %.3f ns per pass, %.0f ns per sample; "
			"figures are per item: medians of each benchmark's samples\n\n",
			c->overhead.ns_per_pass, c->overhead.ns_per_sample);
}

static void main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct table t = { 0 };
	bool norm = any_link(r, n, false), ref = any_link(r, n, true);
	bool tiers = false, sim = !strcmp(c->backend, "sim");
	int col_ev[PMB_MAX_EVENTS];
	char ehead[PMB_MAX_EVENTS][48];

	for (size_t i = 0; i < n; i++)
		tiers |= r[i].inst->tier[0] != 0;
	t.head[t.ncol] = "benchmark", t.left[t.ncol++] = true;
	if (tiers)
		t.head[t.ncol] = "tier", t.left[t.ncol++] = true;
	if (!sim) {
		t.head[t.ncol++] = "ns/item";
		t.head[t.ncol++] = "+/-95%";
		t.head[t.ncol++] = "mean";
		t.head[t.ncol++] = "min";
		if (norm)
			t.head[t.ncol++] = "normalized";
		if (ref)
			t.head[t.ncol++] = "scaled [95% CI]";
		if (!c->has_cycles)
			t.head[t.ncol++] = "est.cycles";
	}
	for (int e = 0; e < c->plan.nev && t.ncol < MAXCOL - 3; e++) {
		if (c->event_group[e] < 0) {
			col_ev[e] = -1;
			continue;
		}
		snprintf(ehead[e], sizeof(ehead[e]), "%s%s", c->plan.ev[e].name,
			 sim ? " (sim)" : "");
		col_ev[e] = t.ncol;
		t.head[t.ncol++] = ehead[e];
	}
	int col_der[PMB_MAX_DERIVED];
	char dhead[PMB_MAX_DERIVED][48];
	bool reps = false;
	for (size_t i = 0; i < n; i++)
		reps |= r[i].repetition > 0;
	for (int k = 0; k < c->plan.nder; k++) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= !r[i].status && isfinite(r[i].derived[k]);
		col_der[k] = any && t.ncol < MAXCOL - 4 ? t.ncol : -1;
		if (col_der[k] >= 0) {
			snprintf(dhead[k], sizeof(dhead[k]), "%s%s", c->plan.der[k].name, sim ? " (sim)" : "");
			t.head[t.ncol++] = dhead[k];
		}
	}
	if (sim && ref)
		t.head[t.ncol++] = "scaled [95% CI]";
	bool bytes = false;
	for (size_t i = 0; i < n; i++)
		bytes |= r[i].bytes_per_pass > 0;
	if (!sim)
		t.head[t.ncol++] = "items/s";
	int col_bytes = -1;
	if (!sim && bytes) {
		col_bytes = t.ncol;
		t.head[t.ncol++] = "bytes/s";
	}
	int col_rep = -1;
	if (reps) {
		col_rep = t.ncol;
		t.head[t.ncol++] = "rep.spread";
	}
	t.head[t.ncol++] = "samples";
	t.head[t.ncol++] = "passes";
	for (size_t i = 0; i < n; i++) {
		const struct pmb_result *x = &r[i];
		char b[40];
		int k = 0;

		t_add_row(&t);
		if (x->repetition)
			t_set(&t, k++, "%s #%d", x->inst->name, x->repetition + 1);
		else
			t_set(&t, k++, "%s", x->inst->name);
		if (tiers)
			t_set(&t, k++, "%s", x->inst->tier);
		if (x->status) {
			/* The reason goes under the table: a long one would widen
			 * a column for every row, or be cut. */
			t_set(&t, k, "%s", x->status == PMB_ESKIPPED ? "skipped *" : "FAILED *");
			continue;
		}
		if (!sim) {
			fmt_figure(b, sizeof(b), &x->time, true);
			t_set(&t, k++, "%s", b);
			double m = x->time.s.median;
			if (x->time.valid && !x->time.below_resolution && m > 0 && isfinite(x->time.s.ci_lo))
				t_set(&t, k, "%.1f%%", (x->time.s.ci_hi - x->time.s.ci_lo) / 2 / m * 100);
			k++;
			if (x->time.below_resolution)
				snprintf(b, sizeof(b), "~0");
			else
				fmt_time(b, sizeof(b), x->time.s.mean);
			t_set(&t, k++, "%s", b);
			if (x->time.s.min < x->time.resolution)
				snprintf(b, sizeof(b), "< res");
			else
				fmt_time(b, sizeof(b), x->time.s.min);
			t_set(&t, k++, "%s", b);
			if (norm) {
				fmt_time(b, sizeof(b), x->time.normalized);
				t_set(&t, k++, "%s", b);
			}
			if (ref) {
				if (isfinite(x->time.ratio)) {
					fmt_ratio(b, sizeof(b), x->time.ratio, x->time.ratio_lo, x->time.ratio_hi);
					t_set(&t, k, "%s", b);
				}
				k++;
			}
			if (!c->has_cycles) {
				fmt_figure(b, sizeof(b), &x->est_cycles, false);
				t_set(&t, k++, "%s", b);
			}
		}
		for (int e = 0; e < c->plan.nev; e++) {
			if (col_ev[e] < 0)
				continue;
			fmt_figure(b, sizeof(b), &x->ev[e], false);
			t_set(&t, col_ev[e], "%s", b);
			k = col_ev[e] + 1;
		}
		for (int d = 0; d < c->plan.nder; d++) {
			if (col_der[d] < 0)
				continue;
			fmt_num(b, sizeof(b), x->derived[d]);
			t_set(&t, col_der[d], "%s", b);
			k = col_der[d] + 1;
		}
		if (sim && ref) {
			/* Under simulation the first event stands for the cost. */
			if (c->plan.nev && isfinite(x->ev[0].ratio)) {
				fmt_ratio(b, sizeof(b), x->ev[0].ratio, x->ev[0].ratio_lo, x->ev[0].ratio_hi);
				t_set(&t, k, "%s", b);
			}
			k++;
		}
		if (!sim) {
			fmt_num(b, sizeof(b), x->items_per_second);
			t_set(&t, k++, "%s", b);
		}
		if (col_bytes >= 0) {
			if (x->bytes_per_pass && isfinite(x->bytes_per_second)) {
				fmt_num(b, sizeof(b), x->bytes_per_second);
				t_set(&t, col_bytes, "%sB", b);
			}
			k = col_bytes + 1;
		}
		if (col_rep >= 0) {
			if (isfinite(x->rep_spread))
				t_set(&t, col_rep, "%.1f%%", x->rep_spread * 100);
			k = col_rep + 1;
		}
		t_set(&t, k++, "%zu", x->nsamples);
		uint64_t passes = 0;
		for (size_t q = 0; q < x->nsamples; q++)
			passes += x->samples[q].passes;
		if (passes < 10000)
			snprintf(b, sizeof(b), "%llu", (unsigned long long)passes);
		else
			fmt_num(b, sizeof(b), (double)passes);
		t_set(&t, k++, "%s", b);
	}
	t_print(f, &t);
	for (size_t i = 0; i < n; i++) {
		if (r[i].status) {
			char rep[16] = "";

			if (r[i].repetition)
				snprintf(rep, sizeof(rep), " #%d", r[i].repetition + 1);
			fprintf(f, "* %s%s %s: %s\n", r[i].inst->name, rep,
				r[i].status == PMB_ESKIPPED ? "skipped" : "FAILED", r[i].reason);
		}
	}
	if (!sim && !c->has_cycles)
		fprintf(f, "est.cycles: ESTIMATED as ns/item x %.2f GHz (no cycles counter)\n", c->ghz);
}

/* The figure a sweep is summarised by: time, or under simulation the
 * first simulated miss event (what tells the tiers apart), else the first. */
static int sweep_event(const struct pmb_context *c)
{
	static const char *prefer[] = { "l1d", "llc", "" };

	for (int p = 0; p < 3; p++)
		for (int e = 0; e < c->plan.nev; e++)
			if (strstr(c->plan.ev[e].name, prefer[p]) && strstr(c->plan.ev[e].name, "miss") &&
			    !strstr(c->plan.ev[e].name, "branch"))
				return e;
	return 0;
}


/* Under simulation, the miss event that shows cache level k: L1d misses
 * for the first level, last-level misses for the last, -1 for the levels
 * valgrind does not model.  Time (-2) on the perf backend. */
static int level_event(const struct pmb_context *c, int k)
{
	const char *want = k == 0 ? "l1d" : k == c->topo.ncaches - 1 ? "llc" : NULL;

	if (strcmp(c->backend, "sim"))
		return -2;
	if (!want)
		return -1;
	for (int e = 0; e < c->plan.nev; e++)
		if (strstr(c->plan.ev[e].name, want) && strstr(c->plan.ev[e].name, "miss"))
			return e;
	return sweep_event(c);
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
static void sweep_summary(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	bool sim = !strcmp(c->backend, "sim");

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
					fmt_num(b, sizeof(b), med[q]);
					fprintf(f, "%s%s %s", q ? ", " : "", b, c->plan.ev[evs[q]].name);
				} else {
					fmt_time(b, sizeof(b), med[q]);
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

static const struct pmb_result *find_variant(const struct pmb_result *r, size_t n,
					     const char *family_prefix, const char *variant,
					     const char *args)
{
	char fam[200];

	snprintf(fam, sizeof(fam), "%s/%s", family_prefix, variant);
	for (size_t i = 0; i < n; i++)
		if (!r[i].repetition && !strcmp(r[i].inst->family, fam) && !strcmp(r[i].inst->args, args))
			return &r[i];
	return NULL;
}

static int find_ev(const struct pmb_context *c, const char *name)
{
	for (int e = 0; e < c->plan.nev; e++)
		if (!strcmp(c->plan.ev[e].name, name) && c->event_group[e] >= 0)
			return e;
	return -1;
}

/* The verdict over a pair's inputs, in their order: w[k] is +1 where
 * branchless wins (ratio interval below 1), -1 where branchy wins, 0 tie. */
static void verdict(FILE *f, const int *w, char (*arg)[64], int n, bool ordered)
{
	int from = n, wins = 0, losses = 0;
	char list[256] = "";

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
	for (int k = 0; k < n; k++)
		if (w[k] < 0) {
			size_t len = strlen(list);

			snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", arg[k]);
		}
	if (losses)
		fprintf(f, "; branchy wins at %s", list);
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
static void branch_summary(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	bool sim = !strcmp(c->backend, "sim");
	int bm = find_ev(c, "branch-misses");
	int cyc = find_ev(c, "cycles");
	int ins = find_ev(c, "instructions");

	if (bm < 0)
		bm = find_ev(c, "cond-branch-misses");
	for (size_t i = 0; i < n; i++) {
		const char *fam = r[i].inst->family;
		const char *slash = strrchr(fam, '/');
		char prefix[160];
		bool first = true;

		if (!slash || strcmp(slash, "/branchy") || r[i].repetition)
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(slash - fam), fam);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r[j].inst->family, fam))
				first = false;
		if (!first)
			continue;
		fprintf(f, "\nbranch study %s: branchless / branchy%s; inputs seeded with %llu\n", prefix,
			sim ? " (SIMULATED counts: no time, so no winner)" : "",
			(unsigned long long)r[i].seed);
		struct table t = { 0 };
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
			l = find_variant(r, n, prefix, "branchless", y->inst->args);
			s = find_variant(r, n, prefix, "sol", y->inst->args);
			t_add_row(&t);
			t_set(&t, k++, "%s", y->inst->args[0] ? y->inst->args : "-");
			if (y->status || !l || l->status) {
				t_set(&t, k, "%s", y->status ? "skipped" : l ? "branchless skipped" : "no branchless form");
				continue;
			}
			const struct pmb_figure *fy = sim ? (ins >= 0 ? &y->ev[ins] : NULL) : &y->time;
			const struct pmb_figure *fl = sim ? (ins >= 0 ? &l->ev[ins] : NULL) : &l->time;
			const struct pmb_figure *fs = s && !s->status ? (sim ? (ins >= 0 ? &s->ev[ins] : NULL) : &s->time) : NULL;
			const struct pmb_figure *col[3] = { fy, fl, fs };
			for (int q = 0; q < 3; q++, k++) {
				if (!col[q] || !col[q]->valid)
					continue;
				fmt_figure(b, sizeof(b), col[q], !sim);
				t_set(&t, k, "%s", b);
			}
			const struct pmb_figure *cy = cyc >= 0 ? &y->ev[cyc] : &y->est_cycles;
			const struct pmb_figure *cl = cyc >= 0 ? &l->ev[cyc] : &l->est_cycles;
			if (!sim) {
				if (cy->valid && cl->valid)
					t_set(&t, k, "%.2f / %.2f", cy->s.median, cl->s.median);
				k++;
			}
			if (bm >= 0 && y->ev[bm].valid && l->ev[bm].valid)
				t_set(&t, k, "%.3f / %.3f", fmax(y->ev[bm].s.median, 0), fmax(l->ev[bm].s.median, 0));
			else
				t_set(&t, k, "n/a");
			k++;
			if (!strcmp(y->inst->args, "p0") && cy->valid && bm >= 0 && y->ev[bm].valid)
				c0 = cy->s.median, m0 = y->ev[bm].s.median;
			if (!strcmp(y->inst->args, "p50") && cy->valid && bm >= 0 && y->ev[bm].valid)
				c50 = cy->s.median, m50 = y->ev[bm].s.median;
			if (sim || nw == 64)
				continue;
			if (isfinite(fl->ratio)) {
				fmt_ratio(b, sizeof(b), fl->ratio, fl->ratio_lo, fl->ratio_hi);
				t_set(&t, k, "%s", b);
			}
			k++;
			int win = 0; /* a win is a ratio interval that excludes 1 */
			if (isfinite(fl->ratio_hi) && fl->ratio_hi < 1)
				win = 1;
			else if (isfinite(fl->ratio_lo) && fl->ratio_lo > 1)
				win = -1;
			t_set(&t, k, "%s", win > 0 ? "branchless" : win < 0 ? "branchy" : "tie");
			snprintf(args[nw], sizeof(args[nw]), "%s", y->inst->args);
			/* p-inputs and tier sizes are ordered; a mix is not. */
			if (!strcmp(y->inst->args, "mix"))
				ordered = false;
			w[nw++] = win;
		}
		t_print(f, &t);
		if (!sim)
			verdict(f, w, args, nw, ordered);
		if (isfinite(c0) && isfinite(c50) && m50 - m0 > 0.01 && cyc >= 0)
			fprintf(f, "  misprediction penalty, ESTIMATED: %.1f cycles "
				"(delta cycles / delta mispredicts between p0 and p50)\n",
				(c50 - c0) / (m50 - m0));
	}
}

int pmb_report_text(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	header(f, c);
	main_table(f, c, r, n);
	sweep_summary(f, c, r, n);
	branch_summary(f, c, r, n);
	return ferror(f) ? -EIO : 0;
}
