/* clock.h - monotonic clock, its resolution and cost, core-frequency estimate. */
#ifndef PMB_CLOCK_H
#define PMB_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "add_chain.h"

/* Nanoseconds on CLOCK_MONOTONIC (vDSO: no system call). */
static inline uint64_t pmb_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds of CPU time this thread has used (vDSO on Linux). */
static inline uint64_t pmb_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct pmb_clock_probe {
	double resolution_ns; /* smallest non-zero step seen between reads */
	double read_cost_ns;  /* median cost of one pmb_clock_ns() */
	const char *source;   /* "CLOCK_MONOTONIC" */
};

/* Measure resolution and read cost.  Returns 0. */
int pmb__clock_probe(struct pmb_clock_probe *p);

/* Core frequency in GHz, measured: a chain of dependent adds (one cycle
 * each on every x86-64 and Arm core of the last decade) timed against the
 * clock, best of several trials.  Returns 0 and stores GHz, or -ENOTSUP on an
 * architecture without the chain. */
int pmb__clock_estimate_ghz(double *ghz);

/* 64 dependent adds (add_chain.h) and, on x86-64, 64 dependent imuls, as
 * one asm string each, operands %0 (the chain, "+r") and %1 (the factor,
 * "r"): three cycles per imul on x86-64.  Shared by the frequency estimate
 * and the self-check. */
#if defined(__x86_64__)
#define PMB__IMUL8 "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t" \
		   "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
#define PMB__IMUL64 PMB__IMUL8 PMB__IMUL8 PMB__IMUL8 PMB__IMUL8 \
		    PMB__IMUL8 PMB__IMUL8 PMB__IMUL8 PMB__IMUL8
#endif

/* Run `n` dependent adds (n rounded down to a multiple of 64); the shared
 * chain used by the frequency estimate and calib/add_chain. */
uint64_t pmb__clock_add_chain(uint64_t n, uint64_t x);

#endif
