/* branch_figures.h - a branch study's figures (analyse/analysis_branch.c makes them, report/report_branch.c and the JSON render them): per input who wins and the ratio that says so, the misprediction penalty with the points it is fitted on, the mispredictions per item, the seed. */
#ifndef PMB_BRANCH_FIGURES_H
#define PMB_BRANCH_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmb_instance;

/* Inputs of one study the figures hold (a pair's arguments). */
#define PMB_MAX_BRANCH_INPUTS 64

/* What one input's row compares. */
enum pmb_branch_row {
	PMB_BRANCH_COMPARED,       /* branchy and branchless both measured */
	PMB_BRANCH_SKIPPED,        /* branchy skipped or failed */
	PMB_BRANCH_LESS_SKIPPED,   /* branchless skipped or failed */
	PMB_BRANCH_NO_LESS,        /* no branchless form at that input */
};

/* How the ratio branchless / branchy at one input is given. */
enum pmb_branch_ratio {
	PMB_BRANCH_RATIO_NONE,     /* not resolved, or no winner is named (sim) */
	PMB_BRANCH_RATIO_LINKED,   /* branchless's .reference is branchy: the
	                              linked ratio with its interval */
	PMB_BRANCH_RATIO_MEDIANS,  /* the ratio of the two medians alone */
};

/* One input: the branchy result and its branchless and speed-of-light
 * forms at the same arguments, by their instances (the results' first
 * repetition; the reports may walk a copy of the results, without those a
 * signal left unmeasured, so no index into them is kept). */
struct pmb_branch_input {
	const struct pmb_instance *y, *l, *s; /* l, s: NULL none */
	enum pmb_branch_row row;
	/* The winner (perf backend, a compared row): +1 branchless, -1
	 * branchy, 0 a tie; ranked false where none is named. */
	bool ranked;
	int winner;
	enum pmb_branch_ratio ratio_kind;
	double ratio, ratio_lo, ratio_hi;  /* NAN where not given */
	/* A point of the penalty's fit: branchy's misprediction rate (per
	 * item), ns and cycles per item (cycles NAN where not measured). */
	bool point;
	double rate, ns, cycles;
};

struct pmb_branch_figures {
	char study[200];           /* "branch/sum_if" */
	bool sim;                  /* counts simulated: no time, no winner, no penalty */
	bool ordered;              /* the inputs are ordered (p-inputs, sizes; not a "mix") */
	int ninputs;
	struct pmb_branch_input in[PMB_MAX_BRANCH_INPUTS];
	/* The misprediction penalty: the slope (Theil-Sen) of branchy's cost
	 * per item against its mispredictions per item over the points (the
	 * inputs where in[].point), in ns and in cycles; NAN where not given
	 * (under three points, rates spread by under 0.1, a non-finite point,
	 * simulation). */
	double penalty_ns, penalty_cycles;
	int npoints;
	bool rates_counted;        /* the rates a PMU counted, else the rates the
	                              benchmark declared (pmb_set_mispredict_rate) */
	bool cycles_counted;       /* cycles counted, else estimated from time */
	int unrated;               /* compared inputs with neither a counted nor
	                              a declared rate */
	/* Mispredictions per item, least and most over the compared inputs:
	 * [0] branchy, [1] branchless; lo > hi where none was counted. */
	double misp[2][2];
	bool seeded;               /* every member's input was generated from seed */
	uint64_t seed;
};

#endif
