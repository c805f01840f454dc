/* report_selfcheck.c - --self-check's table: each known answer, the figure measured, the analysis's verdict, and what the failures mean. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_fmt.h"

/* One check's row: expected, measured, verdict. */
static void check_line(const struct pmb_context *ctx, const struct pmb_result *r, struct pmb__table *t)
{
	static const char *const word[] = { "", "ok", "WRONG", "NOT CHECKED", "UNSTEADY" };
	const struct pmb_known_answer *k = r->m.inst->known;
	const struct pmb_check_figure *c = &r->f.check;
	char meas[64] = "-";

	if (r->m.status)
		snprintf(meas, sizeof(meas), "%s", r->m.reason);
	else if (c->verdict == PMB_CHECK_UNCHECKED)
		snprintf(meas, sizeof(meas), "no %.*s counter here", (int)strcspn(k->what, "|"), k->what);
	else
		snprintf(meas, sizeof(meas), "%.3f %s/item%s", c->value,
			 c->event >= 0 ? ctx->m.plan.ev[c->event].name : "cycles",
			 c->estimated ? " (est.)" : c->simulated ? " (sim.)" : "");
	pmb__table_add_row(t);
	pmb__table_set(t, 0, "%s", r->m.inst->name);
	pmb__table_set(t, 1, "%s", k->expect);
	pmb__table_set(t, 2, "%s", meas);
	pmb__table_set(t, 3, "%s", word[c->verdict]);
}

/* A line of the report after the table: prefix ("note: " or ""), then the
 * formatted text wrapped to the console's width (never under --wide), its
 * further lines indented by 4. */
static void __attribute__((format(printf, 4, 5))) say(const struct pmb_context *ctx, FILE *out, const char *prefix,
							const char *fmt, ...)
{
	char t[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	fputs(prefix, out);
	pmb__wrap(out, t, strlen(prefix), 4,
		  ctx->view.wide ? SIZE_MAX : ctx->view.width > 0 ? (size_t)ctx->view.width : 100);
}

/* Why a check is UNSTEADY: the analysis's evidence, a note each. */
static void unsteady_lines(const struct pmb_context *ctx, const struct pmb_result *r, FILE *out)
{
	const struct pmb_check_figure *c = &r->f.check;
	const struct pmb_known_answer *k = r->m.inst->known;
	const char *name = r->m.inst->name, *unit = c->estimated ? "est. " : "";

	if (c->quarter_in)
		say(ctx, out, "note: ", "%s UNSTEADY, not judged: a quarter of its samples or more read within the known "
		    "%g-%g cycles/item (fastest %.3f, first quartile %.3f %scycles/item), its median %.3f, slowest "
		    "%.3f; a fixed cost per sample would add up to %.3f %scycles/item at its median sample's length "
		    "(its 95 %% interval's upper end)", name, k->lo, k->hi, c->seen_lo, c->seen_q1, unit, c->value,
		    c->seen_hi, c->fixed_hi, unit);
	if (c->speed_moved && !c->quarter_in)
		say(ctx, out, "note: ", "%s UNSTEADY, not judged: at the frequency estimated after the checks it would "
		    "read %.3f est. cycles/item, against %.3f at the first; the known %g-%g reaches into that span",
		    name, c->at_after, c->value, k->lo, k->hi);
}

int pmb__report_selfcheck(const struct pmb_context *ctx, const struct pmb_result *res, size_t n, FILE *out)
{
	struct pmb__table t = { .ncol = 4, .head = { "check", "expected", "measured", "verdict" },
				.left = { true, true, true, true } };
	int count[5] = { 0 };
	const struct pmb_result *timeless = NULL;
	bool moved = false;

	fprintf(out, "self-check on core %d (%s backend)%s\n", ctx->m.cpu, pmb_backend_name(ctx->m.backend),
		pmb_context_sim(ctx) ? ": counts SIMULATED by valgrind; no time, so no cycles" :
		ctx->m.pmu_ok ? "" : ": no hardware counters, cycles ESTIMATED from time");
	int notrun = 0; /* a signal stopped the run first: not "no counter" */

	for (size_t i = 0; i < n; i++) {
		if (!res[i].m.inst->known)
			continue;
		check_line(ctx, &res[i], &t);
		count[res[i].f.check.verdict]++;
		notrun += res[i].m.not_run;
		if (!timeless && res[i].f.check.timeless)
			timeless = &res[i];
		moved |= res[i].f.check.speed_moved;
	}
	pmb__table_print(out, &t);
	int failed = count[PMB_CHECK_WRONG], unchecked = count[PMB_CHECK_UNCHECKED] - notrun;
	int unsteady = count[PMB_CHECK_UNSTEADY];

	if (moved)
		say(ctx, out, "note: ", "the frequency estimated from an add chain was %.2f GHz before the checks and "
		    "%.2f GHz after them; est. cycles use the first", ctx->m.ghz, ctx->m.ghz_after);
	for (size_t i = 0; i < n; i++)
		if (res[i].m.inst->known && res[i].f.check.verdict == PMB_CHECK_UNSTEADY)
			unsteady_lines(ctx, &res[i], out);
	if (unsteady && ctx->m.idlest_cpu >= 0 && ctx->m.idlest_cpu != ctx->m.cpu)
		say(ctx, out, "", "%d check%s UNSTEADY: rerun it; if it recurs, on an idler core: "
			"pmubench --self-check --cpu=%d", unsteady, unsteady == 1 ? "" : "s", ctx->m.idlest_cpu);
	else if (unsteady)
		say(ctx, out, "", "%d check%s UNSTEADY: rerun it", unsteady, unsteady == 1 ? "" : "s");
	/* A busy core is the likeliest cause: name its load, and another
	 * core to try, before blaming the machine (issue 26). */
	if (failed && ctx->m.busy > 0.2 && ctx->m.idlest_cpu >= 0)
		say(ctx, out, "", "%d check%s WRONG on core %d, which other work kept %.0f %% busy before the run "
			"(load average %.2f): its figures cannot be trusted while it is; rerun on an idler "
			"core: pmubench --self-check --cpu=%d", failed, failed == 1 ? "" : "s", ctx->m.cpu,
			ctx->m.busy * 100, ctx->m.loadavg[0], ctx->m.idlest_cpu);
	else if (failed && ctx->m.busy > 0.2)
		say(ctx, out, "", "%d check%s WRONG on core %d, which other work kept %.0f %% busy before the run "
			"(load average %.2f): its figures cannot be trusted while it is; rerun on an idle "
			"core (--self-check --cpu=N)", failed, failed == 1 ? "" : "s", ctx->m.cpu,
			ctx->m.busy * 100, ctx->m.loadavg[0]);
	else if (failed)
		say(ctx, out, "", "%d check%s WRONG: this machine's figures cannot be trusted as they are",
			failed, failed == 1 ? "" : "s");
	if (timeless)
		say(ctx, out, "note: ", "%s: cycles equal instructions exactly (%.3f per item): this PMU counts "
			"one cycle per instruction, as an emulator without timing does (QEMU -icount), so "
			"cache and memory latency cannot show here", timeless->m.inst->name,
			timeless->f.check.timeless_cycles);
	if (unchecked)
		say(ctx, out, "", "%d check%s could not run here (no counter for them)%s",
			unchecked, unchecked == 1 ? "" : "s", failed || unsteady ? "" : "; the others passed");
	if (ctx->m.pmu_ok == false && !pmb_context_sim(ctx))
		say(ctx, out, "note: ", "the add chain defines the frequency estimate, so its "
			"est. cycles check only shows the harness is consistent");
	return failed ? 1 : 0;
}
