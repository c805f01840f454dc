/* report_text.c - the console report: header, main table, notes under it; then the studies (report_study.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "report.h"
#include "report_cols.h"
#include "report_fmt.h"
#include "report_study.h"

/* How the counters were read per sample, what it cost, and why not from
 * user space where they were not. */
static void read_path_line(FILE *f, const struct pmb_context *c)
{
	char cost[32] = "";

	if (!c->read_path[0])
		return;
	if (c->group_read_ns >= 0)
		snprintf(cost, sizeof(cost), ", %.0f ns per sample", c->group_read_ns);
	if (!strcmp(c->read_path, "self"))
		fprintf(f, "counters read from user space (no system call)%s\n", cost);
	else
		fprintf(f, "counters read by %sread() and ioctl()%s%s%s\n",
			strcmp(c->read_path, "mixed") ? "" : "user space and ", cost,
			c->read_why[0] ? ": " : "", c->read_why);
}

/* What the harness costs, subtracted from every figure.  Counters read
 * from user space are read inside the timed sample, so their reads are
 * part of the per-sample overhead; read()'s system calls fall outside it. */
static void overhead_line(FILE *f, const struct pmb_context *c)
{
	int ins = pmb__context_event(c, "instructions");
	char per[48] = "";

	if (pmb_context_sim(c)) {
		fprintf(f, "harness overhead (the empty loop, simulated the same way) subtracted from "
			"every event; figures are per item\n\n");
		return;
	}
	if (ins >= 0 && c->overhead.ev_valid[ins])
		snprintf(per, sizeof(per), " (%.0f instructions)", c->overhead.ev_per_sample[ins]);
	fprintf(f, "harness overhead subtracted: %.3f ns per pass, %.0f ns per sample%s%s; "
		"figures are per item: medians of each benchmark's samples\n\n",
		c->overhead.ns_per_pass, c->overhead.ns_per_sample, per,
		strcmp(c->read_path, "self") ? "" : ", counter reads included (from user space they lie "
		"inside the timed sample)");
}

static void header(FILE *f, const struct pmb_context *c)
{
	fprintf(f, "pmubench %s  %s  core %d  backend %s\n", PMB_VERSION_STRING, c->host, c->cpu,
		pmb_backend_name(c->backend));
	if (pmb_context_sim(c)) {
		fprintf(f, "counts SIMULATED by valgrind/callgrind (%s); time is not measured under "
			"simulation\n", c->sim_geometry);
	} else {
		fprintf(f, "clock %s: resolution %.0f ns, read %.1f ns; core %.2f GHz (measured); ",
			c->clock.source, c->clock.resolution_ns, c->clock.read_cost_ns, c->ghz);
		if (c->pmu_ok)
			fprintf(f, "PMU %s, ", c->plan.pmu_name);
		else
			fprintf(f, "no hardware counters: cycles are ESTIMATED from time; ");
		fprintf(f, "%d counter group%s\n", c->ngroups, c->ngroups == 1 ? "" : "s");
		read_path_line(f, c);
	}
	overhead_line(f, c);
}

int pmb__report_text(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int err, study_err;

	/* A table that lost rows to memory still prints what it has, and
	 * the rest of the report follows; the error is returned at the end. */
	header(f, c);
	err = pmb__report_main_table(f, c, r, n);
	pmb__report_sweeps(f, c, r, n);
	study_err = pmb__report_branch_studies(f, c, r, n);
	if (!err)
		err = study_err;
	return err ? err : ferror(f) ? -EIO : 0;
}
