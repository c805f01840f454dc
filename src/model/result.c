/* result.c - small helpers on the shared result structs: warnings, sample arrays. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

/* Append text to list[0..*n) unless it or seen[0..nseen) holds it (a user
 * must see a warning, not read it fifty times), and while both together
 * hold fewer than PMB_MAX_WARNINGS. */
static void add_once(char **list, int *n, char *const *seen, int nseen, const char *fmt, va_list ap)
{
	char *buf = NULL;

	/* As long as it is: a warning may list every benchmark it concerns. */
	if (vasprintf(&buf, fmt, ap) < 0)
		return;
	for (int i = 0; i < *n + nseen; i++)
		if (strcmp(i < *n ? list[i] : seen[i - *n], buf) == 0) {
			free(buf);
			return;
		}
	if (*n + nseen >= PMB_MAX_WARNINGS) {
		free(buf);
		return;
	}
	list[(*n)++] = buf;
}

void pmb__warn(struct pmb_warnings *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_once(w->text, &w->n, NULL, 0, fmt, ap);
	va_end(ap);
}

void pmb__warnings_free(struct pmb_warnings *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n; i++)
		free(w->text[i]);
	w->n = 0;
}

void pmb__context_warn(struct pmb_run_figures *out, const struct pmb_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_once(out->warnings.text, &out->warnings.n, c->m.warnings.text, c->m.warnings.n, fmt, ap);
	va_end(ap);
}

void pmb__context_free(struct pmb_context *c)
{
	if (!c)
		return;
	pmb__warnings_free(&c->m.warnings);
	pmb__warnings_free(&c->f.warnings);
	free(c->f.sweeps);
	c->f.sweeps = NULL;
	c->f.nsweeps = 0;
	free(c->f.branches);
	c->f.branches = NULL;
	c->f.nbranches = 0;
	pmb__per_sample_free(&c->f);
}

void pmb__per_sample_free(struct pmb_run_figures *f)
{
	for (size_t i = 0; i < f->nper_sample; i++) {
		struct pmb_per_sample *p = &f->per_sample[i];

		free(p->ns_per_item);
		for (int e = 0; e < PMB_MAX_EVENTS; e++) {
			free(p->ev[e]);
			free(p->probe_ev[e]);
		}
	}
	free(f->per_sample);
	f->per_sample = NULL;
	f->nper_sample = 0;
}

const struct pmb_per_sample *pmb__per_sample_of(const struct pmb_context *c, const struct pmb_result *r,
					       size_t hint)
{
	if (hint < c->f.nper_sample && c->f.per_sample[hint].inst == r->m.inst &&
	    c->f.per_sample[hint].repetition == r->m.repetition)
		return &c->f.per_sample[hint];
	for (size_t i = 0; i < c->f.nper_sample; i++)
		if (c->f.per_sample[i].inst == r->m.inst && c->f.per_sample[i].repetition == r->m.repetition)
			return &c->f.per_sample[i];
	return NULL;
}

/* The meaning a generic name stands for: "cycles" is also the PMU's own
 * CPU_CYCLES, whatever the user called it, and "llc-misses" the
 * LLC_MISSES of --backend=sim, so that a study finds it. */
