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

/* What the harness costs, subtracted from every figure.  Counters read
 * from user space are read inside the timed sample, so their reads are
 * part of the per-sample overhead; read()'s system calls fall outside it. */
static void overhead_line(FILE *f, const struct pmb_context *c)
{
	int ins = pmb__context_event(c, "instructions");
	char per[48] = "";

	if (pmb_context_sim(c)) {
		fprintf(f, "harness overhead (the empty loop, simulated the same way) subtracted from "
			"every event; figures are per item\n\n");
		return;
	}
	if (ins >= 0 && c->overhead.ev_valid[ins])
		snprintf(per, sizeof(per), " (%.0f instructions)", c->overhead.ev_per_sample[ins]);
	fprintf(f, "harness overhead subtracted: %.3f ns per pass, %.0f ns per sample%s%s; "
		"figures are per item: medians of each benchmark's samples\n\n",
		c->overhead.ns_per_pass, c->overhead.ns_per_sample, per,
		strcmp(c->read_path, "self") ? "" : ", counter reads included (from user space they lie "
		"inside the timed sample)");
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
	overhead_line(f, c);
}

/* Where the main table's columns sit: the flags that choose them, and the
 * per-event, derived, bytes and repetition columns (-1: not shown).  The
 * headers of event and derived columns live here, so it must outlive the
 * table's print. */
struct main_layout {
	bool sim, tiers, norm, ref, reps, bytes;
	bool raw;                    /* a ratio is of normalized figures: the raw one beside it */
	bool fixed;                  /* a row's fixed cost per sample is flagged */
	bool na_note;                /* a row showed an n/a event column */
	int col_ev[PMB_MAX_EVENTS];
	int col_der[PMB_MAX_DERIVED];
	int col_bytes, col_rep;
	char ehead[PMB_MAX_EVENTS][48];
	char dhead[PMB_MAX_DERIVED][48];
};

/* The figure that stands for a row's cost: time, or under simulation the
 * instructions (the first event where none are counted). */
static const struct pmb_figure *cost_figure(const struct pmb_context *c, const struct pmb_result *r)
{
	return pmb__cost_figure(c, r, pmb__context_event(c, "instructions"));
}

/* "v [lo, hi]" in v's unit (time) or as numbers; the reason where v is
 * not given; "" where there is neither. */
static void fmt_with_ci(char *b, size_t n, double v, double lo, double hi, const char *why, bool time)
{
	char x[3][24];
	double f[3] = { v, lo, hi };

	b[0] = 0;
	if (!isfinite(v)) {
		snprintf(b, n, "%s", why ? why : "");
		return;
	}
	for (int k = 0; k < 3; k++)
		if (time)
			pmb__fmt_time(x[k], sizeof(x[k]), f[k]);
		else
			pmb__fmt_num(x[k], sizeof(x[k]), f[k]);
	if (isfinite(lo) && isfinite(hi))
		snprintf(b, n, "%s [%s, %s]", x[0], x[1], x[2]);
	else
		snprintf(b, n, "%s", x[0]);
}

/* The columns of baselines and references: normalized, ratio, and the raw
 * ratio beside a normalized one. */
static void link_columns(struct pmb__table *t, const struct main_layout *m)
{
	if (m->norm)
		t->head[t->ncol++] = m->sim ? "normalized (sim) [95% CI]" : "normalized [95% CI]";
	if (m->ref)
		t->head[t->ncol++] = "ratio [95% CI]";
	if (m->ref && m->raw)
		t->head[t->ncol++] = "raw ratio [95% CI]";
}

