/* analysis.c - samples to per-item figures: harness overhead, fits, baselines, warnings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define CONF 0.95
#define RESAMPLES 1000
#define STAT_SEED 0x70b1u /* fixed: the same samples give the same intervals */

/* Value of event e in sample s, scaled; false when it was not read or
 * never ran in that sample. */
static bool sample_event(const struct pmb_sample *s, int e, double *v, int *scaled)
{
	int k;

	if (!(s->mask & (1u << e)))
		return false;
	k = pmb_count_scale(&s->count[e], v);
	if (k < 0)
		return false;
	if (k > 0)
		*scaled = 1;
	return true;
}

/* The empty loop's samples at N and 2N passes and at one pass: cost =
 * a + b * passes.  The one-pass samples measure a + b, nearly all of it the
 * cost per sample; the per-pass cost b is the median of (T - T(1)) /
 * (passes - 1) over the N and 2N samples, and a = T(1) - b.  Exact on exact
 * data (the simulator's counts); with noise, medians, the statistic the
 * benchmarks are reported with, so an empty body comes out as zero.  Without
 * one-pass samples: the two-point form on the medians at N and 2N.
 * Neither can be negative: noise that makes one so is clamped to 0. */
static void fit_overhead(const double *x, const double *y, size_t n,
			 double *per_pass, double *per_sample, double *noise)
{
	double *lo = malloc((n + 1) * sizeof(double)), *hi = malloc((n + 1) * sizeof(double));
	double *one = malloc((n + 1) * sizeof(double));
	double xmin = INFINITY, xmax = 0;
	size_t nlo = 0, nhi = 0, none = 0;

	*per_pass = *per_sample = *noise = 0;
	if (!lo || !hi || !one || n < 2)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (x[i] <= 1) {
			one[none++] = y[i];
			continue;
		}
		xmin = x[i] < xmin ? x[i] : xmin;
		xmax = x[i] > xmax ? x[i] : xmax;
	}
	if (!(xmax > 1))
		goto out;
	if (none) {
		double t1 = pmb_median(one, none);

		for (size_t i = 0; i < n; i++)
			if (x[i] > 1)
				hi[nhi++] = (y[i] - t1) / (x[i] - 1);
		pmb_sort(hi, nhi);
		*per_pass = fmax(pmb_quantile_sorted(hi, nhi, 0.5), 0);
		*per_sample = fmax(t1 - *per_pass, 0);
		/* What the subtraction cannot resolve: half the IQR of the
		 * per-pass estimates. */
		*noise = (pmb_quantile_sorted(hi, nhi, 0.75) - pmb_quantile_sorted(hi, nhi, 0.25)) / 2;
		goto out;
	}
	if (!(xmax > xmin))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (x[i] == xmin)
			lo[nlo++] = y[i];
		else if (x[i] == xmax)
			hi[nhi++] = y[i];
	}
	pmb_sort(lo, nlo);
	pmb_sort(hi, nhi);
	double qlo = pmb_quantile_sorted(lo, nlo, 0.5), qhi = pmb_quantile_sorted(hi, nhi, 0.5);
	*per_pass = fmax((qhi - qlo) / (xmax - xmin), 0);
	*per_sample = fmax(qlo - *per_pass * xmin, 0);
	*noise = (pmb_quantile_sorted(hi, nhi, 0.75) - pmb_quantile_sorted(hi, nhi, 0.25)) / 2 / xmax;
out:
	free(lo);
	free(hi);
	free(one);
}

