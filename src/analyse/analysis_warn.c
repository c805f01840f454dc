/* analysis_warn.c - the warnings the figures call for: noise, fixed costs, results too fast to be true, multiplexing, clusters, spread repetitions, an input being learned, a branchy kernel without branches. */
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
static void fig_warn(const struct pmb_context *ctx, struct pmb_run_figures *out, struct figlist *l, const char *title)
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
		pmb__context_warn(out, ctx, "%s", text);
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
	struct namelist fast, hoisted, removed, overlap, fast_or_overlap, multiplexed, modes, nobranch;
	struct namelist slower, unresolved, noratio, rep_modes;
	struct figlist noisy, fixed, reps, learned;
};

/* What r's time figure shows: noise, clusters, repetitions that differ. */
static void find_in_time(const struct pmb_result *r, struct findings *k)
{
	const struct pmb_figure *t = &r->f.time;
	bool resolved = t->valid && !t->below_resolution && !r->m.inst->def->empty;

	/* Relative error of a figure that should be zero means nothing. */
	if (resolved && t->s.median > 0) {
		double err = pmb_figure_error(t);

		if (err > PMB_NOISY_ERROR)
			fig_add(&k->noisy, err, "+/-%.0f %%\t in %s", err * 100, r->m.inst->name);
	}
	if (t->valid && t->s.multimodal)
		add_name(&k->modes, r->m.inst->name);
	if (r->f.learning)
		fig_add(&k->learned, r->f.ladder_fall, "the cost per pass falls by %.0f %% along the ladder\t in %s",
			r->f.ladder_fall * 100, r->m.inst->name);
	if (r->f.rep_modes)
		add_name(&k->rep_modes, r->m.inst->name);
	if (!r->m.inst->def->empty && isfinite(r->f.rep_spread) && r->f.rep_spread > 0.05 &&
	    !t->below_resolution)
		fig_add(&k->reps, r->f.rep_spread, "repetitions %.0f %% apart\t in %s", r->f.rep_spread * 100,
			r->m.inst->name);
}

/* "fixed cost 1.0 ms [0.98, 1.02] per sample (96 % of a sample) in NAME";
 * under sim in the counted event. */
static void fixed_line(const struct pmb_context *ctx, const struct pmb_result *r, const struct pmb_figure *f,
		       struct findings *k)
{
	char v[32], lo[32], hi[32];

	if (f == &r->f.time) {
		human_ns(v, sizeof(v), f->fixed);
		human_ns(lo, sizeof(lo), f->fixed_lo);
		human_ns(hi, sizeof(hi), f->fixed_hi);
		if (strcmp(lo, hi))
			fig_add(&k->fixed, f->fixed_share, "fixed cost %s [%s, %s] per sample (%.0f %% of a "
				"sample)\t in %s", v, lo, hi, f->fixed_share * 100, r->m.inst->name);
		else
			fig_add(&k->fixed, f->fixed_share, "fixed cost %s per sample (%.0f %% of a sample)\t in %s",
				v, f->fixed_share * 100, r->m.inst->name);
	} else {
		fig_add(&k->fixed, f->fixed_share, "fixed cost %.0f %s per sample (%.0f %% of a sample, "
			"SIMULATED, exact)\t in %s", f->fixed, ctx->m.plan.ev[ctx->f.cost_event].name,
			f->fixed_share * 100, r->m.inst->name);
	}
}

/* What r's cost figure (time, or under sim its instructions) shows: a
 * fixed cost per sample, a baseline or reference that gives no figure. */
static void find_in_cost(const struct pmb_context *ctx, const struct pmb_result *r, struct findings *k)
{
	const struct pmb_figure *f = pmb__cost_figure(ctx, r);
	const char *nw = f->normalized_why, *rw = f->ratio_why;

	if (!f->valid)
		return;
	/* A body below resolution with a fixed cost is the worst case (the
	 * work removed, the setup measured): flagged too. */
	if (f->fixed_flagged && !r->m.inst->def->empty)
		fixed_line(ctx, r, f, k);
	if (nw && !strcmp(nw, PMB_WHY_BASE_SLOWER))
		add_name(&k->slower, r->m.inst->name);
	else if (nw && !strcmp(nw, PMB_WHY_BASE_EQUAL))
		add_name(&k->unresolved, r->m.inst->name);
	if (rw && strcmp(rw, PMB_WHY_REF_MISSING) && !(nw && !strcmp(rw, PMB_WHY_BASE_SLOWER)))
		add_name(&k->noratio, r->m.inst->name);
}

