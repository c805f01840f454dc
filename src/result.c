/* result.c - small helpers on the shared result structs: warnings, sample arrays. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

void pmb_context_warn(struct pmb_context *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Each warning once: a user must see it, not read it fifty times. */
	for (int i = 0; i < c->nwarnings; i++)
		if (strcmp(c->warnings[i], buf) == 0)
			return;
	if (c->nwarnings == PMB_MAX_WARNINGS)
		return;
	c->warnings[c->nwarnings] = strdup(buf);
	if (c->warnings[c->nwarnings])
		c->nwarnings++;
}

void pmb_context_free(struct pmb_context *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	c->nwarnings = 0;
}

int pmb_result_add_sample(struct pmb_result *r, const struct pmb_sample *s)
{
	if (r->nsamples == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct pmb_sample *p = realloc(r->samples, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->samples = p;
		r->cap = cap;
	}
	r->samples[r->nsamples++] = *s;
	return 0;
}
