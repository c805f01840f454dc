/* disasm_check.c - --disasm's checks: which loop the benchmark runs, what seed 004 warns about, the ranking. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "disasm.h"
#include "disasm_cfg.h"
#include "disasm_internal.h"

static void note(struct pmb_disasm *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct pmb_disasm *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nnotes >= PMB_DA_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(d->note[d->nnotes++], sizeof(d->note[0]), fmt, ap);
	va_end(ap);
}



/* Whether loop part p is the one this benchmark runs: the loops that ran
 * where counts say which, else the one its first call to pmb__loop_next
 * came from, else (neither known) all of them. */
static bool loop_runs(const struct pmb_disasm *d, int p)
{
	bool any = false;

	if (d->counted || d->sampled) {
		for (int q = 0; q < d->nloops; q++)
			any |= d->part[q].ran;
		if (any)
			return d->part[p].ran;
	}
	return d->site_part < 0 || p == d->site_part;
}

bool pmb__disasm_part_shown(const struct pmb_disasm *d, int p)
{
	if (!d->part[p].callee)
		return loop_runs(d, p);
	/* One found by its counts is shown because it ran. */
	if (d->part[p].found)
		return d->part[p].ran;
	/* A function is shown where a loop shown calls it. */
	for (int q = 0; q < d->nloops; q++)
		for (size_t i = d->part[q].first; loop_runs(d, q) && i < d->part[q].first + d->part[q].n; i++)
			if ((d->insn[i].kind & PMB_DA_CALL) && d->insn[i].target == d->part[p].lo)
				return true;
	return false;
}

void pmb__disasm_site(struct pmb_disasm *d, uintptr_t site)
{
	uint64_t at = (uint64_t)site - d->bias - 1; /* inside the call */

	d->site_part = -1;
	for (size_t i = 0; site && i < d->n; i++)
		if (!d->part[d->insn[i].part].callee && at >= d->insn[i].addr && at < d->insn[i].addr + d->insn[i].size)
			d->site_part = d->insn[i].part;
	pmb__disasm_check(d);
}

static void check_calls(struct pmb_disasm *d)
{
	char seen[PMB_DA_MAX_NOTES][128];
	int nseen = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct pmb_disasm_insn *in = &d->insn[i];
		const char *t = strchr(in->text, '<'), *plt;
		char name[128];
		bool dup = false;

		if (d->part[in->part].callee || !pmb__disasm_part_shown(d, in->part) || !(in->kind & PMB_DA_CALL) ||
		    (in->kind & PMB_DA_HARNESS))
			continue;
		snprintf(name, sizeof(name), "%.*s", t ? (int)strcspn(t + 1, ">") : 0, t ? t + 1 : "");
		for (int k = 0; k < nseen; k++)
			dup |= !strcmp(seen[k], name);
		if (dup || nseen == PMB_DA_MAX_NOTES)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
		plt = strstr(name, "@plt");
		if (!in->target || !name[0])
			note(d, "the loop makes an indirect call (%s): the call and what it reaches are measured "
			     "with the work", in->text);
		else if (plt)
			note(d, "the loop calls %s, a shared-library function: its call and return are measured "
			     "with the work", name);
		else
			note(d, "the loop calls %s, not inlined: its call, return and argument set-up are measured "
			     "with the work (inline it if that is not what you measure)", name);
	}
}

/* Whether the loops shown make an indirect call (a target the code does
 * not name). */
static bool indirect_call(const struct pmb_disasm *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (!d->part[d->insn[i].part].callee && pmb__disasm_part_shown(d, d->insn[i].part) &&
		    (d->insn[i].kind & PMB_DA_CALL) && !d->insn[i].target)
			return true;
	return false;
}

/* Counted mispredictions per item on the instructions shown (sim). */
static double misp_listed(const struct pmb_disasm *d)
{
	double m = 0;

	for (size_t i = 0; d->counted && i < d->n; i++)
		if (pmb__disasm_part_shown(d, d->insn[i].part) && !isnan(d->insn[i].count[PMB_DA_MISP]))
			m += d->insn[i].count[PMB_DA_MISP];
	return m;
}