bool pmb__analysis_no_work(const struct pmb_context *ctx, const struct pmb_result *r)
{
	int ins = pmb__context_event(ctx, "instructions");
	const struct pmb_figure *in = ins >= 0 && r->f.ev[ins].valid ? &r->f.ev[ins] : NULL;

	if (r->m.status || r->m.inst->def->empty || !in)
		return false;
	/* Exact counts: only no instructions at all is no work. */
	if (pmb_context_sim(ctx))
		return in->below_resolution;
	return in->s.median < 0.1;
}

/* A loop without work, in the list its code tells (issue 34): hoisted,
 * removed, or not told. */
static void add_no_work(const struct pmb_result *r, struct findings *k)
{
	if (r->work_went == PMB_WORK_HOISTED)
		add_name(&k->hoisted, r->m.inst->name);
	else if (r->work_went == PMB_WORK_REMOVED)
		add_name(&k->removed, r->m.inst->name);
	else
		add_name(&k->fast, r->m.inst->name);
}

/* Too fast to be true: the work was removed, or it overlaps the loop's own
 * dependency chain (its latency hidden, its instructions there).  Counted
 * instructions tell the two apart; time alone cannot. */
static void find_too_fast(const struct pmb_context *ctx, const struct pmb_result *r, int ins, struct findings *k)
{
	const struct pmb_figure *t = &r->f.time, *in = ins >= 0 && r->f.ev[ins].valid ? &r->f.ev[ins] : NULL;
	/* Under 0.05 ns per item cannot be true, unless the items are bytes
	 * streamed at a bandwidth the machine can have (a memcpy reference at
	 * tens of GB/s is fast, not wrong). */
	bool plausible_bw = r->f.bytes_per_second > 0 && r->f.bytes_per_second < 200e9;
	bool fast_time = t->valid && (t->s.median < 0.05 || t->below_resolution) && !plausible_bw;

	if (r->m.inst->def->empty)
		return;
	if (pmb__analysis_no_work(ctx, r))
		add_no_work(r, k);
	else if (pmb_context_sim(ctx))
		return;
	else if (fast_time && in)
		add_name(&k->overlap, r->m.inst->name);
	else if (fast_time)
		add_name(&k->fast_or_overlap, r->m.inst->name);
}

/* What r's counts show: multiplexed, a "branchy" kernel without branches
 * (br: that event's plan index, or -1). */
static void find_in_counts(const struct pmb_context *ctx, const struct pmb_result *r, int br,
			   struct findings *k)
{
	for (int e = 0; e < ctx->m.plan.nev; e++)
		if (r->f.ev[e].multiplexed == 1) {
			add_name(&k->multiplexed, r->m.inst->name);
			break;
		}
	if (br >= 0 && r->f.ev[br].valid && r->m.inst->def->role == PMB_ROLE_BRANCHY &&
	    r->f.ev[br].s.median < 0.5)
		add_name(&k->nobranch, r->m.inst->name);
}

/* Where the work of a loop that holds none went: the counts cannot tell,
 * the code can (--disasm's note, disasm_check.c).  Neither alternative is
 * asked of a benchmark as a fix unless it is the cause: a benchmark that
 * keeps its result with pmb_do_not_optimize still loses work whose inputs
 * are the same every pass (issue 34). */
#define PMB_WHERE_THE_WORK_WENT                                                          \
	"the compiler removed it (a result nothing uses: keep it with pmb_do_not_optimize) or " \
	"hoisted it before the loop (computed once from inputs the same every pass: make them " \
	"opaque with pmb_opaque; keeping the result is not enough); --disasm tells which"

/* The warnings about what the figures claim: a fixed cost per sample,
 * work too fast to be true, baselines and references that give no figure. */
