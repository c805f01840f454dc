/* api_argv.c - pmb_run(argc, argv): a command line read into the options of a run (the command line's own table) and run by the typed core, pmb_run_with()'s. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "meter.h"
#include "run_cli.h"

/* What pmb_run() refuses: options whose whole point is to print.  Returns
 * the option's name, or NULL. */
static const char *printing_option(const struct pmb_options *o)
{
	if (o->help || o->version)
		return o->help ? "--help" : "--version";
	if (o->list || o->list_events)
		return o->list ? "--list" : "--list-events";
	if (o->topology || o->self_check)
		return o->topology ? "--topology" : "--self-check";
	if (o->out || o->plot)
		return o->out ? "--out" : "--plot";
	if (o->disasm)
		return "--disasm";
	return o->format != PMB_FORMAT_CONSOLE ? "--format" : NULL;
}

/* The options of argv, checked for pmb_run, in the "C" locale (as pmb_main:
 * --min-sample-time=0.5ms reads the same whatever the caller's setlocale).
 * Returns 0 or -EINVAL with the error in run. */
static int run_options(int argc, char **argv, struct pmb_options *o, struct pmb_run *run)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	const char *bad;
	int rc = pmb__run_options(argc, argv, o, run->error, sizeof(run->error));

	if (c) {
		uselocale(old);
		freelocale(c);
	}
	if (rc == 2)
		return -EINVAL;
	bad = printing_option(o);
	if (bad)
		snprintf(run->error, sizeof(run->error), "%s: pmb_run() prints nothing; expected options of a "
			 "benchmark run (read its results with pmb_run_values)", bad);
	else if (o->backend == PMB_WANT_SIM && !pmb__sim_active())
		snprintf(run->error, sizeof(run->error), "--backend=sim: pmb_run() cannot run the program again "
			 "under valgrind; for simulated counts run the benchmarks with pmubench --backend=sim");
	else
		return 0;
	return -EINVAL;
}

PMB_API int pmb_run(int argc, char **argv, struct pmb_run **out)
{
	struct pmb_run *run = calloc(1, sizeof(*run));
	struct pmb_options o;
	int rc;

	*out = run;
	if (!run)
		return -ENOMEM;
	rc = run_options(argc, argv, &o, run);
	return rc ? rc : pmb__run_quiet(&o, run);
}
