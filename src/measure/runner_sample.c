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

/* User-mode addresses sampled outside the listing, kept to be placed
 * once the run is over (a function reached through a pointer, the PLT, a
 * plugin): an open-addressed table. */
#define OTHER_IPS 4096
/* An address with this share of the samples brings its function into
 * the listing (each sample of a small run is 1 %: an emulated PMU's few
 * user-mode samples all count). */
#define FOUND_MIN 0.002

struct other_ip {
	uintptr_t ip;
	uint64_t n;
};

struct sampling {
	const struct pmb_meter *inner;
	struct pmb_sampler *s;
	struct pmb_disasm *d;
	uint64_t *hits; /* per instruction of d */
	struct other_ip other[OTHER_IPS];
	uint64_t other_lost; /* user-mode samples the table had no room for */
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

static void other(struct sampling *sp, uintptr_t ip)
{
	size_t h = (size_t)(ip * 0x9e3779b97f4a7c15ull >> 52) % OTHER_IPS;

	for (size_t k = 0; k < OTHER_IPS; k++, h = (h + 1) % OTHER_IPS)
		if (sp->other[h].ip == ip || !sp->other[h].n) {
			sp->other[h].ip = ip;
			sp->other[h].n++;
			return;
		}
	sp->other_lost++;
}

static void hit(void *arg, uint64_t ip)
{
	struct sampling *sp = arg;
	struct pmb_disasm_insn *in = pmb__disasm_find_ip(sp->d, (uintptr_t)ip);

	sp->all++;
	/* A user-mode event whose overflow interrupt came only once the
	 * thread was in the kernel (the emulated PMU raises it when the
	 * kernel next touches the PMU: at the system call ending the window)
	 * carries a kernel address: the sign bit on x86-64 and arm64. */
	sp->kernel += (int64_t)ip < 0;
	sp->program += ip >= sp->d->code_lo && ip < sp->d->code_hi;
	if (in)
		sp->hits[in - sp->d->insn]++;
	else if ((int64_t)ip >= 0)
		other(sp, ip);
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

static int by_count(const void *x, const void *y)
{
	const struct other_ip *a = x, *b = y;

	return (a->n < b->n) - (a->n > b->n);
}

/* Name an unplaced address's function (opening its file: a bounded
 * number of times). */
static void name_other(struct pmb_disasm *d, uintptr_t ip, double share)
{
	char file[256], name[128];
	uint64_t addr, bias;

	if (!pmb__disasm_locate(ip, file, sizeof(file), &addr, &bias)) {
		pmb__disasm_unplaced(d, "(no loaded file)", "", "no loaded file holds it", share);
		return;
	}
	if (pmb__disasm_name_at(file, addr, name, sizeof(name)))
		pmb__disasm_unplaced(d, name, file, d->nparts < PMB_DA_MAX_PARTS ? "few samples" : "too many parts",
				     share);
	else
		pmb__disasm_unplaced(d, "(no symbol)", file, "no symbol holds it", share);
}

/* The samples outside the listing: the function holding each address
 * with FOUND_MIN of the samples or more added as a part found by its
 * samples (once per function: the part then holds its other addresses),
 * their hits placed; the rest, and the kernel's, named as not placed
 * (the NAMED most sampled addresses by their function, the others
 * summed). */
#define NAMED 64
static int place_others(struct sampling *sp)
{
	struct pmb_disasm *d = sp->d;
	size_t n0 = d->n, named = 0;
	char file[256];
	uint64_t addr, bias;
	void *m;

	d->nunplaced = 0;
	d->unplaced_rest = 0;
	qsort(sp->other, OTHER_IPS, sizeof(sp->other[0]), by_count);
	for (size_t k = 0; k < OTHER_IPS && sp->other[k].n >= FOUND_MIN * (double)sp->all; k++)
		if (!pmb__disasm_find_ip(d, sp->other[k].ip) &&
		    pmb__disasm_locate(sp->other[k].ip, file, sizeof(file), &addr, &bias))
			(void)pmb__disasm_add_found(d, file, addr, bias);
	m = realloc(sp->hits, (d->n + 1) * sizeof(*sp->hits));
	if (!m)
		return -ENOMEM;
	sp->hits = m;
	memset(sp->hits + n0, 0, (d->n + 1 - n0) * sizeof(*sp->hits));
	for (size_t k = 0; k < OTHER_IPS && sp->other[k].n; k++) {
		struct pmb_disasm_insn *in = pmb__disasm_find_ip(d, sp->other[k].ip);
		double share = (double)sp->other[k].n / (double)sp->all;

		if (in)
			sp->hits[in - d->insn] += sp->other[k].n;
		else if (named++ < NAMED)
			name_other(d, sp->other[k].ip, share);
		else
			d->unplaced_rest += share;
	}
	if (sp->other_lost)
		d->unplaced_rest += (double)sp->other_lost / (double)sp->all;
	if (sp->kernel)
		pmb__disasm_unplaced(d, "the kernel", "", "delivered in the kernel",
				     (double)sp->kernel / (double)sp->all);
	return 0;
}

static int shares(struct sampling *sp, const char *event)
{
	struct pmb_disasm *d = sp->d;
	int rc = sp->all ? place_others(sp) : 0;

	if (rc)
		return rc;
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
	d->accounted_all = (double)sp->all;
	d->accounted_share = sp->all ? (double)d->samples_in / (double)sp->all : NAN;
	snprintf(d->sample_event, sizeof(d->sample_event), "%s", event);
	d->sampled = true;
	d->rank_col = -1;
	snprintf(d->rank_by, sizeof(d->rank_by), "share of %s samples", event);
	pmb__disasm_counted(d);
	return 0;
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
	struct sampling *sp = calloc(1, sizeof(*sp)); /* 64 KiB of addresses: not on the stack */
	struct pmb_meter mm = *m;
	struct pmb_result res;
	int rc = -ENOMEM;

	if (!sp)
		return rc;
	sp->inner = m;
	sp->d = d;
	sp->ev = ev;
	sp->hits = calloc(d->n + 1, sizeof(*sp->hits));
	if (!sp->hits)
		goto fail_hits;
	rc = pmb__sampler_open(&sp->s, attr, PERIOD);
	if (rc)
		goto fail_open;
	mm.ctx = sp;
	mm.start = sampling_start;
	mm.stop = sampling_stop;
	rc = run_alone(o, &mm, inst, 0, &res);
	if (!rc)
		rc = sp->err;
	if (!rc)
		rc = shares(sp, event);
	pmb__result_free_samples(&res);
	pmb__sampler_close(sp->s);
fail_open:
	free(sp->hits);
fail_hits:
	free(sp);
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
