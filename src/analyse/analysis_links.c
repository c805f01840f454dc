/* analysis_links.c - baselines and references: normalized figures, ratios, their paired bootstrap intervals, and why one is not given. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define CONF 0.95
#define RESAMPLES 1000
#define STAT_SEED 0x70b1u /* fixed: the same samples give the same intervals */

/* The per-item samples of one figure of one result, baselines not yet
 * subtracted. */
struct side {
	const struct pmb_result *r;
	const struct pmb_figure *f;
	double *x;
	size_t n;
};

static bool measured(const struct pmb_result *r, int e)
{
	return r && r->m.status == 0 && pmb__result_figure(r, e)->valid;
}

/* Per-item samples of figure e of r into out (r->m.nsamples long), by
 * analysis.c's arithmetic. */
static size_t per_item_samples(const struct pmb_context *ctx, const struct pmb_result *r, int e, double *out)
{
	const struct pmb_overhead *o = pmb_result_overhead(ctx, r);
	double items = (double)(r->m.items_per_pass ? r->m.items_per_pass : 1);
	double *p = malloc((r->m.nsamples + 1) * sizeof(*p));
	size_t m = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < r->m.nsamples; i++) {
		const struct pmb_sample *s = &r->m.samples[i];
		int sc = 0;

		p[m] = (double)s->passes;
		if (e < 0)
			out[m++] = (double)s->ns;
		else if (pmb__sample_event(s, e, &out[m], &sc))
			m++;
	}
	if (e < 0)
		pmb__per_item_values(out, p, m, o->ns_per_sample, o->ns_per_pass, items, out);
	else
		pmb__per_item_values(out, p, m, o->ev_valid[e] ? o->ev_per_sample[e] : 0,
				     o->ev_valid[e] ? o->ev_per_pass[e] : 0, items, out);
	free(p);
	return m;
}

static void side_load(const struct pmb_context *ctx, struct side *s, const struct pmb_result *r, int e)
{
	s->r = measured(r, e) ? r : NULL;
	s->f = s->r ? pmb__result_figure(r, e) : NULL;
	s->n = 0;
	s->x = s->r ? malloc((r->m.nsamples + 1) * sizeof(double)) : NULL;
	if (s->x)
		s->n = per_item_samples(ctx, r, e, s->x);
	else
		s->r = NULL, s->f = NULL;
}

/* Interval of (a - b) / (c - d) over the sides given (NULL: absent), or
 * NAN; -EDOM where the denominator is not resolved. */
static int linked_ci(const struct side *a, const struct side *b, const struct side *c, const struct side *d,
		     double *lo, double *hi)
{
	const struct side *s[4] = { a, b, c, d };
	struct pmb_linked l;
	int rc;

	memset(&l, 0, sizeof(l));
	*lo = *hi = NAN;
	for (int j = 0; j < 4; j++) {
		if (!s[j])
			continue;
		if (s[j]->n < 2)
			return 0; /* no interval from one sample */
		l.x[j] = s[j]->x, l.n[j] = s[j]->n;
	}
	rc = pmb__bootstrap_linked_ci(&l, CONF, RESAMPLES, STAT_SEED, lo, hi);
	if (rc)
		*lo = *hi = NAN;
	return rc == -EDOM ? rc : 0;
}

/* Normalized: the median less the baseline's, given where its interval
 * lies above zero. */
static void normalize(struct pmb_figure *f, const struct side *x, const struct side *b)
{
	double v = x->f->s.median - b->f->s.median;

	if (linked_ci(x, b, NULL, NULL, &f->normalized_lo, &f->normalized_hi) != 0)
		return;
	bool ci = isfinite(f->normalized_lo);
	if ((ci && f->normalized_hi < 0) || (!ci && v < 0))
		f->normalized_why = PMB_WHY_BASE_SLOWER;
	else if ((ci && !(f->normalized_lo > 0)) || (!ci && !(v > 0)))
		f->normalized_why = PMB_WHY_BASE_EQUAL;
	else
		f->normalized = v;
	if (!isfinite(f->normalized))
		f->normalized_lo = f->normalized_hi = NAN;
}

/* (a - b) / (c - d) into *v, [*lo, *hi], or the reason it is not given
 * (b and d NULL for raw figures). */
static const char *divide(const struct side *a, const struct side *b, const struct side *c, const struct side *d,
			  double *v, double *lo, double *hi)
{
	double num = a->f->s.median - (b ? b->f->s.median : 0);
	double den = c->f->s.median - (d ? d->f->s.median : 0);
	const char *why = NULL;

	*v = *lo = *hi = NAN;
	/* Dividing by what the measurement does not resolve gives any
	 * number at all. */
	if (c->f->below_resolution || !(den > (d ? 0 : c->f->resolution)))
		return PMB_WHY_REF_UNRESOLVED;
	if (!b && a->f->below_resolution)
		why = PMB_WHY_BELOW_RES; /* zero within what was resolved */
	else if (linked_ci(a, b, c, d, lo, hi) == -EDOM)
		why = PMB_WHY_REF_UNRESOLVED;
	else if (isfinite(*lo) && *hi < 0)
		why = b ? PMB_WHY_BASE_SLOWER : PMB_WHY_NEGATIVE;
	else if ((isfinite(*lo) && !(*lo > 0)) || (!isfinite(*lo) && !(num > 0)))
		why = PMB_WHY_CI_ZERO;
	if (why) {
		*lo = *hi = NAN;
		return why;
	}
	*v = num / den;
	return NULL;
}

