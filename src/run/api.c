/* api.c - runs inside a program: pmb_run_with() (the options as a struct, checked), the quiet core under it and pmb_run(), and the results they return (the command line's report reads them too). */
#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "model.h"
#include "run.h"
#include "meter.h"

void pmb__run_defaults(struct pmb_options *o)
{
	memset(o, 0, sizeof(*o));
	o->samples = PMB_DEFAULT_SAMPLES;
	o->min_sample_ns = PMB_DEFAULT_MIN_SAMPLE_NS;
	o->precision = 0.01;
	o->cpu = -1;
	o->format = PMB_FORMAT_CONSOLE;
	o->backend = PMB_WANT_AUTO;
	o->read = PMB_READ_AUTO;
	o->hugepages = 1;
	o->sweep = PMB_SWEEP_SHORT;
	o->repetitions = 1;
}

int pmb__run_quiet(struct pmb_options *o, struct pmb_run *run)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	int rc;

	o->quiet = true;
	pmb__out_capture(run->error, sizeof(run->error));
	rc = pmb__run_path(o, run);
	pmb__out_capture(NULL, 0);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	if (rc && !run->ctx)
		return -EINVAL;
	/* Measured, and a file asked for not written: the figures are there,
	 * the error says which file. */
	if (rc)
		return o->out || o->save ? -EIO : -ENOMEM;
	for (size_t i = 0; i < run->n; i++)
		if (run->res[i].m.status == PMB_EVERIFY)
			return PMB_EVERIFY;
	return 0;
}

/* ---- pmb_run_with: the options as a struct ------------------------------ */

/* Whether the bytes of a newer caller's struct past this library's are all
 * 0 (fields it does not know, left at their defaults). */
static bool tail_zero(const struct pmb_run_options *opt, size_t *first)
{
	const unsigned char *b = (const unsigned char *)opt;

	for (size_t i = sizeof(*opt); i < opt->size; i++)
		if (b[i]) {
			*first = i;
			return false;
		}
	return true;
}

#define BAD(...) (snprintf(err, size, __VA_ARGS__), -EINVAL)

/* .size: this library's struct, or a newer one whose extra bytes are 0. */
static int check_size(const struct pmb_run_options *opt, char *err, size_t size)
{
	size_t first = 0;

	if (opt->size < sizeof(*opt))
		return BAD("pmb_run_options.size=%zu: expected sizeof(struct pmb_run_options), %zu here (set "
			   ".size where the struct is made)", opt->size, sizeof(*opt));
	if (!tail_zero(opt, &first))
		return BAD("pmb_run_options.size=%zu: byte %zu is set, past the %zu this library (pmubench %s) "
			   "knows; expected the fields of a newer header left 0, or that newer library",
			   opt->size, first, sizeof(*opt), PMB_VERSION_STRING);
	return 0;
}

/* The numbers, each in its range (0: the default). */
static int check_numbers(const struct pmb_run_options *opt, char *err, size_t size)
{
	if (opt->samples < 0 || opt->samples > 1000000)
		return BAD("pmb_run_options.samples=%d: expected 1 to 1000000, or 0 for the default", opt->samples);
	if (!(opt->precision < 1)) /* NaN too */
		return BAD("pmb_run_options.precision=%g: expected a fraction below 1 (0.01 is 1 %%), 0 for the "
			   "default or a negative value for none", opt->precision);
	if (!(opt->min_sample_time_s >= 0 && opt->min_sample_time_s <= 10))
		return BAD("pmb_run_options.min_sample_time_s=%g: expected seconds from 0 (the default, 250 us) to 10",
			   opt->min_sample_time_s);
	if (opt->repetitions < 0 || opt->repetitions > 1000)
		return BAD("pmb_run_options.repetitions=%d: expected 1 to 1000, or 0 for the default",
			   opt->repetitions);
	if (opt->pin_cpu && opt->cpu < 0)
		return BAD("pmb_run_options.cpu=%d: expected a core number from 0 (with .pin_cpu)", opt->cpu);
	return 0;
}