int pmb_overhead_fit(const struct pmb_sample *s, size_t n, struct pmb_overhead *o)
{
	double *x = malloc((n + 1) * sizeof(double)), *y = malloc((n + 1) * sizeof(double));

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	memset(o, 0, sizeof(*o));
	o->nsamples = n;
	o->passes = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)s[i].passes;
		y[i] = (double)s[i].ns;
		if (s[i].passes > 1 && s[i].passes < o->passes)
			o->passes = s[i].passes; /* N: the one-pass samples aside */
	}
	if (o->passes == UINT64_MAX)
		o->passes = 0;
	fit_overhead(x, y, n, &o->ns_per_pass, &o->ns_per_sample, &o->ns_noise_per_pass);
	for (int e = 0; e < PMB_MAX_EVENTS; e++) {
		size_t m = 0;
		int scaled = 0;

		for (size_t i = 0; i < n; i++) {
			double v;

			if (sample_event(&s[i], e, &v, &scaled)) {
				x[m] = (double)s[i].passes;
				y[m++] = v;
			}
		}
		o->ev_valid[e] = m >= 2;
		fit_overhead(x, y, m, &o->ev_per_pass[e], &o->ev_per_sample[e],
			     &o->ev_noise_per_pass[e]);
	}
	free(x);
	free(y);
	return 0;
}

int pmb_analysis_overhead(struct pmb_context *ctx, const struct pmb_sample *s, size_t n)
{
	return pmb_overhead_fit(s, n, &ctx->overhead);
}

/* Per-item figure from raw per-sample totals v[i] over passes p[i]. */
static void figure(struct pmb_figure *f, const double *p, const double *v, size_t n,
		   double ov_pass, double ov_sample, double noise_pass, double res_sample,
		   double items, bool timing, double *per_item)
{
	struct pmb_fit fit;
	double *cost = malloc((n + 1) * sizeof(double));

	memset(f, 0, sizeof(*f));
	f->normalized = f->ratio = f->ratio_lo = f->ratio_hi = NAN;
	if (!cost || n == 0) {
		free(cost);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		cost[i] = v[i] - ov_sample - ov_pass * p[i];
		per_item[i] = pmb_per_item(v[i], ov_sample, ov_pass, p[i], items);
	}
	if (pmb_summarize(per_item, n, STAT_SEED, &f->s) != 0) {
		free(cost);
		return; /* out of memory: not measured rather than made up */
	}
	if (n < 3)
		f->s.ci_lo = f->s.ci_hi = NAN; /* no interval from one or two samples */
	f->valid = true;
	/* What a sample of median size cannot tell apart from zero: the
	 * clock's (or counter's) step spread over the items, or the noise
	 * of the subtracted harness overhead. */
	double pmed = pmb_median(p, n);
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
	if (n >= 3 && pmb_fit_line(p, cost, n, &fit) == 0) {
		double typical = pmb_median(cost, n);
		double pmin = p[0], pmax = p[0], tmin = INFINITY, tmax = INFINITY;

		f->fixed = fit.a;
		f->fixed_share = typical > 0 ? fit.a / typical : 0;
		/* Two-point cross-check on the fastest sample at the smallest
		 * and at the largest pass count. */
		for (size_t i = 0; i < n; i++) {
			if (p[i] < pmin)
				pmin = p[i];
			if (p[i] > pmax)
				pmax = p[i];
		}
		for (size_t i = 0; i < n; i++) {
			if (p[i] < pmin * 1.15 && cost[i] / p[i] < tmin)
				tmin = cost[i] / p[i];
			if (p[i] > pmax / 1.15 && cost[i] / p[i] < tmax)
				tmax = cost[i] / p[i];
		}
		f->fixed_two_point = pmax > pmin * 1.5 && isfinite(tmin) && isfinite(tmax)
					     ? pmb_setup_two_point(pmin, tmin, pmax, tmax)
					     : NAN;
		/* Flag only what three estimates agree on: least squares,
		 * Theil-Sen and the two-point formula.  On a noisy machine
		 * any one of them alone sees fixed costs that are not there. */
		double share = f->fixed_share;
		double ts = typical > 0 ? fit.ts_a / typical : 0;
		double tp = typical > 0 && isfinite(f->fixed_two_point) ? f->fixed_two_point / typical : 0;
		share = ts < share ? ts : share;
		share = tp < share ? tp : share;
		/* Fewer than 10 samples on the ladder fit any line: report the
		 * estimates, flag nothing. */
		f->fixed_share = n >= 10 ? share : 0;
	}
	free(cost);
}

