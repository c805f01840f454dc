/* analysis.c - samples to per-item figures: harness overhead, fits, baselines (warnings: analysis_warn.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define CONF 0.95
#define RESAMPLES 1000
#define STAT_SEED PMB_SUMMARY_SEED /* fixed: the same samples give the same intervals */

/* What a sample of median size cannot tell apart from zero: the clock's
 * (or counter's) step spread over the items, or the noise of the
 * subtracted harness overhead. */
static void resolve(struct pmb_figure *f, const double *p, size_t n, double ov_pass, double noise_pass,
		    double res_sample, double items, bool timing)
{
	double pmed = pmb__median(p, n);
	double r1 = res_sample / (pmed * items), r2 = noise_pass / items;
	/* The same empty loop compiled at another address runs at another
	 * speed (seen here: copies 2x apart, because the counter makes a
	 * store-to-load round trip each pass), so the loop's own cost per pass
	 * is not resolved either: negligible for a batch of items per pass,
	 * the honest limit for one item per pass. */
	double r3 = timing ? ov_pass / items : 0; /* counts do not jitter so */

	f->resolution = fmax(fmax(r1, r2), r3);
	/* A figure whose confidence interval reaches zero cannot be told
	 * from zero either: it is below what this measurement resolves, up
	 * to the top of its interval. */
	if (f->s.ci_lo <= 0 && f->s.ci_hi > f->resolution)
		f->resolution = f->s.ci_hi;
	f->below_resolution = f->s.median < f->resolution || f->s.ci_lo <= 0;
}

size_t pmb__per_item_values(const double *v, const double *p, size_t n, double ov_sample,
			    double ov_pass, double items, double *out)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		bool given = !isnan(v[i]) && !isnan(p[i]) && p[i] * items > 0;

		out[i] = given ? pmb_per_item(v[i], ov_sample, ov_pass, p[i], items) : NAN;
		m += given;
	}
	return m;
}

/* Raw per-sample totals over passes: the ladder's samples, then the
 * fixed-cost probes (which the fixed cost alone uses). */
struct totals {
	double *p, *v;
	size_t n, nprobe;
};

/* Per-item figure from raw per-sample totals t->v[i] over passes t->p[i]. */
static void figure(struct pmb_figure *f, const struct totals *t, double ov_pass, double ov_sample,
		   double noise_pass, double res_sample, double items, bool timing, bool exact,
		   double *per_item)
{
	const double *p = t->p, *v = t->v;
	size_t n = t->n, all = t->n + t->nprobe;
	double *cost = malloc((all + 1) * sizeof(double));

	memset(f, 0, sizeof(*f));
	f->normalized = f->ratio = f->ratio_lo = f->ratio_hi = NAN;
	f->fixed_lo = f->fixed_hi = f->fixed_two_point = f->fixed_fit = NAN;
	/* Every sample has passes and a value: all n are numbers (filled
	 * first, whatever follows: the caller keeps the time's). */
	pmb__per_item_values(v, p, n, ov_sample, ov_pass, items, per_item);
	if (!cost || n == 0) {
		free(cost);
		return;
	}
	for (size_t i = 0; i < all; i++)
		cost[i] = v[i] - ov_sample - ov_pass * p[i];
	if (pmb__summarize(per_item, n, STAT_SEED, &f->s) != 0) {
		free(cost);
		return; /* out of memory: not measured rather than made up */
	}
	if (n < 3)
		f->s.ci_lo = f->s.ci_hi = NAN; /* no interval from one or two samples */
	f->valid = true;
	resolve(f, p, n, ov_pass, noise_pass, res_sample, items, timing);
	/* A fixed cost under 10 steps of the clock (or counter) is none. */
	pmb__fixed_cost(f, p, cost, n, t->nprobe, exact, 10 * res_sample);
	free(cost);
}

/* The array for event e's count in each of n samples s, scaled to its
 * enabled time (filled by event_figure, NAN where a sample did not read it
 * or its group never ran); NULL where no sample read e (or out of memory). */
static double *scaled_counts(const struct pmb_sample *s, size_t n, int e)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].mask & (1u << e))
			return malloc(n * sizeof(double));
	return NULL;
}

/* Event e's figure from the samples and probes that read it (t: scratch
 * of r->m.nsamples + r->m.nprobes), and its scaled counts per sample (ps). */
