/* report_text.c - the console report: header, main table, notes under it; then the studies (report_study.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "report.h"
#include "report_fmt.h"
#include "report_study.h"

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

static int main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct pmb__table t = { 0 };
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
			t.head[t.ncol++] = "ratio [95% CI]";
		if (!c->has_cycles)
			t.head[t.ncol++] = "est.cycles";
	}
	bool na_note = false;
	for (int e = 0; e < c->plan.nev && t.ncol < PMB_TABLE_MAXCOL - 3; e++) {
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
		col_der[k] = any && t.ncol < PMB_TABLE_MAXCOL - 4 ? t.ncol : -1;
		if (col_der[k] >= 0) {
			snprintf(dhead[k], sizeof(dhead[k]), "%s%s", c->plan.der[k].name, sim ? " (sim)" : "");
			t.head[t.ncol++] = dhead[k];
		}
	}
	if (sim && ref)
		t.head[t.ncol++] = "ratio [95% CI]";
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

		pmb__table_add_row(&t);
		if (x->repetition)
			pmb__table_set(&t, k++, "%s #%d", x->inst->name, x->repetition + 1);
		else
			pmb__table_set(&t, k++, "%s", x->inst->name);
		if (tiers)
			pmb__table_set(&t, k++, "%s", x->inst->tier);
		if (x->status) {
			/* The reason goes under the table: a long one would widen
			 * a column for every row, or be cut. */
			pmb__table_set(&t, k, "%s", x->status == PMB_ESKIPPED ? "skipped *" : "FAILED *");
			continue;
		}
		if (!sim) {
			pmb__fmt_figure(b, sizeof(b), &x->time, true);
			pmb__table_set(&t, k++, "%s", b);
			double m = x->time.s.median;
			if (x->time.valid && !x->time.below_resolution && m > 0 && isfinite(x->time.s.ci_lo))
				pmb__table_set(&t, k, "%.1f%%", (x->time.s.ci_hi - x->time.s.ci_lo) / 2 / m * 100);
			k++;
			if (x->time.below_resolution)
				snprintf(b, sizeof(b), "~0");
			else
				pmb__fmt_time(b, sizeof(b), x->time.s.mean);
			pmb__table_set(&t, k++, "%s", b);
			if (x->time.s.min < x->time.resolution)
				snprintf(b, sizeof(b), "< res");
			else
				pmb__fmt_time(b, sizeof(b), x->time.s.min);
			pmb__table_set(&t, k++, "%s", b);
			if (norm) {
				pmb__fmt_time(b, sizeof(b), x->time.normalized);
				pmb__table_set(&t, k++, "%s", b);
			}
			if (ref) {
				if (isfinite(x->time.ratio)) {
					pmb__fmt_ratio(b, sizeof(b), x->time.ratio, x->time.ratio_lo, x->time.ratio_hi);
					pmb__table_set(&t, k, "%s", b);
				}
				k++;
			}
			if (!c->has_cycles) {
				pmb__fmt_figure(b, sizeof(b), &x->est_cycles, false);
				pmb__table_set(&t, k++, "%s", b);
			}
		}
		for (int e = 0; e < c->plan.nev; e++) {
			if (col_ev[e] < 0)
				continue;
			if (c->event_group[e] < 0) {
				pmb__table_set(&t, col_ev[e], "n/a +");
				k = col_ev[e] + 1;
				na_note = true;
				continue;
			}
			pmb__fmt_figure(b, sizeof(b), &x->ev[e], false);
			pmb__table_set(&t, col_ev[e], "%s", b);
			k = col_ev[e] + 1;
		}
		for (int d = 0; d < c->plan.nder; d++) {
			if (col_der[d] < 0)
				continue;
			pmb__fmt_num(b, sizeof(b), x->derived[d]);
			pmb__table_set(&t, col_der[d], "%s", b);
			k = col_der[d] + 1;
		}
		if (sim && ref) {
			/* Under simulation the first event stands for the cost. */
			if (c->plan.nev && isfinite(x->ev[0].ratio)) {
				pmb__fmt_ratio(b, sizeof(b), x->ev[0].ratio, x->ev[0].ratio_lo, x->ev[0].ratio_hi);
				pmb__table_set(&t, k, "%s", b);
			}
			k++;
		}
		if (!sim) {
			pmb__fmt_num(b, sizeof(b), x->items_per_second);
			pmb__table_set(&t, k++, "%s", b);
		}
		if (col_bytes >= 0) {
			if (x->bytes_per_pass && isfinite(x->bytes_per_second)) {
				pmb__fmt_num(b, sizeof(b), x->bytes_per_second);
				pmb__table_set(&t, col_bytes, "%sB", b);
			}
			k = col_bytes + 1;
		}
		if (col_rep >= 0) {
			if (isfinite(x->rep_spread))
				pmb__table_set(&t, col_rep, "%.1f%%", x->rep_spread * 100);
			k = col_rep + 1;
		}
		pmb__table_set(&t, k++, "%zu", x->nsamples);
		uint64_t passes = 0;
		for (size_t q = 0; q < x->nsamples; q++)
			passes += x->samples[q].passes;
		if (passes < 10000)
			snprintf(b, sizeof(b), "%llu", (unsigned long long)passes);
		else
			pmb__fmt_num(b, sizeof(b), (double)passes);
		pmb__table_set(&t, k++, "%s", b);
	}
	int err = pmb__table_print(f, &t);

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
	return err;
}

int pmb_report_text(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int err, study_err;

	/* A table that lost rows to memory still prints what it has, and
	 * the rest of the report follows; the error is returned at the end. */
	header(f, c);
	err = main_table(f, c, r, n);
	pmb__report_sweeps(f, c, r, n);
	study_err = pmb__report_branch_studies(f, c, r, n);
	if (!err)
		err = study_err;
	return err ? err : ferror(f) ? -EIO : 0;
}
