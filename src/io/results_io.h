/* results_io.h - reading result files (pmubench's JSON, or Google Benchmark's) into plain structs. */
#ifndef PMB_RESULTS_IO_H
#define PMB_RESULTS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Largest file read.  Reading takes memory in proportion to the file (about
 * 10 bytes for each byte, most of it jansson's tree while it is converted),
 * so the cap bounds what a wrong argument can cost; pmubench's own files
 * are a few MB. */
#define PMB_RESULTS_MAX_BYTES ((uint64_t)1 << 30)

/* One array of "raw_samples", by its key: "passes", "ns", "group" or an
 * event.  v[i] is NAN where the file has no number (null: the event was not
 * read in that sample). */
struct pmb_results_series {
	const char *name;
	const double *v;
	size_t n;
};

/* The overhead of one event: an entry of a probe's "events". */
struct pmb_results_event_ov {
	const char *name;
	double per_pass, per_sample;           /* NAN: not given */
};

/* A harness overhead probe (the empty loop) as written.  Every number is
 * NAN where the file does not give it. */
struct pmb_results_overhead {
	double ns_per_pass, ns_per_sample;
	const struct pmb_results_event_ov *ev; /* "events", in file order */
	size_t nev;
};

/* A "<x>_per_item" number of a run. */
struct pmb_results_figure {
	const char *key;          /* "ns_per_item", "branch_misses_per_item" */
	double value;
	bool below_resolution;    /* "<key>_below_resolution" is true */
};

/* One measured run (repetition) of a benchmark. */
struct pmb_results_run {
	const struct pmb_results_figure *fig; /* in file order */
	size_t nfig;
	double real_ns, cpu_ns;   /* Google Benchmark's real_time, cpu_time
	                             in ns (time_unit applied); NAN: absent */
	bool time_measured;       /* false: "time_measured": false (the sim
	                             backend measures no time) */
	double items_per_pass;    /* NAN: absent */
	bool has_item_ns;         /* "ns_per_item_samples" is an array ... */
	const double *item_ns;    /* ... of these numbers (others left out) */
	size_t nitem_ns;
	const struct pmb_results_series *raw; /* "raw_samples", file order */
	size_t nraw;
	/* fig and raw by name, for pmb__results_figure/_series to search in
	 * O(log n): a run of 75 k keys took minutes with a linear search. */
	const struct pmb_results_figure *const *fig_by_key;
	const struct pmb_results_series *const *raw_by_name;
	const struct pmb_results_overhead *overhead; /* its own; NULL: none */
};

/* The runs of one benchmark name, aggregates of Google Benchmark's
 * --benchmark_repetitions left out (they are not runs). */
struct pmb_results_bench {
	const char *name;
	const struct pmb_results_run *run; /* measured runs, in file order */
	size_t nrun;              /* 0: every run was skipped or failed */
};

/* What a file's context says of the machine it ran on, for telling two
 * runs' environments apart.  NULL, NAN or -1: absent. */
struct pmb_results_env {
	const char *cpu;          /* context.pmu.description (the CPU's model as
	                             libpfm4 names it), else .name */
	const char *pmu;          /* context.pmu.name */
	int pmu_works;            /* context.pmu.hardware_counters_work: 1, 0 */
	const char *turbo;        /* "on", "off" */
	double mhz;               /* context.mhz_per_cpu (0 taken as absent) */
	double load;              /* context.load_avg[0] */
	double ncpus;             /* context.num_cpus */
};

/* One result file.  Everything hangs off it and lives until
 * pmb__results_free(). */
struct pmb_results {
	const char *host_name, *backend, *governor; /* context; NULL: absent */
	struct pmb_results_env env;                 /* context's */
	struct pmb_results_overhead overhead;       /* context's */
	const struct pmb_results_bench *bench;      /* by first appearance */
	size_t nbench;
	struct pmb_results_mem *mem;                /* private */
};

/* Read the result file at path.  It must be a regular file of at most
 * PMB_RESULTS_MAX_BYTES; it is read once, in time and memory linear in its
 * size.  Returns 0 and *out (free with pmb__results_free), or an error with
 * one line for a human in err:
 *   -errno          cannot open or read it (err: strerror);
 *   -EISDIR, -EINVAL a directory, a FIFO, a device: not a regular file;
 *   -EFBIG          larger than PMB_RESULTS_MAX_BYTES;
 *   PMB_EBADJSON    malformed JSON ("line L, column C: what"; a number
 *                   that is not finite, NaN, Infinity or 1e400, with the
 *                   key it is the value of), a duplicate
 *                   key, no "benchmarks" array, a benchmark without a name,
 *                   or a time that is not finite in ns (the field named);
 *   -ENOMEM. */
int pmb__results_read(const char *path, struct pmb_results **out, char *err,
		     size_t errlen);

/* The benchmark called name, or NULL.  O(1): a hash table. */
const struct pmb_results_bench *pmb__results_find(const struct pmb_results *r,
						  const char *name);

/* The figure `key` of a run, or NULL.  O(figures of the run). */
const struct pmb_results_figure *
pmb__results_figure(const struct pmb_results_run *run, const char *key);

/* The raw series `name` of a run, or NULL. */
const struct pmb_results_series *
pmb__results_series(const struct pmb_results_run *run, const char *name);

/* The ways the environments of a and b differ, one line each ("governor:
 * \"performance\" vs \"powersave\""), into line[0..max) of 160 bytes:
 * host, CPU, PMU, cores, backend, governor, turbo, a frequency more than
 * 5 % apart (the estimate of one run moves by 2-3 % on a busy machine), a
 * load average more than 0.5 apart.  Returns how many lines
 * (at most max). */
size_t pmb__results_env_diff(const struct pmb_results *a,
			     const struct pmb_results *b, char (*line)[160],
			     size_t max);

/* Several result files as one. */
struct pmb_results_merged;

/* Merge the files paths[0..n) into one: every benchmark run, in order,
 * as repetitions (run k of a benchmark gets "repetition_index" k and every
 * run "repetitions" = its count), under the first file's context, which
 * incomplete (NULL: none) marks "incomplete" with it as the
 * "incomplete_reason": what `pmubench ab` keeps of each side's turns for
 * `compare` to read.  Nothing is written: pmb__results_merged_write()
 * writes it to a stream, which the caller opens safely.  Returns 0 and
 * *out (free with pmb__results_merged_free), or an error of
 * pmb__results_read()'s kinds with one line in err. */
int pmb__results_merge(const char *const *paths, size_t n, const char *incomplete,
		       struct pmb_results_merged **out, char *err, size_t errlen);

/* Write merged (a struct pmb_results_merged, as void * for
 * report_out.h's pmb_out_fn) to f as JSON.  Returns 0 or -EIO. */
int pmb__results_merged_write(FILE *f, void *merged);

/* NULL does nothing. */
void pmb__results_merged_free(struct pmb_results_merged *m);

/* Free everything read; NULL does nothing. */
void pmb__results_free(struct pmb_results *r);

#endif