/* The branchy check: the code shown holds no decision.  A static reading
 * says "branchless" only where the counts (when there are any) account
 * for the code and count no misprediction; where they disagree, the
 * counts win (evidence: misp_all, accounted_share, an indirect call). */
static void check_branchy(struct pmb_disasm *d)
{
	bool counts = d->counted || d->sampled;
	double misp = d->counted ? d->misp_all : 0;

	if (d->role != PMB_ROLE_BRANCHY || d->decisions > 0)
		return;
	bool measured = !d->counted && !isnan(d->misp_measured);

	if (d->counted && misp >= 0.001)
		note(d, "a branchy benchmark whose listed code holds no conditional branch but the loops' own, "
		     "yet %.3g mispredictions per item were counted (%.3g on listed code): the counts win, "
		     "the branches are in code the listing does not show", misp, misp_listed(d));
	else if (measured && d->misp_measured >= 0.001)
		note(d, "a branchy benchmark whose listed code holds no conditional branch but the loops' own, "
		     "yet %.3g mispredictions per item were counted for the benchmark: the counts win, the "
		     "branches are in code the listing does not show", d->misp_measured);
	else if (counts && !(d->accounted_share >= 0.99))
		note(d, "a branchy benchmark whose listed code holds no conditional branch but the loops' own; "
		     "the listing accounts for %.1f %% of the %s, so no claim is made about the rest",
		     100 * (isnan(d->accounted_share) ? 0 : d->accounted_share),
		     d->counted ? "counted instructions" : "samples");
	else if (!counts && indirect_call(d))
		note(d, "a branchy benchmark whose listed code holds no conditional branch but the loops' own; "
		     "the loop makes an indirect call, whose code only counts can show (--backend=sim): no "
		     "claim is made about it");
	else if (measured)
		note(d, "a branchy benchmark whose loop, and what it calls, holds no conditional branch but "
		     "the loops' own: the compiler made it branchless (the counts agree: %.2g mispredictions "
		     "per item counted)", d->misp_measured);
	else
		note(d, "a branchy benchmark whose loop, and what it calls, holds no conditional branch but "
		     "the loops' own: the compiler made it branchless%s",
		     d->counted ? " (the counts agree: no misprediction counted)" :
		     d->sampled ? " (no misprediction count here to confirm it)" : "");
}

/* Instructions per item counted outside the loops' own (sim). */
static double body_counted(const struct pmb_disasm *d)
{
	double n = d->accounted_all;

	for (size_t i = 0; d->counted && i < d->n; i++)
		if ((d->insn[i].kind & PMB_DA_HARNESS) && pmb__disasm_part_shown(d, d->insn[i].part) &&
		    !isnan(d->insn[i].count[PMB_DA_EXEC]))
			n -= d->insn[i].count[PMB_DA_EXEC];
	return n;
}

/* What seed 004 warns about, as notes: an empty body (the work hoisted
 * before the loop where the loop's function computes outside its loops,
 * removed where it does not: issue 34), a branchy benchmark without a
 * branch, calls. */