static void event_figure(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig,
			 int e, const struct pmb_overhead *o, double items, struct totals *t, double *pi,
			 struct pmb_per_sample *ps)
{
	size_t m = 0, read = 0;
	int scaled = 0, probe_scaled = 0;
	double *sv = ps->ev[e] = scaled_counts(r->m.samples, r->m.nsamples, e);
	double *pv = ps->probe_ev[e] = scaled_counts(r->m.probes, r->m.nprobes, e);

	for (size_t i = 0; i < r->m.nsamples; i++) {
		double x;
		bool got = pmb__sample_event(&r->m.samples[i], e, &x, &scaled);

		read += (r->m.samples[i].mask >> e) & 1u;
		if (sv)
			sv[i] = got ? x : NAN;
		if (got) {
			t->p[m] = (double)r->m.samples[i].passes;
			t->v[m++] = x;
		}
	}
	t->n = m;
	for (size_t i = 0; i < r->m.nprobes; i++) {
		double x;
		bool got = pmb__sample_event(&r->m.probes[i], e, &x, &probe_scaled);

		if (pv)
			pv[i] = got ? x : NAN;
		if (got) {
			t->p[m] = (double)r->m.probes[i].passes;
			t->v[m++] = x;
		}
	}
	t->nprobe = m - t->n;
	m = t->n;
	/* Cycle and clock counts vary with the loop's speed as time does;
	 * instruction, branch and cache counts do not. */
	const char *nm = ctx->m.plan.ev[e].name;
	bool timing = ctx->m.plan.ev[e].means == PMB_MEANS_CYCLES || strstr(nm, "cycles") ||
		      strstr(nm, "clock") || strstr(nm, "CYCLES");

	figure(&fig->ev[e], t, o->ev_valid[e] ? o->ev_per_pass[e] : 0,
	       o->ev_valid[e] ? o->ev_per_sample[e] : 0, o->ev_noise_per_pass[e],
	       1.0, items, timing, pmb_context_sim(ctx), pi);
	/* Samples read in which the PMU never ran the group: the kernel
	 * multiplexed it with others, as much as scaling. */
	if (m > 0 && m < read)
		scaled = 1;
	fig->ev[e].multiplexed = m == 0 && read ? -1 : scaled;
	fig->ev[e].simulated = ctx->m.plan.ev[e].kind == PMB_EV_SIM;
}

double pmb__analysis_est_ghz(const struct pmb_context *ctx)
{
	double g = ctx->m.ghz;

	return !pmb_context_sim(ctx) && !ctx->m.has_cycles && g > 0 && isfinite(g) ? g : 0;
}

/* Cycles from time where no cycles event counts: as good as the frequency
 * estimate, and labelled estimated wherever it is shown. */
static void estimate_cycles(const struct pmb_context *ctx, struct pmb_figures *fig)
{
	double g = pmb__analysis_est_ghz(ctx);

	memset(&fig->est_cycles, 0, sizeof(fig->est_cycles));
	fig->est_cycles.normalized = fig->est_cycles.ratio = NAN;
	if (!(g > 0) || !fig->time.valid)
		return;
	fig->est_cycles = fig->time;
	fig->est_cycles.estimated = true;
	struct pmb_summary *s = &fig->est_cycles.s;
	s->median *= g, s->mean *= g, s->min *= g, s->max *= g;
	s->stddev *= g, s->ci_lo *= g, s->ci_hi *= g;
	s->tukey.q1 *= g, s->tukey.q3 *= g;
	fig->est_cycles.resolution *= g;
	fig->est_cycles.fixed *= g, fig->est_cycles.fixed_lo *= g, fig->est_cycles.fixed_hi *= g;
	fig->est_cycles.fixed_two_point *= g, fig->est_cycles.fixed_fit *= g;
}

/* The event that stands for a result's cost where time does not: the
 * instructions, else the plan's first; -1 none planned. */
static int cost_event(const struct pmb_context *ctx)
{
	int ins = pmb__context_event(ctx, "instructions");

	return ins >= 0 ? ins : ctx->m.plan.nev > 0 ? 0 : -1;
}

/* CPU time per item, for JSON's cpu_time (Google Benchmark's CPU time):
 * task-clock per item where it was counted; else ns/item times the CPU
 * share of the samples phase (the thread's CPU time over its wall time);
 * none under simulation.  Never ns/item again: where the task was off the
 * CPU it is less (issue 26). */
