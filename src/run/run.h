/* run.h - the path of one run: options, then plan, counters opened, samples measured, figures analysed, report written. */
#ifndef PMB_RUN_H
#define PMB_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "meter.h"
#include "base.h"
#include "report.h"

/* --backend: auto and perf both count with perf_event; sim runs the
 * command again under valgrind. */
enum pmb_want_backend { PMB_WANT_AUTO, PMB_WANT_PERF, PMB_WANT_SIM };

#define PMB_DEFAULT_SAMPLES 30
/* --min-sample-time's default: the shortest sample of the ladder.  What
 * narrows a median's interval is the number of samples, not their length:
 * on a quiet 16-core Xeon VM the samples' spread was 2.2-2.6 % at 250 us as
 * at 1 ms (they vary from sample to sample, not pass to pass), so a budget
 * of 250 us samples holds 3.5 times as many.  Side by side there, the
 * default suite (113 benchmarks, issue 27's topology) reached +-1 % in
 * 75, 76, 43 and 67 runs' benchmarks at 250 us against 56, 40 and 31 at
 * 1 ms (and 60 at 500 us), in 19.5-21.9 s against 21.5-26.9 s; the figures
 * moved by a median 0.988 against the 1 ms run beside it, less than 1 ms
 * moved against itself (0.961).  Still 12,500 times this VM's 20 ns clock
 * resolution. */
#define PMB_DEFAULT_MIN_SAMPLE_NS 250e3

/* --sweep: PMB_TIERS' working sets, two per tier (short) or all of them. */
enum pmb_sweep { PMB_SWEEP_SHORT, PMB_SWEEP_FULL };

/* The options of a run: the command line's table (cli/run_options.c) fills
 * them from argv, pmb_run_with() (api.c) from struct pmb_run_options. */
struct pmb_options {
	const char *filter;      /* --filter: POSIX ERE; NULL all */
	struct pmb_optfiles load; /* --load: shared objects to run */
	int samples;             /* --samples: per benchmark */
	bool samples_given;      /* --samples given: never cut by the budget */
	double precision;        /* --precision: a fraction; 0 none */
	double min_sample_ns;    /* --min-sample-time */
	int cpu;                 /* --cpu; -1 the core it started on */
	int format;              /* --format: enum pmb_format */
	const char *out, *plot;  /* --out, --plot; NULL none */
	const char *save;        /* --save: the results JSON too; NULL none */
	const char *counters;    /* --counters; NULL the default */
	bool list, list_events, topology, self_check, kernel, help, version;
	bool disasm;             /* --disasm: the measured loops' code */
	const char *list_pattern; /* --list-events=PAT; NULL all */
	int backend;             /* --backend: enum pmb_want_backend */
	int read;                /* --read: enum pmb_read_mode */
	int hugepages;           /* --hugepages: 1 on, 0 off */
	int sweep;               /* --sweep: enum pmb_sweep */
	int repetitions;         /* --repetitions */
	uint64_t seed;           /* --seed; 0 each benchmark's own */
	const char *columns;     /* --columns: the console table's; NULL chosen */
	bool wide, verbose;      /* --wide, --verbose: the console report's */
	const char *topology_src; /* hidden, for tests: a made-up topology */
	bool quiet;              /* pmb_run(): no report, no warnings, no
	                            progress (run.c leaves them out), errors
	                            kept (pmb__out_capture) */
};

/* A run measured and analysed: the public API's struct pmb_run, which
 * pmb_run() hands to a program and the command line's report reads. */
struct pmb_run {
	char error[512];            /* "" or why nothing was measured */
	struct pmb_context *ctx;    /* NULL: nothing measured */
	struct pmb_result *res;     /* instance i, repetition r at i*reps + r */
	size_t n;
	struct pmb_instance *inst;  /* what res[].inst points into */
	struct pmb_value *values;   /* result i's at values + first[i] */
	size_t *first, *nvalues;
};

/* The defaults of every option of a run (what the command line and
 * pmb_run_with() start from before their own). */
void pmb__run_defaults(struct pmb_options *o);

/* The path up to the figures, into run (which owns them after), then the
 * report unless o->quiet.  With o->topology it stops once the counters are
 * open, run->ctx the context of what is planned (nothing measured, run->n
 * 0): the command line prints it.  --backend=sim runs only under valgrind
 * (the command line runs itself again under it first: pmb__run_sim_target).
 * Returns the exit status: 0, 1 (a benchmark
 * failed its check, a report could not be written), 2 (nothing measured:
 * said with pmb__out_error), 128 + the signal that stopped it. */
int pmb__run_path(const struct pmb_options *o, struct pmb_run *run);

/* The plan's first stage alone, for --list: the shared objects of --load
 * loaded, the filter and the machine read, the instances expanded into
 * *inst (malloc'ed, *n of them; free() them).  Returns 0, 2 with the error
 * said, or a negative code of the registry (pmb__registry_error()), not
 * said. */
int pmb__run_instances(const struct pmb_options *o, struct pmb_instance **inst, size_t *n);

/* The checks a run makes before it reads any event (--load, --filter,
 * the topology and --cpu), for --list-events.  Returns 0 or 2, said. */
int pmb__run_machine(const struct pmb_options *o);

/* What --backend=sim's re-run under valgrind is for, once the checks a run
 * makes before it measures hold (--load, --filter, the topology and --cpu,
 * the event tables, --out, --plot and --save writable): the planned core's
 * topology into *info (*info_ok false where there is none) and libpfm4's
 * name of its core PMU into pmu ("" none).  Returns 0 or 2, said. */
int pmb__run_sim_target(const struct pmb_options *o, struct pmb_topology_info *info, bool *info_ok, char *pmu,
			size_t size);

/* pmb_run()'s and pmb_run_with()'s core: the path for o, quiet (o->quiet
 * set here), in the "C" locale, its errors kept in run->error.  Returns 0,
 * -EINVAL (nothing measured), -EIO (a file of o->out or o->save not
 * written), or PMB_EVERIFY. */
int pmb__run_quiet(struct pmb_options *o, struct pmb_run *run);

/* The public figures of every result of run (api.c), which the report and
 * pmb_run_values() read.  Returns 0 or -ENOMEM. */
int pmb__run_values(struct pmb_run *run);

#endif
