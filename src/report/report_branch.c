/* report_branch.c - the console report's branch studies, rendered from the figures the analysis made (analyse/analysis_branch.c, struct pmb_branch_figures): branchy against branchless per input, the ratio, the verdict, the penalty. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_fmt.h"
#include "base.h"
#include "report_study.h"

/* The verdict over a study's ranked inputs, as the analysis made it
 * (struct pmb_branch_figures: verdict, from, wins, cross). */
static void verdict(FILE *f, const struct pmb_branch_figures *b)
{
	const char *sep = "; branchy wins at ";

	switch (b->verdict) {
	case PMB_BRANCH_VERDICT_NONE:
	case PMB_BRANCH_NO_DIFFERENCE:
		fprintf(f, "no significant difference at any input");
		return;
	case PMB_BRANCH_LESS_WINS_FROM:
		fprintf(f, "branchless wins from %s on", b->in[b->from].y->args);
		break;
	case PMB_BRANCH_LESS_WINS_ALL:
		fprintf(f, "branchless wins at every input");
		break;
	case PMB_BRANCH_LESS_WINS_SOME:
		fprintf(f, "branchless wins at %d of %d inputs", b->wins, b->ranked);
		break;
	case PMB_BRANCH_LESS_NEVER_WINS:
		fprintf(f, "branchless never wins");
		break;
	}
	for (int k = 0; k < b->ninputs; k++)
		if (b->in[k].ranked && b->in[k].winner < 0) {
			fprintf(f, "%s%s", sep, b->in[k].y->args);
			sep = ", ";
		}
	for (int k = 0; k < b->ncross; k++)
		fprintf(f, "; they cross between %s and %s", b->in[b->cross[k][0]].y->args,
			b->in[b->cross[k][1]].y->args);
}

/* What a study's table says n/a to, for its footnotes. */
struct study_na {
	bool ratio;       /* a ratio cell reads n/a */
	bool sol;         /* a sol cell reads n/a: no sol run at that input */
	bool cost;        /* another cost or cycles cell reads n/a */
};

/* A result's cost figure: time, or under simulation instructions (NULL
 * where there are none). */
static const struct pmb_figure *cost_figure(const struct pmb_branch_events *ev, const struct pmb_result *x)
{
	if (!ev->sim)
		return &x->f.time;
	return ev->ins >= 0 ? &x->f.ev[ev->ins] : NULL;
}

static const struct pmb_figure *cycles_figure(const struct pmb_branch_events *ev, const struct pmb_result *x)
{
	return ev->cyc >= 0 ? &x->f.ev[ev->cyc] : &x->f.est_cycles;
}

/* The headers, each with its unit ("y/l": branchy / branchless); the
 * cycles the study's figures are (b->cycles_counted: counted, else
 * estimated from time). */
static void study_columns(struct pmb__table *t, const struct pmb_branch_figures *b)
{
	bool sim = b->sim;

	t->head[t->ncol] = "input", t->left[t->ncol++] = true;
	t->head[t->ncol++] = sim ? "branchy instr/item" : "branchy ns/item";
	t->head[t->ncol++] = sim ? "branchless instr/item" : "branchless ns/item";
	t->head[t->ncol++] = sim ? "sol instr/item" : "sol ns/item";
	if (!sim)
		t->head[t->ncol++] = b->cycles_counted ? "cycles/item y/l" : "est.cyc/item y/l";
	t->head[t->ncol++] = "misp/item y/l";
	if (!sim) {
		t->head[t->ncol++] = "ratio× l/y";
		t->head[t->ncol++] = "winner";
	}
}

/* What the study's table leaves out for the width, and its legend. */
static void study_notes(FILE *f, const struct pmb_branch_figures *b, struct pmb__table *t,
			const struct pmb_branch_events *ev, const struct study_na *a)
{
	bool est = !ev->sim && !b->cycles_counted;

	for (int k = 0, any = 0; k < t->ncol; k++)
		if (t->hide[k])
			fprintf(f, "%s%s", any++ ? ", " : "  not shown, for the width: ", t->head[k]);
	for (int k = 0; k < t->ncol; k++)
		if (t->hide[k]) {
			fputc('\n', f);
			break;
		}
	fprintf(f, "  legend: y/l: branchy / branchless; sol: speed of light, the plain loop over the same "
		"input; %s%s%s\n", ev->sim ? "counts SIMULATED (no time, so no winner)" :
		"ratio×: branchless ns/item over branchy's, 95 % interval in brackets; a winner where it "
		"excludes 1", est ? "; est.cyc: ESTIMATED from time" : "", ev->bm < 0 ? "; n/a: no "
		"branch-misses counter here" : "");
	if (a->ratio)
		fprintf(f, "  ratio× n/a: branchy's ns/item below resolution, or the interval reaches zero: "
			"no ratio\n");
	if (a->sol)
		fprintf(f, "  sol n/a: no speed-of-light form ran at that input (none defined, filtered out or "
			"skipped)\n");
	if (a->cost)
		fprintf(f, "  n/a in a cost column: %s\n", ev->sim && ev->ins < 0 ?
			"no instructions counted, and simulation has no time" : "the figure was not measured");
}