/* A row's link cells from column k on; returns the column after them. */
static int link_cells(struct pmb__table *t, const struct main_layout *m, const struct pmb_figure *f, int k)
{
	char b[80];

	if (m->norm) {
		fmt_with_ci(b, sizeof(b), f->normalized, f->normalized_lo, f->normalized_hi, f->normalized_why,
			    !m->sim);
		pmb__table_set(t, k++, "%s", b);
	}
	if (m->ref) {
		if (isfinite(f->ratio))
			pmb__fmt_ratio(b, sizeof(b), f->ratio, f->ratio_lo, f->ratio_hi);
		else
			snprintf(b, sizeof(b), "%s", f->ratio_why ? f->ratio_why : "");
		pmb__table_set(t, k++, "%s", b);
	}
	if (m->ref && m->raw) {
		if (isfinite(f->raw_ratio))
			pmb__fmt_ratio(b, sizeof(b), f->raw_ratio, f->raw_ratio_lo, f->raw_ratio_hi);
		else
			snprintf(b, sizeof(b), "%s", f->raw_ratio_why ? f->raw_ratio_why : "");
		pmb__table_set(t, k++, "%s", b);
	}
	return k;
}

static void layout_scan(struct main_layout *m, const struct pmb_context *c, const struct pmb_result *r,
			size_t n)
{
	m->sim = pmb_context_sim(c);
	m->norm = any_link(r, n, false);
	m->ref = any_link(r, n, true);
	for (size_t i = 0; i < n; i++) {
		m->tiers |= r[i].inst->tier[0] != 0;
		m->reps |= r[i].repetition > 0;
		m->bytes |= r[i].bytes_per_pass > 0;
		if (r[i].status)
			continue;
		const struct pmb_figure *f = cost_figure(c, &r[i]);
		m->raw |= f->ratio_normalized && r[i].inst->reference >= 0;
		m->fixed |= f->fixed_flagged;
	}
}

/* The measured-time columns: none under simulation, where nothing is timed. */
static void time_columns(struct pmb__table *t, const struct pmb_context *c, const struct main_layout *m)
{
	if (m->sim)
		return;
	t->head[t->ncol++] = "ns/item";
	t->head[t->ncol++] = "+/-95%";
	t->head[t->ncol++] = "mean";
	t->head[t->ncol++] = "min";
	link_columns(t, m);
	if (!c->has_cycles)
		t->head[t->ncol++] = "est.cycles";
}

/* A column per event that counts or is shown absent, and per derived
 * metric that has a figure in some row, while the table has room for them
 * and the columns after them. */
static void count_columns(struct pmb__table *t, const struct pmb_context *c, struct main_layout *m,
			  const struct pmb_result *r, size_t n)
{
	const char *sim = m->sim ? " (sim)" : "";

	for (int e = 0; e < c->plan.nev; e++) {
		m->col_ev[e] = -1;
		if (t->ncol >= PMB_TABLE_MAXCOL - 3 || (c->event_group[e] < 0 && !pmb_context_absent_shown(c, e)))
			continue;
		snprintf(m->ehead[e], sizeof(m->ehead[e]), "%s%s", c->plan.ev[e].name, sim);
		m->col_ev[e] = t->ncol;
		t->head[t->ncol++] = m->ehead[e];
	}
	for (int k = 0; k < c->plan.nder; k++) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= !r[i].status && isfinite(r[i].derived[k]);
		m->col_der[k] = any && t->ncol < PMB_TABLE_MAXCOL - 4 ? t->ncol : -1;
		if (m->col_der[k] >= 0) {
			snprintf(m->dhead[k], sizeof(m->dhead[k]), "%s%s", c->plan.der[k].name, sim);
			t->head[t->ncol++] = m->dhead[k];
		}
	}
}

