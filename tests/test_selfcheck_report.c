/* test_selfcheck_report.c - --self-check's verdicts (the analysis's, analysis_check.c) and their report on constructed results (issue 26): a WRONG check on a core other work kept busy names that load and the idlest core to rerun on, exactly; on an idle core it blames the machine; checks without a counter read NOT CHECKED; a cycles figure out of range that the run's own evidence accounts for (a quarter of its samples in range and no fixed cost per sample to account for it, or the frequency estimated after the checks) reads UNSTEADY, and nothing else does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "plan.h"
#include "report.h"
#include "tap.h"

#define NC 5

/* est. cycles per item of the three cycle checks, others not counted; all
 * samples alike, no fixed cost per sample. */
static void results(struct pmb_result *r, struct pmb_instance *in, size_t n, double add_chain)
{
	const double cyc[] = { add_chain, 3.0, 4.5 };

	memset(r, 0, n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		r[i].m.inst = &in[i];
		if (i < 3) {
			struct pmb_figure *f = &r[i].f.est_cycles;

			f->valid = f->estimated = true;
			f->s.median = f->s.min = f->s.max = f->s.tukey.q1 = f->s.tukey.q3 = cyc[i];
			f->s.n = 10;
			f->fixed_share_hi = 0;
		}
	}
}

/* The report's text for ctx and results; returns its exit status. */
static int report(const struct pmb_context *ctx, struct pmb_result *r, size_t n, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	for (size_t i = 0; i < n; i++)
		pmb__analysis_check(ctx, &r[i], &r[i].f);
	int rc = pmb__report_selfcheck(ctx, r, n, f);

	fclose(f);
	return rc;
}

