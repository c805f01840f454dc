/* compare.h - `pmubench compare`: two JSON reports, per-figure change with CI and U test. */
#ifndef PMB_COMPARE_H
#define PMB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ab.h"
#include "analyse.h"
#include "merge.h"

/* `pmubench compare [--threshold=PCT] [--drift=PCT] OLD.json NEW.json`
 * (argv[0] is "compare").  Reads two reports (pmubench's, or plain Google
 * Benchmark JSON), prints notes (how the environments differ, where the
 * noise between runs comes from) and a table on stdout: per benchmark in
 * both and per figure (ns_per_item and every <event>_per_item both have)
 * the ratio new/old, its 95 % bootstrap CI (between runs where both files
 * hold repetitions; else within the run, widened by --drift), the
 * Mann-Whitney p-value and the verdict pmb__verdict() gives (the words
 * ab gives: "improved", "regressed", "within noise", "below the
 * threshold (+x %)", ...); then benchmarks added and removed.  A one-line message on stderr for errors.  This is command-line
 * code (called from main.c): it prints, but it does not exit.
 * Returns the exit status: 0 nothing regressed, 1 something regressed,
 * 2 bad usage or an unreadable or malformed file. */
int pmb__compare_main(int argc, char **argv);

struct pmb_results;
struct pmb_results_run;
struct pmb_results_bench;

/* The number `key` of a run, NAN where it has none: a per-item figure, or
 * Google Benchmark's real_time and cpu_time (in ns). */
double pmb__compare_run_value(const struct pmb_results_run *run, const char *key);

/* The reported value of figure `key` of b: the median over its runs
 * (NAN: none has it).  Returns 0 or -ENOMEM. */
int pmb__compare_point(const struct pmb_results_bench *b, const char *key, double *out);

/* Between-run noise: each run (repetition) of bo and bn is one value of
 * figure `key` (the run's median, as its analysis wrote it), and the
 * change is pmb__change_independent's of those values: the ratio of their
 * medians (the difference, where the old median is not positive or
 * old_resolved is false), its
 * bootstrap interval resampling whole runs, and Mann-Whitney's p.
 * Returns 0, or -1: fewer than two values on a side, no interval, or
 * memory short. */
int pmb__compare_between(const struct pmb_results_bench *bo,
			 const struct pmb_results_bench *bn, const char *key,
			 bool old_resolved, uint64_t seed, struct pmb_change *c);

/* Wall time that a single run's process spent off the CPU (waiting for it
 * on a busy machine) is not the code's, and another run need not wait
 * alike: for key "ns_per_item", how far wall time per item exceeds the task
 * clock (CPU time) per item in bo and in bn, the worst run of each, summed
 * as fractions; 0 for other figures, without a task clock, or under 2 %.
 * A single run's time interval is widened by it, beside the drift. */
double pmb__compare_off_cpu(const struct pmb_results_bench *bo,
			    const struct pmb_results_bench *bn, const char *key);

/* Whether both runs are simulated (--backend=sim): exact counts. */
bool pmb__compare_simulated(const struct pmb_results *o, const struct pmb_results *n);

/* Print compare's notes on the two files o and n: how their environments
 * differ (pmb__results_env_diff), and where the noise between runs comes
 * from: repetitions in both, or the drift allowance for benchmarks with
 * one run.  Returns the drift to apply: drift, or 0 where both files hold
 * simulated counts, which do not drift. */
double pmb__compare_notes(const struct pmb_results *o, const struct pmb_results *n,
			  double drift);

/* The last line of compare and ab on stdout: how many rows got each
 * verdict (count[], by enum pmb_verdict), "unchanged" for "within noise"
 * where the counts are exact; below_both: figures below resolution on both
 * sides left out of the table (ab), counted apart. */
void pmb__compare_counts(const size_t count[PMB_VERDICT_COUNT], bool exact, size_t below_both);

/* A figure's value as compare and ab print it: "-" where it has none,
 * whole above 1e4, else 4 significant digits. */
void pmb__compare_fmt_value(char *buf, size_t n, double v);

#endif
