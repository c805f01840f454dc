/* test_report.c - the console report on constructed results: every blank or n/a cell has a footnote with its reason, the reference row reads 1.00, counters that carry nothing stay out, no line is wider than the width. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tap.h"

static struct pmb_benchmark_def def = { .name = "x" };

#define NB 8

struct world {
	struct pmb_context ctx;
	struct pmb_instance in[NB];
	struct pmb_result r[NB];
};

/* A resolved per-item figure: median m, 95 % interval m +/- 5 %. */
static void fig(struct pmb_figure *f, double m)
{
	memset(f, 0, sizeof(*f));
	f->valid = true;
	f->resolution = 0.01;
	f->s.median = f->s.mean = f->s.min = m;
	f->s.ci_lo = m * 0.95, f->s.ci_hi = m * 1.05;
	f->normalized = f->ratio = f->ratio_lo = f->ratio_hi = NAN;
}

static void bench(struct world *w, int i, const char *name, int reference, double ns)
{
	struct pmb_instance *in = &w->in[i];
	struct pmb_result *r = &w->r[i];

	memset(in, 0, sizeof(*in));
	in->def = &def;
	snprintf(in->name, sizeof(in->name), "%s", name);
	snprintf(in->family, sizeof(in->family), "%s", name);
	in->baseline = -1;
	in->reference = reference;
	memset(r, 0, sizeof(*r));
	r->m.inst = in;
	fig(&r->f.time, ns);
	fig(&r->f.est_cycles, 3 * ns);
	r->f.est_cycles.estimated = true;
	fig(&r->f.ev[0], ns);     /* task-clock: the time again */
	fig(&r->f.ev[1], 0);      /* page-faults: none */
	r->f.ev[1].below_resolution = true;
	/* faults_ratio as the analysis gives it: page-faults below
	 * resolution (0.01) over task-clock (ns per item): at most 0.01 / ns */
	r->f.derived[0] = 1.5;
	r->f.derived_given[0] = PMB_DERIVED_BOUND;
	r->f.derived_bound[0] = 0.01 / ns;
	r->f.items_per_second = 1e9 / ns;
	r->f.rep_spread = NAN;
}

/* Eight benchmarks, one per reason a cell is blank, on a machine without
 * a PMU: time, software counters, an event not counted, estimated cycles. */
static void build(struct world *w)
{
	struct pmb_context *c = &w->ctx;

	memset(w, 0, sizeof(*w));
	c->m.backend = PMB_BACKEND_PERF;
	c->m.ghz = 3;
	c->f.est_ghz = 3; /* the analysis's: cycles estimated at the probe's 3 GHz (est_cycles) */
	c->m.repetitions = 1;
	c->m.clock.resolution_ns = 10;
	c->m.clock.source = "CLOCK_MONOTONIC";
	c->m.plan.nev = 3;
	snprintf(c->m.plan.ev[0].name, 64, "task-clock");
	snprintf(c->m.plan.ev[0].encoding, 192, "perf::PERF_COUNT_SW_TASK_CLOCK");
	snprintf(c->m.plan.ev[1].name, 64, "page-faults");
	snprintf(c->m.plan.ev[1].encoding, 192, "perf::PERF_COUNT_SW_PAGE_FAULTS");
	snprintf(c->m.plan.ev[2].name, 64, "alignment-faults");
	for (int e = 0; e < 3; e++)
		c->m.plan.ev[e].kind = PMB_EV_SW;
	c->m.event_group[2] = -1;
	snprintf(c->m.event_why[2], sizeof(c->m.event_why[2]), "the kernel refused it (EINVAL)");
	c->m.plan.nder = 1;
	snprintf(c->m.plan.der[0].name, 32, "faults_ratio");
	c->m.plan.der[0].num = 1, c->m.plan.der[0].den = 0, c->m.plan.der[0].scale = 1;

	bench(w, 0, "t/zero", -1, 0.05);
	w->r[0].f.time.below_resolution = true;
	w->r[0].f.time.resolution = 0.2;
	bench(w, 1, "t/over_zero", 0, 5);
	bench(w, 2, "t/base", -1, 10);
	bench(w, 3, "t/half", 2, 5);
	w->r[3].f.time.ratio = 0.5, w->r[3].f.time.ratio_lo = 0.45, w->r[3].f.time.ratio_hi = 0.55;
	w->in[3].baseline = 0;         /* an additive baseline too */
	w->r[3].f.time.normalized = 2.5;
	bench(w, 4, "t/plain", -1, 7);
	w->r[4].f.derived[0] = NAN;
	w->r[4].f.derived_given[0] = PMB_DERIVED_NONE;
	bench(w, 5, "t/skipped", -1, 1);
	w->r[5].m.status = PMB_ESKIPPED;
	snprintf(w->r[5].m.reason, sizeof(w->r[5].m.reason), "needs two cores");
	bench(w, 6, "t/few", 2, 3);
	w->r[6].f.time.s.ci_lo = w->r[6].f.time.s.ci_hi = NAN;
	bench(w, 7, "t/unresolved", 6, 4);
	w->r[7].f.derived_given[0] = PMB_DERIVED_DEN_LOW; /* task-clock at its resolution */
	/* Fixed costs per sample: one flagged (30 % of a sample), one
	 * resolved under the flag's 5 %, the others none resolved. */
	w->r[4].f.time.fixed = 2000, w->r[4].f.time.fixed_lo = 1900, w->r[4].f.time.fixed_hi = 2100;
	w->r[4].f.time.fixed_share = 0.3, w->r[4].f.time.fixed_flagged = true;
	w->r[1].f.time.fixed = 50, w->r[1].f.time.fixed_lo = 48, w->r[1].f.time.fixed_hi = 52;
	w->r[1].f.time.fixed_share = 0.01;
	w->ctx.view.width = 200;
}