/* Figure e of r against its baseline and its reference (whose own baseline
 * is rbase): its normalized figure, its ratio and its raw ratio, into out
 * (r's figures). */
static void link_figure(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb_figures *out,
			const struct pmb_result *base, const struct pmb_result *ref, const struct pmb_result *rbase,
			int e)
{
	struct pmb_figure *f = pmb__figure_of(out, e);
	struct side x, b = { 0 }, y = { 0 }, yb = { 0 };

	if (!f->valid)
		return;
	side_load(ctx, &x, r, e);
	if (!x.r)
		return;
	if (base) {
		side_load(ctx, &b, base, e);
		if (b.r)
			normalize(f, &x, &b);
		else
			f->normalized_why = PMB_WHY_BASE_MISSING;
	}
	if (ref) {
		side_load(ctx, &y, ref, e);
		if (rbase)
			side_load(ctx, &yb, rbase, e);
	}
	if (ref && !y.r) {
		f->ratio_why = f->raw_ratio_why = PMB_WHY_REF_MISSING;
	} else if (ref) {
		/* Like with like: normalized over normalized where both
		 * sides have a baseline, raw over raw otherwise. */
		f->raw_ratio_why = divide(&x, NULL, &y, NULL, &f->raw_ratio, &f->raw_ratio_lo, &f->raw_ratio_hi);
		f->ratio_normalized = b.r && yb.r;
		if (f->ratio_normalized)
			f->ratio_why = divide(&x, &b, &y, &yb, &f->ratio, &f->ratio_lo, &f->ratio_hi);
		else
			f->ratio = f->raw_ratio, f->ratio_lo = f->raw_ratio_lo, f->ratio_hi = f->raw_ratio_hi,
			f->ratio_why = f->raw_ratio_why;
	}
	free(x.x);
	free(b.x);
	free(y.x);
	free(yb.x);
}

/* The index in res of instance inst's repetition rep, or -1. */
static ptrdiff_t linked(int inst, size_t reps, int rep)
{
	return inst >= 0 ? (ptrdiff_t)((size_t)inst * reps + (size_t)rep) : -1;
}

static const struct pmb_result *linked_in(const struct pmb_result *res, int inst, size_t reps, int rep)
{
	ptrdiff_t k = linked(inst, reps, rep);

	return k >= 0 ? &res[k] : NULL;
}

static void apply_links(const struct pmb_context *ctx, const struct pmb_result *res, struct pmb_figures *const *fig,
			size_t reps, size_t i)
{
	const struct pmb_result *r = &res[i];
	const struct pmb_result *base = linked_in(res, r->m.inst->baseline, reps, r->m.repetition);
	const struct pmb_result *ref = linked_in(res, r->m.inst->reference, reps, r->m.repetition);
	const struct pmb_result *rbase = ref ? linked_in(res, ref->m.inst->baseline, reps, r->m.repetition) : NULL;

	if ((!base && !ref) || r->m.status)
		return;
	for (int e = -1; e < ctx->m.plan.nev; e++)
		link_figure(ctx, r, fig[i], base, ref, rbase, e);
}

/* A reference without a reference of its own reads 1.00 (exactly: it is
 * its own denominator); a baseline without a baseline of its own has no
 * normalized figure, and says so. */
static void mark_targets(const struct pmb_context *ctx, const struct pmb_result *res, struct pmb_figures *const *fig,
			 size_t n, size_t reps)
{
	for (size_t i = 0; i < n; i++) {
		const struct pmb_instance *in = res[i].m.inst;

		for (int k = 0; k < 2; k++) {
			ptrdiff_t ti = linked(k ? in->reference : in->baseline, reps, res[i].m.repetition);
			const struct pmb_result *t = ti >= 0 ? &res[ti] : NULL;

			if (!t || t->m.status || (k ? t->m.inst->reference : t->m.inst->baseline) >= 0)
				continue;
			for (int e = -1; e < ctx->m.plan.nev; e++) {
				struct pmb_figure *f = pmb__figure_of(fig[ti], e);

				if (!f->valid)
					continue;
				if (!k) {
					f->normalized_why = PMB_WHY_IS_BASE;
					continue;
				}
				f->ratio = f->ratio_lo = f->ratio_hi = 1;
				f->raw_ratio = f->raw_ratio_lo = f->raw_ratio_hi = 1;
				f->ratio_normalized = t->m.inst->baseline >= 0;
			}
		}
	}
}

void pmb__analysis_links(const struct pmb_context *ctx, const struct pmb_result *res, struct pmb_figures *const *fig,
			 size_t n, size_t reps)
{
	for (size_t i = 0; i < n; i++)
		for (int e = -1; e < ctx->m.plan.nev; e++) {
			struct pmb_figure *f = pmb__figure_of(fig[i], e);

			f->normalized = f->normalized_lo = f->normalized_hi = NAN;
			f->ratio = f->ratio_lo = f->ratio_hi = NAN;
			f->raw_ratio = f->raw_ratio_lo = f->raw_ratio_hi = NAN;
			f->normalized_why = f->ratio_why = f->raw_ratio_why = NULL;
			f->ratio_normalized = false;
		}
	mark_targets(ctx, res, fig, n, reps);
	for (size_t i = 0; i < n; i++)
		apply_links(ctx, res, fig, reps, i);
}
