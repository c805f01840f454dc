/* api.c - runs inside a program: pmb_run() and the results it returns (the command line's report reads them too). */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "model.h"
#include "run.h"
#include "meter.h"

/* What pmb_run() refuses: options whose whole point is to print.  Returns
 * the option's name, or NULL. */
static const char *printing_option(const struct pmb_options *o)
{
	if (o->help || o->version)
		return o->help ? "--help" : "--version";
	if (o->list || o->list_events)
		return o->list ? "--list" : "--list-events";
	if (o->topology || o->self_check)
		return o->topology ? "--topology" : "--self-check";
	if (o->out || o->plot)
		return o->out ? "--out" : "--plot";
	if (o->disasm)
		return "--disasm";
	return o->format != PMB_FORMAT_CONSOLE ? "--format" : NULL;
}

/* The options of argv, checked for pmb_run.  Returns 0 or -EINVAL with
 * the error in run. */
static int run_options(int argc, char **argv, struct pmb_options *o, struct pmb_run *run)
{
	const char *bad;
	int rc = pmb__run_options(argc, argv, o, run->error, sizeof(run->error));

	if (rc == 2)
		return -EINVAL;
	bad = printing_option(o);
	if (bad)
		snprintf(run->error, sizeof(run->error), "%s: pmb_run() prints nothing; expected options of a "
			 "benchmark run (read its results with pmb_run_values)", bad);
	else if (o->backend == PMB_WANT_SIM && !pmb__sim_active())
		snprintf(run->error, sizeof(run->error), "--backend=sim: pmb_run() cannot run the program again "
			 "under valgrind; for simulated counts run the benchmarks with pmubench --backend=sim");
	else
		return 0;
	return -EINVAL;
}

static int run_in_c_locale(int argc, char **argv, struct pmb_run *run);

/* In the "C" locale for this thread, as pmb_main: options such as
 * --min-sample-time=0.5ms read the same whatever the caller's setlocale. */
PMB_API int pmb_run(int argc, char **argv, struct pmb_run **out)
{
	struct pmb_run *run = calloc(1, sizeof(*run));
	locale_t c, old;
	int rc;

	*out = run;
	if (!run)
		return -ENOMEM;
	c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	old = c ? uselocale(c) : (locale_t)0;
	rc = run_in_c_locale(argc, argv, run);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return rc;
}

static int run_in_c_locale(int argc, char **argv, struct pmb_run *run)
{
	struct pmb_options o;
	int rc;

	rc = run_options(argc, argv, &o, run);
	if (rc)
		return rc;
	o.quiet = true;
	pmb__out_capture(run->error, sizeof(run->error));
	rc = pmb__run_path(&o, run);
	pmb__out_capture(NULL, 0);
	if (rc && !run->ctx)
		return -EINVAL;
	for (size_t i = 0; i < run->n; i++)
		if (run->res[i].status == PMB_EVERIFY)
			return PMB_EVERIFY;
	return 0;
}

PMB_API void pmb_run_free(struct pmb_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; run->res && i < run->n; i++)
		pmb__result_free_samples(&run->res[i]);
	free(run->res);
	free(run->inst);
	pmb__context_free(run->ctx);
	free(run->ctx);
	free(run->values);
	free(run->first);
	free(run->nvalues);
	free(run);
}

PMB_API const char *pmb_run_error(const struct pmb_run *run)
{
	return run ? run->error : "out of memory";
}

PMB_API size_t pmb_run_count(const struct pmb_run *run)
{
	return run && run->ctx ? run->n : 0;
}

PMB_API const char *pmb_run_name(const struct pmb_run *run, size_t i)
{
	return i < pmb_run_count(run) ? run->res[i].inst->name : NULL;
}

PMB_API int pmb_run_status(const struct pmb_run *run, size_t i, const char **reason)
{
	if (i >= pmb_run_count(run))
		return -ERANGE;
	if (reason)
		*reason = run->res[i].reason;
	return run->res[i].status;
}

PMB_API size_t pmb_run_values(const struct pmb_run *run, size_t i, const struct pmb_value **values)
{
	*values = NULL;
	if (i >= pmb_run_count(run) || !run->nvalues[i])
		return 0;
	*values = run->values + run->first[i];
	return run->nvalues[i];
}

PMB_API const char *pmb_run_warning(const struct pmb_run *run, size_t i)
{
	return run && run->ctx && i < (size_t)run->ctx->nwarnings ? run->ctx->warnings[i] : NULL;
}

/* ---- the figures, as the public struct -------------------------------- */

static const char *event_unit(const struct pmb_event *e)
{
	return e->means == PMB_MEANS_CYCLES ? "cycles" : e->means == PMB_MEANS_INSTRUCTIONS ? "instructions" :
	       "events";
}

/* v from figure f, when it was measured; returns 1 when it was, else 0. */
static int value_of(const struct pmb_context *c, const struct pmb_figure *f, const char *name,
		    const char *unit, struct pmb_value *v)
{
	if (!f->valid)
		return 0;
	*v = (struct pmb_value){
		.name = name, .unit = unit, .median = f->s.median, .lo = f->s.ci_lo, .hi = f->s.ci_hi,
		.flags = (f->estimated ? PMB_VALUE_ESTIMATED : 0u) |
			 (f->simulated || pmb_context_sim(c) ? PMB_VALUE_SIMULATED : 0u) |
			 (f->multiplexed > 0 ? PMB_VALUE_MULTIPLEXED : 0u) |
			 (f->below_resolution ? PMB_VALUE_BELOW_RESOLUTION : 0u),
	};
	if (f->below_resolution)
		v->median = v->hi = f->resolution;
	if (f->below_resolution)
		v->lo = 0;
	return 1;
}

/* Result r's values into v (room for PMB_MAX_EVENTS + 2); their count. */
static size_t result_values(const struct pmb_context *c, const struct pmb_result *r, struct pmb_value *v)
{
	size_t n = 0;

	if (r->status)
		return 0;
	n += (size_t)value_of(c, &r->time, "time", "ns", v + n);
	for (int e = 0; e < c->plan.nev; e++)
		n += (size_t)value_of(c, &r->ev[e], c->plan.ev[e].name, event_unit(&c->plan.ev[e]), v + n);
	if (!c->has_cycles)
		n += (size_t)value_of(c, &r->est_cycles, "est-cycles", "cycles", v + n);
	return n;
}

int pmb__run_values(struct pmb_run *run)
{
	size_t per = PMB_MAX_EVENTS + 2, total = 0;

	run->values = calloc(run->n * per + 1, sizeof(*run->values));
	run->first = calloc(run->n + 1, sizeof(*run->first));
	run->nvalues = calloc(run->n + 1, sizeof(*run->nvalues));
	if (!run->values || !run->first || !run->nvalues)
		return -ENOMEM;
	for (size_t i = 0; i < run->n; i++) {
		run->first[i] = total;
		run->nvalues[i] = result_values(run->ctx, &run->res[i], run->values + total);
		total += run->nvalues[i];
	}
	return 0;
}