/* The report as text. */
static char *report(const struct world *w)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	pmb__report_text(f, &w->ctx, w->r, NB);
	fclose(f);
	return text;
}

/* The line that starts with `start` (NULL none), copied into line. */
static bool line_of(const char *text, const char *start, char *line, size_t n)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, start, strlen(start))) {
			snprintf(line, n, "%.*s", (int)strcspn(p, "\n"), p);
			return true;
		}
	return false;
}

/* The footnote mark of the note that reads `reason` ("" none).  A note
 * may wrap: the reason is looked for from its first line on. */
static const char *mark_of(const char *text, const char *reason)
{
	static char mark[16];
	const char *p = strstr(text, reason);

	mark[0] = 0;
	if (!p)
		return mark;
	while (p > text && p[-1] != '\n')
		p--;
	snprintf(mark, sizeof(mark), "%.*s", (int)strcspn(p, " "), p);
	return mark;
}

/* Whether row `name` has a cell `cell` followed by mark (a blank with its
 * reason), standing alone between column gaps. */
static bool cell_marked(const char *text, const char *name, const char *cell, const char *reason)
{
	char row[1024], want[64];
	const char *mark = mark_of(text, reason);

	if (!mark[0] || !line_of(text, name, row, sizeof(row)))
		return false;
	snprintf(want, sizeof(want), " %s%s", cell, mark);
	return strstr(row, want) != NULL;
}

static bool trailing_space(const char *text)
{
	return strstr(text, " \n") != NULL;
}

static size_t widest(const char *text)
{
	size_t w = 0, k = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			w = k > w ? k : w;
			k = 0;
		} else {
			k += ((unsigned char)*p & 0xc0) != 0x80;
		}
	}
	return k > w ? k : w;
}

