/* report_text.c - the console report: header, aligned table with auto-scaled units, shared table and unit helpers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "report.h"
#include "report_fmt.h"


void pmb__t_add_row(struct table *t)
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

void pmb__t_set(struct table *t, int col, const char *fmt, ...)
{
	va_list ap;

	if (!t->nrow)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cell[t->nrow - 1][col], 40, fmt, ap);
	va_end(ap);
}

void pmb__t_print(FILE *f, struct table *t)
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
void pmb__fmt_time(char *b, size_t n, double ns)
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

void pmb__fmt_num(char *b, size_t n, double v)
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

void pmb__fmt_figure(char *b, size_t n, const struct pmb_figure *f, bool time)
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
			pmb__fmt_time(v, sizeof(v), f->resolution);
		else
			snprintf(v, sizeof(v), "%.1g", f->resolution);
		snprintf(b, n, "< %s", v);
		return;
	}
	if (time)
		pmb__fmt_time(v, sizeof(v), f->s.median);
	else
		pmb__fmt_num(v, sizeof(v), f->s.median);
	snprintf(b, n, "%.20s%s", v, f->scaled == 1 ? " (scaled)" : "");
}

/* A ratio with its interval, or alone where there is none. */
void pmb__fmt_ratio(char *b, size_t n, double ratio, double lo, double hi)
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

/* How the counters were read per sample, what it cost, and why not from
 * user space where they were not. */
static void read_path_line(FILE *f, const struct pmb_context *c)
{
	char cost[32] = "";

	if (!c->read_path[0])
		return;
	if (c->group_read_ns >= 0)
		snprintf(cost, sizeof(cost), ", %.0f ns per sample", c->group_read_ns);
	if (!strcmp(c->read_path, "self"))
		fprintf(f, "counters read from user space (no system call)%s\n", cost);
	else
		fprintf(f, "counters read by %sread() and ioctl()%s%s%s\n",
			strcmp(c->read_path, "mixed") ? "" : "user space and ", cost,
			c->read_why[0] ? ": " : "", c->read_why);
}

static void header(FILE *f, const struct pmb_context *c)
{
	fprintf(f, "pmubench %s  %s  core %d  backend %s\n", PMB_VERSION_STRING, c->host, c->cpu,
		pmb_backend_name(c->backend));
	if (pmb_context_sim(c)) {
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
		read_path_line(f, c);
	}
	if (pmb_context_sim(c)) {
		fprintf(f, "harness overhead (the empty loop, simulated the same way) subtracted from "
			"every event; figures are per item\n\n");
	} else {
		int ins = pmb_context_event(c, "instructions");
		char per[48] = "";

		if (ins >= 0 && c->overhead.ev_valid[ins])
			snprintf(per, sizeof(per), " (%.0f instructions)", c->overhead.ev_per_sample[ins]);
		fprintf(f, "harness overhead subtracted: %.3f ns per pass, %.0f ns per sample%s; "
			"figures are per item: medians of each benchmark's samples\n\n",
			c->overhead.ns_per_pass, c->overhead.ns_per_sample, per);
	}
}

/* An event that does not count gets a column of n/a, with its reason under
 * the table, where the PMU counts others: it was asked for and the reader
 * should see that it is missing, and why.  Without any PMU the hardware
 * events are left out: the warning has said so once. */
static bool shown_absent(const struct pmb_context *c, int e)
{
	return c->event_why[e][0] && (c->pmu_ok || c->plan.ev[e].kind != PMB_EV_HW);
}

