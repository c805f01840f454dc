/* run_cli.c - what only the command line does with the options of a run: --list, --list-events and --topology printed, --backend=sim's command line run again under valgrind, the benchmarks run and reported by run/run.c's path. */
#include <stdio.h>
#include <stdlib.h>

#include "meter.h"
#include "model.h"
#include "plan.h"
#include "report.h"
#include "run_cli.h"

/* --list: the names a run with these options would measure. */
static int list_benchmarks(const struct pmb_options *o)
{
	struct pmb_instance *inst;
	size_t n;
	int err = pmb__run_instances(o, &inst, &n);

	if (err > 0)
		return err;
	if (err)
		return pmb__out_error("cannot list benchmarks: %s",
				     *pmb__registry_error() ? pmb__registry_error() : pmb_strerror(err));
	/* As a run with this filter: nothing to list is an error, not an
	 * empty success. */
	if (!n && o->filter)
		err = pmb__out_error("--filter=%s matches no benchmark; --list without it lists them all",
				     o->filter);
	else if (!n)
		err = pmb__out_error("no benchmark is registered in this program");
	for (size_t i = 0; i < n; i++)
		printf("%s\n", inst[i].name);
	free(inst);
	return err;
}

/* --list-events: the names --counters takes: the simulator's under
 * --backend=sim (listed here, without valgrind), else this machine's. */
static int list_events(const struct pmb_options *o)
{
	bool sim = o->backend == PMB_WANT_SIM;
	const char *pattern = o->list_pattern;
	int err = pmb__run_machine(o), found;

	if (err)
		return err;
	err = pmb__events_init(NULL);
	if (err)
		return pmb__out_error("%s", *pmb__events_error() ? pmb__events_error() : pmb_strerror(err));
	found = sim ? pmb__sim_list(pattern, pmb__out_event, NULL) : pmb__events_list(pattern, pmb__out_event, NULL);
	pmb__events_fini();
	if (found > 0)
		return 0;
	/* As grep: nothing found is status 1, not an error. */
	fprintf(stderr, "pmubench: no event %s matches '%s'\n", sim ? "the simulator counts" : "of this machine",
		pattern ? pattern : "");
	return 1;
}

/* --backend=sim outside valgrind: the same command line again under it,
 * for the planned core and its core PMU, once the run's own checks hold;
 * its exit status is this one's. */
static int rerun_under_valgrind(const struct pmb_options *o, int argc, char **argv)
{
	struct pmb_topology_info info;
	char pmu[64], err[1024];
	bool info_ok;
	int rc = pmb__run_sim_target(o, &info, &info_ok, pmu, sizeof(pmu));

	if (rc)
		return rc;
	rc = pmb__sim_rerun(argc, argv, info_ok ? &info : NULL, pmu, o->disasm, err, sizeof(err));
	return rc < 0 ? pmb__out_error("%s", err) : rc;
}

int pmb__run_command(const struct pmb_options *o, int argc, char **argv)
{
	struct pmb_run *run;
	int rc;

	if (o->list)
		return list_benchmarks(o);
	if (o->list_events)
		return list_events(o);
	if (o->backend == PMB_WANT_SIM && !pmb__sim_active())
		return rerun_under_valgrind(o, argc, argv);
	run = calloc(1, sizeof(*run));
	rc = run ? pmb__run_path(o, run) : pmb__out_error("out of memory");
	/* --topology: the path stopped with the counters open (under
	 * --backend=sim its child under valgrind printed it). */
	if (!rc && o->topology && run->ctx)
		rc = pmb__out_topology(run->ctx);
	pmb_run_free(run);
	return rc;
}
