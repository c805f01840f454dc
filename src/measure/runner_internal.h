/* runner_internal.h - the runner's state of one running benchmark, shared
 * by runner.c (the loop) and state.c (what a benchmark asks of it). */
#ifndef PMB_RUNNER_INTERNAL_H
#define PMB_RUNNER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "runner.h"

enum phase { PH_CALIB, PH_SAMPLES, PH_DONE };

struct pmb__running {
	const struct pmb_runner_opts *o;
	const struct pmb_meter *m;
	struct pmb_instance *inst;
	struct pmb_result *r;
	enum phase phase;
	bool running;       /* a sample is being measured */
	bool called;        /* the loop was entered */
	int group;          /* counter group of the running sample */
	uint64_t passes;    /* of the running sample */
	uint64_t t0;        /* clock at its start */
	uint64_t first_ns;  /* clock at the first pass: warm-up start */
	uint64_t base;      /* calibrated passes per sample */
	int target;         /* samples to take at most */
	int taken;
	double spent_ns;    /* this benchmark's own samples and probes */
	struct pmb_stop_rule rule; /* when sampling stops (calibrated()) */
	double ov_pass, ov_sample; /* the harness overhead the stop for
	                              precision subtracts (0: none) */
	size_t boot_next_n;  /* the stop's bootstrap is asked again from this
	                        many samples on (running_halfwidth) */
	bool adaptive;      /* the rule decides, not target alone */
	uint64_t rng;       /* splitmix64 state: stretch of the ladder */
	bool overhead;      /* the harness-overhead run: schedule N, 2N */
	uint64_t preset;    /* non-zero: no calibration, base = preset */
	uint64_t best_ns;   /* calibration: fastest long-enough sample at
	                       the current pass count, 0 none yet */
	/* cohort scheduling */
	bool coroutine;
	ucontext_t self, *sched;
	bool finished;
	int slice_samples;  /* samples taken in this turn */
	bool rewarm;        /* the running sample only re-warms caches and
	                       predictors after another benchmark's turn */
	bool probing;       /* the running sample is a fixed-cost probe */
	bool probe_due;     /* a probe comes before the next ladder sample */
	struct pmb_state *state; /* its slot in state_slots */
	void (*prepare)(struct pmb_state *, uint64_t); /* the definition's */
	void *user;         /* pmb_set_user_data */
	uint64_t ended_ns;  /* the time of the sample the last call of
	                       pmb__loop_next ended, 0 where it ended none */
	int meter_err;      /* the meter's stop() failed (a sample with no
	                       counts): the run ends, the error is the run's */
};

/* A run's status (PMB_ESKIPPED, PMB_EVERIFY) and its reason (state.c). */
void pmb__result_set_reason(struct pmb_result *r, int status, const char *reason);

#endif
