/* per_sample.h - a result's figures per sample (analyse/analysis.c makes them, the JSON writes them beside the raw counts): time per item less the harness overhead, each event's count scaled to its enabled time. */
#ifndef PMB_PER_SAMPLE_H
#define PMB_PER_SAMPLE_H

#include <stddef.h>

#include "count.h"

struct pmb_instance;

/* The figures of each sample of the result of inst at repetition (by its
 * instance: the reports may walk a copy of the results without those a
 * signal left unmeasured).  Arrays are owned; NULL: not made. */
struct pmb_per_sample {
	const struct pmb_instance *inst;
	int repetition;
	size_t n, nprobes;                    /* samples, fixed-cost probes */
	double *ns_per_item;                  /* [n]: ns less the harness
	                                         overhead, per item; NAN where a
	                                         sample has no passes */
	/* [n] and [nprobes]: event e's count scaled to its enabled time
	 * (pmb__count_scale); NAN where the sample did not read it, or its
	 * group never ran; NULL where no sample (probe) read e. */
	double *ev[PMB_MAX_EVENTS];
	double *probe_ev[PMB_MAX_EVENTS];
};

#endif
