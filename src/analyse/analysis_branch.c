/* analysis_branch.c - a branch study's figures, once (issue 25): per input who wins branchy against branchless and the ratio that says so, the misprediction penalty with its points, the mispredictions per item, the seed, the verdict over the inputs, the events the study reads. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base.h"

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

/* Whether l's .reference names y's benchmark: then l's ratio is the
 * branchless / branchy ratio, with its interval. */
static bool refers_to(const struct pmb_result *l, const struct pmb_result *y)
{
	const char *ref = l->m.inst->def->reference, *fam = y->m.inst->family;
	size_t lr = ref ? strlen(ref) : 0, lf = strlen(fam);

	return lr && lr <= lf && !strcmp(fam + lf - lr, ref) && (lr == lf || fam[lf - lr - 1] == '/');
}

/* The winner at input x (branchy y, branchless l) and the ratio it rests
 * on: linked where l refers to y, else the medians' where both resolve. */
static void winner(struct pmb_branch_input *x, const struct pmb_result *y, const struct pmb_result *l)
{
	const struct pmb_figure *fl = &l->f.time;
	bool linked = refers_to(l, y) && isfinite(fl->ratio);

	x->ranked = true;
	x->winner = pmb__branch_winner(&y->f.time, fl, linked);
	if (linked) {
		x->ratio_kind = PMB_BRANCH_RATIO_LINKED;
		x->ratio = fl->ratio;
		x->ratio_lo = fl->ratio_lo;
		x->ratio_hi = fl->ratio_hi;
	} else if (fl->valid && y->f.time.valid && y->f.time.s.median > 0) {
		x->ratio_kind = PMB_BRANCH_RATIO_MEDIANS;
		x->ratio = fl->s.median / y->f.time.s.median;
	}
}

/* Branchy's misprediction rate, ns and cycles per item at input x, a point
 * of the penalty: the rate a PMU counted where one did, else the rate the
 * benchmark declared (pmb_set_mispredict_rate), else none: a rate is never
 * read from the input's name.  Never under simulation: it has no time. */
static void penalty_point(struct pmb_branch_figures *b, const struct pmb_branch_events *ev, const struct pmb_result *y,
			  struct pmb_branch_input *x)
{
	const struct pmb_figure *cy = ev->cyc >= 0 ? &y->f.ev[ev->cyc] : &y->f.est_cycles;
	bool counted = ev->bm >= 0 && y->f.ev[ev->bm].valid;
	double rate = counted ? fmax(y->f.ev[ev->bm].s.median, 0) : y->m.misp_declared ? y->m.misp_rate : NAN;

	if (!counted && !y->m.misp_declared)
		b->unrated++;
	if (ev->sim || !y->f.time.valid || !isfinite(rate))
		return;
	b->rates_counted = counted;
	x->point = true;
	x->rate = rate;
	x->ns = y->f.time.s.median;
	x->cycles = cy->valid ? cy->s.median : NAN;
	b->npoints++;
}

/* The least and most mispredictions per item of branchy (q 0) and
 * branchless (q 1) so far, with this input's. */
static void misp_range(struct pmb_branch_figures *b, const struct pmb_branch_events *ev, const struct pmb_result *y,
		       const struct pmb_result *l)
{
	for (int q = 0; q < 2 && ev->bm >= 0; q++) {
		const struct pmb_figure *fm = &(q ? l : y)->f.ev[ev->bm];

		if (!fm->valid)
			continue;
		b->misp[q][0] = fmin(b->misp[q][0], fmax(fm->s.median, 0));
		b->misp[q][1] = fmax(b->misp[q][1], fmax(fm->s.median, 0));
	}
}

/* The result in role of the study at args, as the reports see them (one a
 * signal left unmeasured is none), or NULL. */
static const struct pmb_result *in_study(const struct pmb_result *r, size_t n, const char *study,
					 enum pmb_role role, const char *args)
{
	const struct pmb_result *x = pmb__result_in_study(r, n, study, role, args);

	return x && !x->m.not_run ? x : NULL;
}

/* One input: branchy y against its branchless and sol forms. */
static void study_input(struct pmb_branch_figures *b, const struct pmb_branch_events *ev, const struct pmb_result *r,
			size_t n, const struct pmb_result *y)
{
	const struct pmb_result *l = in_study(r, n, b->study, PMB_ROLE_BRANCHLESS, y->m.inst->args);
	const struct pmb_result *s = in_study(r, n, b->study, PMB_ROLE_SOL, y->m.inst->args);
	struct pmb_branch_input *x = &b->in[b->ninputs++];

	*x = (struct pmb_branch_input){ .y = y->m.inst, .l = l ? l->m.inst : NULL, .s = s ? s->m.inst : NULL,
					.ratio = NAN, .ratio_lo = NAN, .ratio_hi = NAN,
					.rate = NAN, .ns = NAN, .cycles = NAN };
	if (y->m.status || !l || l->m.status) {
		x->row = y->m.status ? PMB_BRANCH_SKIPPED : l ? PMB_BRANCH_LESS_SKIPPED : PMB_BRANCH_NO_LESS;
		return;
	}
	x->row = PMB_BRANCH_COMPARED;
	/* p-inputs and tier sizes are ordered; a mix is not. */
	if (!strcmp(y->m.inst->args, "mix"))
		b->ordered = false;
	penalty_point(b, ev, y, x);
	misp_range(b, ev, y, l);
	if (!ev->sim)
		winner(x, y, l);
}

/* The seed every member of the study generated its input from (asked
 * pmb_seed()); none where one did not, or two differ. */