static void analyze_one(struct pmb_context *ctx, struct pmb_result *r)
{
	size_t n = r->nsamples;
	double items = (double)(r->items_per_pass ? r->items_per_pass : 1);
	double *p = malloc((n + 1) * sizeof(double));
	double *v = malloc((n + 1) * sizeof(double));
	double *pi = malloc((n + 1) * sizeof(double));
	const struct pmb_overhead *o = pmb_result_overhead(ctx, r);

	memset(&r->time, 0, sizeof(r->time));
	for (int k = 0; k < PMB_MAX_DERIVED; k++)
		r->derived[k] = NAN;
	r->rep_spread = NAN;
	if (!p || !v || !pi || n == 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		p[i] = (double)r->samples[i].passes;
		v[i] = (double)r->samples[i].ns;
	}
	figure(&r->time, p, v, n, o->ns_per_pass, o->ns_per_sample, o->ns_noise_per_pass,
	       ctx->clock.resolution_ns, items, true, pi);
	if (pmb_context_sim(ctx))
		r->time.valid = false; /* valgrind's clock says nothing */
	for (int e = 0; e < ctx->plan.nev; e++) {
		size_t m = 0, read = 0;
		int scaled = 0;

		for (size_t i = 0; i < n; i++) {
			double x;

			read += (r->samples[i].mask >> e) & 1u;
			if (sample_event(&r->samples[i], e, &x, &scaled)) {
				p[m] = (double)r->samples[i].passes;
				v[m++] = x;
			}
		}
		/* Cycle and clock counts vary with the loop's speed as time
		 * does; instruction, branch and cache counts do not. */
		const char *nm = ctx->plan.ev[e].name;
		bool timing = ctx->plan.ev[e].means == PMB_MEANS_CYCLES || strstr(nm, "cycles") ||
			      strstr(nm, "clock") || strstr(nm, "CYCLES");

		figure(&r->ev[e], p, v, m, o->ev_valid[e] ? o->ev_per_pass[e] : 0,
		       o->ev_valid[e] ? o->ev_per_sample[e] : 0, o->ev_noise_per_pass[e],
		       1.0, items, timing, pi);
		/* Samples read in which the PMU never ran the group: the
		 * kernel multiplexed it with others, as much as scaling. */
		if (m > 0 && m < read)
			scaled = 1;
		r->ev[e].scaled = m == 0 && read ? -1 : scaled;
		r->ev[e].simulated = ctx->plan.ev[e].kind == PMB_EV_SIM;
	}
	memset(&r->est_cycles, 0, sizeof(r->est_cycles));
	r->est_cycles.normalized = r->est_cycles.ratio = NAN;
	if (!ctx->has_cycles && ctx->ghz > 0 && r->time.valid) {
		/* Cycles from time: as good as the frequency estimate, and
		 * labelled estimated wherever it is shown. */
		r->est_cycles = r->time;
		r->est_cycles.estimated = true;
		struct pmb_summary *s = &r->est_cycles.s;
		double g = ctx->ghz;
		s->median *= g, s->mean *= g, s->min *= g, s->max *= g;
		s->stddev *= g, s->ci_lo *= g, s->ci_hi *= g;
		r->est_cycles.resolution *= g;
		r->est_cycles.fixed *= g;
	}
	for (int k = 0; k < ctx->plan.nder; k++) {
		const struct pmb_derived *d = &ctx->plan.der[k];
		const struct pmb_figure *a = d->num >= 0 ? &r->ev[d->num] : NULL;
		const struct pmb_figure *b = d->den >= 0 ? &r->ev[d->den] : NULL;

		/* A figure below its resolution counts as zero, never as the
		 * negative number the subtraction may leave; a ratio over a
		 * denominator that is not resolved is not computed. */
		if (!a || !a->valid)
			continue;
		double num = a->below_resolution ? fmax(a->s.median, 0) : a->s.median;
		if (d->den < 0)
			r->derived[k] = num * d->scale;
		else if (b && b->valid && !b->below_resolution && b->s.median > 0)
			r->derived[k] = num / b->s.median * d->scale;
	}
	r->items_per_second = r->bytes_per_second = NAN;
	/* A rate from a time below resolution would be a made-up number. */
	if (r->time.valid && !r->time.below_resolution && r->time.s.median > 0) {
		r->items_per_second = 1e9 / r->time.s.median;
		r->bytes_per_second = (double)r->bytes_per_pass / items * r->items_per_second;
	}
out:
	free(p);
	free(v);
	free(pi);
}

