/* compare.h - `pmubench compare`: two JSON reports, per-figure change with CI and U test. */
#ifndef PMB_COMPARE_H
#define PMB_COMPARE_H

/* `pmubench compare [--threshold=PCT] OLD.json NEW.json` (argv[0] is
 * "compare").  Reads two reports (pmubench's, or plain Google Benchmark
 * JSON), prints a table on stdout: per benchmark in both and per figure
 * (ns_per_item and every <event>_per_item both have) the ratio new/old,
 * its 95 % bootstrap CI, the Mann-Whitney p-value and a verdict
 * ("improved", "regressed", "within noise"); then benchmarks added and
 * removed.  A one-line message on stderr for errors.  This is command-line
 * code (called from main.c): it prints, but it does not exit.
 * Returns the exit status: 0 nothing regressed, 1 something regressed,
 * 2 bad usage or an unreadable or malformed file. */
int pmb__compare_main(int argc, char **argv);

#endif
