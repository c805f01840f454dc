/* test_branch_figures.c - a branch study's figures (analysis_branch.c) from made-up figures, exact: per input the row, the winner and its ratio, the penalty and its points, the mispredictions per item, the seed; the verdict over the inputs (its kind, the input from which branchless wins, the counts, the crossings) and the events read, resolved once; and the console's one-line finding rendered from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "report_study.h"
#include "tap.h"

/* Event 0 branch-misses, event 1 cycles, both counted. */
#define BM 0
#define CYC 1

static const struct pmb_benchmark_def y_def = { .name = "k/branchy", .group = "t", .role = PMB_ROLE_BRANCHY };
/* branchless's .reference is branchy: its ratio is linked, with an interval */
static const struct pmb_benchmark_def l_def = { .name = "k/branchless", .group = "t", .role = PMB_ROLE_BRANCHLESS,
						.reference = "k/branchy" };
static const struct pmb_benchmark_def s_def = { .name = "k/sol", .group = "t", .role = PMB_ROLE_SOL };
/* A second study without the link: the ratio of the medians alone. */
static const struct pmb_benchmark_def my_def = { .name = "m/branchy", .group = "t", .role = PMB_ROLE_BRANCHY };
static const struct pmb_benchmark_def ml_def = { .name = "m/branchless", .group = "t",
						 .role = PMB_ROLE_BRANCHLESS };

/* A figure with median m and interval [lo, hi]. */
static struct pmb_figure fig(double m, double lo, double hi)
{
	struct pmb_figure f = { .valid = true, .ratio = NAN, .ratio_lo = NAN, .ratio_hi = NAN };

	f.s.median = m, f.s.ci_lo = lo, f.s.ci_hi = hi;
	return f;
}

/* Result r of definition d at input args, in family "t/" d->name. */
static void result(struct pmb_result *r, struct pmb_instance *in, const struct pmb_benchmark_def *d,
		   const char *args)
{
	memset(in, 0, sizeof(*in));
	memset(r, 0, sizeof(*r));
	in->def = d;
	snprintf(in->family, sizeof(in->family), "t/%s", d->name);
	snprintf(in->name, sizeof(in->name), "t/%s/%s", d->name, args);
	snprintf(in->args, sizeof(in->args), "%s", args);
	r->m.inst = in;
	r->m.seed = 7;
	r->m.seed_used = true;
	r->f.est_cycles = fig(NAN, NAN, NAN);
	r->f.est_cycles.valid = false;
}

#define NR 17

static struct pmb_instance inst[NR];
static struct pmb_result res[NR];

/* Study t/k: branchy's ns = 0.5 + 8 rate and cycles = 1.5 + 24 rate at the
 * counted rates 0, 0.1, 0.25, 0.5 (p0..p50); branchless at ratios that make
 * branchy win at p0, a tie at p10 (interval holds 1, intervals overlap),
 * branchless from p25 on; p75 has no branchless form, p90's branchy was
 * skipped.  Study t/m: no link, no counter read, declared rates. */
