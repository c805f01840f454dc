/* ab_internal.h - what ab.c, ab_exec.c and ab_verdict.c share: the sides, their turns, the paired series and verdicts. */
#ifndef PMB_AB_INTERNAL_H
#define PMB_AB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "io.h"

/* One side of the comparison, and how it is started. */
struct pmb__ab_side {
	const char *label;   /* "OLD", "NEW" */
	const char *path;    /* as given */
	char prog[4096];     /* what is executed: path, or this pmubench */
	bool load;           /* a plugin: prog --load=path */
	char err[4096];      /* its stderr, the last turn's (a file) */
};

/* Make side s of path (label "OLD" or "NEW").  Returns 0, or -errno with
 * the error said in err (this pmubench not found for a plugin). */
int pmb__ab_side_init(struct pmb__ab_side *s, const char *label, const char *path,
		      const char *dir, char *err, size_t errlen);

/* Run side s with args[0..nargs): stdout to out (NULL: /dev/null),
 * stderr to s->err.  Returns 0 when it exited 0, or -1 with one line in
 * err naming the side, how it ended and the first error line it wrote. */
int pmb__ab_run(struct pmb__ab_side *s, const char *const *args, size_t nargs,
		const char *out, char *err, size_t errlen);

/* The benchmark names side s lists (--list, with filter when not NULL),
 * one a line in the file list_path.  Returns 0 and *names (*n of them,
 * free with pmb__ab_names_free), or -1 with the error in err. */
int pmb__ab_list(struct pmb__ab_side *s, const char *filter, const char *list_path,
		 char ***names, size_t *n, char *err, size_t errlen);
void pmb__ab_names_free(char **names, size_t n);

/* A POSIX ERE matching exactly the names[0..n) ("^(a|b)$", specials
 * escaped).  Returns it (free it) or NULL: out of memory. */
char *pmb__ab_exact_filter(char *const *names, size_t n);

/* One figure of one benchmark over the rounds: the value each side's turn
 * gave (its median), round by round. */
struct pmb__ab_series {
	const char *bench;
	char key[96];        /* "ns_per_item", "<event>_per_item" */
	double *old, *new;
	size_t n, cap;
	bool resolved;       /* some turn resolved it (not below resolution) */
};

/* What the rounds say of one series. */
struct pmb__ab_verdict {
	/* NOISE: the interval holds no change (exact: none at all); BELOW:
	 * a real change under the threshold (compare.h: the same words). */
	enum { PMB_AB_NOISE, PMB_AB_IMPROVED, PMB_AB_REGRESSED, PMB_AB_NONE, PMB_AB_BELOW,
	       PMB_AB_NVERDICTS } v;
	bool ratio;          /* ratio new/old (false: a difference new - old) */
	double old, new;     /* medians over the rounds */
	double est, lo, hi;  /* median ratio (or difference) and its 95 % CI */
	double p;            /* signed-rank p of log ratios (or differences) */
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