static void main_columns(struct pmb__table *t, const struct pmb_context *c, struct main_layout *m,
			 const struct pmb_result *r, size_t n)
{
	layout_scan(m, c, r, n);
	t->head[t->ncol] = "benchmark", t->left[t->ncol++] = true;
	if (m->tiers)
		t->head[t->ncol] = "tier", t->left[t->ncol++] = true;
	time_columns(t, c, m);
	count_columns(t, c, m, r, n);
	if (m->sim)
		link_columns(t, m);
	if (!m->sim)
		t->head[t->ncol++] = "items/s";
	m->col_bytes = -1;
	if (!m->sim && m->bytes) {
		m->col_bytes = t->ncol;
		t->head[t->ncol++] = "bytes/s";
	}
	if (m->fixed)
		t->head[t->ncol++] = m->sim ? "fixed/sample (sim) [95% CI]" : "fixed/sample [95% CI]";
	m->col_rep = -1;
	if (m->reps) {
		m->col_rep = t->ncol;
		t->head[t->ncol++] = "rep.spread";
	}
	t->head[t->ncol++] = "samples";
	t->head[t->ncol++] = "passes";
}

/* A row's time cells from column k on; returns the column after them. */
static int time_cells(struct pmb__table *t, const struct pmb_context *c, const struct main_layout *m,
		      const struct pmb_result *x, int k)
{
	const struct pmb_figure *tm = &x->time;
	double med = tm->s.median;
	char b[40];

	pmb__fmt_figure(b, sizeof(b), tm, true);
	pmb__table_set(t, k++, "%s", b);
	if (tm->valid && !tm->below_resolution && med > 0 && isfinite(tm->s.ci_lo))
		pmb__table_set(t, k, "%.1f%%", (tm->s.ci_hi - tm->s.ci_lo) / 2 / med * 100);
	k++;
	if (tm->below_resolution)
		snprintf(b, sizeof(b), "~0");
	else
		pmb__fmt_time(b, sizeof(b), tm->s.mean);
	pmb__table_set(t, k++, "%s", b);
	if (tm->s.min < tm->resolution)
		snprintf(b, sizeof(b), "< res");
	else
		pmb__fmt_time(b, sizeof(b), tm->s.min);
	pmb__table_set(t, k++, "%s", b);
	k = link_cells(t, m, tm, k);
	if (!c->has_cycles) {
		pmb__fmt_figure(b, sizeof(b), &x->est_cycles, false);
		pmb__table_set(t, k++, "%s", b);
	}
	return k;
}

/* A row's event and derived cells, and under simulation its ratio; returns
 * the column after them. */
static int count_cells(struct pmb__table *t, const struct pmb_context *c, struct main_layout *m,
		       const struct pmb_result *x, int k)
{
	char b[40];

	for (int e = 0; e < c->plan.nev; e++) {
		if (m->col_ev[e] < 0)
			continue;
		k = m->col_ev[e] + 1;
		if (c->event_group[e] < 0) {
			pmb__table_set(t, m->col_ev[e], "n/a +");
			m->na_note = true;
			continue;
		}
		pmb__fmt_figure(b, sizeof(b), &x->ev[e], false);
		pmb__table_set(t, m->col_ev[e], "%s", b);
	}
	for (int d = 0; d < c->plan.nder; d++) {
		if (m->col_der[d] < 0)
			continue;
		pmb__fmt_num(b, sizeof(b), x->derived[d]);
		pmb__table_set(t, m->col_der[d], "%s", b);
		k = m->col_der[d] + 1;
	}
	/* Under simulation the instructions stand for the cost. */
	if (m->sim)
		k = link_cells(t, m, cost_figure(c, x), k);
	return k;
}

