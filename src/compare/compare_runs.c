/* compare_runs.c - compare's noise between runs: the interval from repetitions, the allowance for drift where a file has one run, and the notes saying which. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"
#include "compare.h"
#include "report.h"
#include "io.h"
#include "base.h"

/* Wall time this far over the task clock is a busy machine's, not noise. */
#define OFF_CPU 0.02

double pmb__compare_run_value(const struct pmb_results_run *run, const char *key)
{
	const struct pmb_results_figure *f;

	if (!strcmp(key, "real_time"))
		return run->real_ns;
	if (!strcmp(key, "cpu_time"))
		return run->cpu_ns;
	f = pmb__results_figure(run, key);
	return f ? f->value : NAN;
}

/* The value of `key` in each run of b that has one, into v (b->nrun of
 * room); how many. */
static size_t run_values(const struct pmb_results_bench *b, const char *key, double *v)
{
	size_t k = 0;

	for (size_t i = 0; i < b->nrun; i++) {
		v[k] = pmb__compare_run_value(&b->run[i], key);
		k += isfinite(v[k]);
	}
	return k;
}

int pmb__compare_point(const struct pmb_results_bench *b, const char *key, double *out)
{
	double *v = malloc((b->nrun + 1) * sizeof(*v));
	size_t n;

	if (!v)
		return -ENOMEM;
	n = run_values(b, key, v);
	*out = n ? pmb__median(v, n) : NAN;
	free(v);
	return 0;
}

int pmb__compare_between(const struct pmb_results_bench *bo,
			 const struct pmb_results_bench *bn, const char *key,
			 bool old_resolved, uint64_t seed, struct pmb_change *c)
{
	double *o = malloc((bo->nrun + bn->nrun + 1) * sizeof(*o)), *n = o + bo->nrun;
	size_t no, nn;
	int ret = -1;

	if (o && (no = run_values(bo, key, o)) >= 2 && (nn = run_values(bn, key, n)) >= 2)
		ret = pmb__change_independent(o, no, n, nn, old_resolved, seed, c) ? -1 : 0;
	free(o);
	return ret;
}

/* How far b's wall time per item exceeds its task clock (CPU time) per
 * item, the worst of its runs, as a fraction (0: none, or no task clock). */
static double off_cpu(const struct pmb_results_bench *b)
{
	double worst = 0;

	for (size_t i = 0; i < b->nrun; i++) {
		double ns = pmb__compare_run_value(&b->run[i], "ns_per_item");
		double cpu = pmb__compare_run_value(&b->run[i], "task_clock_per_item");

		if (ns > 0 && cpu > 0 && ns / cpu - 1 > worst)
			worst = ns / cpu - 1;
	}
	return worst;
}

double pmb__compare_off_cpu(const struct pmb_results_bench *bo,
			     const struct pmb_results_bench *bn, const char *key)
{
	double w = off_cpu(bo) + off_cpu(bn);

	return !strcmp(key, "ns_per_item") && w > OFF_CPU ? w : 0;
}

bool pmb__compare_simulated(const struct pmb_results *o, const struct pmb_results *n)
{
	return o->backend && n->backend && !strcmp(o->backend, "sim") && !strcmp(n->backend, "sim");
}

double pmb__compare_notes(const struct pmb_results *o, const struct pmb_results *n,
			  double drift)
{
	char line[16][160];
	size_t k = pmb__results_env_diff(o, n, line, 16), reps = 0, single = 0, off = 0;
	double worst = 0;

	for (size_t i = 0; i < k; i++) {
		char shown[4 * sizeof(line[0]) + 1]; /* a host name may hold escapes */

		printf("note: the runs differ in %s\n", pmb__out_visible(shown, sizeof(shown), line[i]));
	}
	for (size_t i = 0; i < o->nbench; i++) {
		const struct pmb_results_bench *bo = &o->bench[i];
		const struct pmb_results_bench *bn = pmb__results_find(n, bo->name);

		if (!bn || !bo->nrun || !bn->nrun)
			continue;
		if (bo->nrun >= 2 && bn->nrun >= 2) {
			reps++;
			continue;
		}
		single++;
		double w = off_cpu(bo) + off_cpu(bn);

		off += w > OFF_CPU;
		worst = fmax(worst, w);
	}
	if (pmb__compare_simulated(o, n))
		drift = 0; /* simulated counts are the same run after run */
	if (reps)
		printf("note: %zu benchmark%s with repetitions in both files: intervals from "
		       "the spread\n      between runs\n", reps, reps == 1 ? "" : "s");
	if (single && drift > 0)
		printf("note: %zu benchmark%s with one run in a file: drift between runs cannot "
		       "be told\n      from a change, so intervals are widened by %g %% (--drift); "
		       "run both with\n      --repetitions=5, or measure with pmubench ab\n",
		       single, single == 1 ? "" : "s", drift * 100);
	if (off)
		printf("note: %zu benchmark%s waited for the CPU inside samples (wall time over the "
		       "task clock\n      by up to %.0f %%, both runs together: the machine is busy): "
		       "time intervals\n      widened by as much\n", off, off == 1 ? "" : "s",
		       worst * 100);
	return drift;
}

void pmb__compare_counts(const size_t count[PMB_VERDICT_COUNT], bool exact, size_t below_both)
{
	printf("%zu regressed, %zu improved, %zu %s", count[PMB_VERDICT_REGRESSED],
	       count[PMB_VERDICT_IMPROVED], count[PMB_VERDICT_NOISE], exact ? "unchanged" : "within noise");
	if (count[PMB_VERDICT_BELOW])
		printf(", %zu below the threshold", count[PMB_VERDICT_BELOW]);
	if (count[PMB_VERDICT_INCONCLUSIVE])
		printf(", %zu inconclusive", count[PMB_VERDICT_INCONCLUSIVE]);
	if (count[PMB_VERDICT_ACROSS])
		printf(", %zu not told from the threshold", count[PMB_VERDICT_ACROSS]);
	if (count[PMB_VERDICT_NONE])
		printf(", %zu without a verdict", count[PMB_VERDICT_NONE]);
	if (below_both)
		printf(", %zu below resolution on both sides", below_both);
	printf("\n");
}
