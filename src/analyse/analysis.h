/* analysis.h - samples to per-item figures: overhead, fits, baselines, warnings. */
#ifndef PMB_ANALYSIS_H
#define PMB_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* The analysis's entries take the stages' containers (the run's context
 * and its results) and hand them on split: what was measured (ctx, r[i].m)
 * read through const pointers, what the analysis writes (ctx->f, r[i].f)
 * through pointers of their own; every other function of analyse/ has
 * that form, so the compiler holds it to writing figures only.
 *
 * Per-item figures of every result, then baselines and references, then
 * the warnings a user must see (into ctx->f).  Returns 0 or -ENOMEM. */
int pmb__analyze(struct pmb_context *ctx, struct pmb_result *r, size_t n,
		size_t repetitions);


/* Per-item values of raw per-sample totals v[i] over passes p[i] (items
 * an item count per pass), less the harness overhead: ov_sample per
 * sample and ov_pass per pass (pmb_per_item).  The one arithmetic of
 * every per-item figure: the run's analysis, its links, and compare's
 * reading of a saved run's raw samples.  out[i] is NAN where v[i] or p[i]
 * is not a number or p[i] * items is not positive (no value, no passes).
 * Returns how many out[] are numbers. */
size_t pmb__per_item_values(const double *v, const double *p, size_t n, double ov_sample,
			    double ov_pass, double items, double *out);

/* Whether r's loop holds none of the work: no instructions per item
 * (simulated), or under 0.1 counted.  The run then looks at the code to say
 * where the work went (pmb_result.work_went) before the warnings name it. */
bool pmb__analysis_no_work(const struct pmb_context *ctx, const struct pmb_result *r);

/* For analysis.c (in analysis_check.c): r's known answer (--self-check)
 * against the figure it names, into fig->check (verdict NONE where r has
 * none). */
void pmb__analysis_check(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig);

/* Per-item figures of every result, then baselines and references, without
 * the warnings (pmb__analyze is this, then pmb__analysis_warn). */
int pmb__analyze_figures(struct pmb_context *ctx, struct pmb_result *r, size_t n, size_t repetitions);

/* The frequency cycles are estimated from time with (GHz): the probe's
 * estimate where time is measured (not simulated) and no cycles event
 * counts, and the estimate is a number above 0; else 0, no cycles are
 * estimated.  The one rule of each result's est_cycles, a sweep's tiers
 * in cycles and the run's est_ghz that the reports label them with. */
double pmb__analysis_est_ghz(const struct pmb_context *ctx);

/* For analysis.c (in analysis_fixed.c): f's fixed cost per sample from
 * the per-sample costs cost[i] (harness overhead subtracted) over p[i]
 * passes: n samples of the ladder, then nprobe fixed-cost probes; exact
 * for counts that do not vary (the simulator).  Below floor (what a
 * sample resolves) no fixed cost is claimed. */
void pmb__fixed_cost(struct pmb_figure *f, const double *p, const double *cost, size_t n, size_t nprobe,
		     bool exact, double floor);

/* For analysis.c (in analysis_links.c): normalized figures and ratios of
 * res[0..n) (reps repetitions of each instance, side by side), into
 * fig[0..n) (res[i]'s figures). */
void pmb__analysis_links(const struct pmb_context *ctx, const struct pmb_result *res, struct pmb_figures *const *fig,
			 size_t n, size_t reps);

/* The warnings res[0..n)'s figures call for, into ctx->f, one per kind,
 * naming up to four benchmarks each (analysis_warn.c). */
void pmb__analysis_warn(struct pmb_context *ctx, const struct pmb_result *res, size_t n);

/* For analysis.c (in analysis_learn.c): per result, whether the cost per
 * pass falls along the ladder of pass counts (an input being learned) and
 * whether rungs or repetitions fall in separate modes (marked multimodal on
 * the cost figure: time, or instructions under simulation). */
void pmb__analysis_learn(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *const *fig,
			 size_t n, size_t reps);

/* Whether r[i] is the first result of its family that the reports show:
 * not left unmeasured by a signal (not_run: the reports walk the results
 * without those), and none such before it (analysis.c).  Opens a sweep or
 * a branch study. */
bool pmb__first_of_family(const struct pmb_result *r, size_t i);

/* The figures of every working-set sweep in r[0..n) (a family of points
 * with a tier), into out->sweeps (analysis_sweep.c; replaced if there),
 * and what sweeps are figures of, into out->sweep_event.
 * Returns 0 or -ENOMEM. */
int pmb__analysis_sweeps(const struct pmb_context *ctx, struct pmb_run_figures *out, const struct pmb_result *r,
			 size_t n);
/* The same into ctx->f. */
int pmb__analyze_sweeps(struct pmb_context *ctx, const struct pmb_result *r, size_t n);

/* The figures of every branch study in r[0..n) (a branchy result's .study,
 * with its branchless and sol forms), into out->branches in the order of
 * their first branchy results (analysis_branch.c; replaced if there), and
 * what a study's points are figures of, into out->branch_event.
 * Returns 0 or -ENOMEM. */
int pmb__analysis_branches(const struct pmb_context *ctx, struct pmb_run_figures *out, const struct pmb_result *r,
			   size_t n);
int pmb__analyze_branches(struct pmb_context *ctx, const struct pmb_result *r, size_t n);

/* The misprediction penalty a branch study implies: the slope of cost per
 * item against mispredictions per item over n inputs (Theil-Sen).  NAN with
 * under three inputs, a non-finite point, or rates spread by under 0.1. */
double pmb__branch_penalty(const double *rate, const double *cost, size_t n);
/* Who wins at one input, branchy fy against branchless fl: +1 branchless,
 * -1 branchy, 0 a tie.  fl's ratio interval decides where it is linked (its
 * .reference is the branchy form) and excludes 1; figures whose intervals
 * do not overlap are never a tie. */
int pmb__branch_winner(const struct pmb_figure *fy, const struct pmb_figure *fl, bool linked);

#endif