static size_t build(void)
{
	static const char *const in_k[] = { "p0", "p10", "p25", "p50" };
	static const double rate[] = { 0, 0.1, 0.25, 0.5 };
	static const double ratio[][3] = { { 1.2, 1.1, 1.3 }, { 0.9, 0.8, 1.05 }, { 0.6, 0.5, 0.7 },
					   { 0.4, 0.35, 0.45 } };
	size_t n = 0;

	for (int k = 0; k < 4; k++, n++) {
		double ns = 0.5 + 8 * rate[k];

		result(&res[n], &inst[n], &y_def, in_k[k]);
		res[n].f.time = fig(ns, ns * 0.9, ns * 1.1);
		res[n].f.ev[BM] = fig(rate[k], rate[k], rate[k]);
		res[n].f.ev[CYC] = fig(1.5 + 24 * rate[k], 0, 100);
	}
	result(&res[n], &inst[n], &y_def, "p75");
	res[n++].f.time = fig(7, 6, 8);
	result(&res[n], &inst[n], &y_def, "p90");
	res[n++].m.status = PMB_ESKIPPED;
	for (int k = 0; k < 4; k++, n++) {
		double ns = res[k].f.time.s.median * ratio[k][0];

		result(&res[n], &inst[n], &l_def, in_k[k]);
		/* intervals that overlap branchy's: the ratio alone decides */
		res[n].f.time = fig(ns, ns * 0.5, ns * 2);
		res[n].f.time.ratio = ratio[k][0];
		res[n].f.time.ratio_lo = ratio[k][1];
		res[n].f.time.ratio_hi = ratio[k][2];
		res[n].f.ev[BM] = fig(0.01 * k, 0, 1);
	}
	result(&res[n], &inst[n], &s_def, "p0");
	res[n++].f.time = fig(0.4, 0.39, 0.41);
	/* t/m: w1 and mix, declared rates 0.05 and 0.3; mix's seed differs */
	result(&res[n], &inst[n], &my_def, "w1");
	res[n].f.time = fig(2, 1.9, 2.1);
	res[n].f.ev[BM].valid = false;
	res[n].m.misp_declared = true;
	res[n++].m.misp_rate = 0.05;
	result(&res[n], &inst[n], &my_def, "mix");
	res[n].f.time = fig(4, 3.9, 4.1);
	res[n].m.seed = 8;
	res[n++].f.ev[BM].valid = false;
	result(&res[n], &inst[n], &ml_def, "w1");
	res[n++].f.time = fig(3, 2.9, 3.1);
	result(&res[n], &inst[n], &ml_def, "mix");
	res[n++].f.time = fig(1, 0.9, 1.1);
	return n;
}

static void context(struct pmb_context *c, enum pmb_backend backend)
{
	memset(c, 0, sizeof(*c));
	c->m.backend = backend;
	c->m.plan.nev = 2;
	snprintf(c->m.plan.ev[BM].name, sizeof(c->m.plan.ev[BM].name), "branch-misses");
	snprintf(c->m.plan.ev[CYC].name, sizeof(c->m.plan.ev[CYC].name), "cycles");
	c->m.event_group[BM] = c->m.event_group[CYC] = 0;
	c->m.has_cycles = true;
}

