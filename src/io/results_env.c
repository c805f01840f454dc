/* results_env.c - how two result files' environments differ (machine, PMU, frequency, governor, load), for compare and ab. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_io.h"

/* A frequency further apart than this, relative, is a different clock.
 * The add-chain estimate itself moves 3.59-3.79 GHz between runs on one
 * loaded 2-core guest (5.5 %), so a closer cut-off named the same machine
 * as two clocks. */
#define MHZ_APART 0.15
/* Load averages further apart than this: the machine was not as busy. */
#define LOAD_APART 0.5

struct lines {
	char (*line)[160];
	size_t n, max;
};

static void text(struct lines *l, const char *what, const char *a, const char *b)
{
	if (a && b && strcmp(a, b) && l->n < l->max)
		snprintf(l->line[l->n++], 160, "%s: \"%.60s\" vs \"%.60s\"", what, a, b);
}

static void number(struct lines *l, const char *what, double a, double b,
		   double apart, bool relative, const char *fmt)
{
	char sa[32], sb[32];
	double d = fabs(a - b);

	if (isnan(a) || isnan(b) || l->n >= l->max)
		return;
	if (!(relative ? d > apart * fmax(fabs(a), fabs(b)) : d > apart))
		return;
	snprintf(sa, sizeof(sa), fmt, a);
	snprintf(sb, sizeof(sb), fmt, b);
	snprintf(l->line[l->n++], 160, "%s: %s vs %s", what, sa, sb);
}

size_t pmb__results_env_diff(const struct pmb_results *a,
			     const struct pmb_results *b, char (*line)[160],
			     size_t max)
{
	const struct pmb_results_env *x = &a->env, *y = &b->env;
	struct lines l = { line, 0, max };

	text(&l, "host", a->host_name, b->host_name);
	text(&l, "CPU", x->cpu, y->cpu);
	text(&l, "PMU", x->pmu, y->pmu);
	if (x->pmu_works >= 0 && y->pmu_works >= 0 && x->pmu_works != y->pmu_works)
		text(&l, "hardware counters", x->pmu_works ? "work" : "absent",
		     y->pmu_works ? "work" : "absent");
	number(&l, "cores", x->ncpus, y->ncpus, 0, false, "%.0f");
	text(&l, "backend", a->backend, b->backend);
	text(&l, "governor", a->governor, b->governor);
	text(&l, "turbo", x->turbo, y->turbo);
	number(&l, "frequency", x->mhz, y->mhz, MHZ_APART, true, "%.0f MHz");
	number(&l, "load average", x->load, y->load, LOAD_APART, false, "%.2f");
	return l.n;
}
