/* branch_figures.h - a branch study's figures (analyse/analysis_branch.c makes them, report/report_branch.c and the JSON render them): per input who wins and the ratio that says so, the misprediction penalty with the points it is fitted on, the mispredictions per item, the seed, the verdict over the inputs, the events the study reads. */
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

/* The plan's events a study reads (the analysis resolves them, the
 * reports read them): branch misses, cycles, instructions, -1 none;
 * under simulation there is no time and instructions stand for the cost. */
struct pmb_branch_events {
	bool sim;
	int bm, cyc, ins;
};

/* The study's verdict over its ranked inputs (those with a winner named),
 * in their order. */
enum pmb_branch_verdict {
	PMB_BRANCH_VERDICT_NONE,          /* simulated: no winner is named */
	PMB_BRANCH_NO_DIFFERENCE,         /* no input with a winner */
	PMB_BRANCH_LESS_WINS_FROM,        /* ordered: branchless wins at in[from]
	                                     and every ranked input after it */
	PMB_BRANCH_LESS_WINS_ALL,         /* ordered: at every ranked input */
	PMB_BRANCH_LESS_WINS_SOME,        /* at `wins` of `ranked` inputs */
	PMB_BRANCH_LESS_NEVER_WINS,       /* branchy wins somewhere, branchless nowhere */
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
	struct pmb_branch_events ev;
	/* The verdict: its kind; wins, losses (branchy wins) over ranked
	 * inputs; from: the in[] index from which branchless wins at every
	 * ranked input, -1 none; the crossings (ordered inputs): where the
	 * winner changes, between the ranked inputs in[cross[k][0]] and
	 * in[cross[k][1]]. */
	enum pmb_branch_verdict verdict;
	int ranked, wins, losses, from;
	int ncross;
	int cross[PMB_MAX_BRANCH_INPUTS][2];
};

#endif