static void study_k(const struct pmb_branch_figures *b)
{
	static const int want_winner[] = { -1, 0, 1, 1 };
	static const enum pmb_branch_row want_row[] = {
		PMB_BRANCH_COMPARED, PMB_BRANCH_COMPARED, PMB_BRANCH_COMPARED, PMB_BRANCH_COMPARED,
		PMB_BRANCH_NO_LESS, PMB_BRANCH_SKIPPED,
	};
	bool rows = b->ninputs == 6, winners = true, points = true;

	tap_ok(!strcmp(b->study, "t/k") && b->in[0].y == &inst[0], "study t/k opens at its first branchy result (%s)",
	       b->study);
	for (int k = 0; rows && k < 6; k++)
		rows = b->in[k].row == want_row[k] && b->in[k].y == &inst[k];
	tap_ok(rows, "six inputs in the branchy results' order: four compared, p75 without a branchless "
	       "form, p90 skipped");
	tap_ok(b->in[0].l == &inst[6] && b->in[0].s == &inst[10] && !b->in[1].s && !b->in[4].l,
	       "each input names its branchless and sol results, or none");
	for (int k = 0; k < 4; k++)
		winners &= b->in[k].ranked && b->in[k].winner == want_winner[k] &&
			   b->in[k].ratio_kind == PMB_BRANCH_RATIO_LINKED;
	tap_ok(winners && !b->in[4].ranked && !b->in[5].ranked, "winners branchy, tie, branchless, branchless "
	       "by the linked ratio's interval; none where not compared");
	tap_ok(b->in[2].ratio == 0.6 && b->in[2].ratio_lo == 0.5 && b->in[2].ratio_hi == 0.7,
	       "p25's ratio is the linked one with its interval (%g [%g, %g])", b->in[2].ratio, b->in[2].ratio_lo,
	       b->in[2].ratio_hi);
	for (int k = 0; k < 4; k++)
		points &= b->in[k].point && b->in[k].rate == res[k].f.ev[BM].s.median &&
			  b->in[k].ns == res[k].f.time.s.median && b->in[k].cycles == res[k].f.ev[CYC].s.median;
	tap_ok(points && b->npoints == 4 && !b->in[4].point, "the four compared inputs are the penalty's points: "
	       "counted rate, ns and cycles per item");
	tap_ok(fabs(b->penalty_ns - 8) < 1e-12 && fabs(b->penalty_cycles - 24) < 1e-12,
	       "penalty 8 ns and 24 cycles per misprediction, the slopes (%.15g, %.15g)", b->penalty_ns,
	       b->penalty_cycles);
	tap_ok(b->rates_counted && b->cycles_counted && b->unrated == 0 && b->ordered,
	       "rates and cycles counted, every input rated, inputs ordered");
	tap_ok(b->misp[0][0] == 0 && b->misp[0][1] == 0.5 && b->misp[1][0] == 0 && b->misp[1][1] == 0.01 * 3,
	       "mispredictions per item: branchy 0 to 0.5, branchless 0 to 0.03 (%g to %g)", b->misp[1][0],
	       b->misp[1][1]);
	tap_ok(b->seeded && b->seed == 7, "every member seeded with 7");
	tap_ok(b->verdict == PMB_BRANCH_LESS_WINS_FROM && b->from == 2 && b->ranked == 4 && b->wins == 2 &&
	       b->losses == 1 && b->ncross == 1 && b->cross[0][0] == 1 && b->cross[0][1] == 2,
	       "verdict: branchless wins from p25 (in[2]) on, 2 of 4 ranked, branchy at 1; one crossing, between "
	       "p10 and p25 (the tie at p10 keeps branchy's side)");
	tap_ok(b->ev.bm == BM && b->ev.cyc == CYC && b->ev.ins == -1 && !b->ev.sim,
	       "the events the study reads, resolved once by the analysis: branch-misses, cycles, no instructions");
}

static void study_m(const struct pmb_branch_figures *b)
{
	tap_ok(!strcmp(b->study, "t/m") && b->in[0].y == &inst[11] && b->ninputs == 2, "study t/m: two inputs (%s)",
	       b->study);
	tap_ok(b->in[0].ratio_kind == PMB_BRANCH_RATIO_MEDIANS && b->in[0].ratio == 1.5 && isnan(b->in[0].ratio_lo),
	       "without a link the ratio is the medians' (w1: %g), with no interval", b->in[0].ratio);
	tap_ok(b->in[0].winner == -1 && b->in[1].winner == 1, "intervals apart decide: branchy at w1, "
	       "branchless at mix");
	tap_ok(!b->ordered, "a mix input: not ordered");
	tap_ok(b->npoints == 1 && b->in[0].rate == 0.05 && !b->rates_counted && b->unrated == 1,
	       "one point at the declared rate, one input unrated");
	tap_ok(isnan(b->penalty_ns) && isnan(b->penalty_cycles), "one point: no penalty");
	tap_ok(isnan(b->in[0].cycles), "no cycles measured: the point's cycles are not a number");
	tap_ok(!b->seeded, "members seeded with 7 and 8: no seed named");
	tap_ok(b->verdict == PMB_BRANCH_LESS_WINS_SOME && b->wins == 1 && b->ranked == 2 && b->losses == 1 &&
	       b->from == 1 && b->ncross == 0, "verdict: not ordered, branchless wins at 1 of 2, no crossing named");
}

/* The verdict's kinds, from study t/k's winners made over: the ratio
 * intervals of p0..p50 set to below 1 (branchless wins), above 1 (branchy
 * wins) or around 1 (a tie) per input, branchless's own interval over
 * branchy's. */
