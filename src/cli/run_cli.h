/* run_cli.h - a run from the command line: argv into the options of a run (the one option table), and what only the command line does with them (--list, --list-events, --topology). */
#ifndef PMB_RUN_CLI_H
#define PMB_RUN_CLI_H

#include <stdio.h>

#include "run.h"

/* The options of argv, as the command line and pmb_run() read them,
 * printing nothing (run_options.c: the one option table).  Returns 0 to
 * run, 1 when --help or --version was given, 2 with the one-line error in
 * err. */
int pmb__run_options(int argc, char **argv, struct pmb_options *o, char *err, size_t size);
/* The option table's --help lines, to f. */
void pmb__run_options_help(FILE *f);

struct pmb_optdef;
/* The entry of main's option table called name ("--format"), or NULL: the
 * options `pmubench report` shares with a run are these very entries. */
const struct pmb_optdef *pmb__main_option(const char *name);

/* Run what the options (read from argc, argv) ask for: the benchmarks
 * (run/run.c's path), or --list, --list-events, --topology, --self-check;
 * under --backend=sim outside valgrind, the command line again under it
 * (meter's pmb__sim_rerun), whose exit status is this one's.  Prints the report, its
 * errors ("pmubench: ..." on stderr) and warnings.  Returns the exit
 * status: 0, 1 (a benchmark failed its check, a self-check was WRONG,
 * --list-events found nothing, a report could not be written), 2 (nothing
 * measured: see the message). */
int pmb__run_command(const struct pmb_options *o, int argc, char **argv);

#endif
