/* ab_internal.h - what ab.c, ab_exec.c and ab_verdict.c share: the sides, their turns, the paired series and verdicts. */
#ifndef PMB_AB_INTERNAL_H
#define PMB_AB_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyse.h"
#include "report.h"
#include "io.h"

/* What a side printed on one stream in one run, kept in memory (a full
 * TMPDIR loses none of it): its first max bytes, cut said. */
struct pmb__ab_text {
	char *p;             /* NUL-terminated; NULL: nothing yet */
	size_t n, max;
	bool cut;            /* it printed more than max bytes */
};

/* One side of the comparison, and how it is started. */
struct pmb__ab_side {
	const char *label;   /* "OLD", "NEW" */
	const char *path;    /* as given */
	char prog[4096];     /* what is executed: path, or this pmubench */
	bool load;           /* a plugin: prog --load=path */
	struct pmb__ab_text err; /* its stderr, the last run's */
	double slowest_ns;   /* its slowest turn so far, 0: none yet */
};

/* Make side s of path (label "OLD" or "NEW").  Returns 0, or -errno with
 * the error said in err (this pmubench not found for a plugin). */
int pmb__ab_side_init(struct pmb__ab_side *s, const char *label, const char *path,
		      char *err, size_t errlen);
void pmb__ab_side_free(struct pmb__ab_side *s);

/* SIGINT, SIGTERM and SIGHUP until pmb__ab_signals_release(): the first
 * is kept (pmb__ab_stop_signal) and a running side's whole process group
 * (its valgrind too) gets SIGTERM at once, a second one SIGKILL.  Ignored
 * signals stay ignored (nohup).  This process also becomes the reaper of
 * its sides' orphans, so that none outlives it.  Returns 0 or -errno. */
int pmb__ab_signals_catch(void);
void pmb__ab_signals_release(void);
/* The signal that asked ab to stop, 0 none. */
int pmb__ab_stop_signal(void);

/* What pmb__ab_run() returns besides 0 and -1: a signal stopped it. */
#define PMB_AB_STOPPED (-2)

/* How long one run of a side may take: timeout_ns, and why that long
 * ("5 x its slowest turn, 0.40 s; at least 2 s"), said when it is over. */
struct pmb__ab_limit {
	double timeout_ns;
	char why[128];
};

/* Run side s with args[0..nargs), in a process group of its own, stdin
 * from /dev/null, stdout into out (NULL: /dev/null), stderr into s->err;
 * what is its turn (for messages: "its turn", "its --list").  Returns 0
 * when it exited 0; -1 with one line in err naming the side and how it
 * ended (its exit status or signal and its error line, or the time limit
 * it ran past: then it was stopped); PMB_AB_STOPPED where a signal came
 * (the side stopped too).  Whatever way it ends, the side and every
 * process of its group have been reaped. */
int pmb__ab_run(struct pmb__ab_side *s, const char *const *args, size_t nargs,
		const struct pmb__ab_limit *limit, const char *what, struct pmb__ab_text *out,
		char *err, size_t errlen);

/* The benchmark names side s lists (--list), those filter matches (NULL:
 * all) kept.  Returns 0 and *names (*n of them, free with
 * pmb__ab_names_free), or -1 or PMB_AB_STOPPED with the error in err. */
int pmb__ab_list(struct pmb__ab_side *s, const char *filter, const struct pmb__ab_limit *limit,
		 char ***names, size_t *n, char *err, size_t errlen);
void pmb__ab_names_free(char **names, size_t n);

/* Notes of benchmarks listed by one side only: line[0..max) of 160 bytes,
 * n used; more: those past max. */
struct pmb__ab_notes {
	char (*line)[160];
	size_t max, n, more;
};

/* The names both old[0..nold) and new[0..nnew) hold, in OLD's order, into
 * *common (*ncommon; free with pmb__ab_names_free); those in one only go
 * to notes.  n log n: each list sorted once (a copy of its pointers), each
 * name looked up in the other's.  Returns 0 or -ENOMEM. */
int pmb__ab_common(char *const *old, size_t nold, char *const *new, size_t nnew,
		   char ***common, size_t *ncommon, struct pmb__ab_notes *notes);

/* The line of text that says why a side failed (one line, at most size
 * bytes): its first line saying "error" that is no warning, else its last
 * line that is no warning; a warning is never given as the reason (a
 * crash after one is not explained by it): "only warnings on stderr (N)"
 * or "nothing on stderr". */
void pmb__ab_reason(const char *text, char *buf, size_t size);

/* --out=prefix's two files, PREFIX-old.json and PREFIX-new.json, into
 * out, checked as --out is before anything runs (pmb__out_check): a
 * folder, a socket, a file that cannot be written or whose owner a new
 * file could not keep, or one of the sides old and new is refused.
 * Returns 0 or 2 (said on stderr). */
int pmb__ab_out_check(const char *prefix, const char *old, const char *new, char out[2][PATH_MAX]);

/* The turns' files turns[0..n) of one side merged into one file at out
 * (pmb__results_merge; incomplete: NULL, or why the rounds stopped short)
 * and written through the safe writer (pmb__out_file).  Returns 0, -1
 * with the error in err, or 1: the writer said why on stderr. */
int pmb__ab_out_write(const char *out, const char *const *turns, size_t n, const char *incomplete,
		      char *err, size_t errlen);

/* dir and everything in it, symlinks removed and not followed: the turns'
 * files and what the sides left there as their TMPDIR (a sim side's
 * valgrind files, where it was stopped before it removed them). */
void pmb__ab_dir_remove(const char *dir);

/* One figure of one benchmark over the rounds: the value each side's turn
 * gave (its median), round by round. */
struct pmb__ab_series {
	const char *bench;
	char key[96];        /* "ns_per_item", "<event>_per_item" */
	double *old, *new;
	size_t n, cap;
	bool resolved;       /* some turn resolved it (not below resolution) */
	bool old_resolved;   /* some OLD turn did: else no ratio to OLD's zero */
};

/* What the rounds say of one series: the change (analysis_verdict.h:
 * the median of the rounds' ratios, its interval, the signed-rank test)
 * and the verdict compare gives the same figures. */
struct pmb__ab_verdict {
	enum pmb_verdict v;
	struct pmb_change c;
	char word[80];       /* the verdict's words (pmb__verdict) */
	double old, new;     /* medians over the rounds */
	double halfwidth;    /* of the ratio's CI, relative: the stopping rule's */
	const char *why;     /* why no interval ("below resolution", ...) */
	bool below_both;     /* below resolution on both sides: no row in the
	                        table, named on one line under it */
};

/* Append the round's values; -ENOMEM. */
int pmb__ab_series_push(struct pmb__ab_series *s, double old, double new);

/* The verdict of s at threshold thr (a fraction); exact: the counts are
 * simulated (no statistics, the ratio of the last round).  seed: the
 * bootstrap's. */
void pmb__ab_judge(const struct pmb__ab_series *s, double thr, bool exact,
		   uint64_t seed, struct pmb__ab_verdict *v);

/* The table of series[0..n) with verdicts v, compare's columns; the
 * series below resolution on both sides are left to pmb__ab_below(). */
int pmb__ab_table(const struct pmb__ab_series *s, const struct pmb__ab_verdict *v,
		  size_t n, bool exact, struct pmb__table *t);
/* One line under the table naming the figures below resolution on both
 * sides (zero within what either resolves: no change to see), each with
 * its benchmarks, or their number past three; nothing where there are
 * none. */
void pmb__ab_below(FILE *f, const struct pmb__ab_series *s, const struct pmb__ab_verdict *v, size_t n);

#endif