static void footnotes(void)
{
	static struct world w;
	char row[1024];
	char *t;

	build(&w);
	t = report(&w);
	if (getenv("PMB_TEST_SHOW"))
		fputs(t, stderr);
	tap_ok(cell_marked(t, "t/over_zero ", "n/a", "ratio×: its reference's ns/item is below resolution"),
	       "a ratio over a reference below resolution is n/a, with the reason");
	tap_ok(cell_marked(t, "t/unresolved ", "n/a", "ratio×: its 95 % interval reaches zero"),
	       "a ratio whose interval reaches zero is n/a, with the reason");
	tap_ok(cell_marked(t, "t/plain ", "-", "ratio×: no .reference for this benchmark"),
	       "a benchmark without a reference has a marked blank ratio");
	tap_ok(line_of(t, "t/base ", row, sizeof(row)) && strstr(row, " 1.00 (reference)"),
	       "the reference row reads 1.00 (%s)", row);
	tap_ok(line_of(t, "t/half ", row, sizeof(row)) && strstr(row, " 0.50 [0.45, 0.55] of base"),
	       "a ratio names its reference, as seen from the row (%s)", row);
	tap_ok(cell_marked(t, "t/zero ", "-", "±%: no interval around a figure below resolution") &&
		       line_of(t, "t/zero ", row, sizeof(row)) && strstr(row, " < 0.2 "),
	       "a time below resolution reads < 0.2 and its interval is a marked blank");
	tap_ok(cell_marked(t, "t/few ", "-", "±%: fewer than 3 samples, no interval"),
	       "no interval from too few samples: a marked blank");
	tap_ok(line_of(t, "t/plain ", row, sizeof(row)) && strstr(row, " 2 [1.9, 2.1] "),
	       "a flagged fixed cost reads in µs with its interval (%s)", row);
	tap_ok(line_of(t, "t/over_zero ", row, sizeof(row)) && strstr(row, " 0.05 [0.048, 0.052] "),
	       "a resolved fixed cost under the flag's share is shown too (%s)", row);
	tap_ok(cell_marked(t, "t/base ", "-", "fixed/sample: none resolved (its interval reaches 0, or it is "
			   "under 10 steps of the clock)"),
	       "no fixed cost resolved: a marked blank with the reason");
	tap_ok(cell_marked(t, "t/skipped ", "skipped", "t/skipped skipped: needs two cores"),
	       "a skipped row says so, with its reason under the table");
	tap_ok(cell_marked(t, "t/plain ", "n/a", "alignment-faults not counted: the kernel refused it (EINVAL)"),
	       "an event not counted is n/a with the kernel's reason");
	tap_ok(cell_marked(t, "t/plain ", "-", "faults %: not computable"),
	       "a derived figure that cannot be computed is a marked blank");
	tap_ok(line_of(t, "t/half ", row, sizeof(row)) && strstr(row, " 2.500 ") &&
		       cell_marked(t, "t/plain ", "-", "norm: no .baseline for this benchmark") &&
		       strstr(t, "norm: ns/item less its .baseline's"),
	       "a benchmark with a baseline has its normalized figure, one without a marked blank");
	/* page-faults (below resolution, 0.01) over task-clock (10 per item)
	 * in %: the bound 0.1, not the noise under it. */
	tap_ok(line_of(t, "t/base ", row, sizeof(row)) && strstr(row, " < 0.1 "),
	       "a derived figure over a numerator below resolution reads as its bound (%s)", row);
	tap_ok(cell_marked(t, "t/unresolved ", "-", "faults %: its denominator (task-clock) is below resolution"),
	       "a derived figure over a denominator at its resolution is a marked blank");
	tap_ok(strstr(t, "legend: ") && strstr(t, "ns/item: median time per item") && strstr(t, "±%: half the 95 %") &&
		       strstr(t, "est.cyc: cycles ESTIMATED as ns/item × 3.00 GHz") && strstr(t, "X: below what the measurement resolves"),
	       "the legend explains every header and the < X cells");
	/* Counters nobody asked for that carry nothing: out of the table. */
	tap_ok(!strstr(t, "task-clock/item") && !strstr(t, "page-faults/item") &&
		       strstr(t, "task-clock (repeats ns/item)") &&
		       strstr(t, "page-faults (zero or below resolution in every row)"),
	       "task-clock and page-faults, not asked for, are left out and named");
	free(t);
	w.ctx.m.counters_given = true;
	t = report(&w);
	tap_ok(strstr(t, "task-clock/item") && strstr(t, "page-faults/item"),
	       "the same counters asked for with --counters are shown");
	free(t);
}

static void widths(void)
{
	static struct world w;
	static const int width[] = { 80, 100, 120, 200 };
	char *t;

	build(&w);
	for (size_t i = 0; i < sizeof(width) / sizeof(width[0]); i++) {
		w.ctx.view.width = width[i];
		t = report(&w);
		tap_ok(widest(t) <= (size_t)width[i], "at %d columns no line is wider (widest %zu)", width[i],
		       widest(t));
		tap_ok(!trailing_space(t), "at %d columns no line ends in a space", width[i]);
		tap_ok(strstr(t, "ratio×") && strstr(t, "est.cyc/item"), "at %d columns the ratio and cycles are "
		       "in a table", width[i]);
		free(t);
	}
	w.ctx.view.width = 80;
	w.ctx.view.wide = true;
	t = report(&w);
	tap_ok(widest(t) > 80 && strstr(t, "outliers") && strstr(t, "total s") && strstr(t, "sd ns"),
	       "--wide gives every column, however wide (widest %zu)", widest(t));
	free(t);
	w.ctx.view.wide = false;
	snprintf(w.ctx.view.columns, sizeof(w.ctx.view.columns), "sd,outliers");
	t = report(&w);
	tap_ok(strstr(t, "benchmark") && strstr(t, "sd ns") && strstr(t, "outliers") && !strstr(t, "ns/item  "),
	       "--columns shows the name and the columns listed");
	free(t);
}

int main(void)
{
	footnotes();
	widths();
	return tap_done();
}