/* Cost of branchy y, branchless l and speed of light s (NULL: none),
 * cycles and mispredictions, from column k on; returns the column after. */
static int cost_cells(struct pmb__table *t, const struct pmb_branch_events *ev, const struct pmb_result *y,
		      const struct pmb_result *l, const struct pmb_result *s, int k, struct study_na *a)
{
	const struct pmb_figure *col[3] = { cost_figure(ev, y), cost_figure(ev, l),
					    s && !s->m.status ? cost_figure(ev, s) : NULL };
	const struct pmb_figure *cy = cycles_figure(ev, y), *cl = cycles_figure(ev, l);
	int bm = ev->bm;
	char b[32];

	/* No blank cell without its footnote (study_notes). */
	for (int q = 0; q < 3; q++, k++) {
		if (!col[q] || !col[q]->valid) {
			pmb__table_set(t, k, "n/a");
			*(q == 2 && !(s && !s->m.status) ? &a->sol : &a->cost) = true;
			continue;
		}
		pmb__fmt_figure(b, sizeof(b), col[q], false);
		pmb__table_set(t, k, "%s", b);
	}
	if (!ev->sim) {
		if (cy->valid && cl->valid)
			pmb__table_set(t, k, "%.2f / %.2f", cy->s.median, cl->s.median);
		else
			pmb__table_set(t, k, "n/a"), a->cost = true;
		k++;
	}
	if (bm >= 0 && y->f.ev[bm].valid && l->f.ev[bm].valid)
		pmb__table_set(t, k, "%.3f / %.3f", fmax(y->f.ev[bm].s.median, 0), fmax(l->f.ev[bm].s.median, 0));
	else
		pmb__table_set(t, k, "n/a");
	return k + 1;
}

/* The ratio branchless / branchy and the winner at input x, from column
 * k on: the ratio with its interval where branchless refers to branchy,
 * else the ratio of the medians alone. */
static void winner_cells(struct pmb__table *t, const struct pmb_branch_input *x, int k, struct study_na *a)
{
	char b[32];

	if (x->ratio_kind == PMB_BRANCH_RATIO_LINKED) {
		pmb__fmt_ratio(b, sizeof(b), x->ratio, x->ratio_lo, x->ratio_hi);
		pmb__table_set(t, k, "%s", b);
	} else if (x->ratio_kind == PMB_BRANCH_RATIO_MEDIANS) {
		pmb__table_set(t, k, "%.2f (medians)", x->ratio);
	} else {
		/* No ratio over what is not resolved: said in the legend. */
		pmb__table_set(t, k, "n/a");
		a->ratio = true;
	}
	k++;
	pmb__table_set(t, k, "%s", x->winner > 0 ? "branchless" : x->winner < 0 ? "branchy" : "tie");
}

/* The result of instance in (its first repetition) among r[0..n), or NULL. */
static const struct pmb_result *result_of(const struct pmb_result *r, size_t n, const struct pmb_instance *in)
{
	for (size_t i = 0; in && i < n; i++)
		if (r[i].m.inst == in && !r[i].m.repetition)
			return &r[i];
	return NULL;
}

/* One input's row: branchy against its branchless and sol forms. */
static void study_row(struct pmb__table *t, const struct pmb_branch_events *ev, const struct pmb_result *r, size_t n,
		      const struct pmb_branch_input *x, struct study_na *a)
{
	static const char *const why[] = {
		[PMB_BRANCH_SKIPPED] = "skipped", [PMB_BRANCH_LESS_SKIPPED] = "branchless skipped",
		[PMB_BRANCH_NO_LESS] = "no branchless form",
	};
	const struct pmb_result *y = result_of(r, n, x->y), *l = result_of(r, n, x->l);
	int k;

	pmb__table_add_row(t);
	pmb__table_set(t, 0, "%s", x->y->args[0] ? x->y->args : "-");
	if (x->row != PMB_BRANCH_COMPARED || !y || !l) {
		pmb__table_set(t, 1, "%s", why[x->row]);
		return;
	}
	k = cost_cells(t, ev, y, l, result_of(r, n, x->s), 1, a);
	if (x->ranked)
		winner_cells(t, x, k, a);
}

/* The misprediction penalty the pair implies: the slope of branchy's cost
 * against its misprediction rate over the inputs, and where those rates
 * came from; where no input has a rate, why there is no penalty. */
static void penalty_line(FILE *f, const struct pmb_branch_figures *b)
{
	double ns = b->penalty_ns, cyc = b->penalty_cycles;

	if (!b->sim && !b->npoints && b->unrated) {
		fprintf(f, "  no misprediction penalty: no branch-misses counted here, and branchy declares\n"
			   "    no misprediction rate (pmb_set_mispredict_rate); none is read from input names\n");
		return;
	}
	if (!isfinite(ns))
		return;
	fprintf(f, "  misprediction penalty: %.2f ns", ns);
	if (isfinite(cyc))
		fprintf(f, ", %.1f %scycles", cyc, b->cycles_counted ? "" : "est. ");
	fprintf(f, " per misprediction\n"
		   "    (slope of branchy's cost against its misprediction rate, %d inputs;\n"
		   "    rates %s)\n", b->npoints,
		b->rates_counted ? "MEASURED: counted by the PMU"
			    : "DECLARED by the benchmark (pmb_set_mispredict_rate), not counted");
}

