/* report_json_internal.h - the JSON report's private declarations, shared by report_json*.c only. */
#ifndef PMB_REPORT_JSON_INTERNAL_H
#define PMB_REPORT_JSON_INTERNAL_H

/* The JSON report is report_json.c (the document and one benchmark),
 * report_json_context.c (the "context" object) and report_json_writer.c
 * (the streaming writer below and the keys made from event names). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

#define PMB__JW_MAX_DEPTH 16

/* A streaming writer: it tracks commas and indentation so the callers
 * read as the document they produce.  Start one at depth -1; the first
 * pmb__jw_open() then writes the outermost container without a key. */
struct pmb__jw {
	FILE *f;
	int depth;
	bool first[PMB__JW_MAX_DEPTH];
	bool oneline[PMB__JW_MAX_DEPTH]; /* containers of numbers: one line each */
};

/* Open a container ('{' or '[') as member `key` (NULL inside an array);
 * oneline writes it, and all it holds, on one line.  Close it with its
 * closing brace. */
void pmb__jw_open(struct pmb__jw *w, const char *key, char brace, bool oneline);
void pmb__jw_close(struct pmb__jw *w, char brace);

/* One member each; key NULL inside an array.  Numbers are written in their
 * shortest exact form, NaN and infinities as null. */
void pmb__jw_num(struct pmb__jw *w, const char *key, double v);
void pmb__jw_int(struct pmb__jw *w, const char *key, int64_t v);
void pmb__jw_uint(struct pmb__jw *w, const char *key, uint64_t v);
void pmb__jw_bool(struct pmb__jw *w, const char *key, bool v);
void pmb__jw_null(struct pmb__jw *w, const char *key);
void pmb__jw_str(struct pmb__jw *w, const char *key, const char *s);
/* A string that may be unknown: "" and NULL are written as null. */
void pmb__jw_str_or_null(struct pmb__jw *w, const char *key, const char *s);

/* Key from an event name into out[n]: [A-Za-z0-9_] only, so
 * "branch-misses" becomes "branch_misses" and tools may use it as an
 * identifier. */
void pmb__json_key(char *out, size_t n, const char *name);
/* prefix and suffix joined into buf[n], e.g. "ns" "_per_item". */
void pmb__json_keyf(char *buf, size_t n, const char *prefix, const char *suffix);

/* A harness_overhead object: per pass and per sample, in ns and per event
 * of plan (those ov measured). */
void pmb__json_overhead(struct pmb__jw *w, const struct pmb_event_plan *plan,
			const struct pmb_overhead *ov);

/* The "context" member (report_json_context.c). */
void pmb__json_context(struct pmb__jw *w, const struct pmb_context *c);

/* The "branch_studies" member (report_json_study.c): each study's figures
 * (c->branches); nothing where the run has none. */
void pmb__json_branch_studies(struct pmb__jw *w, const struct pmb_context *c);

/* What `pmubench report` needs to analyse the run again
 * (report_json_rerun.c): the context's "reanalysis" member, and a
 * benchmark's "instance", "raw_counts" and "fixed_cost_probe_counts". */
void pmb__json_rerun_context(struct pmb__jw *w, const struct pmb_context *c);
void pmb__json_rerun_result(struct pmb__jw *w, const struct pmb_context *c, const struct pmb_result *x);

#endif
