/* analysis_warn.c - the warnings the figures call for: noise, fixed costs, results too fast to be true, multiplexing, clusters, spread repetitions, a branchy kernel without branches. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

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

/* Each benchmark a warning concerns with its own figure, one line each
 * ("fixed cost 1.0 ms per sample (96 % of a sample) in NAME"), kept
 * sorted worst first: the console shows the first few, JSON all. */
struct figlist {
	struct figline {
		double key;
		char text[256];
	} *item;
	int n, cap;
};

static void fig_add(struct figlist *l, double key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fig_add(struct figlist *l, double key, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct figline *p = realloc(l->item, (size_t)cap * sizeof(*p));

		if (!p)
			return;
		l->item = p;
		l->cap = cap;
	}
	/* Once per benchmark, however many repetitions raised it. */
	va_start(ap, fmt);
	vsnprintf(l->item[l->n].text, sizeof(l->item[0].text), fmt, ap);
	va_end(ap);
	for (k = 0; k < l->n && strcmp(l->item[k].text + strcspn(l->item[k].text, "\t"),
					   l->item[l->n].text + strcspn(l->item[l->n].text, "\t")); k++)
		;
	if (k < l->n)
		return;
	for (k = l->n; k > 0 && l->item[k - 1].key < key; k--)
		;
	struct figline line = l->item[l->n];

	memmove(&l->item[k + 1], &l->item[k], (size_t)(l->n - k) * sizeof(line));
	l->item[k] = line;
	l->item[k].key = key;
	l->n++;
}

/* "TITLE:\n  line\n  line": the title, then one line per benchmark (the
 * tab that ends each figure, before " in NAME", removed). */
static void fig_warn(struct pmb_context *ctx, struct figlist *l, const char *title)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!l->n)
		return;
	f = open_memstream(&text, &len);
	if (!f) {
		free(l->item);
		return;
	}
	fputs(title, f);
	for (int i = 0; i < l->n; i++) {
		char *tab = strchr(l->item[i].text, '\t');

		fprintf(f, "\n  %.*s%s", tab ? (int)(tab - l->item[i].text) : 255, l->item[i].text, tab ? tab + 1 : "");
	}
	if (fclose(f) == 0)
		pmb__context_warn(ctx, "%s", text);
	free(text);
	free(l->item);
}

/* A time in ns with its unit: "1.0 ms", "250 ns". */
static void human_ns(char *b, size_t n, double ns)
{
	static const struct { double div; const char *u; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
	};
	int k = 0;

	while (k < 3 && fabs(ns) < units[k].div)
		k++;
	snprintf(b, n, "%.*f %s", fabs(ns / units[k].div) >= 100 ? 0 : 1, ns / units[k].div, units[k].u);
}

/* What the warnings name: the benchmarks of each kind, each with its own
 * figure where it has one. */
struct findings {
	struct namelist fast, multiplexed, modes, nobranch;
	struct figlist noisy, fixed, reps;
};

/* What r's time figure shows: noise, a fixed cost, clusters, repetitions
 * that differ. */
static void find_in_time(const struct pmb_context *ctx, const struct pmb_result *r, struct findings *k)
{
	const struct pmb_figure *t = &r->time;
	bool resolved = t->valid && !t->below_resolution && !r->inst->def->empty;

	char a[32], b[32];

	/* Relative error of a figure that should be zero means nothing. */
	if (resolved && t->s.median > 0) {
		double err = (t->s.ci_hi - t->s.ci_lo) / 2 / t->s.median;

		if (err > 0.05)
			fig_add(&k->noisy, err, "+/-%.0f %%\t in %s", err * 100, r->inst->name);
	}
	if (resolved && t->fixed_share > 0.05 && t->fixed > 10 * ctx->clock.resolution_ns) {
		human_ns(a, sizeof(a), t->fixed);
		human_ns(b, sizeof(b), t->fixed_two_point);
		fig_add(&k->fixed, t->fixed_share, "fixed cost %s per sample (%.0f %% of a sample; two-point "
			"check %s)\t in %s", a, t->fixed_share * 100, b, r->inst->name);
	}
	if (t->valid && t->s.multimodal)
		add_name(&k->modes, r->inst->name);
	if (!r->inst->def->empty && isfinite(r->rep_spread) && r->rep_spread > 0.05 &&
	    !t->below_resolution)
		fig_add(&k->reps, r->rep_spread, "repetitions %.0f %% apart\t in %s", r->rep_spread * 100,
			r->inst->name);
}

/* What r's counts show: too fast to be true, multiplexed, a "branchy"
 * kernel without branches (ins, br: those events' plan index, or -1). */
static void find_in_counts(const struct pmb_context *ctx, const struct pmb_result *r, int ins, int br,
			   struct findings *k)
{
	const struct pmb_figure *t = &r->time;
	/* Under 0.05 ns per item cannot be true, unless the items are bytes
	 * streamed at a bandwidth the machine can have (a memcpy reference at
	 * tens of GB/s is fast, not wrong). */
	bool plausible_bw = r->bytes_per_second > 0 && r->bytes_per_second < 200e9;

	if (!r->inst->def->empty &&
	    ((t->valid && t->s.median < 0.05 && !plausible_bw) ||
	     (ins >= 0 && r->ev[ins].valid && r->ev[ins].s.median < 0.1)))
		add_name(&k->fast, r->inst->name);
	for (int e = 0; e < ctx->plan.nev; e++)
		if (r->ev[e].multiplexed == 1) {
			add_name(&k->multiplexed, r->inst->name);
			break;
		}
	if (br >= 0 && r->ev[br].valid && r->inst->def->role == PMB_ROLE_BRANCHY &&
	    r->ev[br].s.median < 0.5)
		add_name(&k->nobranch, r->inst->name);
}

void pmb__analysis_warn(struct pmb_context *ctx, const struct pmb_result *res, size_t n)
{
	struct findings k = { .fast.count = 0 };
	int ins = pmb__context_event(ctx, "instructions"), br = pmb__context_event(ctx, "branches");

	for (size_t i = 0; i < n; i++) {
		if (res[i].status)
			continue;
		find_in_time(ctx, &res[i], &k);
		find_in_counts(ctx, &res[i], ins, br, &k);
	}
	fig_warn(ctx, &k.noisy, "error above 5 % (half the 95 % interval of the median): the machine is "
		 "noisy; close other programs, or raise --samples or --min-sample-time");
	fig_warn(ctx, &k.fixed, "fixed cost inside the measured loop (fitted from samples of 1 to 4x the "
		 "passes; two-point check i*j*(t_i - t_j)/(j - i)): move setup out of it");
	if (k.fast.count)
		pmb__context_warn(ctx, "under 0.05 ns or 0.1 instruction per item for %s: cannot be true; "
				 "the compiler may have removed the work: use pmb_do_not_optimize",
				 names(&k.fast));
	if (k.multiplexed.count)
		pmb__context_warn(ctx, "counters were multiplexed for %s: their values are estimates "
				 "(scaled by time running); ask for fewer --counters", names(&k.multiplexed));
	fig_warn(ctx, &k.reps, "repetitions differ: each call with its own setup measured differently "
		 "(alignment, page placement, a disturbed run); report the spread, not one repetition");
	if (k.modes.count)
		pmb__context_warn(ctx, "samples fall in separate clusters for %s: something changed "
				 "during the run (frequency, migration, another process); rerun "
				 "on a quiet machine", names(&k.modes));
	if (k.nobranch.count)
		pmb__context_warn(ctx, "a 'branchy' kernel with under 0.5 branches per item: %s: "
				 "the compiler removed its branch; read its disassembly", names(&k.nobranch));
}