/* The enums, the files, and what the options cannot do together. */
static int check_choices(const struct pmb_run_options *opt, char *err, size_t size)
{
	int n = 0;

	if ((unsigned)opt->backend > PMB_RUN_BACKEND_SIM)
		return BAD("pmb_run_options.backend=%d: expected PMB_RUN_BACKEND_AUTO, _PERF or _SIM", (int)opt->backend);
	if ((unsigned)opt->read > PMB_RUN_READ_SYSCALL)
		return BAD("pmb_run_options.read=%d: expected PMB_RUN_READ_AUTO, _SELF or _SYSCALL", (int)opt->read);
	if ((unsigned)opt->format > PMB_RUN_FORMAT_CSV)
		return BAD("pmb_run_options.format=%d: expected PMB_RUN_FORMAT_CONSOLE, _JSON or _CSV", (int)opt->format);
	if (opt->format && !opt->out)
		return BAD("pmb_run_options.format=%d: the format of .out, which is NULL; expected .out set too",
			   (int)opt->format);
	if ((opt->columns || opt->wide) && (!opt->out || opt->format != PMB_RUN_FORMAT_CONSOLE))
		return BAD("pmb_run_options.%s: the view of .out's console table, and %s; expected .out set with "
			   "PMB_RUN_FORMAT_CONSOLE", opt->columns ? "columns" : "wide",
			   opt->out ? "the format is another" : ".out is NULL");
	if (opt->out && opt->save && !strcmp(opt->out, opt->save))
		return BAD("pmb_run_options.save=%s: the same file as .out; expected another file name", opt->save);
	for (n = 0; opt->load && opt->load[n]; n++)
		if (n == PMB_OPT_MAX_FILES)
			return BAD("pmb_run_options.load: more than %d shared objects; expected at most %d",
				   PMB_OPT_MAX_FILES, PMB_OPT_MAX_FILES);
	if (opt->backend == PMB_RUN_BACKEND_SIM && !pmb__sim_active())
		return BAD("pmb_run_options.backend=PMB_RUN_BACKEND_SIM: pmb_run_with() cannot run the program "
			   "again under valgrind; run the program under valgrind --tool=callgrind, or run its "
			   "benchmarks with pmubench --backend=sim");
	return 0;
}

/* opt (checked) as the options of a run: the defaults where it has 0. */
static void options_of(const struct pmb_run_options *opt, struct pmb_options *o)
{
	static const int read_mode[] = { PMB_READ_AUTO, PMB_READ_SELF, PMB_READ_SYSCALL };
	static const int backend[] = { PMB_WANT_AUTO, PMB_WANT_PERF, PMB_WANT_SIM };
	static const int format[] = { PMB_FORMAT_CONSOLE, PMB_FORMAT_JSON, PMB_FORMAT_CSV };

	pmb__run_defaults(o);
	o->filter = opt->filter;
	for (int i = 0; opt->load && opt->load[i]; i++)
		o->load.v[o->load.n++] = opt->load[i];
	if (opt->samples) {
		o->samples = opt->samples;
		o->samples_given = true;
	}
	if (opt->precision)
		o->precision = opt->precision > 0 ? opt->precision : 0;
	if (opt->min_sample_time_s > 0)
		o->min_sample_ns = opt->min_sample_time_s * 1e9;
	if (opt->repetitions)
		o->repetitions = opt->repetitions;
	if (opt->pin_cpu)
		o->cpu = opt->cpu;
	o->counters = opt->counters;
	o->kernel = opt->kernel;
	o->backend = backend[opt->backend];
	o->read = read_mode[opt->read];
	o->hugepages = !opt->no_hugepages;
	o->sweep = opt->full_sweep ? PMB_SWEEP_FULL : PMB_SWEEP_SHORT;
	o->seed = opt->seed;
	o->out = opt->out;
	o->format = format[opt->format];
	o->save = opt->save;
	o->columns = opt->columns;
	o->wide = opt->wide;
}

PMB_API int pmb_run_with(const struct pmb_run_options *options, struct pmb_run **out)
{
	struct pmb_run_options none = { .size = sizeof(none) };
	const struct pmb_run_options *opt = options ? options : &none;
	struct pmb_run *run = calloc(1, sizeof(*run));
	struct pmb_options o;
	int rc;

	*out = run;
	if (!run)
		return -ENOMEM;
	rc = check_size(opt, run->error, sizeof(run->error));
	if (!rc)
		rc = check_numbers(opt, run->error, sizeof(run->error));
	if (!rc)
		rc = check_choices(opt, run->error, sizeof(run->error));
	if (rc)
		return rc;
	options_of(opt, &o);
	return pmb__run_quiet(&o, run);
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
	return i < pmb_run_count(run) ? run->res[i].m.inst->name : NULL;
}

PMB_API int pmb_run_status(const struct pmb_run *run, size_t i, const char **reason)
{
	if (i >= pmb_run_count(run))
		return -ERANGE;
	if (reason)
		*reason = run->res[i].m.reason;
	return run->res[i].m.status;
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
	return run && run->ctx && i < (size_t)pmb__context_nwarnings(run->ctx) ? pmb__context_warning(run->ctx, (int)i)
									    : NULL;
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

	if (r->m.status)
		return 0;
	n += (size_t)value_of(c, &r->f.time, "time", "ns", v + n);
	for (int e = 0; e < c->m.plan.nev; e++)
		n += (size_t)value_of(c, &r->f.ev[e], c->m.plan.ev[e].name, event_unit(&c->m.plan.ev[e]), v + n);
	if (!c->m.has_cycles)
		n += (size_t)value_of(c, &r->f.est_cycles, "est-cycles", "cycles", v + n);
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
