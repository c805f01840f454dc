/* report.h - output formats: console table, JSON (Google Benchmark schema), CSV. */
#ifndef PMB_REPORT_H
#define PMB_REPORT_H

#include <stdio.h>

#include "model.h"
#include "plot.h"
#include "report_cols.h"
#include "report_fmt.h"
#include "report_merge.h"
#include "report_out.h"
#include "report_study.h"

int pmb__report_text(FILE *f, const struct pmb_context *c,
		    const struct pmb_result *r, size_t n);
/* --disasm, after the console report: each result's annotated loop
 * (report_disasm.c). */
void pmb__report_disasm(FILE *f, const struct pmb_result *r, size_t n);

/* --self-check's report of res[0..n) (the results of instances with a
 * known answer, analysed): one line per check (expected, measured, the
 * analysis's verdict) to out, and what the failures mean.  Returns 0 when
 * every check that could run passed, 1 otherwise. */
int pmb__report_selfcheck(const struct pmb_context *ctx, const struct pmb_result *res, size_t n, FILE *out);

int pmb__report_json(FILE *f, const struct pmb_context *c,
		    const struct pmb_result *r, size_t n);
int pmb__report_csv(FILE *f, const struct pmb_context *c,
		   const struct pmb_result *r, size_t n);

#endif