/* A row's rates, repetition spread, samples and passes from column k on. */
static void tail_cells(struct pmb__table *t, const struct pmb_context *c, const struct main_layout *m,
		       const struct pmb_result *x, int k)
{
	uint64_t passes = 0;
	char b[40];

	if (!m->sim) {
		pmb__fmt_num(b, sizeof(b), x->items_per_second);
		pmb__table_set(t, k++, "%s", b);
	}
	if (m->fixed) {
		const struct pmb_figure *f = cost_figure(c, x);

		if (f->fixed_flagged)
			fmt_with_ci(b, sizeof(b), f->fixed, f->fixed_lo, f->fixed_hi, NULL, !m->sim);
		pmb__table_set(t, k++, "%s", f->fixed_flagged ? b : "");
		k = m->col_bytes >= 0 ? m->col_bytes : k;
	}
	if (m->col_bytes >= 0) {
		if (x->bytes_per_pass && isfinite(x->bytes_per_second)) {
			pmb__fmt_num(b, sizeof(b), x->bytes_per_second);
			pmb__table_set(t, m->col_bytes, "%sB", b);
		}
		k = m->col_bytes + 1;
	}
	if (m->col_rep >= 0) {
		if (isfinite(x->rep_spread))
			pmb__table_set(t, m->col_rep, "%.1f%%", x->rep_spread * 100);
		k = m->col_rep + 1;
	}
	pmb__table_set(t, k++, "%zu", x->nsamples);
	for (size_t q = 0; q < x->nsamples; q++)
		passes += x->samples[q].passes;
	if (passes < 10000)
		snprintf(b, sizeof(b), "%llu", (unsigned long long)passes);
	else
		pmb__fmt_num(b, sizeof(b), (double)passes);
	pmb__table_set(t, k, "%s", b);
}

static void main_row(struct pmb__table *t, const struct pmb_context *c, struct main_layout *m,
		     const struct pmb_result *x)
{
	int k = 0;

	pmb__table_add_row(t);
	if (x->repetition)
		pmb__table_set(t, k++, "%s #%d", x->inst->name, x->repetition + 1);
	else
		pmb__table_set(t, k++, "%s", x->inst->name);
	if (m->tiers)
		pmb__table_set(t, k++, "%s", x->inst->tier);
	if (x->status) {
		/* The reason goes under the table: a long one would widen a
		 * column for every row, or be cut. */
		pmb__table_set(t, k, "%s", x->status == PMB_ESKIPPED ? "skipped *" : "FAILED *");
		return;
	}
	if (!m->sim)
		k = time_cells(t, c, m, x, k);
	k = count_cells(t, c, m, x, k);
	tail_cells(t, c, m, x, k);
}

/* Under the table: why rows failed or were skipped, why events show n/a,
 * and how cycles were estimated. */
static void main_notes(FILE *f, const struct pmb_context *c, const struct main_layout *m,
		       const struct pmb_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char rep[16] = "";

		if (!r[i].status)
			continue;
		if (r[i].repetition)
			snprintf(rep, sizeof(rep), " #%d", r[i].repetition + 1);
		fprintf(f, "* %s%s %s: %s\n", r[i].inst->name, rep,
			r[i].status == PMB_ESKIPPED ? "skipped" : "FAILED", r[i].reason);
	}
	for (int e = 0; m->na_note && e < c->plan.nev; e++)
		if (m->col_ev[e] >= 0 && c->event_group[e] < 0)
			fprintf(f, "+ %s n/a: %s\n", c->plan.ev[e].name, c->event_why[e]);
	if (!m->sim && !c->has_cycles)
		fprintf(f, "est.cycles: ESTIMATED as ns/item x %.2f GHz (no cycles counter)\n", c->ghz);
}

static int main_table(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	struct pmb__table t = { 0 };
	struct main_layout m = { 0 };
	int err;

	main_columns(&t, c, &m, r, n);
	for (size_t i = 0; i < n; i++)
		main_row(&t, c, &m, &r[i]);
	err = pmb__table_print(f, &t);
	main_notes(f, c, &m, r, n);
	return err;
}

int pmb__report_text(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int err, study_err;

	/* A table that lost rows to memory still prints what it has, and
	 * the rest of the report follows; the error is returned at the end. */
	header(f, c);
	if (c->incomplete[0])
		fprintf(f, "INCOMPLETE: %s\n", c->incomplete);
	err = main_table(f, c, r, n);
	pmb__report_sweeps(f, c, r, n);
	study_err = pmb__report_branch_studies(f, c, r, n);
	pmb__report_disasm(f, r, n);
	if (!err)
		err = study_err;
	return err ? err : ferror(f) ? -EIO : 0;
}
