/* report_text.c - the console report: header, main table, notes under it; then the studies (report_study.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "report.h"
#include "report_cols.h"
#include "report_fmt.h"
#include "report_study.h"

/* How the counters were read per sample, what it cost, and why not from
 * user space where they were not. */
static void read_path_line(FILE *f, const struct pmb_context *c)
{
	char cost[32] = "";

	if (!c->m.read_path[0])
		return;
	if (c->m.group_read_ns >= 0)
		snprintf(cost, sizeof(cost), ", %.0f ns per sample", c->m.group_read_ns);
	if (!strcmp(c->m.read_path, "self"))
		fprintf(f, "counters read from user space (no system call)%s\n", cost);
	else
		fprintf(f, "counters read by %sread() and ioctl()%s%s%s\n",
			strcmp(c->m.read_path, "mixed") ? "" : "user space and ", cost,
			c->m.read_why[0] ? ": " : "", c->m.read_why);
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
	if (ins >= 0 && c->m.overhead.ev_valid[ins])
		snprintf(per, sizeof(per), " (%.0f instructions)", c->m.overhead.ev_per_sample[ins]);
	fprintf(f, "harness overhead subtracted: %.3f ns per pass, %.0f ns per sample%s%s; "
		"figures are per item: medians of each benchmark's samples\n\n",
		c->m.overhead.ns_per_pass, c->m.overhead.ns_per_sample, per,
		strcmp(c->m.read_path, "self") ? "" : ", counter reads included (from user space they lie "
		"inside the timed sample)");
}

/* The rest of the probe, under --verbose: governor, turbo, load,
 * perf_event_paranoid, counter groups and how they were read. */
static void probe_lines(FILE *f, const struct pmb_context *c)
{
	fprintf(f, "frequency: a dependent add chain timed against the clock; clock read %.1f ns\n",
		c->m.clock.read_cost_ns);
	fprintf(f, "governor %s, turbo %s, load %.2f %.2f %.2f, perf_event_paranoid %d, %d counter group%s\n",
		c->m.governor[0] ? c->m.governor : "unknown", c->m.turbo < 0 ? "unknown" : c->m.turbo ? "on" : "off",
		c->m.loadavg[0], c->m.loadavg[1], c->m.loadavg[2], c->m.paranoid, c->m.ngroups, c->m.ngroups == 1 ? "" : "s");
	if (c->m.fallback[0])
		fprintf(f, "fallback: %s\n", c->m.fallback);
	read_path_line(f, c);
}

/* The machine in one line: CPU, frequency and how it was obtained, the
 * PMU or its absence, the clock; under simulation, the simulated caches.
 * The rest of the probe under --verbose. */
/* The CPU's name without trademark signs and doubled spaces. */
static void cpu_name(char *b, size_t n, const char *model)
{
	size_t k = 0;

	for (const char *p = model; *p && k + 1 < n; p++) {
		if (!strncmp(p, "(R)", 3) || !strncmp(p, "(TM)", 4)) {
			p += p[1] == 'R' ? 2 : 3;
			continue;
		}
		if (*p == ' ' && (k == 0 || b[k - 1] == ' '))
			continue;
		b[k++] = *p;
	}
	while (k && b[k - 1] == ' ')
		k--;
	b[k] = 0;
	if (!k)
		snprintf(b, n, "CPU unknown");
}

static void header(FILE *f, const struct pmb_context *c)
{
	char line[800], cpu[96], pmu[128];

	fprintf(f, "pmubench %s  %s  core %d  backend %s\n", PMB_VERSION_STRING, c->m.host, c->m.cpu,
		pmb_backend_name(c->m.backend));
	if (pmb_context_sim(c)) {
		snprintf(line, sizeof(line), "counts SIMULATED by valgrind/callgrind (%s); time is not "
			 "measured under simulation", c->m.sim_geometry);
	} else {
		cpu_name(cpu, sizeof(cpu), c->m.cpu_model);
		/* Not permitted is not absent: say which (issue 26). */
		if (c->m.pmu_denied)
			snprintf(pmu, sizeof(pmu), "PMU not permitted (perf_event_paranoid %d; sysctl "
				 "kernel.perf_event_paranoid) (cycles ESTIMATED)", c->m.paranoid);
		else
			snprintf(pmu, sizeof(pmu), "%s", c->m.pmu_ok ? "PMU " : "no PMU (cycles ESTIMATED)");
		snprintf(line, sizeof(line), "%s, %.2f GHz (add chain), %s%s%s, %s res. %.0f ns",
			 cpu, c->m.ghz, pmu,
			 c->m.pmu_ok ? c->m.plan.pmu_name : "", c->m.pmu_ok && !c->m.has_cycles ? " (no cycles)" : "",
			 c->m.clock.source, c->m.clock.resolution_ns);
	}
	pmb__wrap(f, line, 0, 2, (size_t)c->view.width);
	if (c->view.verbose) {
		if (!pmb_context_sim(c))
			probe_lines(f, c);
		overhead_line(f, c);
	} else {
		fputc('\n', f);
	}
}

/* What was found, before the figures, one line each: per sweep the cost
 * per tier and where it steps, per branch study the verdict and the
 * penalty (each read from the figures its section below prints), and how
 * many warnings the run gave. */
static void findings(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int nw = pmb__context_nwarnings(c);

	pmb__sweep_findings(f, c, r, n);
	pmb__branch_findings(f, c);
	if (nw)
		fprintf(f, "%d warning%s, on standard error\n\n", nw, nw == 1 ? "" : "s");
	else
		fprintf(f, "no warnings\n\n");
}

/* The report into f: header, findings, main table, studies. */
static int report(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	int err, study_err;

	/* A table that lost rows to memory still prints what it has, and
	 * the rest of the report follows; the error is returned at the end. */
	header(f, c);
	if (c->m.incomplete[0])
		fprintf(f, "INCOMPLETE: %s\n", c->m.incomplete);
	findings(f, c, r, n);
	err = pmb__report_main_table(f, c, r, n);
	pmb__report_sweeps(f, c, r, n);
	study_err = pmb__report_branch_studies(f, c, r, n);
	pmb__report_disasm(f, r, n);
	return err ? err : study_err;
}

int pmb__report_text(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int err;

	/* Written whole first, then every line that is still wider than the
	 * terminal (free text of the studies, long names) wrapped. */
	if (!mem)
		return report(f, c, r, n) ? -ENOMEM : ferror(f) ? -EIO : 0;
	err = report(mem, c, r, n);
	if (fclose(mem)) {
		free(text);
		return -ENOMEM;
	}
	/* --wide and --columns ask for a table however wide: left as it is. */
	pmb__wrap_lines(f, text, c->view.wide || c->view.columns[0] ? SIZE_MAX : (size_t)c->view.width);
	free(text);
	return err ? err : ferror(f) ? -EIO : 0;
}