static enum pmb_event_meaning generic_meaning(const char *name, size_t len)
{
	static const struct { const char *name; enum pmb_event_meaning m; } g[] = {
		{ "cycles", PMB_MEANS_CYCLES }, { "instructions", PMB_MEANS_INSTRUCTIONS },
		{ "branches", PMB_MEANS_BRANCHES }, { "branch-misses", PMB_MEANS_BRANCH_MISSES },
		{ "l1d-misses", PMB_MEANS_L1D_MISSES }, { "llc-misses", PMB_MEANS_LLC_MISSES },
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (strlen(g[i].name) == len && !strncmp(g[i].name, name, len))
			return g[i].m;
	return PMB_MEANS_OTHER;
}

int pmb__context_event(const struct pmb_context *c, const char *names)
{
	const char *p = names;

	while (*p) {
		size_t len = strcspn(p, "|");
		enum pmb_event_meaning m = generic_meaning(p, len);

		for (int e = 0; e < c->m.plan.nev; e++)
			if (c->m.event_group[e] >= 0 && strlen(c->m.plan.ev[e].name) == len &&
			    !strncmp(c->m.plan.ev[e].name, p, len))
				return e;
		for (int e = 0; m != PMB_MEANS_OTHER && e < c->m.plan.nev; e++)
			if (c->m.event_group[e] >= 0 && c->m.plan.ev[e].means == m)
				return e;
		p += len + (p[len] == '|');
	}
	return -1;
}

bool pmb__result_study(const struct pmb_result *r, char *buf, size_t size)
{
	const struct pmb_benchmark_def *d = r->m.inst->def;
	const char *fam = r->m.inst->family, *slash = strrchr(fam, '/');

	buf[0] = 0;
	if (d->role == PMB_ROLE_NONE)
		return false;
	if (d->study)
		snprintf(buf, size, "%s%s%s", d->group ? d->group : "", d->group ? "/" : "", d->study);
	else
		snprintf(buf, size, "%.*s", slash ? (int)(slash - fam) : (int)strlen(fam), fam);
	return true;
}

const struct pmb_result *pmb__result_in_study(const struct pmb_result *r, size_t n, const char *study,
					     enum pmb_role role, const char *args)
{
	char s[200];

	for (size_t i = 0; i < n; i++)
		if (!r[i].m.repetition && r[i].m.inst->def->role == role && !strcmp(r[i].m.inst->args, args) &&
		    pmb__result_study(&r[i], s, sizeof(s)) && !strcmp(s, study))
			return &r[i];
	return NULL;
}

static int append(struct pmb_sample **a, size_t *n, size_t *cap, const struct pmb_sample *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct pmb_sample *p = realloc(*a, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*a = p;
		*cap = c;
	}
	(*a)[(*n)++] = *s;
	return 0;
}

int pmb__result_add_sample(struct pmb_result *r, const struct pmb_sample *s)
{
	return append(&r->m.samples, &r->m.nsamples, &r->m.cap, s);
}

int pmb__result_add_probe(struct pmb_result *r, const struct pmb_sample *s)
{
	return append(&r->m.probes, &r->m.nprobes, &r->m.probes_cap, s);
}

void pmb__result_free_samples(struct pmb_result *r)
{
	free(r->m.samples);
	free(r->m.probes);
	r->m.samples = r->m.probes = NULL;
	r->m.nsamples = r->m.cap = r->m.nprobes = r->m.probes_cap = 0;
}

int pmb__count_scale(const struct pmb_count *c, double *out)
{
	if (c->running == 0) {
		*out = 0;
		return -1;
	}
	if (c->running < c->enabled) {
		*out = (double)c->value * ((double)c->enabled / (double)c->running);
		return 1;
	}
	*out = (double)c->value;
	return 0;
}

bool pmb__sample_event(const struct pmb_sample *s, int e, double *v, int *scaled)
{
	int k;

	if (!(s->mask & (1u << e)))
		return false;
	k = pmb__count_scale(&s->count[e], v);
	if (k < 0)
		return false;
	if (k > 0)
		*scaled = 1;
	return true;
}

void pmb__event_also(struct pmb_event *ev, const char *name)
{
	size_t len = strlen(ev->also), n = strlen(name);

	if (!strcmp(ev->name, name))
		return;
	/* Already listed: a whole item of the ", "-separated list. */
	for (const char *p = ev->also; (p = strstr(p, name)); p += n)
		if ((p == ev->also || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
			return;
	snprintf(ev->also + len, sizeof(ev->also) - len, "%s%s", len ? ", " : "", name);
}