/* What the simulated predictor is: valgrind's --branch-sim model. */
static void sim_predictor_note(FILE *f)
{
	fprintf(f, "  simulated predictor: valgrind's model of a 2004 CPU, 16384 2-bit counters\n"
		   "    indexed by the branch's address and the last few branch outcomes; with no\n"
		   "    longer history it never learns an input, while a modern CPU's predictor\n"
		   "    may learn one (or predict better): these counts are the model's, not\n"
		   "    what your CPU does\n");
}

/* The study's finding in one sentence, without its newline: the verdict
 * over the inputs, or under simulation how mispredictions go. */
static void finding(FILE *f, const struct pmb_branch_figures *b)
{
	if (b->sim) {
		fprintf(f, "counts SIMULATED, no time: no winner");
		if (b->misp[0][0] <= b->misp[0][1] && b->misp[1][0] <= b->misp[1][1])
			fprintf(f, "; mispredictions per item: branchy %.3f to %.3f, branchless %.3f to %.3f",
				b->misp[0][0], b->misp[0][1], b->misp[1][0], b->misp[1][1]);
		return;
	}
	verdict(f, b);
}

/* Columns dropped for the width, least telling first: sol, or the
 * mispredictions where no counter gives them (all n/a). */
static const int drop_perf[] = { 3, 5, 4, 6 }, drop_perf_nobm[] = { 5, 3, 4, 6 }, drop_sim[] = { 3, 4 };

/* One branch study's table t, from its figures b (a: what its cells say
 * n/a to). */
static void study_build(const struct pmb_branch_events *ev, const struct pmb_result *r, size_t n,
			const struct pmb_branch_figures *b, struct pmb__table *t, struct study_na *a)
{
	*a = (struct study_na){ 0 };
	study_columns(t, b);
	for (int k = 0; k < b->ninputs; k++)
		study_row(t, ev, r, n, &b->in[k], a);
}

/* One branch study, from its figures b: its finding first, then its
 * table. */
static int branch_study(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
			const struct pmb_branch_figures *b)
{
	const struct pmb_branch_events *ev = &b->ev;
	struct pmb__table t = { 0 };
	struct study_na a;
	int err;

	study_build(ev, r, n, b, &t, &a);
	fprintf(f, "\nbranch study %s: ", b->study);
	finding(f, b);
	fprintf(f, "\n  branchless / branchy per input");
	if (b->seeded)
		fprintf(f, ", inputs seeded with %llu", (unsigned long long)b->seed);
	fputc('\n', f);
	if (!c->view.wide && !c->view.columns[0])
		pmb__table_fit(&t, (size_t)c->view.width, ev->sim ? drop_sim : ev->bm < 0 ? drop_perf_nobm : drop_perf,
			       ev->sim ? 2 : 4);
	err = pmb__table_print(f, &t);
	study_notes(f, b, &t, ev, &a);
	penalty_line(f, b);
	if (ev->sim)
		sim_predictor_note(f);
	return err;
}

/* The penalty in a few words, after the finding: what penalty_line says. */
static void penalty_words(FILE *f, const struct pmb_branch_figures *b)
{
	double ns = b->penalty_ns, cyc = b->penalty_cycles;

	if (!b->sim && !b->npoints && b->unrated) {
		fprintf(f, "; no misprediction penalty (no branch-misses counted, no rate declared)");
		return;
	}
	if (!isfinite(ns))
		return;
	fprintf(f, "; misprediction penalty %.2f ns", ns);
	if (isfinite(cyc))
		fprintf(f, ", %.1f %scycles", cyc, b->cycles_counted ? "" : "est. ");
	fprintf(f, " (rates %s)", b->rates_counted ? "MEASURED" : "DECLARED");
}

void pmb__branch_findings(FILE *f, const struct pmb_context *c)
{
	for (int i = 0; i < c->f.nbranches; i++) {
		/* Not "branch study K:", which opens the study's own section. */
		fprintf(f, "%s: ", c->f.branches[i].study);
		finding(f, &c->f.branches[i]);
		penalty_words(f, &c->f.branches[i]);
		fputc('\n', f);
	}
}

/* Branch study: per pair K (branch/K/branchy, branch/K/branchless, branch/K/sol).
 * Under simulation there is no time: the table shows instructions and
 * mispredictions, and no winner is named. */
int pmb__report_branch_studies(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int err = 0;

	for (int i = 0; i < c->f.nbranches; i++) {
		int e = branch_study(f, c, r, n, &c->f.branches[i]);

		err = err ? err : e;
	}
	return err;
}
