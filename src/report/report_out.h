/* report_out.h - what the command line writes: error and warning lines, progress (report_progress.c), listings, --topology, report files written atomically. */
#ifndef PMB_REPORT_OUT_H
#define PMB_REPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model.h"

enum pmb_format { PMB_FORMAT_CONSOLE, PMB_FORMAT_JSON, PMB_FORMAT_CSV };

/* "pmubench: PREFIXMSG" on stderr, one line, msg made safe to show (a
 * control character or a byte that is not UTF-8 as \xNN: text.h). */
void pmb__out_line(const char *prefix, const char *msg);

/* src made fit for one line of a terminal, into dst of size bytes: bytes
 * that are control characters (C0, DEL, C1) or not UTF-8 are written as
 * \xNN, the rest as they are; what does not fit is cut at a whole
 * character (pmb__text_safe, text.h).  4 * strlen(src) + 1 bytes always
 * hold it all.  Returns dst. */
char *pmb__out_visible(char *dst, size_t size, const char *src);

/* "pmubench: MESSAGE" on stderr, one line (pmb__out_line).  Returns 2, the exit status of
 * a run that measured nothing. */
int pmb__out_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* From now on until called with NULL, pmb__out_error() keeps its first
 * message in buf[0..size) instead of printing it: with the warnings, the
 * progress and the report left out by its quiet options, pmb_run()
 * prints nothing. */
void pmb__out_capture(char *buf, size_t size);

/* Print text[*printed..n) as "pmubench: warning: ..." lines on stderr and
 * advance *printed: warnings go out as soon as they are known (the no-PMU
 * one before the long run, not after it). */
void pmb__out_warnings(char *const *text, int n, int *printed);
/* The same for a context's warnings, the measured ones then the
 * analysis's (pmb__context_warning), from *printed on. */
void pmb__out_context_warnings(const struct pmb_context *c, int *printed);

/* The runner's progress line on stderr, called as each benchmark (or
 * cohort) starts: "[3/40] name, about 1 min 05 s left": how many are
 * done, of how many, the one measured now and the time left at the pace
 * of those done.  Kept to one line of the terminal; erased when called
 * with done == total, and when SIGINT or SIGTERM stops the run (then the
 * signal goes on). */
void pmb__out_progress(void *unused, const char *name, size_t done, size_t total);
/* Erase the progress line where one stands: a run that stopped early
 * (an error) leaves none before its messages or report. */
void pmb__out_progress_end(void);

/* Where stderr is a terminal, its width ($COLUMNS first, as for the
 * report); 0 elsewhere: a log or a pipe keeps each line whole, for grep.
 * The width warnings are wrapped to and the progress line is cut to. */
int pmb__out_stderr_width(void);

/* The width the console report fits: $COLUMNS where set (a number from
 * 40 to 1000), else the terminal's (TIOCGWINSZ) where the report goes to
 * standard output and that is a terminal, else 100. */
int pmb__out_width(const char *out);

/* The console's view (result.h) of a live run or a run read back: the
 * report's options (--out, --columns, --wide, --verbose: out and columns
 * may be NULL) and the width pmb__out_width(out).  The one place a view
 * is made. */
struct pmb_console_view pmb__console_view(const char *out, const char *columns, bool wide, bool verbose);
/* "pmubench: NAME failed: REASON" on stderr for each of r[0..n) that
 * failed its check (PMB_EVERIFY).  Returns 1 where one did, else 0: the
 * exit status of a live run and of `pmubench report` alike. */
int pmb__out_failed_checks(const struct pmb_result *r, size_t n);
/* A run a signal stopped: "pmubench: interrupted by SIGNAL: K of N
 * benchmarks measured; writing ..., marked incomplete" on stderr. */
void pmb__out_interrupted(const char *signal, size_t measured, size_t n);
/* --self-check's last line when a signal stopped it: "INCOMPLETE: WHY" on
 * stdout, after its verdicts. */
void pmb__out_incomplete(const char *why);
/* Erase a progress line left on stderr (a run stopped by a signal). */
void pmb__out_progress_erase(void);

/* One --list-events entry on stdout (pmb__events_list's callback). */
void pmb__out_event(void *unused, const char *pmu, const char *name, const char *desc);

/* --topology on stdout: caches, NUMA node, PMU and what it cannot count,
 * frequency estimate, clock.  Returns 0. */
int pmb__out_topology(const struct pmb_context *ctx);

/* An input of the run, which a report must not overwrite: what it is
 * ("an events table"), its path (NULL: none).  Lists end at what NULL. */
struct pmb_out_input {
	const char *what, *path;
};

/* Check that `path` (given as option opt, "--out") can be written, before
 * anything is measured: a report nobody can write is a run wasted.
 * Symlinks are followed to the file they name; a character device or a
 * FIFO must be writable (it is written in place); a directory, a block
 * device or a socket is refused; so is a file among inputs (the same
 * inode), and one whose owner a new file could not keep.  Creates and
 * removes a probe file beside a regular file.  Returns 0, or 2 with the
 * error said. */
int pmb__out_check(const char *opt, const char *path, const struct pmb_out_input *inputs);

/* Flush f (and fsync it where sync); on any failure, of this flush or an
 * earlier write, say "pmubench: WHAT: write failed: REASON".  Returns 0 or
 * 1 (said). */
int pmb__out_flush(FILE *f, const char *what, bool sync);

/* Write the report in `format` to out (NULL: standard output) and, with
 * plot, the SVG plot: a regular file (a symlink's target) through a
 * temporary file renamed into place, never half written, with the old
 * file's mode and owner; a character device or a FIFO in place.  A run with nothing to plot says so and writes no
 * plot.  Returns 0 or 1 (a write failed: said on stderr). */
int pmb__out_report(enum pmb_format format, const char *out, const char *plot,
		   const struct pmb_context *ctx, const struct pmb_result *r, size_t n);

/* What a file's content is written by: fn(f, arg) returns 0, a negative
 * errno (the write fails, said as "OPT=PATH: reason"), or -ENODATA:
 * nothing to write, no file made. */
typedef int (*pmb_out_fn)(FILE *f, void *arg);

/* Write fn's content to path (given as option opt, "ab --out"; NULL:
 * standard output) as pmb__out_report writes a report: a regular file (a
 * symlink's target) through a temporary file made with mkstemp beside it
 * and renamed into place, never half written, with the old file's mode and
 * owner; a character device or a FIFO in place; a directory, block device
 * or socket refused.  Check it first with pmb__out_check(), before the
 * work whose result it holds.  Returns 0, or 1 (said on stderr). */
int pmb__out_file(const char *opt, const char *path, pmb_out_fn fn, void *arg);

/* Text made beforehand (len bytes) written as pmb__out_report() writes a
 * report: to out (NULL: standard output), a regular file through a
 * temporary file renamed into place; opt names the option in messages.
 * Returns 0 or 1 (said on stderr). */
int pmb__out_text(const char *out, const char *opt, const char *text, size_t len);

#endif