static void warn_claims(const struct pmb_context *ctx, struct pmb_run_figures *out, struct findings *k)
{
	char title[256];

	snprintf(title, sizeof(title), "fixed cost per sample inside the measured loop (two-point check "
		 "i*j*(t_i - t_j)/(j - i), flagged from %.0f %% of a sample): move setup out of it",
		 PMB_FIXED_SHARE * 100);
	fig_warn(ctx, out, &k->fixed, title);
	const char *none = pmb_context_sim(ctx) ? "no instructions per item (simulated)" :
			   "under 0.1 instruction per item";

	if (k->fast.count)
		pmb__context_warn(out, ctx, "%s for %s: cannot be true; the loop holds none of the work: %s",
				      none, names(&k->fast), PMB_WHERE_THE_WORK_WENT);
	if (k->hoisted.count)
		pmb__context_warn(out, ctx, "%s for %s: cannot be true; the loop holds none of the work, and its function computes "
				      "before the loop, once (the disassembly shows it): the compiler hoisted the work, "
				      "its inputs being the same every pass; make them opaque with pmb_opaque() "
				      "(keeping the result with pmb_do_not_optimize is not enough)", none,
				      names(&k->hoisted));
	if (k->removed.count)
		pmb__context_warn(out, ctx, "%s for %s: cannot be true; the loop holds none of the work and its function computes "
				      "nothing outside it (the disassembly shows it): the compiler removed the work; a "
				      "result nothing keeps is removed (keep it with pmb_do_not_optimize), one made of "
				      "constants is folded (make them opaque with pmb_opaque)", none,
				      names(&k->removed));
	if (k->overlap.count)
		pmb__context_warn(out, ctx, "under 0.05 ns per item or not told from 0 for %s, yet its instructions run: the body "
				      "overlaps the loop's own dependency chain, its latency hidden; measure it "
				      "in a loop it cannot overlap (a longer batch per pass)", names(&k->overlap));
	if (k->fast_or_overlap.count)
		pmb__context_warn(out, ctx, "under 0.05 ns per item or not told from 0 for %s: either the loop holds none "
				      "of the work (removed or hoisted before the loop) or the body overlaps the loop's "
				      "own dependency chain; --backend=sim counts its instructions and tells them apart, "
				      "--backend=sim --disasm where the work went", names(&k->fast_or_overlap));
	if (k->slower.count)
		pmb__context_warn(out, ctx, "the baseline measured slower than %s: no normalized figure; a baseline "
				      "holds only the overhead its benchmarks share, or the run was disturbed: "
				      "rerun", names(&k->slower));
	if (k->unresolved.count)
		pmb__context_warn(out, ctx, "%s not told apart from its baseline (the normalized figure's interval "
				      "holds 0): no normalized figure; raise --samples", names(&k->unresolved));
	if (k->noratio.count)
		pmb__context_warn(out, ctx, "no ratio to the reference for %s: its interval holds 0 or the "
				      "reference is not resolved (the cell says which)", names(&k->noratio));
}

/* The warnings res[0..n)'s figures call for, into out. */
static void warn(const struct pmb_context *ctx, struct pmb_run_figures *out, const struct pmb_result *res, size_t n)
{
	struct findings k = { .fast.count = 0 };
	int ins = pmb__context_event(ctx, "instructions"), br = pmb__context_event(ctx, "branches");

	for (size_t i = 0; i < n; i++) {
		if (res[i].m.status)
			continue;
		find_in_time(&res[i], &k);
		find_in_cost(ctx, &res[i], &k);
		find_too_fast(ctx, &res[i], ins, &k);
		find_in_counts(ctx, &res[i], br, &k);
	}
	fig_warn(ctx, out, &k.noisy, "error above 5 % (half the 95 % interval of the median): the machine is "
		 "noisy; close other programs, or raise --samples or --min-sample-time");
	warn_claims(ctx, out, &k);
	/* pmubench enables one group at a time, each within the PMU's
	 * counters: a group that ran part of its time shared them with
	 * another user of the PMU, not with too many events of its own. */
	if (k.multiplexed.count)
		pmb__context_warn(out, ctx, "counters were multiplexed for %s: their values are estimates "
				      "(scaled by time running). pmubench enables one counter group at a time, "
				      "each within the PMU's counters, so another user of the PMU held some of "
				      "them (a task counting with perf or a profiler, or the NMI watchdog): stop "
				      "it and rerun; fewer --counters would not help", names(&k.multiplexed));
	fig_warn(ctx, out, &k.reps, "repetitions differ: each call with its own setup measured differently "
		 "(alignment, page placement, a disturbed run); report the spread, not one repetition");
	if (k.modes.count)
		pmb__context_warn(out, ctx, "samples fall in separate clusters for %s: something changed "
				      "during the run (frequency, migration, another process); rerun "
				      "on a quiet machine", names(&k.modes));
	fig_warn(ctx, out, &k.learned, "the cost per pass falls as passes grow (along the ladder of pass "
		 "counts): a branch predictor or a cache is likely learning an input that every pass "
		 "repeats; give each pass data it has not seen (a prepare hook, pmubench(3)), then compare "
		 "two --min-sample-time values");
	if (k.rep_modes.count)
		pmb__context_warn(out, ctx, "repetitions disagree beyond their intervals for %s (reported as "
				      "multimodal): two modes between calls, or an input learned better in one "
				      "(a branch predictor, a cache); give each pass fresh data (a prepare hook, "
				      "pmubench(3)) and report every repetition, not one", names(&k.rep_modes));
	if (k.nobranch.count)
		pmb__context_warn(out, ctx, "a 'branchy' kernel with under 0.5 branches per item: %s: "
				      "the compiler removed its branch; read its disassembly", names(&k.nobranch));
}

void pmb__analysis_warn(struct pmb_context *ctx, const struct pmb_result *res, size_t n)
{
	warn(ctx, &ctx->f, res, n);
}