static void cpu_time(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig)
{
	int tc = pmb__context_event(ctx, "task-clock");

	fig->cpu_per_item = NAN;
	fig->cpu_source = NULL;
	if (!fig->time.valid || pmb_context_sim(ctx))
		return;
	if (tc >= 0 && fig->ev[tc].valid) {
		fig->cpu_per_item = fig->ev[tc].below_resolution ? fmax(fig->ev[tc].s.median, 0) : fig->ev[tc].s.median;
		fig->cpu_source = "task-clock";
	} else if (r->m.span_wall_ns && r->m.span_cpu_ns) {
		double share = fmin((double)r->m.span_cpu_ns / (double)r->m.span_wall_ns, 1);

		fig->cpu_per_item = fmax(fig->time.s.median, 0) * share;
		fig->cpu_source = "thread CPU time";
	}
}

/* What derived figure k (computed: fig->derived[k]; operands a, b, b
 * NULL per item) may claim: none where it is not computable (or fell
 * under zero), none over a denominator at or under its resolution (300 %
 * mispredicted of branches that are noise), the bound where its numerator
 * is below resolution, else its value. */
static void derived_given(struct pmb_figures *fig, int k, const struct pmb_derived *d, const struct pmb_figure *a,
			  const struct pmb_figure *b)
{
	double v = fig->derived[k];

	fig->derived_bound[k] = NAN;
	if (!isfinite(v) || v < 0)
		fig->derived_given[k] = PMB_DERIVED_NONE;
	else if (b && b->s.median <= b->resolution)
		fig->derived_given[k] = PMB_DERIVED_DEN_LOW;
	else if (a->below_resolution) {
		fig->derived_given[k] = PMB_DERIVED_BOUND;
		fig->derived_bound[k] = a->resolution / (b ? b->s.median : 1) * d->scale;
	} else
		fig->derived_given[k] = PMB_DERIVED_VALUE;
}

/* The plan's derived figures (MPKI, miss ratios) and the rates. */
static void derive(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig,
		   double items)
{
	for (int k = 0; k < ctx->m.plan.nder; k++) {
		const struct pmb_derived *d = &ctx->m.plan.der[k];
		const struct pmb_figure *a = d->num >= 0 ? &fig->ev[d->num] : NULL;
		const struct pmb_figure *b = d->den >= 0 ? &fig->ev[d->den] : NULL;

		/* A figure below its resolution counts as zero, never as the
		 * negative number the subtraction may leave; a ratio over a
		 * denominator that is not resolved is not computed. */
		if (!a || !a->valid)
			continue;
		double num = a->below_resolution ? fmax(a->s.median, 0) : a->s.median;
		if (d->den < 0)
			fig->derived[k] = num * d->scale;
		else if (b && b->valid && !b->below_resolution && b->s.median > 0)
			fig->derived[k] = num / b->s.median * d->scale;
		derived_given(fig, k, d, a, b);
	}
	cpu_time(ctx, r, fig);
	fig->items_per_second = fig->bytes_per_second = NAN;
	/* A rate from a time below resolution would be a made-up number. */
	if (fig->time.valid && !fig->time.below_resolution && fig->time.s.median > 0) {
		fig->items_per_second = 1e9 / fig->time.s.median;
		fig->bytes_per_second = (double)r->m.bytes_per_pass / items * fig->items_per_second;
	}
}

/* r's figures into fig, its figures per sample into ps, from its samples
 * and probes. */
static void analyze_one(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *fig,
			struct pmb_per_sample *ps)
{
	size_t n = r->m.nsamples, all = n + r->m.nprobes;
	double items = (double)(r->m.items_per_pass ? r->m.items_per_pass : 1);
	struct totals t = { malloc((all + 1) * sizeof(double)), malloc((all + 1) * sizeof(double)), n,
			    r->m.nprobes };
	double *pi = malloc((n + 1) * sizeof(double));
	const struct pmb_overhead *o = pmb_result_overhead(ctx, r);