static void verdict_kinds(void)
{
	static const struct {
		char w[4]; /* '+' branchless, '-' branchy, '0' tie, per input p0..p50 */
		enum pmb_branch_verdict want;
		int from, ncross;
	} cases[] = {
		{ "++++", PMB_BRANCH_LESS_WINS_ALL, 0, 0 },   { "----", PMB_BRANCH_LESS_NEVER_WINS, -1, 0 },
		{ "0000", PMB_BRANCH_NO_DIFFERENCE, -1, 0 },  { "+-+0", PMB_BRANCH_LESS_WINS_SOME, -1, 2 },
		{ "-0++", PMB_BRANCH_LESS_WINS_FROM, 2, 1 },
	};
	static const double iv[3][2] = { { 0.5, 0.7 }, { 1.1, 1.3 }, { 0.9, 1.1 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmb_context c;
		size_t n = build();
		bool ok;

		for (int k = 0; k < 4; k++) {
			int q = cases[i].w[k] == '+' ? 0 : cases[i].w[k] == '-' ? 1 : 2;

			res[6 + k].f.time.ratio_lo = iv[q][0];
			res[6 + k].f.time.ratio_hi = iv[q][1];
			/* an interval over every branchy one: the ratio alone decides */
			res[6 + k].f.time.s.ci_lo = 0;
			res[6 + k].f.time.s.ci_hi = 100;
		}
		context(&c, PMB_BACKEND_PERF);
		ok = pmb__analyze_branches(&c, res, n) == 0 && c.f.nbranches == 2;
		const struct pmb_branch_figures *b = ok ? &c.f.branches[0] : NULL;
		tap_ok(b && b->verdict == cases[i].want && b->from == cases[i].from && b->ncross == cases[i].ncross,
		       "verdict of winners %.4s: kind %d (want %d), from %d, %d crossings", cases[i].w,
		       b ? (int)b->verdict : -1, (int)cases[i].want, b ? b->from : -2, b ? b->ncross : -1);
		pmb__context_free(&c);
	}
}

/* The console's findings, rendered from the figures. */
static void findings(const struct pmb_context *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *want = "t/k: branchless wins from p25 on; branchy wins at p0; they cross between p10 and p25; "
			   "misprediction penalty 8.00 ns, 24.0 cycles (rates MEASURED)\n"
			   "t/m: branchless wins at 1 of 2 inputs; branchy wins at w1\n";

	pmb__branch_findings(f, c);
	fclose(f);
	if (!tap_ok(buf && !strcmp(buf, want), "the findings render the figures as wanted"))
		tap_diag_lines("rendered:", buf), tap_diag_lines("wanted:", want);
	free(buf);
}

int main(void)
{
	struct pmb_context c;
	size_t n = build();
	int rc;

	context(&c, PMB_BACKEND_PERF);
	rc = pmb__analyze_branches(&c, res, n);
	tap_ok(rc == 0 && c.f.nbranches == 2, "two studies (%d)", c.f.nbranches);
	if (c.f.nbranches == 2) {
		study_k(&c.f.branches[0]);
		study_m(&c.f.branches[1]);
		findings(&c);
	}
	pmb__context_free(&c);

	context(&c, PMB_BACKEND_SIM);
	pmb__analyze_branches(&c, res, n);
	tap_ok(c.f.nbranches == 2 && !c.f.branches[0].in[0].ranked && c.f.branches[0].npoints == 0 &&
	       isnan(c.f.branches[0].penalty_ns) && c.f.branches[0].misp[0][1] == 0.5,
	       "simulated: no winner, no point, no penalty; the mispredictions still");
	tap_ok(c.f.nbranches == 2 && c.f.branches[0].verdict == PMB_BRANCH_VERDICT_NONE && c.f.branches[0].ranked == 0,
	       "simulated: no verdict");
	pmb__context_free(&c);
	verdict_kinds();
	return tap_done();
}
