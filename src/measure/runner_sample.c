/* runner_sample.c - --disasm with a PMU: one instance run again with one event sampled around its samples, the samples put on its instructions. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meter.h"
#include "disasm.h"
#include "runner.h"

/* A period prime to any loop's length, so that samples do not keep
 * landing on the same instruction of a loop by its trip count. */
#define PERIOD 10007

struct sampling {
	const struct pmb_meter *inner;
	struct pmb_sampler *s;
	struct pmb_disasm *d;
	uint64_t *hits; /* per instruction of d */
	uint64_t all, lost, kernel, program;
	int ev;         /* the sampled event's index in the plan, -1 */
	double counted; /* its count over the windows sampled */
	int err;
};

static int sampling_start(void *ctx, int group)
{
	struct sampling *sp = ctx;
	int rc = sp->inner->start ? sp->inner->start(sp->inner->ctx, group) : 0;

	if (!rc && !sp->err)
		sp->err = pmb__sampler_enable(sp->s, true);
	return rc;
}

static void hit(void *arg, uint64_t ip)
{
	struct sampling *sp = arg;
	struct pmb_disasm_insn *in = pmb__disasm_find(sp->d, ip - sp->d->bias);

	sp->all++;
	/* A user-mode event whose overflow interrupt came only once the
	 * thread was in the kernel (the emulated PMU raises it when the
	 * kernel next touches the PMU: at the system call ending the window)
	 * carries a kernel address: the sign bit on x86-64 and arm64. */
	sp->kernel += (int64_t)ip < 0;
	sp->program += ip >= sp->d->code_lo && ip < sp->d->code_hi;
	if (in)
		sp->hits[in - sp->d->insn]++;
}

static int sampling_stop(void *ctx, int group, struct pmb_sample *smp)
{
	struct sampling *sp = ctx;
	int rc;

	if (!sp->err)
		sp->err = pmb__sampler_enable(sp->s, false);
	rc = sp->inner->stop ? sp->inner->stop(sp->inner->ctx, group, smp) : 0;
	if (!rc && sp->ev >= 0 && (smp->mask & (1u << sp->ev)))
		sp->counted += (double)smp->count[sp->ev].value;
	if (!sp->err)
		pmb__sampler_drain(sp->s, hit, sp, &sp->lost);
	return rc;
}

static void shares(struct sampling *sp, const char *event)
{
	struct pmb_disasm *d = sp->d;

	d->samples_in = 0;
	for (size_t i = 0; i < d->n; i++) {
		d->insn[i].share = sp->all ? (double)sp->hits[i] / (double)sp->all : NAN;
		d->samples_in += sp->hits[i];
	}
	d->samples_all = sp->all;
	d->samples_lost = sp->lost;
	d->samples_kernel = sp->kernel;
	d->samples_program = sp->program;
	d->sampled_count = sp->counted;
	d->sample_period = PERIOD;
	snprintf(d->sample_event, sizeof(d->sample_event), "%s", event);
	d->sampled = true;
	d->rank_col = -1;
	snprintf(d->rank_by, sizeof(d->rank_by), "share of %s samples", event);
	pmb__disasm_counted(d);
}

/* --disasm's second look at a loop: instance inst run alone once more
 * through meter m (one repetition, no cohort, no progress line). */
static int run_alone(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		     const struct pmb_instance *inst, uint64_t overhead_passes, struct pmb_result *res)
{
	struct pmb_runner_opts ro = *o;
	struct pmb_instance one = *inst;

	ro.repetitions = 1;
	ro.progress = NULL;
	ro.overhead_passes = overhead_passes;
	one.cohort = 0;
	return pmb__runner_run(&ro, m, &one, 1, res);
}

int pmb__runner_sample(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		       const struct pmb_instance *inst, int ev, const struct perf_event_attr *attr,
		       const char *event, struct pmb_disasm *d)
{
	struct sampling sp = { .inner = m, .d = d, .ev = ev };
	struct pmb_meter mm = *m;
	struct pmb_result res;
	int rc;

	sp.hits = calloc(d->n + 1, sizeof(*sp.hits));
	if (!sp.hits)
		return -ENOMEM;
	rc = pmb__sampler_open(&sp.s, attr, PERIOD);
	if (rc)
		goto fail_open;
	mm.ctx = &sp;
	mm.start = sampling_start;
	mm.stop = sampling_stop;
	rc = run_alone(o, &mm, inst, 0, &res);
	if (!rc)
		rc = sp.err;
	if (!rc)
		shares(&sp, event);
	pmb__result_free_samples(&res);
	pmb__sampler_close(sp.s);
fail_open:
	free(sp.hits);
	return rc;
}

int pmb__sim_annotate(const struct pmb_runner_opts *o, const struct pmb_meter *m,
		      const struct pmb_instance *inst, struct pmb_disasm *d)
{
	struct pmb_meter mm = *m;
	struct pmb_result res;
	struct pmb__sim_instr *a;
	int rc;

	rc = pmb__sim_instr_begin(&a, &mm, d);
	if (rc)
		return rc;
	rc = run_alone(o, &mm, inst, o->overhead_passes, &res);
	rc = pmb__sim_instr_end(a, &mm, rc, &res, inst->name);
	pmb__result_free_samples(&res);
	return rc;
}