static void study_seed(struct pmb_branch_figures *b, const struct pmb_result *r, size_t n)
{
	char s[200];

	b->seeded = false;
	for (size_t j = 0; j < n; j++) {
		if (r[j].m.status || !pmb__result_study(&r[j], s, sizeof(s)) || strcmp(s, b->study))
			continue;
		if (!r[j].m.seed_used || (b->seeded && r[j].m.seed != b->seed)) {
			b->seeded = false;
			return;
		}
		b->seed = r[j].m.seed;
		b->seeded = true;
	}
}

/* The penalty over the points, in ns and in cycles. */
static void penalty(struct pmb_branch_figures *b)
{
	double rate[PMB_MAX_BRANCH_INPUTS], ns[PMB_MAX_BRANCH_INPUTS], cyc[PMB_MAX_BRANCH_INPUTS];
	size_t m = 0;

	for (int k = 0; k < b->ninputs; k++)
		if (b->in[k].point) {
			rate[m] = b->in[k].rate;
			ns[m] = b->in[k].ns;
			cyc[m++] = b->in[k].cycles;
		}
	b->penalty_ns = pmb__branch_penalty(rate, ns, m);
	b->penalty_cycles = pmb__branch_penalty(rate, cyc, m);
}

/* The verdict over the ranked inputs in their order: who wins where,
 * from which input branchless wins at every later one, and (ordered
 * inputs) where the winner changes. */
static void verdict(struct pmb_branch_figures *b)
{
	int idx[PMB_MAX_BRANCH_INPUTS], nw = 0, from, prev = 0;

	b->from = -1;
	if (b->sim)
		return;
	for (int k = 0; k < b->ninputs; k++)
		if (b->in[k].ranked) {
			idx[nw++] = k;
			b->wins += b->in[k].winner > 0;
			b->losses += b->in[k].winner < 0;
		}
	b->ranked = nw;
	for (from = nw; from > 0 && b->in[idx[from - 1]].winner > 0; from--)
		;
	if (from < nw)
		b->from = idx[from];
	if (!b->wins && !b->losses)
		b->verdict = PMB_BRANCH_NO_DIFFERENCE;
	else if (b->ordered && from < nw && from > 0)
		b->verdict = PMB_BRANCH_LESS_WINS_FROM;
	else if (b->ordered && from == 0)
		b->verdict = PMB_BRANCH_LESS_WINS_ALL;
	else if (b->wins)
		b->verdict = PMB_BRANCH_LESS_WINS_SOME;
	else
		b->verdict = PMB_BRANCH_LESS_NEVER_WINS;
	for (int k = 0; b->ordered && b->verdict != PMB_BRANCH_NO_DIFFERENCE && k < nw; k++) {
		int w = b->in[idx[k]].winner;

		if (w && prev && w != prev) {
			b->cross[b->ncross][0] = idx[k - 1];
			b->cross[b->ncross++][1] = idx[k];
		}
		if (w)
			prev = w;
	}
}

/* One study's figures, from its first branchy result r[first]. */
static void one_study(struct pmb_branch_figures *b, const struct pmb_branch_events *ev, const struct pmb_result *r,
		      size_t n, size_t first)
{
	const char *fam = r[first].m.inst->family;

	b->sim = ev->sim;
	b->ev = *ev;
	b->ordered = true;
	b->cycles_counted = ev->cyc >= 0;
	b->misp[0][0] = b->misp[1][0] = INFINITY;
	b->misp[0][1] = b->misp[1][1] = -INFINITY;
	for (size_t j = 0; j < n && b->ninputs < PMB_MAX_BRANCH_INPUTS; j++)
		if (!strcmp(r[j].m.inst->family, fam) && !r[j].m.repetition && !r[j].m.not_run)
			study_input(b, ev, r, n, &r[j]);
	penalty(b);
	study_seed(b, r, n);
	verdict(b);
}

/* Whether r[i] opens a branch study (its study's name into study). */
static bool opens_study(const struct pmb_result *r, size_t i, char *study, size_t size)
{
	return r[i].m.inst->def->role == PMB_ROLE_BRANCHY && !r[i].m.repetition &&
	       pmb__result_study(&r[i], study, size) && pmb__first_of_family(r, i);
}

int pmb__analysis_branches(const struct pmb_context *c, struct pmb_run_figures *out, const struct pmb_result *r,
			   size_t n)
{
	const struct pmb_branch_events ev = {
		.sim = pmb_context_sim(c),
		.bm = pmb__context_event(c, "branch-misses|cond-branch-misses"),
		.cyc = pmb__context_event(c, "cycles"),
		.ins = pmb__context_event(c, "instructions"),
	};
	char study[200];
	int m = 0;

	free(out->branches);
	out->branches = NULL;
	out->nbranches = 0;
	/* Under simulation a study is drawn in its mispredictions, or where
	 * none is counted the plan's first event (its name says which). */
	out->branch_event = !ev.sim ? -2 : ev.bm >= 0 ? ev.bm : 0;
	for (size_t i = 0; i < n; i++)
		m += opens_study(r, i, study, sizeof(study));
	if (!m)
		return 0;
	out->branches = calloc((size_t)m, sizeof(*out->branches));
	if (!out->branches)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct pmb_branch_figures *b;

		if (!opens_study(r, i, study, sizeof(study)))
			continue;
		b = &out->branches[out->nbranches++];
		snprintf(b->study, sizeof(b->study), "%s", study);
		one_study(b, &ev, r, n, i);
	}
	return 0;
}

int pmb__analyze_branches(struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	return pmb__analysis_branches(c, &c->f, r, n);
}