	memset(&fig->time, 0, sizeof(fig->time));
	for (int k = 0; k < PMB_MAX_DERIVED; k++) {
		fig->derived[k] = fig->derived_bound[k] = NAN;
		fig->derived_given[k] = PMB_DERIVED_NONE;
	}
	fig->rep_spread = NAN;
	if (!t.p || !t.v || !pi || n == 0)
		goto out;
	for (size_t i = 0; i < all; i++) {
		const struct pmb_sample *s = i < n ? &r->m.samples[i] : &r->m.probes[i - n];

		t.p[i] = (double)s->passes;
		t.v[i] = (double)s->ns;
	}
	figure(&fig->time, &t, o->ns_per_pass, o->ns_per_sample, o->ns_noise_per_pass,
	       ctx->m.clock.resolution_ns, items, true, false, pi);
	/* time per item of each sample, as the time figure was made from */
	ps->n = n;
	ps->nprobes = r->m.nprobes;
	ps->ns_per_item = malloc(n * sizeof(double));
	if (ps->ns_per_item)
		memcpy(ps->ns_per_item, pi, n * sizeof(double));
	if (pmb_context_sim(ctx))
		fig->time.valid = false; /* valgrind's clock says nothing */
	for (int e = 0; e < ctx->m.plan.nev; e++)
		event_figure(ctx, r, fig, e, o, items, &t, pi, ps);
	estimate_cycles(ctx, fig);
	derive(ctx, r, fig, items);
out:
	free(t.p);
	free(t.v);
	free(pi);
}

bool pmb__first_of_family(const struct pmb_result *r, size_t i)
{
	if (r[i].m.not_run)
		return false;
	for (size_t j = 0; j < i; j++)
		if (!r[j].m.not_run && !strcmp(r[j].m.inst->family, r[i].m.inst->family))
			return false;
	return true;
}

int pmb__analyze(struct pmb_context *ctx, struct pmb_result *r, size_t n, size_t reps)
{
	int rc = pmb__analyze_figures(ctx, r, n, reps);

	if (!rc)
		pmb__analysis_warn(ctx, r, n);
	return rc;
}

/* The figures of r[0..n) into fig[0..n), and the run's into out: what the
 * analysis reads it reads const. */
static int figures(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *const *fig,
		   size_t n, size_t reps, struct pmb_run_figures *out)
{
	pmb__per_sample_free(out);
	out->est_ghz = pmb__analysis_est_ghz(ctx);
	out->cost_event = cost_event(ctx);
	out->per_sample = calloc(n + 1, sizeof(*out->per_sample));
	if (!out->per_sample)
		return -ENOMEM;
	out->nper_sample = n;
	for (size_t i = 0; i < n; i++) {
		out->per_sample[i].inst = r[i].m.inst;
		out->per_sample[i].repetition = r[i].m.repetition;
		if (r[i].m.status == 0)
			analyze_one(ctx, &r[i], fig[i], &out->per_sample[i]);
		pmb__analysis_check(ctx, &r[i], fig[i]);
		fig[i]->passes = fig[i]->ns = 0;
		for (size_t k = 0; k < r[i].m.nsamples; k++) {
			fig[i]->passes += r[i].m.samples[k].passes;
			fig[i]->ns += r[i].m.samples[k].ns;
		}
	}
	pmb__analysis_links(ctx, r, fig, n, reps);
	/* Spread between repetitions: each is a whole call, fresh setup. */
	if (reps > 1) {
		double med[64];

		for (size_t i = 0; i + reps <= n; i += reps) {
			size_t m = 0;

			for (size_t k = 0; k < reps && m < 64; k++)
				if (r[i + k].m.status == 0 && fig[i + k]->time.valid)
					med[m++] = fig[i + k]->time.s.median;
			if (m < 2)
				continue;
			double lo = med[0], hi = med[0], c = pmb__median(med, m);
			for (size_t k = 1; k < m; k++) {
				lo = med[k] < lo ? med[k] : lo;
				hi = med[k] > hi ? med[k] : hi;
			}
			for (size_t k = 0; k < reps; k++)
				fig[i + k]->rep_spread = c != 0 ? (hi - lo) / fabs(c) : NAN;
		}
	}
	pmb__analysis_learn(ctx, r, fig, n, reps);
	return pmb__analysis_sweeps(ctx, out, r, n) ? -ENOMEM : pmb__analysis_branches(ctx, out, r, n);
}

int pmb__analyze_figures(struct pmb_context *ctx, struct pmb_result *r, size_t n, size_t reps)
{
	struct pmb_figures **fig = malloc((n + 1) * sizeof(*fig));
	int rc;

	if (!fig)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		fig[i] = &r[i].f;
	rc = figures(ctx, r, fig, n, reps ? reps : 1, &ctx->f);
	free(fig);
	return rc;
}