int main(void)
{
	static struct pmb_context ctx;
	struct pmb_instance *in;
	struct pmb_result r[NC];
	size_t n;
	char out[8192];

	int planned = pmb__selfcheck_plan(&in, &n);

	if (!tap_ok(planned == 0 && n == NC, "the self-check plans %d checks (%zu)", NC, n))
		return tap_done();
	ctx.m.backend = PMB_BACKEND_PERF;
	ctx.view.width = 1000; /* each line whole, for the exact words; 80 below */
	ctx.m.cpu = 1;
	ctx.m.busy = 0.62;
	ctx.m.loadavg[0] = 1.93;
	ctx.m.idlest_cpu = 0;

	results(r, in, n, 1.6);
	int rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 1, "a WRONG check: exit status 1 (%d)", rc);
	tap_ok(strstr(out, "selfcheck/add_chain") && strstr(out, "1.600 cycles/item (est.)") &&
	       strstr(out, "WRONG"), "the add chain at 1.6 est. cycles reads WRONG (%zu bytes of report)", strlen(out));
	tap_ok(strstr(out, "1 check WRONG on core 1, which other work kept 62 % busy before the run "
			   "(load average 1.93): its figures cannot be trusted while it is; rerun on an idler "
			   "core: pmubench --self-check --cpu=0\n") != NULL,
	       "a busy core: the load named, and the idlest core to rerun on");
	tap_ok(!strstr(out, "this machine's figures cannot be trusted"), "a busy core: the machine is not blamed");

	ctx.m.idlest_cpu = -1;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(strstr(out, "rerun on an idle core (--self-check --cpu=N)\n") != NULL,
	       "a busy core and no idler one known: the load named, --cpu=N suggested (%zu bytes of report)", strlen(out));

	ctx.m.busy = 0.05;
	ctx.m.idlest_cpu = 0;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(strstr(out, "1 check WRONG: this machine's figures cannot be trusted as they are\n") &&
	       !strstr(out, "busy"), "an idle core: the machine is what the check blames (%zu bytes of report)", strlen(out));

	results(r, in, n, 1.0);
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 0 && !strstr(out, "WRONG"), "every check in its range: exit 0, nothing WRONG (%d)", rc);
	tap_ok(strstr(out, "no branch-misses counter here") && strstr(out, "no instructions counter here") &&
	       strstr(out, "2 checks could not run here (no counter for them); the others passed\n"),
	       "checks without their counter: NOT CHECKED, counted once (%zu bytes of report)", strlen(out));
	tap_ok(strstr(out, "cycles ESTIMATED from time") != NULL, "no PMU: the header says cycles are estimated");

	/* UNSTEADY: out of range, where the run's own evidence accounts for it. */
	ctx.m.busy = 0.05;
	ctx.m.idlest_cpu = 0;
	ctx.view.width = 1000; /* the notes on one line each, for the exact words */
	results(r, in, n, 1.6);
	r[0].f.est_cycles.s.min = 0.98;
	r[0].f.est_cycles.s.tukey.q1 = 1.05;
	r[0].f.est_cycles.s.max = 2.3;
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 0 && r[0].f.check.verdict == PMB_CHECK_UNSTEADY && !strstr(out, "WRONG"),
	       "median 1.6 reading high, a quarter of its samples in range (q1 1.05, fastest 0.98): UNSTEADY, exit 0 (%d)",
	       rc);
	tap_ok(strstr(out, "note: selfcheck/add_chain UNSTEADY, not judged: a quarter of its samples or more read within "
			   "the known 0.9-1.1 cycles/item (fastest 0.980, first quartile 1.050 est. cycles/item), its "
			   "median 1.600, slowest 2.300; a fixed cost per sample would add up to 0.000 est. cycles/item at "
			   "its median sample's length (its 95 % interval's upper end)\n") &&
	       strstr(out, "1 check UNSTEADY: rerun it; if it recurs, on an idler core: pmubench --self-check --cpu=0\n") &&
	       !strstr(out, "the others passed") && !strstr(out, "note: the frequency"),
	       "UNSTEADY names the known range, its fastest, first quartile, median, slowest, the fixed cost's bound, "
	       "and the core to rerun on; no \"others passed\"");
	ctx.view.width = 80;
	report(&ctx, r, n, out, sizeof(out));
	{
		const char *nl = strstr(out, "note: selfcheck/add_chain UNSTEADY");
		size_t w = 0, widest = 0;

		for (const char *p = nl; p && *p; p++) {
			if (*p == '\n') {
				widest = w > widest ? w : widest;
				w = 0;
				if (!strncmp(p + 1, "    ", 4) || !strncmp(p + 1, "note:", 5))
					continue;
				break;
			}
			w++;
		}
		tap_ok(nl && widest <= 80 && strstr(nl, "\n    "), "at 80 columns the note wraps, its further lines "
		       "indented by 4, none over 80 (widest %zu)", widest);
	}
	ctx.view.width = 1000;
	ctx.m.idlest_cpu = -1;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(strstr(out, "1 check UNSTEADY: rerun it\n") != NULL, "no idler core known: rerun it, no core named");
	ctx.m.idlest_cpu = 0;
	r[0].f.est_cycles.fixed_flagged = true;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG,
	       "the same samples with a fixed cost per sample flagged (the ladder's short samples high): WRONG");
	r[0].f.est_cycles.fixed_flagged = false;
	r[0].f.est_cycles.fixed_share_hi = 0.01; /* up to 0.016 per item of 1.6 */
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_UNSTEADY && strstr(out, "would add up to 0.016 est. cycles/item"),
	       "a fixed cost per sample of up to 1 %% of the median sample (0.016 per item, short of 1.6 - 1.1): "
	       "still UNSTEADY");
	r[0].f.est_cycles.fixed_share_hi = 0.34;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "a fixed cost per sample not resolved but up to 34 %% of the "
	       "median sample (0.544 per item, more than 1.6 - 1.1): WRONG");
	r[0].f.est_cycles.fixed_share_hi = NAN;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "no interval for a fixed cost per sample: WRONG");
	r[0].f.est_cycles.fixed_share_hi = 0;
	r[0].f.est_cycles.s.tukey.q1 = 1.2;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "its fastest sample in range, its first quartile out (1.2): WRONG");
	r[0].f.est_cycles.s.tukey.q1 = 1.3;
	r[0].f.est_cycles.s.min = 1.2;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "every sample above the range (1.2 to 2.3): WRONG");
	r[0].f.est_cycles.s.tukey.q1 = 1.05;
	r[0].f.est_cycles.s.min = 0.5;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "a sample under the range (0.5): WRONG");
	r[0].f.est_cycles.s.min = 0.98;
	r[0].f.est_cycles.s.n = 3;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "three samples have no quartile to show: WRONG");
	results(r, in, n, 0.8);
	r[0].f.est_cycles.s.min = 0.5;
	r[0].f.est_cycles.s.max = 1.0;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG,
	       "reading low (0.8, samples 0.5 to 1.0): WRONG, no interference makes a sample faster");

	/* The frequency estimated again after the checks. */
	results(r, in, n, 1.3);
	ctx.m.ghz = 3.23;
	ctx.m.ghz_after = 2.48;
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 0 && r[0].f.check.verdict == PMB_CHECK_UNSTEADY &&
	       strstr(out, "note: the frequency estimated from an add chain was 3.23 GHz before the checks and 2.48 GHz "
			   "after them; est. cycles use the first\n") &&
	       strstr(out, "note: selfcheck/add_chain UNSTEADY, not judged: at the frequency estimated after the checks "
			   "it would read 0.998 est. cycles/item, against 1.300 at the first; the known 0.9-1.1 reaches "
			   "into that span\n"), "1.3 est. cycles, the frequency 3.23 -> 2.48 GHz: at 2.48 it reads 0.998, "
	       "in range: UNSTEADY, both frequencies, both readings and the known range named");
	results(r, in, n, 1.4);
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_UNSTEADY &&
	       strstr(out, "it would read 1.075 est. cycles/item, against 1.400 at the first; the known 0.9-1.1 reaches "
			   "into that span\n"), "1.4 est. cycles, 1.075 at 2.48 GHz: the span 1.075-1.4 reaches into 0.9-1.1 "
	       "(not 1 itself): UNSTEADY, worded so");
	results(r, in, n, 0.8);
	ctx.m.ghz = 2.48;
	ctx.m.ghz_after = 3.23;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_UNSTEADY,
	       "reading low (0.8) where the frequency rose 2.48 -> 3.23 GHz (1.042 at it): UNSTEADY");
	ctx.m.ghz = 3.23;
	ctx.m.ghz_after = 2.48;
	results(r, in, n, 1.6);
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 1 && r[0].f.check.verdict == PMB_CHECK_WRONG &&
	       strstr(out, "note: the frequency estimated from an add chain was 3.23 GHz before") &&
	       !strstr(out, "UNSTEADY"), "1.6 est. cycles, the frequency 3.23 -> 2.48 GHz (1.23 at it): the move does not "
	       "account for it: WRONG, exit 1, the move still told");
	results(r, in, n, 1.3);
	ctx.m.ghz = 2.48;
	ctx.m.ghz_after = 3.23;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "reading high while the frequency rose (2.48 -> 3.23 GHz): WRONG");
	ctx.m.ghz = 3.23;
	ctx.m.ghz_after = 3.10;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG && !strstr(out, "note: the frequency"),
	       "a move of 4 %% (3.23 -> 3.10 GHz) is not a moved speed: WRONG, no note");
	ctx.m.ghz_after = 2.48;
	r[0].f.est_cycles.estimated = false;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "cycles not estimated from time: a moved speed excuses nothing");

	/* WRONG and UNSTEADY in one run. */
	results(r, in, n, 1.0);
	r[1].f.est_cycles.s.median = 4.0;
	r[1].f.est_cycles.s.min = 3.6;
	r[1].f.est_cycles.s.tukey.q1 = 3.8;
	r[1].f.est_cycles.s.max = 4.4;
	r[2].f.est_cycles.s.median = 7.0;
	r[2].f.est_cycles.s.min = 4.4;
	r[2].f.est_cycles.s.tukey.q1 = 5.0;
	r[2].f.est_cycles.s.max = 9.0;
	ctx.m.ghz = ctx.m.ghz_after = 0;
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 1 && r[1].f.check.verdict == PMB_CHECK_WRONG && r[2].f.check.verdict == PMB_CHECK_UNSTEADY &&
	       strstr(out, "1 check UNSTEADY") && strstr(out, "1 check WRONG") && !strstr(out, "the others passed"),
	       "imul_chain WRONG (3.6-4.4) and l1_chase UNSTEADY (4.4-9.0): exit 1, both told, no \"others passed\"");

	/* With a PMU: counts that nothing else running moves stay WRONG, and
	 * a cycles count equal to instructions (no timing model) too. */
	static struct pmb_context pmu;
	pmu = ctx;
	pmu.m.pmu_ok = pmu.m.has_cycles = true;
	pmu.m.plan.nev = 2;
	snprintf(pmu.m.plan.ev[0].name, sizeof(pmu.m.plan.ev[0].name), "cycles");
	snprintf(pmu.m.plan.ev[1].name, sizeof(pmu.m.plan.ev[1].name), "instructions");
	pmu.m.ghz = 3.23;
	pmu.m.ghz_after = 2.48;
	results(r, in, n, 1.0);
	struct pmb_figure *nop = &r[4].f.ev[1], *chase = &r[2].f.ev[0], *chase_in = &r[2].f.ev[1];

	nop->valid = true;
	nop->s.n = 10;
	nop->s.median = 1.3, nop->s.min = 0.995, nop->s.max = 1.6;
	chase->valid = chase_in->valid = true;
	chase->s.n = chase_in->s.n = 10;
	chase->s.median = chase_in->s.median = 6.0;
	chase->s.min = 4.0, chase->s.max = 7.0, chase->s.tukey.q1 = 5.0;
	chase->fixed_share_hi = 0;
	rc = report(&pmu, r, n, out, sizeof(out));
	tap_ok(rc == 1 && r[4].f.check.verdict == PMB_CHECK_WRONG && strstr(out, "1.300 instructions/item"),
	       "nop_loop at 1.3 instructions, its fastest sample in range, the speed moved: WRONG");
	tap_ok(r[2].f.check.verdict == PMB_CHECK_WRONG && r[2].f.check.timeless &&
	       strstr(out, "note: selfcheck/l1_chase: cycles equal instructions exactly"),
	       "l1_chase's cycles equal its instructions (6.0), its fastest sample 4.0 in range: WRONG, the "
	       "timeless note, not UNSTEADY");
	chase_in->s.median = 3.0;
	report(&pmu, r, n, out, sizeof(out));
	tap_ok(r[2].f.check.verdict == PMB_CHECK_UNSTEADY && strstr(out, "(fastest 4.000, first quartile 5.000 cycles/item)"),
	       "counted cycles 6.0 over 3.0 instructions, fastest 4.0, q1 5.0: UNSTEADY, its cycles not called estimated");
	free(in);
	return tap_done();
}
