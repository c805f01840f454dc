/* test_selfcheck_report.c - --self-check's verdicts (the analysis's, analysis_check.c) and their report on constructed results (issue 26): a WRONG check on a core other work kept busy names that load and the idlest core to rerun on, exactly; on an idle core it blames the machine; checks without a counter read NOT CHECKED. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "plan.h"
#include "report.h"
#include "tap.h"

#define NC 5

/* est. cycles per item of the three cycle checks, others not counted */
static void results(struct pmb_result *r, struct pmb_instance *in, size_t n, double add_chain)
{
	const double cyc[] = { add_chain, 3.0, 4.5 };

	memset(r, 0, n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		r[i].m.inst = &in[i];
		if (i < 3) {
			struct pmb_figure *f = &r[i].f.est_cycles;

			f->valid = f->estimated = true;
			f->s.median = f->s.min = f->s.max = cyc[i];
			f->s.n = 10;
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

	/* UNSTEADY: out of range, on a core that did not keep steady. */
	ctx.m.busy = 0.05;
	ctx.m.idlest_cpu = 0;
	results(r, in, n, 1.6);
	r[0].f.est_cycles.s.min = 0.98;
	r[0].f.est_cycles.s.max = 2.3;
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 0 && r[0].f.check.verdict == PMB_CHECK_UNSTEADY && !strstr(out, "WRONG"),
	       "samples from 0.98 to 2.3 around a median of 1.6: UNSTEADY, not WRONG, exit 0 (%d)", rc);
	tap_ok(strstr(out, "selfcheck/add_chain UNSTEADY, not judged: its samples ran from 0.980 to 2.300 "
			   "est. cycles/item, the known 1 cycle/item among them: the core did not run it steadily\n") &&
	       strstr(out, "1 check UNSTEADY: rerun, on a quiet machine, or on an idler core: "
			   "pmubench --self-check --cpu=0\n") && !strstr(out, "the others passed"),
	       "UNSTEADY names its samples' range and the core to rerun on, and no \"others passed\" follows");
	r[0].f.est_cycles.s.min = 1.2;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG && strstr(out, "1 check WRONG"),
	       "every sample above the range (1.2 to 2.3): WRONG");
	r[0].f.est_cycles.s.min = 0.98;
	r[0].f.est_cycles.s.n = 1;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "one sample has no spread to show: WRONG");

	results(r, in, n, 1.6);
	ctx.m.ghz = 3.23;
	ctx.m.ghz_after = 2.48;
	rc = report(&ctx, r, n, out, sizeof(out));
	tap_ok(rc == 0 && r[0].f.check.verdict == PMB_CHECK_UNSTEADY &&
	       strstr(out, "selfcheck/add_chain UNSTEADY, not judged: the core's speed moved during the checks: the "
			   "add chain ran at 3.23 GHz before them and 2.48 GHz after, and its cycles are estimated "
			   "from the first\n"), "est. cycles after the frequency moved 3.23 -> 2.48 GHz: UNSTEADY, both named");
	ctx.m.ghz_after = 3.10;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "a move of 4 %% (3.23 -> 3.10 GHz) is not a moved speed: WRONG");
	ctx.m.ghz_after = 2.48;
	r[0].f.est_cycles.estimated = false;
	report(&ctx, r, n, out, sizeof(out));
	tap_ok(r[0].f.check.verdict == PMB_CHECK_WRONG, "cycles not estimated from time: a moved speed excuses nothing");
	ctx.m.ghz = ctx.m.ghz_after = 0;
	free(in);
	return tap_done();
}
