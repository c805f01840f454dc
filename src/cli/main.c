/* main.c - the command line: subcommands, --help, exit codes, and pmb_run(argc, argv), argv read into the options of a run and run by the typed core under pmb_run_with() (the option table is run_options.c's). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "meter.h"
#include "fleet.h"
#include "base.h"
#include "pmubench.h"
#include "report.h"
#include "report_cmd.h"
#include "run_cli.h"

/* The message made visible: it quotes the command line, which may hold
 * control characters. */
static int bad(const char *msg)
{
	return pmb__out_error("%s", msg);
}

static void usage(void)
{
	fputs("usage: pmubench [OPTION]...\n"
	      "       pmubench compare [--threshold=PCT] [--drift=PCT] OLD.json NEW.json\n"
	      "       pmubench ab [OPTION]... OLD NEW   (two builds, in alternation)\n"
	      "       pmubench report [OPTION]... RUN.json   (a saved run, reported again)\n"
	      "       pmubench merge [OPTION]... RUN.json...   (many hosts' runs, one report)\n"
	      "       pmubench fleet [OPTION]... [-- RUN-OPTION...]   (a run on many Slurm nodes)\n"
	      "Measure what small pieces of code cost per item: time, cycles,\n"
	      "instructions, branch mispredictions, cache misses.\n\n", stdout);
	pmb__run_options_help(stdout);
}

/* Standard output, flushed and checked: a listing or report that did not
 * reach it (a full disk, a closed pipe, /dev/full) is an error with its
 * reason, never a silent 0.  errno of an earlier failed write is gone by
 * now; the flush of what is still buffered gives it again. */
static int stdout_checked(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "pmubench: cannot write to standard output: %s\n",
		errno ? strerror(errno) : "a write failed");
	return rc ? rc : 1;
}

static int main_in_c_locale(int argc, char **argv)
{
	char err[PATH_MAX * 2 + 256];
	struct pmb_options o;
	const char *v;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return stdout_checked(pmb__compare_main(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "ab"))
		return stdout_checked(pmb__ab_main(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "report"))
		return stdout_checked(pmb__report_main(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return stdout_checked(pmb__merge_main(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "fleet"))
		return stdout_checked(pmb__fleet_main(argc - 1, argv + 1));
	rc = pmb__run_options(argc, argv, &o, err, sizeof(err));
	if (rc == 2)
		return bad(err);
	if (rc == 1 && o.help)
		usage();
	else if (rc == 1 && o.version && pmb_version(&v))
		printf("pmubench %s\n", v);
	return stdout_checked(rc == 1 ? 0 : pmb__run_command(&o, argc, argv));
}

/* Standard input, output and error that were closed are opened on
 * /dev/null, read-only: otherwise the first file or counter opened would
 * become "standard output" and the report be written into it; this way a
 * write fails with EBADF, and is reported as such. */
static void std_fds_held(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int got = open("/dev/null", O_RDONLY);

			if (got >= 0 && got != fd)
				close(got);
		}
}

/* The "C" locale for this thread while pmubench runs, the caller's after:
 * a benchmark program that called setlocale(LC_ALL, "") in a de_DE locale
 * would otherwise write 0,2557 into JSON and CSV, and read --min-sample-
 * time=0.5ms as 0. */
PMB_API int pmb_main(int argc, char **argv)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	int rc;

	std_fds_held();
	rc = main_in_c_locale(argc, argv);

	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return rc;
}

/* ---- pmb_run(argc, argv): a command line read here, run by the typed core ---- */

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