/* Per-item samples of a figure, recomputed for the ratio intervals. */
static size_t per_item_samples(const struct pmb_context *ctx, const struct pmb_result *r,
			       int e, double *out)
{
	const struct pmb_overhead *o = pmb_result_overhead(ctx, r);
	double items = (double)(r->items_per_pass ? r->items_per_pass : 1);
	size_t m = 0;

	for (size_t i = 0; i < r->nsamples; i++) {
		const struct pmb_sample *s = &r->samples[i];
		double v, P = (double)s->passes;
		int sc = 0;

		if (e < 0)
			out[m++] = pmb_per_item((double)s->ns, o->ns_per_sample, o->ns_per_pass, P, items);
		else if (sample_event(s, e, &v, &sc))
			out[m++] = pmb_per_item(v, o->ev_valid[e] ? o->ev_per_sample[e] : 0,
						o->ev_valid[e] ? o->ev_per_pass[e] : 0, P, items);
	}
	return m;
}

static struct pmb_figure *fig_of(struct pmb_result *r, int e)
{
	return e < 0 ? &r->time : &r->ev[e];
}

static void apply_links(struct pmb_context *ctx, struct pmb_result *res, size_t n,
			size_t reps, size_t i)
{
	struct pmb_result *r = &res[i];
	const struct pmb_instance *in = r->inst;
	struct pmb_result *base = NULL, *ref = NULL, *refbase = NULL;
	double *x, *y;

	if (in->baseline >= 0)
		base = &res[(size_t)in->baseline * reps + (size_t)r->repetition];
	if (in->reference >= 0)
		ref = &res[(size_t)in->reference * reps + (size_t)r->repetition];
	if (ref && ref->inst->baseline >= 0)
		refbase = &res[(size_t)ref->inst->baseline * reps + (size_t)r->repetition];
	if ((!base && !ref) || r->status)
		return;
	x = malloc((r->nsamples + 1) * sizeof(double));
	y = malloc(((ref ? ref->nsamples : 0) + 1) * sizeof(double));
	if (!x || !y)
		goto out;
	for (int e = -1; e < ctx->plan.nev; e++) {
		struct pmb_figure *f = fig_of(r, e);
		double bm = 0, rbm = 0;

		if (!f->valid)
			continue;
		if (base && base->status == 0 && fig_of(base, e)->valid) {
			bm = fig_of(base, e)->s.median;
			f->normalized = f->s.median - bm;
		}
		if (!ref || ref->status || !fig_of(ref, e)->valid)
			continue;
		if (refbase && refbase->status == 0 && fig_of(refbase, e)->valid)
			rbm = fig_of(refbase, e)->s.median;
		size_t nx = per_item_samples(ctx, r, e, x);
		size_t ny = per_item_samples(ctx, ref, e, y);
		for (size_t k = 0; k < nx; k++)
			x[k] -= bm;
		for (size_t k = 0; k < ny; k++)
			y[k] -= rbm;
		double den = fig_of(ref, e)->s.median - rbm;
		/* Dividing by what the measurement does not resolve gives any
		 * number at all: no ratio then. */
		if (nx == 0 || ny == 0 || fig_of(ref, e)->below_resolution ||
		    den <= fig_of(ref, e)->resolution)
			continue;
		/* A numerator below resolution is zero, not the negative
		 * number the subtraction may leave. */
		double num = f->s.median - bm;
		if (f->below_resolution && num < 0)
			num = 0;
		f->ratio = num / den;
		if (nx < 3 || ny < 3 ||
		    pmb_bootstrap_ratio_ci(x, nx, y, ny, CONF, RESAMPLES, STAT_SEED,
					   &f->ratio_lo, &f->ratio_hi) != 0)
			f->ratio_lo = f->ratio_hi = NAN;
		else if (f->ratio_lo <= 0 && f->ratio > 0)
			/* The resampled denominators reach zero: the ratio is
			 * not resolved. */
			f->ratio = f->ratio_lo = f->ratio_hi = NAN;
		else if (f->below_resolution)
			f->ratio_lo = fmax(f->ratio_lo, 0), f->ratio_hi = fmax(f->ratio_hi, 0);
	}
out:
	free(x);
	free(y);
	(void)n;
}

