/* run.h - the path of one run: options, then plan, counters opened, samples measured, figures analysed, report written. */
#ifndef PMB_RUN_H
#define PMB_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "report_out.h"

/* --backend: auto and perf both count with perf_event; sim runs the
 * command again under valgrind. */
enum pmb_want_backend { PMB_WANT_AUTO, PMB_WANT_PERF, PMB_WANT_SIM };

#define PMB_DEFAULT_SAMPLES 30

/* The command line of a run, as main.c's option table fills it. */
struct pmb_options {
	const char *filter;      /* --filter: POSIX ERE; NULL all */
	int samples;             /* --samples: per benchmark */
	bool samples_given;      /* --samples given: never cut by the budget */
	double min_sample_ns;    /* --min-sample-time */
	int cpu;                 /* --cpu; -1 the core it started on */
	int format;              /* --format: enum pmb_format */
	const char *out, *plot;  /* --out, --plot; NULL none */
	const char *counters;    /* --counters; NULL the default */
	bool list, list_events, topology, self_check, kernel, help, version;
	const char *list_pattern; /* --list-events=PAT; NULL all */
	int backend;             /* --backend: enum pmb_want_backend */
	int read;                /* --read: enum pmb_read_mode */
	int hugepages;           /* --hugepages: 1 on, 0 off */
	int repetitions;         /* --repetitions */
	uint64_t seed;           /* --seed; 0 each benchmark's own */
	const char *topology_src; /* hidden, for tests: a made-up topology */
	int argc;                /* the command line, for --backend=sim to */
	char **argv;             /* run again under valgrind */
};

/* Fill o from a run's command line (main.c's option table) and check the
 * options together.  Returns -1 to run, or the exit status after --help,
 * --version or an error said (tests/fuzz_cmdline.c calls it alone). */
int pmb__command_line(int argc, char **argv, struct pmb_options *o);

/* Run what the options ask for: the benchmarks (plan, counters, samples,
 * figures, report), or --list, --list-events, --topology, --self-check.
 * Prints the report, its errors ("pmubench: ..." on stderr) and warnings.
 * Returns the exit status: 0, 1 (a benchmark failed its check, a
 * self-check was WRONG, --list-events found nothing, a report could not
 * be written), 2 (nothing measured: see the message). */
int pmb__run(const struct pmb_options *o);

#endif
