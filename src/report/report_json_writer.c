/* report_json_writer.c - the JSON report's streaming writer: commas, indentation, escapes, numbers. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_json_internal.h"
#include "base.h"

/* A JSON string: control characters as \u00NN, and a byte that is not
 * part of valid UTF-8 as the text \xNN (JSON has no escape for a byte;
 * text.h writes the same), so the file is valid UTF-8. */
static void jw_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		size_t k = *p >= 0x80 ? pmb__utf8_len((const char *)p) : 1;

		if (k == 0) {
			fprintf(f, "\\x%02x", *p);
			continue;
		}
		if (k > 1) {
			fwrite(p, 1, k, f);
			p += k - 1;
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Separator, indentation and key of the next member. */
static void jw_key(struct pmb__jw *w, const char *key)
{
	int d = w->depth, i;

	if (!w->first[d])
		fputc(',', w->f);
	if (w->oneline[d]) {
		if (!w->first[d])
			fputc(' ', w->f);
	} else {
		fputc('\n', w->f);
		for (i = 0; i <= d; i++)
			fputs("  ", w->f);
	}
	w->first[d] = false;
	if (key) {
		jw_string(w->f, key);
		fputs(": ", w->f);
	}
}

void pmb__jw_open(struct pmb__jw *w, const char *key, char brace, bool oneline)
{
	bool inl = oneline || (w->depth >= 0 && w->oneline[w->depth]);

	if (w->depth >= 0)
		jw_key(w, key);
	fputc(brace, w->f);
	w->depth++;
	w->first[w->depth] = true;
	w->oneline[w->depth] = inl;
}

void pmb__jw_close(struct pmb__jw *w, char brace)
{
	int d = w->depth, i;

	if (!w->first[d] && !w->oneline[d]) {
		fputc('\n', w->f);
		for (i = 0; i < d; i++)
			fputs("  ", w->f);
	}
	fputc(brace, w->f);
	w->depth--;
}

/* Shortest of %.15g..%.17g that reads back as the same double: exact, yet
 * 0.1 stays "0.1".  NaN and infinities are not JSON: null. */
static void jw_double(FILE *f, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

void pmb__jw_num(struct pmb__jw *w, const char *key, double v)
{
	jw_key(w, key);
	jw_double(w->f, v);
}

void pmb__jw_int(struct pmb__jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void pmb__jw_uint(struct pmb__jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void pmb__jw_bool(struct pmb__jw *w, const char *key, bool v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

void pmb__jw_null(struct pmb__jw *w, const char *key)
{
	jw_key(w, key);
	fputs("null", w->f);
}

void pmb__jw_str(struct pmb__jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_string(w->f, s);
}

/* A string that may be unknown: "" and NULL are written as null. */
void pmb__jw_str_or_null(struct pmb__jw *w, const char *key, const char *s)
{
	if (s && s[0])
		pmb__jw_str(w, key, s);
	else
		pmb__jw_null(w, key);
}

/* Key from an event name: [A-Za-z0-9_] only, so "branch-misses" becomes
 * "branch_misses" and tools may use it as an identifier. */
void pmb__json_key(char *out, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

void pmb__json_keyf(char *buf, size_t n, const char *prefix, const char *suffix)
{
	snprintf(buf, n, "%s%s", prefix, suffix);
}

/* The same form for the context's overhead and for a benchmark's own,
 * measured around its cohort. */
void pmb__json_overhead(struct pmb__jw *w, const struct pmb_event_plan *plan,
			const struct pmb_overhead *ov)
{
	char key[80];
	int e;

	pmb__jw_open(w, "harness_overhead", '{', false);
	pmb__jw_num(w, "ns_per_pass", ov->ns_per_pass);
	pmb__jw_num(w, "ns_per_sample", ov->ns_per_sample);
	pmb__jw_uint(w, "samples", ov->nsamples);
	/* For `pmubench report`: what the analysis reads besides. */
	pmb__jw_num(w, "ns_noise_per_pass", ov->ns_noise_per_pass);
	pmb__jw_uint(w, "passes", ov->passes);
	pmb__jw_open(w, "events", '{', false);
	for (e = 0; e < plan->nev; e++) {
		if (!ov->ev_valid[e])
			continue;
		pmb__json_key(key, sizeof(key), plan->ev[e].name);
		pmb__jw_open(w, key, '{', true);
		pmb__jw_num(w, "per_pass", ov->ev_per_pass[e]);
		pmb__jw_num(w, "per_sample", ov->ev_per_sample[e]);
		pmb__jw_num(w, "noise_per_pass", ov->ev_noise_per_pass[e]);
		pmb__jw_int(w, "event", e); /* the plan index */
		pmb__jw_close(w, '}');
	}
	pmb__jw_close(w, '}');
	pmb__jw_close(w, '}');
}