/* One warning per kind, naming the benchmarks it concerns. */
struct namelist {
	char buf[400];
	int count;
};

static void add_name(struct namelist *l, const char *name)
{
	size_t len = strlen(l->buf);

	/* Once per benchmark, however many repetitions raised it. */
	for (const char *p = l->buf; (p = strstr(p, name)); p += strlen(name))
		if ((p == l->buf || p[-1] == ' ') && (p[strlen(name)] == ',' || !p[strlen(name)] ||
						      p[strlen(name)] == ' '))
			return;

	if (l->count < 4)
		snprintf(l->buf + len, sizeof(l->buf) - len, "%s%s", l->count ? ", " : "", name);
	l->count++;
}

static const char *names(struct namelist *l)
{
	size_t len = strlen(l->buf);

	if (l->count > 4)
		snprintf(l->buf + len, sizeof(l->buf) - len, " and %d more", l->count - 4);
	return l->buf;
}

static void warn_all(struct pmb_context *ctx, struct pmb_result *res, size_t n)
{
	struct namelist noisy = { 0 }, fixed = { 0 }, fast = { 0 }, scaled = { 0 },
			modes = { 0 }, nobranch = { 0 }, reps = { 0 };
	double worst_rep = 0;
	int ins = pmb_context_event(ctx, "instructions"), br = pmb_context_event(ctx, "branches");
	double worst_err = 0, worst_fixed = 0, worst_fixed_ns = 0, worst_two_point = NAN;

	for (size_t i = 0; i < n; i++) {
		struct pmb_result *r = &res[i];
		const struct pmb_figure *t = &r->time;

		if (r->status)
			continue;
		/* Relative error of a figure that should be zero means nothing. */
		if (t->valid && !t->below_resolution && !r->inst->def->empty && t->s.median > 0) {
			double err = (t->s.ci_hi - t->s.ci_lo) / 2 / t->s.median;

			if (err > 0.05) {
				add_name(&noisy, r->inst->name);
				if (err > worst_err)
					worst_err = err;
			}
		}
		if (t->valid && !t->below_resolution && !r->inst->def->empty && t->fixed_share > 0.05 &&
		    t->fixed > 10 * ctx->clock.resolution_ns) {
			add_name(&fixed, r->inst->name);
			if (t->fixed_share > worst_fixed) {
				worst_fixed = t->fixed_share;
				worst_fixed_ns = t->fixed;
				worst_two_point = t->fixed_two_point;
			}
		}
		/* Under 0.05 ns per item cannot be true, unless the items are
		 * bytes streamed at a bandwidth the machine can have (a memcpy
		 * reference at tens of GB/s is fast, not wrong). */
		bool plausible_bw = r->bytes_per_second > 0 && r->bytes_per_second < 200e9;
		if (!r->inst->def->empty &&
		    ((t->valid && t->s.median < 0.05 && !plausible_bw) ||
		     (ins >= 0 && r->ev[ins].valid && r->ev[ins].s.median < 0.1)))
			add_name(&fast, r->inst->name);
		for (int e = 0; e < ctx->plan.nev; e++)
			if (r->ev[e].scaled == 1) {
				add_name(&scaled, r->inst->name);
				break;
			}
		if (t->valid && t->s.multimodal)
			add_name(&modes, r->inst->name);
		if (!r->inst->def->empty && isfinite(r->rep_spread) && r->rep_spread > 0.05 &&
		    !t->below_resolution) {
			add_name(&reps, r->inst->name);
			worst_rep = fmax(worst_rep, r->rep_spread);
		}
		if (br >= 0 && r->ev[br].valid && r->inst->def->role == PMB_ROLE_BRANCHY &&
		    r->ev[br].s.median < 0.5)
			add_name(&nobranch, r->inst->name);
	}
	if (noisy.count)
		pmb_context_warn(ctx, "error above 5 %% (up to +/-%.0f %%) for %s: the machine is noisy; "
				 "close other programs, or raise --samples or --min-sample-time",
				 worst_err * 100, names(&noisy));
	if (fixed.count)
		pmb_context_warn(ctx, "fixed cost of %.0f ns per sample inside the measured loop "
				 "(%.0f %% of a sample; two-point check i*j*(t_i - t_j)/(j - i): %.0f ns) "
				 "for %s: move setup out of it",
				 worst_fixed_ns, worst_fixed * 100, worst_two_point, names(&fixed));
	if (fast.count)
		pmb_context_warn(ctx, "under 0.05 ns or 0.1 instruction per item for %s: cannot be true; "
				 "the compiler may have removed the work: use pmb_do_not_optimize",
				 names(&fast));
	if (scaled.count)
		pmb_context_warn(ctx, "counters were scaled by multiplexing for %s: "
				 "their values are estimates; ask for fewer --counters", names(&scaled));
	if (reps.count)
		pmb_context_warn(ctx, "repetitions differ by up to %.0f %% for %s: each call with its own "
				 "setup measured differently (alignment, page placement, a disturbed run); "
				 "report the spread, not one repetition", worst_rep * 100, names(&reps));
	if (modes.count)
		pmb_context_warn(ctx, "samples fall in separate clusters for %s: something changed "
				 "during the run (frequency, migration, another process); rerun "
				 "on a quiet machine", names(&modes));
	if (nobranch.count)
		pmb_context_warn(ctx, "a 'branchy' kernel with under 0.5 branches per item: %s: "
				 "the compiler removed its branch; read its disassembly", names(&nobranch));
}

int pmb_analyze(struct pmb_context *ctx, struct pmb_result *r, size_t n, size_t reps)
{
	if (reps == 0)
		reps = 1;
	for (size_t i = 0; i < n; i++)
		if (r[i].status == 0)
			analyze_one(ctx, &r[i]);
	for (size_t i = 0; i < n; i++)
		apply_links(ctx, r, n, reps, i);
	/* Spread between repetitions: each is a whole call, fresh setup. */
	if (reps > 1) {
		double med[64];

		for (size_t i = 0; i + reps <= n; i += reps) {
			size_t m = 0;

			for (size_t k = 0; k < reps && m < 64; k++)
				if (r[i + k].status == 0 && r[i + k].time.valid)
					med[m++] = r[i + k].time.s.median;
			if (m < 2)
				continue;
			double lo = med[0], hi = med[0], c = pmb_median(med, m);
			for (size_t k = 1; k < m; k++) {
				lo = med[k] < lo ? med[k] : lo;
				hi = med[k] > hi ? med[k] : hi;
			}
			for (size_t k = 0; k < reps; k++)
				r[i + k].rep_spread = c != 0 ? (hi - lo) / fabs(c) : NAN;
		}
	}
	warn_all(ctx, r, n);
	return 0;
}