static void main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct table t = { 0 };
	bool norm = any_link(r, n, false), ref = any_link(r, n, true);
	bool tiers = false, sim = pmb_context_sim(c);
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
	bool na_note = false;
	for (int e = 0; e < c->plan.nev && t.ncol < MAXCOL - 3; e++) {
		if (c->event_group[e] < 0 && !shown_absent(c, e)) {
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

		pmb__t_add_row(&t);
		if (x->repetition)
			pmb__t_set(&t, k++, "%s #%d", x->inst->name, x->repetition + 1);
		else
			pmb__t_set(&t, k++, "%s", x->inst->name);
		if (tiers)
			pmb__t_set(&t, k++, "%s", x->inst->tier);
		if (x->status) {
			/* The reason goes under the table: a long one would widen
			 * a column for every row, or be cut. */
			pmb__t_set(&t, k, "%s", x->status == PMB_ESKIPPED ? "skipped *" : "FAILED *");
			continue;
		}
		if (!sim) {
			pmb__fmt_figure(b, sizeof(b), &x->time, true);
			pmb__t_set(&t, k++, "%s", b);
			double m = x->time.s.median;
			if (x->time.valid && !x->time.below_resolution && m > 0 && isfinite(x->time.s.ci_lo))
				pmb__t_set(&t, k, "%.1f%%", (x->time.s.ci_hi - x->time.s.ci_lo) / 2 / m * 100);
			k++;
			if (x->time.below_resolution)
				snprintf(b, sizeof(b), "~0");
			else
				pmb__fmt_time(b, sizeof(b), x->time.s.mean);
			pmb__t_set(&t, k++, "%s", b);
			if (x->time.s.min < x->time.resolution)
				snprintf(b, sizeof(b), "< res");
			else
				pmb__fmt_time(b, sizeof(b), x->time.s.min);
			pmb__t_set(&t, k++, "%s", b);
			if (norm) {
				pmb__fmt_time(b, sizeof(b), x->time.normalized);
				pmb__t_set(&t, k++, "%s", b);
			}
			if (ref) {
				if (isfinite(x->time.ratio)) {
					pmb__fmt_ratio(b, sizeof(b), x->time.ratio, x->time.ratio_lo, x->time.ratio_hi);
					pmb__t_set(&t, k, "%s", b);
				}
				k++;
			}
			if (!c->has_cycles) {
				pmb__fmt_figure(b, sizeof(b), &x->est_cycles, false);
				pmb__t_set(&t, k++, "%s", b);
			}
		}
		for (int e = 0; e < c->plan.nev; e++) {
			if (col_ev[e] < 0)
				continue;
			if (c->event_group[e] < 0) {
				pmb__t_set(&t, col_ev[e], "n/a +");
				k = col_ev[e] + 1;
				na_note = true;
				continue;
			}
			pmb__fmt_figure(b, sizeof(b), &x->ev[e], false);
			pmb__t_set(&t, col_ev[e], "%s", b);
			k = col_ev[e] + 1;
		}
		for (int d = 0; d < c->plan.nder; d++) {
			if (col_der[d] < 0)
				continue;
			pmb__fmt_num(b, sizeof(b), x->derived[d]);
			pmb__t_set(&t, col_der[d], "%s", b);
			k = col_der[d] + 1;
		}
		if (sim && ref) {
			/* Under simulation the first event stands for the cost. */
			if (c->plan.nev && isfinite(x->ev[0].ratio)) {
				pmb__fmt_ratio(b, sizeof(b), x->ev[0].ratio, x->ev[0].ratio_lo, x->ev[0].ratio_hi);
				pmb__t_set(&t, k, "%s", b);
			}
			k++;
		}
		if (!sim) {
			pmb__fmt_num(b, sizeof(b), x->items_per_second);
			pmb__t_set(&t, k++, "%s", b);
		}
		if (col_bytes >= 0) {
			if (x->bytes_per_pass && isfinite(x->bytes_per_second)) {
				pmb__fmt_num(b, sizeof(b), x->bytes_per_second);
				pmb__t_set(&t, col_bytes, "%sB", b);
			}
			k = col_bytes + 1;
		}
		if (col_rep >= 0) {
			if (isfinite(x->rep_spread))
				pmb__t_set(&t, col_rep, "%.1f%%", x->rep_spread * 100);
			k = col_rep + 1;
		}
		pmb__t_set(&t, k++, "%zu", x->nsamples);
		uint64_t passes = 0;
		for (size_t q = 0; q < x->nsamples; q++)
			passes += x->samples[q].passes;
		if (passes < 10000)
			snprintf(b, sizeof(b), "%llu", (unsigned long long)passes);
		else
			pmb__fmt_num(b, sizeof(b), (double)passes);
		pmb__t_set(&t, k++, "%s", b);
	}
	pmb__t_print(f, &t);
	for (size_t i = 0; i < n; i++) {
		if (r[i].status) {
			char rep[16] = "";

			if (r[i].repetition)
				snprintf(rep, sizeof(rep), " #%d", r[i].repetition + 1);
			fprintf(f, "* %s%s %s: %s\n", r[i].inst->name, rep,
				r[i].status == PMB_ESKIPPED ? "skipped" : "FAILED", r[i].reason);
		}
	}
	for (int e = 0; na_note && e < c->plan.nev; e++)
		if (col_ev[e] >= 0 && c->event_group[e] < 0)
			fprintf(f, "+ %s n/a: %s\n", c->plan.ev[e].name, c->event_why[e]);
	if (!sim && !c->has_cycles)
		fprintf(f, "est.cycles: ESTIMATED as ns/item x %.2f GHz (no cycles counter)\n", c->ghz);
}

int pmb_report_text(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	header(f, c);
	main_table(f, c, r, n);
	pmb__report_sweeps(f, c, r, n);
	pmb__report_branch_studies(f, c, r, n);
	return ferror(f) ? -EIO : 0;
}
