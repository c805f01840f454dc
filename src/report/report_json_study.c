/* report_json_study.c - the results JSON's "branch_studies": each study's figures as the analysis made them (struct pmb_branch_figures): per input the winner and its ratio, the misprediction penalty with how it was established and its points. */
#include <math.h>
#include <stdio.h>

#include "report_json_internal.h"
#include "model.h"

/* An instance's name, or null where there is none. */
static void name_or_null(struct pmb__jw *w, const char *key, const struct pmb_instance *in)
{
	pmb__jw_str_or_null(w, key, in ? in->name : NULL);
}

/* One input: the three forms, what the row compares, the winner and the
 * ratio it rests on (null where none is named: simulated, or not
 * compared). */
static void write_input(struct pmb__jw *w, const struct pmb_branch_input *x)
{
	static const char *const row[] = {
		[PMB_BRANCH_COMPARED] = "compared", [PMB_BRANCH_SKIPPED] = "branchy skipped",
		[PMB_BRANCH_LESS_SKIPPED] = "branchless skipped", [PMB_BRANCH_NO_LESS] = "no branchless form",
	};
	static const char *const basis[] = {
		[PMB_BRANCH_RATIO_NONE] = NULL, [PMB_BRANCH_RATIO_LINKED] = "reference",
		[PMB_BRANCH_RATIO_MEDIANS] = "medians",
	};

	pmb__jw_open(w, NULL, '{', false);
	pmb__jw_str(w, "input", x->y->args);
	name_or_null(w, "branchy", x->y);
	name_or_null(w, "branchless", x->l);
	name_or_null(w, "sol", x->s);
	pmb__jw_str(w, "row", row[x->row]);
	pmb__jw_str_or_null(w, "winner", !x->ranked ? NULL : x->winner > 0 ? "branchless" : x->winner < 0 ?
			    "branchy" : "tie");
	/* branchless ns/item over branchy's: the linked ratio with its
	 * interval (branchless's .reference is branchy), or the medians' */
	pmb__jw_num(w, "ratio", x->ratio);
	pmb__jw_num(w, "ratio_ci_lo", x->ratio_lo);
	pmb__jw_num(w, "ratio_ci_hi", x->ratio_hi);
	pmb__jw_str_or_null(w, "ratio_basis", basis[x->ratio_kind]);
	pmb__jw_close(w, '}');
}

/* Why a study gives no penalty, in a few words; NULL where it gives one. */
static const char *no_penalty(const struct pmb_branch_figures *b)
{
	if (isfinite(b->penalty_ns))
		return NULL;
	if (b->sim)
		return "simulated: no time";
	if (!b->npoints && b->unrated)
		return "no branch-misses counted and no misprediction rate declared";
	if (b->npoints < 3)
		return "under three inputs with a rate";
	return "rates spread by under 0.1 misprediction per item, or a point not measured";
}

/* The penalty: the slopes in ns and cycles, how they were established,
 * and the points they were fitted on. */
static void write_penalty(struct pmb__jw *w, const struct pmb_branch_figures *b)
{
	pmb__jw_open(w, "misprediction_penalty", '{', false);
	pmb__jw_num(w, "ns", b->penalty_ns);
	pmb__jw_num(w, "cycles", b->penalty_cycles);
	pmb__jw_bool(w, "cycles_estimated", !b->sim && !b->cycles_counted);
	pmb__jw_str(w, "method", "Theil-Sen slope of branchy's cost per item against its mispredictions per item");
	pmb__jw_str_or_null(w, "rates", !b->npoints ? NULL : b->rates_counted ? "counted" : "declared");
	pmb__jw_str_or_null(w, "why_none", no_penalty(b));
	pmb__jw_open(w, "points", '[', false);
	for (int k = 0; k < b->ninputs; k++) {
		const struct pmb_branch_input *x = &b->in[k];

		if (!x->point)
			continue;
		pmb__jw_open(w, NULL, '{', true);
		pmb__jw_str(w, "input", x->y->args);
		pmb__jw_num(w, "mispredictions_per_item", x->rate);
		pmb__jw_num(w, "ns_per_item", x->ns);
		pmb__jw_num(w, "cycles_per_item", x->cycles);
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, ']');
	pmb__jw_close(w, '}');
}

