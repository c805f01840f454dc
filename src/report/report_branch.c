/* report_branch.c - the console report's branch studies: branchy against branchless per input, the ratio, the verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_fmt.h"
#include "base.h"
#include "report_study.h"

/* Where branchy wins, in a verdict's tail: "; branchy wins at p0, p1". */
static void branchy_wins(FILE *f, const int *w, char (*arg)[64], int n)
{
	const char *sep = "; branchy wins at ";

	for (int k = 0; k < n; k++)
		if (w[k] < 0) {
			fprintf(f, "%s%s", sep, arg[k]);
			sep = ", ";
		}
}

/* Where the winner changes from one input to the next (ordered inputs). */
static void crossings(FILE *f, const int *w, char (*arg)[64], int n)
{
	int prev = 0;

	for (int k = 0; k < n; k++) {
		if (w[k] && prev && w[k] != prev)
			fprintf(f, "; they cross between %s and %s", arg[k - 1], arg[k]);
		if (w[k])
			prev = w[k];
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
	if (!wins && !losses) {
		fprintf(f, "no significant difference at any input");
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
	if (losses)
		branchy_wins(f, w, arg, n);
	if (ordered)
		crossings(f, w, arg, n);
}

/* The events a branch study shows; under simulation there is no time and
 * instructions stand for the cost. */
struct study_events {
	bool sim;
	int bm, cyc, ins; /* branch misses, cycles, instructions; -1 none */
};

/* One study's rows so far: per input the winner and its name (for the
 * verdict), and branchy's misprediction rate, ns and cycles per item (for
 * the penalty). */
struct study_acc {
	int w[64], nw;
	char args[64][64];
	bool ordered;
	double rate[64], ns[64], cyc[64];
	int np;
	bool measured;   /* rates counted by a PMU, not declared by the benchmark */
	int unrated;     /* inputs with neither a counted nor a declared rate */
	bool cyc_counted; /* cycles counted, not estimated */
	bool ratio_na;    /* a ratio cell reads n/a */
	bool sol_na;      /* a sol cell reads n/a: no sol run at that input */
	bool cost_na;     /* another cost or cycles cell reads n/a */
	double misp[2][2]; /* branchy, branchless: least and most mispredictions per item */
};

/* A result's cost figure: time, or under simulation instructions (NULL
 * where there are none). */
static const struct pmb_figure *cost_figure(const struct study_events *ev, const struct pmb_result *x)
{
	if (!ev->sim)
		return &x->time;
	return ev->ins >= 0 ? &x->ev[ev->ins] : NULL;
}

static const struct pmb_figure *cycles_figure(const struct study_events *ev, const struct pmb_result *x)
{
	return ev->cyc >= 0 ? &x->ev[ev->cyc] : &x->est_cycles;
}

/* The headers, each with its unit ("y/l": branchy / branchless). */
static void study_columns(struct pmb__table *t, const struct pmb_context *c, bool sim)
{
	t->head[t->ncol] = "input", t->left[t->ncol++] = true;
	t->head[t->ncol++] = sim ? "branchy instr/item" : "branchy ns/item";
	t->head[t->ncol++] = sim ? "branchless instr/item" : "branchless ns/item";
	t->head[t->ncol++] = sim ? "sol instr/item" : "sol ns/item";
	if (!sim)
		t->head[t->ncol++] = c->has_cycles ? "cycles/item y/l" : "est.cyc/item y/l";
	t->head[t->ncol++] = "misp/item y/l";
	if (!sim) {
		t->head[t->ncol++] = "ratio× l/y";
		t->head[t->ncol++] = "winner";
	}
}

/* What the study's table leaves out for the width, and its legend. */
static void study_notes(FILE *f, const struct pmb_context *c, struct pmb__table *t, const struct study_events *ev,
			const struct study_acc *a)
{
	bool est = !ev->sim && !c->has_cycles;

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
	if (a->ratio_na)
		fprintf(f, "  ratio× n/a: branchy's ns/item below resolution, or the interval reaches zero: "
			"no ratio\n");
	if (a->sol_na)
		fprintf(f, "  sol n/a: no speed-of-light form ran at that input (none defined, filtered out or "
			"skipped)\n");
	if (a->cost_na)
		fprintf(f, "  n/a in a cost column: %s\n", ev->sim && ev->ins < 0 ?
			"no instructions counted, and simulation has no time" : "the figure was not measured");
}

/* Cost of branchy y, branchless l and speed of light s (NULL: none),
 * cycles and mispredictions, from column k on; returns the column after. */
static int cost_cells(struct pmb__table *t, const struct study_events *ev, const struct pmb_result *y,
		      const struct pmb_result *l, const struct pmb_result *s, int k, struct study_acc *a)
{
	const struct pmb_figure *col[3] = { cost_figure(ev, y), cost_figure(ev, l),
					    s && !s->status ? cost_figure(ev, s) : NULL };
	const struct pmb_figure *cy = cycles_figure(ev, y), *cl = cycles_figure(ev, l);
	int bm = ev->bm;
	char b[32];

	/* No blank cell without its footnote (study_notes). */
	for (int q = 0; q < 3; q++, k++) {
		if (!col[q] || !col[q]->valid) {
			pmb__table_set(t, k, "n/a");
			*(q == 2 && !(s && !s->status) ? &a->sol_na : &a->cost_na) = true;
			continue;
		}
		pmb__fmt_figure(b, sizeof(b), col[q], false);
		pmb__table_set(t, k, "%s", b);
	}
	if (!ev->sim) {
		if (cy->valid && cl->valid)
			pmb__table_set(t, k, "%.2f / %.2f", cy->s.median, cl->s.median);
		else
			pmb__table_set(t, k, "n/a"), a->cost_na = true;
		k++;
	}
	if (bm >= 0 && y->ev[bm].valid && l->ev[bm].valid)
		pmb__table_set(t, k, "%.3f / %.3f", fmax(y->ev[bm].s.median, 0), fmax(l->ev[bm].s.median, 0));
	else
		pmb__table_set(t, k, "n/a");
	return k + 1;
}

/* Branchy's misprediction rate, ns and cycles per item at this input, for
 * the penalty: the rate a PMU counted where one did, else the rate the
 * benchmark declared (pmb_set_mispredict_rate), else none: a rate is never
 * read from the input's name.  Never under simulation: it has no time. */
static void penalty_points(const struct study_events *ev, const struct pmb_result *y, struct study_acc *a)
{
	const struct pmb_figure *cy = cycles_figure(ev, y);
	bool counted = ev->bm >= 0 && y->ev[ev->bm].valid;
	double rate = counted ? fmax(y->ev[ev->bm].s.median, 0) : y->misp_declared ? y->misp_rate : NAN;

	if (!counted && !y->misp_declared)
		a->unrated++;
	if (ev->sim || !y->time.valid || !isfinite(rate) || a->np == 64)
		return;
	a->measured = counted;
	a->cyc_counted = ev->cyc >= 0;
	a->rate[a->np] = rate;
	a->ns[a->np] = y->time.s.median;
	a->cyc[a->np++] = cy->valid ? cy->s.median : NAN;
}

double pmb__branch_penalty(const double *rate, const double *cost, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;
	struct pmb_fit fit;

	for (size_t k = 0; k < n; k++) {
		if (!isfinite(rate[k]) || !isfinite(cost[k]))
			return NAN;
		lo = fmin(lo, rate[k]);
		hi = fmax(hi, rate[k]);
	}
	/* Under a tenth of a misprediction per item between the inputs,
	 * the slope is mostly noise. */
	if (n < 3 || hi - lo < 0.1 || pmb__fit_line(rate, cost, n, &fit) != 0)
		return NAN;
	/* Theil-Sen: one input run in another mode moves it little. */
	return fit.ts_b;
}

/* Whether l's .reference names y's benchmark: then l's ratio is the
 * branchless / branchy ratio, with its interval. */
static bool refers_to(const struct pmb_result *l, const struct pmb_result *y)
{
	const char *ref = l->inst->def->reference, *fam = y->inst->family;
	size_t lr = ref ? strlen(ref) : 0, lf = strlen(fam);

	return lr && lr <= lf && !strcmp(fam + lf - lr, ref) && (lr == lf || fam[lf - lr - 1] == '/');
}

/* Who wins at one input: +1 branchless, -1 branchy, 0 a tie.  The ratio's
 * interval decides where there is one; figures whose intervals do not
 * overlap are never a tie, ratio or not. */
int pmb__branch_winner(const struct pmb_figure *fy, const struct pmb_figure *fl, bool linked)
{
	if (linked && isfinite(fl->ratio_hi) && fl->ratio_hi < 1)
		return 1;
	if (linked && isfinite(fl->ratio_lo) && fl->ratio_lo > 1)
		return -1;
	if (fl->s.ci_hi < fy->s.ci_lo)
		return 1;
	if (fy->s.ci_hi < fl->s.ci_lo)
		return -1;
	return 0;
}

/* The ratio branchless / branchy and the winner, from column k on: the
 * ratio with its interval where branchless refers to branchy, else the
 * ratio of the medians alone. */
static void winner_cells(struct pmb__table *t, const struct pmb_result *y, const struct pmb_result *l, int k,
			 struct study_acc *a)
{
	const struct pmb_figure *fl = &l->time;
	bool linked = refers_to(l, y) && isfinite(fl->ratio);
	int win = pmb__branch_winner(&y->time, fl, linked);
	char b[32];

	if (linked) {
		pmb__fmt_ratio(b, sizeof(b), fl->ratio, fl->ratio_lo, fl->ratio_hi);
		pmb__table_set(t, k, "%s", b);
	} else if (fl->valid && y->time.valid && y->time.s.median > 0) {
		pmb__table_set(t, k, "%.2f (medians)", fl->s.median / y->time.s.median);
	} else {
		/* No ratio over what is not resolved: said in the legend. */
		pmb__table_set(t, k, "n/a");
		a->ratio_na = true;
	}
	k++;
	pmb__table_set(t, k, "%s", win > 0 ? "branchless" : win < 0 ? "branchy" : "tie");
	snprintf(a->args[a->nw], sizeof(a->args[a->nw]), "%s", y->inst->args);
	/* p-inputs and tier sizes are ordered; a mix is not. */
	if (!strcmp(y->inst->args, "mix"))
		a->ordered = false;
	a->w[a->nw++] = win;
}

/* One input's row: branchy y against its branchless and sol forms. */
static void study_row(struct pmb__table *t, const struct study_events *ev, const struct pmb_result *r, size_t n,
		      const char *prefix, const struct pmb_result *y, struct study_acc *a)
{
	const struct pmb_result *l = pmb__result_in_study(r, n, prefix, PMB_ROLE_BRANCHLESS, y->inst->args);
	const struct pmb_result *s = pmb__result_in_study(r, n, prefix, PMB_ROLE_SOL, y->inst->args);
	int k;

	pmb__table_add_row(t);
	pmb__table_set(t, 0, "%s", y->inst->args[0] ? y->inst->args : "-");
	if (y->status || !l || l->status) {
		pmb__table_set(t, 1, "%s", y->status ? "skipped" : l ? "branchless skipped" : "no branchless form");
		return;
	}
	k = cost_cells(t, ev, y, l, s, 1, a);
	penalty_points(ev, y, a);
	for (int q = 0; q < 2 && ev->bm >= 0; q++) {
		const struct pmb_figure *fm = &(q ? l : y)->ev[ev->bm];

		if (!fm->valid)
			continue;
		a->misp[q][0] = fmin(a->misp[q][0], fmax(fm->s.median, 0));
		a->misp[q][1] = fmax(a->misp[q][1], fmax(fm->s.median, 0));
	}
	if (ev->sim || a->nw == 64)
		return;
	winner_cells(t, y, l, k, a);
}

/* The seed named in a study's title, where every member's input was
 * generated from it (asked pmb_seed()); 0 otherwise, and no seed is named. */
static bool study_seed(const struct pmb_result *r, size_t n, const char *prefix, uint64_t *seed)
{
	char s[200];
	bool any = false;

	for (size_t j = 0; j < n; j++) {
		if (r[j].status || !pmb__result_study(&r[j], s, sizeof(s)) || strcmp(s, prefix))
			continue;
		if (!r[j].seed_used || (any && r[j].seed != *seed))
			return false;
		*seed = r[j].seed;
		any = true;
	}
	return any;
}

/* The misprediction penalty the pair implies: the slope of branchy's cost
 * against its misprediction rate over the inputs, and where those rates
 * came from; where no input has a rate, why there is no penalty. */
static void penalty_line(FILE *f, const struct study_events *ev, const struct study_acc *a)
{
	double ns = pmb__branch_penalty(a->rate, a->ns, (size_t)a->np);
	double cyc = pmb__branch_penalty(a->rate, a->cyc, (size_t)a->np);

	if (!ev->sim && !a->np && a->unrated) {
		fprintf(f, "  no misprediction penalty: no branch-misses counted here, and branchy declares\n"
			   "    no misprediction rate (pmb_set_mispredict_rate); none is read from input names\n");
		return;
	}
	if (!isfinite(ns))
		return;
	fprintf(f, "  misprediction penalty: %.2f ns", ns);
	if (isfinite(cyc))
		fprintf(f, ", %.1f %scycles", cyc, a->cyc_counted ? "" : "est. ");
	fprintf(f, " per misprediction\n"
		   "    (slope of branchy's cost against its misprediction rate, %d inputs;\n"
		   "    rates %s)\n", a->np,
		a->measured ? "MEASURED: counted by the PMU"
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
static void finding(FILE *f, const struct study_events *ev, struct study_acc *a)
{
	if (ev->sim) {
		fprintf(f, "counts SIMULATED, no time: no winner");
		if (a->misp[0][0] <= a->misp[0][1] && a->misp[1][0] <= a->misp[1][1])
			fprintf(f, "; mispredictions per item: branchy %.3f to %.3f, branchless %.3f to %.3f",
				a->misp[0][0], a->misp[0][1], a->misp[1][0], a->misp[1][1]);
		return;
	}
	verdict(f, a->w, a->args, a->nw, a->ordered);
}

/* Columns dropped for the width, least telling first: sol, or the
 * mispredictions where no counter gives them (all n/a). */
static const int drop_perf[] = { 3, 5, 4, 6 }, drop_perf_nobm[] = { 5, 3, 4, 6 }, drop_sim[] = { 3, 4 };

/* One branch study's table t and what its rows found (a), from its first
 * branchy result r[first]. */
static void study_build(const struct pmb_context *c, const struct study_events *ev, const struct pmb_result *r,
			size_t n, size_t first, const char *prefix, struct pmb__table *t, struct study_acc *a)
{
	const char *fam = r[first].inst->family;

	*a = (struct study_acc){ .ordered = true, .misp = { { INFINITY, -INFINITY }, { INFINITY, -INFINITY } } };
	study_columns(t, c, ev->sim);
	for (size_t j = 0; j < n; j++)
		if (!strcmp(r[j].inst->family, fam) && !r[j].repetition)
			study_row(t, ev, r, n, prefix, &r[j], a);
}

/* One branch study, from its first branchy result r[first]: its finding
 * first, then its table. */
static int branch_study(FILE *f, const struct pmb_context *c, const struct study_events *ev,
			const struct pmb_result *r, size_t n, size_t first, const char *prefix)
{
	struct pmb__table t = { 0 };
	struct study_acc a;
	uint64_t seed = 0;
	int err;

	study_build(c, ev, r, n, first, prefix, &t, &a);
	fprintf(f, "\nbranch study %s: ", prefix);
	finding(f, ev, &a);
	fprintf(f, "\n  branchless / branchy per input");
	if (study_seed(r, n, prefix, &seed))
		fprintf(f, ", inputs seeded with %llu", (unsigned long long)seed);
	fputc('\n', f);
	if (!c->view.wide && !c->view.columns[0])
		pmb__table_fit(&t, (size_t)c->view.width, ev->sim ? drop_sim : ev->bm < 0 ? drop_perf_nobm : drop_perf,
			       ev->sim ? 2 : 4);
	err = pmb__table_print(f, &t);
	study_notes(f, c, &t, ev, &a);
	penalty_line(f, ev, &a);
	if (ev->sim)
		sim_predictor_note(f);
	return err;
}

/* The penalty in a few words, after the finding: what penalty_line says. */
static void penalty_words(FILE *f, const struct study_events *ev, const struct study_acc *a)
{
	double ns = pmb__branch_penalty(a->rate, a->ns, (size_t)a->np);
	double cyc = pmb__branch_penalty(a->rate, a->cyc, (size_t)a->np);

	if (!ev->sim && !a->np && a->unrated) {
		fprintf(f, "; no misprediction penalty (no branch-misses counted, no rate declared)");
		return;
	}
	if (!isfinite(ns))
		return;
	fprintf(f, "; misprediction penalty %.2f ns", ns);
	if (isfinite(cyc))
		fprintf(f, ", %.1f %scycles", cyc, a->cyc_counted ? "" : "est. ");
	fprintf(f, " (rates %s)", a->measured ? "MEASURED" : "DECLARED");
}

/* The studies of r[0..n) in order: fn(first branchy result, its study). */
static int each_study(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n,
		      int (*fn)(FILE *, const struct pmb_context *, const struct study_events *,
				const struct pmb_result *, size_t, size_t, const char *))
{
	const struct study_events ev = {
		.sim = pmb_context_sim(c),
		.bm = pmb__context_event(c, "branch-misses|cond-branch-misses"),
		.cyc = pmb__context_event(c, "cycles"),
		.ins = pmb__context_event(c, "instructions"),
	};
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		char prefix[200];
		int terr;

		if (r[i].inst->def->role != PMB_ROLE_BRANCHY || r[i].repetition ||
		    !pmb__result_study(&r[i], prefix, sizeof(prefix)) || !pmb__first_of_family(r, i))
			continue;
		terr = fn(f, c, &ev, r, n, i, prefix);
		if (!err)
			err = terr;
	}
	return err;
}

/* One study's finding on one line: its verdict and its penalty. */
static int study_finding(FILE *f, const struct pmb_context *c, const struct study_events *ev,
			 const struct pmb_result *r, size_t n, size_t first, const char *prefix)
{
	struct pmb__table t = { 0 };
	struct study_acc a;

	study_build(c, ev, r, n, first, prefix, &t, &a);
	pmb__table_free(&t);
	/* Not "branch study K:", which opens the study's own section. */
	fprintf(f, "%s: ", prefix);
	finding(f, ev, &a);
	penalty_words(f, ev, &a);
	fputc('\n', f);
	return 0;
}

void pmb__branch_findings(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	each_study(f, c, r, n, study_finding);
}

/* Branch study: per pair K (branch/K/branchy, branch/K/branchless, branch/K/sol).
 * Under simulation there is no time: the table shows instructions and
 * mispredictions, and no winner is named. */
int pmb__report_branch_studies(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	return each_study(f, c, r, n, branch_study);
}