void pmb__disasm_check(struct pmb_disasm *d)
{
	size_t body = 0;

	d->nnotes = 0;
	d->decisions = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct pmb_disasm_insn *in = &d->insn[i];

		if (!pmb__disasm_part_shown(d, in->part))
			continue;
		d->decisions += (in->kind & PMB_DA_DECISION) != 0;
		if (!d->part[in->part].callee && !(in->kind & (PMB_DA_HARNESS | PMB_DA_NOP | PMB_DA_JUMP)))
			body++;
	}
	d->body_empty = body == 0;
	if (d->body_empty && d->counted && body_counted(d) >= 0.5)
		note(d, "the loop body holds no instruction between the loop primitives, yet %.3g instructions "
		     "per item were counted beside the loop's own: the counts win, the work runs elsewhere",
		     body_counted(d));
	else if (d->body_empty && d->meant_empty)
		note(d, "the loop body holds no instruction between the loop primitives, as this calibration "
		     "benchmark (.empty) means");
	else if (d->body_empty && d->outside > 0)
		note(d, "the loop body holds no instruction between the loop primitives, yet %s computes outside "
		     "its loops (%d instructions at 0x%llx..0x%llx, run once): the work was hoisted before the "
		     "loop, its inputs the same every pass; make them opaque with pmb_opaque()",
		     d->part[0].name, d->outside, (unsigned long long)d->outside_lo,
		     (unsigned long long)d->outside_hi);
	else if (d->body_empty)
		note(d, "the loop body holds no instruction between the loop primitives and %s computes nothing "
		     "outside its loops: the compiler removed the work (a result nothing keeps: keep it with "
		     "pmb_do_not_optimize(); one from constants: make them opaque with pmb_opaque())",
		     d->part[0].name);
	if (d->ncut && d->cut_from)
		note(d, "%s: listing cut to %llu instructions around the loop at 0x%llx (0x%llx..0x%llx); the "
		     "function holds %llu%s: counts outside the window are not placed",
		     d->cut_func, (unsigned long long)d->cut_n, (unsigned long long)d->cut_loop,
		     (unsigned long long)d->cut_from, (unsigned long long)d->cut_at,
		     (unsigned long long)d->cut_total, d->ncut > 1 ? ", and other functions listed are cut" : "");
	else if (d->ncut)
		note(d, "%s is cut at 0x%llx, after its first %d instructions (of %llu bytes)%s: the listing, and "
		     "the work of reading it, stop there; counts of the rest are not placed",
		     d->cut_func, (unsigned long long)d->cut_at, PMB__CFG_MAX_INSNS, (unsigned long long)d->cut_size,
		     d->ncut > 1 ? ", and so are other functions listed" : "");
	check_branchy(d);
	if (d->nloops > 1 && !(d->counted || d->sampled) && d->site_part < 0)
		note(d, "%s holds %d measured loops; counts (--backend=sim) show which one this benchmark runs",
		     d->part[0].name, d->nloops);
	check_calls(d);
}

void pmb__disasm_misp(struct pmb_disasm *d, double per_item)
{
	d->misp_measured = per_item;
	pmb__disasm_check(d);
}

void pmb__disasm_counted(struct pmb_disasm *d)
{
	for (int p = 0; p < d->nparts; p++) {
		d->part[p].ran = false;
		for (size_t i = d->part[p].first; i < d->part[p].first + d->part[p].n; i++)
			d->part[p].ran |= (d->counted && d->insn[i].count[PMB_DA_EXEC] > 0) ||
					  (d->sampled && d->insn[i].share > 0);
	}
	pmb__disasm_check(d);
}


void pmb__disasm_rank(struct pmb_disasm *d, const char *event)
{
	static const struct {
		const char *name;
		enum pmb_da_count col;
	} by[] = {
		{ "branch-misses", PMB_DA_MISP }, { "cond-branch-misses", PMB_DA_MISP },
		{ "br-misp-retired", PMB_DA_MISP }, { "l1d-misses", PMB_DA_L1D },
		{ "l1d-read-misses", PMB_DA_L1D }, { "L1-dcache-load-misses", PMB_DA_L1D },
		{ "llc-misses", PMB_DA_LL }, { "llc-read-misses", PMB_DA_LL },
		{ "LLC-load-misses", PMB_DA_LL }, { "cache-misses", PMB_DA_LL },
	};

	d->rank_col = PMB_DA_EXEC;
	for (size_t i = 0; event && i < sizeof(by) / sizeof(by[0]); i++)
		if (!strcasecmp(event, by[i].name))
			d->rank_col = (int)by[i].col;
	snprintf(d->rank_by, sizeof(d->rank_by), "%s", pmb__da_count_name[d->rank_col]);
}