/* Least and most mispredictions per item of one form, or null. */
static void misp_range(struct pmb__jw *w, const char *key, const double *lohi)
{
	if (!(lohi[0] <= lohi[1])) {
		pmb__jw_null(w, key);
		return;
	}
	pmb__jw_open(w, key, '[', true);
	pmb__jw_num(w, NULL, lohi[0]);
	pmb__jw_num(w, NULL, lohi[1]);
	pmb__jw_close(w, ']');
}

/* An input's name (its arguments), or null where k is none. */
static void input_or_null(struct pmb__jw *w, const char *key, const struct pmb_branch_figures *b, int k)
{
	pmb__jw_str_or_null(w, key, k >= 0 ? b->in[k].y->args : NULL);
}

/* The verdict over the inputs with a winner named (null where none is
 * named: simulated): its kind, the counts, the input from which branchless
 * wins at every later one, where branchy wins, where the winner changes. */
static void write_verdict(struct pmb__jw *w, const struct pmb_branch_figures *b)
{
	static const char *const kind[] = {
		[PMB_BRANCH_NO_DIFFERENCE] = "no difference", [PMB_BRANCH_LESS_WINS_FROM] = "branchless wins from",
		[PMB_BRANCH_LESS_WINS_ALL] = "branchless wins at every input",
		[PMB_BRANCH_LESS_WINS_SOME] = "branchless wins at some inputs",
		[PMB_BRANCH_LESS_NEVER_WINS] = "branchless never wins",
	};

	if (b->verdict == PMB_BRANCH_VERDICT_NONE) {
		pmb__jw_null(w, "verdict");
		return;
	}
	pmb__jw_open(w, "verdict", '{', false);
	pmb__jw_str(w, "kind", kind[b->verdict]);
	pmb__jw_int(w, "inputs_ranked", b->ranked);
	pmb__jw_int(w, "branchless_wins", b->wins);
	pmb__jw_int(w, "branchy_wins", b->losses);
	input_or_null(w, "branchless_wins_from", b, b->from);
	pmb__jw_open(w, "branchy_wins_at", '[', true);
	for (int k = 0; k < b->ninputs; k++)
		if (b->in[k].ranked && b->in[k].winner < 0)
			pmb__jw_str(w, NULL, b->in[k].y->args);
	pmb__jw_close(w, ']');
	pmb__jw_open(w, "crossings", '[', false);
	for (int k = 0; k < b->ncross; k++) {
		pmb__jw_open(w, NULL, '[', true);
		pmb__jw_str(w, NULL, b->in[b->cross[k][0]].y->args);
		pmb__jw_str(w, NULL, b->in[b->cross[k][1]].y->args);
		pmb__jw_close(w, ']');
	}
	pmb__jw_close(w, ']');
	pmb__jw_close(w, '}');
}

static void write_study(struct pmb__jw *w, const struct pmb_branch_figures *b)
{
	pmb__jw_open(w, NULL, '{', false);
	pmb__jw_str(w, "study", b->study);
	pmb__jw_bool(w, "simulated", b->sim);
	pmb__jw_bool(w, "ordered", b->ordered);
	if (b->seeded)
		pmb__jw_uint(w, "seed", b->seed);
	else
		pmb__jw_null(w, "seed");
	pmb__jw_open(w, "inputs", '[', false);
	for (int k = 0; k < b->ninputs; k++)
		write_input(w, &b->in[k]);
	pmb__jw_close(w, ']');
	pmb__jw_open(w, "mispredictions_per_item", '{', false);
	misp_range(w, "branchy", b->misp[0]);
	misp_range(w, "branchless", b->misp[1]);
	pmb__jw_close(w, '}');
	write_penalty(w, b);
	write_verdict(w, b);
	pmb__jw_close(w, '}');
}

void pmb__json_branch_studies(struct pmb__jw *w, const struct pmb_context *c)
{
	if (!c->f.nbranches)
		return;
	pmb__jw_open(w, "branch_studies", '[', false);
	for (int i = 0; i < c->f.nbranches; i++)
		write_study(w, &c->f.branches[i]);
	pmb__jw_close(w, ']');
}
