/* results_load.h - a results file read back into the structs the live run analysed: the context, the instances and their samples. */
#ifndef PMB_RESULTS_LOAD_H
#define PMB_RESULTS_LOAD_H

#include <stddef.h>

#include "pmubench.h"
#include "model.h"

/* One definition as far as the analysis and the reports read it (role,
 * study, reference, empty), with the strings it points to. */
struct pmb_loaded_def {
	struct pmb_benchmark_def def;
	char study[200];      /* the study's whole name: def.group is NULL */
	char reference[192];
};

/* A saved run as the live run held it right before pmb__analyze(): the
 * context (its warnings those the file lists, the console view left for
 * the caller), and per benchmark its instance, samples and probes; no
 * figures.  Owns everything it points to. */
struct pmb_loaded_run {
	struct pmb_context *ctx;
	struct pmb_result *res;      /* instance i, repetition r at i*reps + r */
	size_t n, reps;
	struct pmb_instance *inst;   /* what res[].inst points into */
	struct pmb_loaded_def *defs; /* what inst[].def points into */
	size_t ninst;
	char clock_source[32];       /* what ctx->clock.source points to */
	size_t disasm_no_nop;        /* --disasm listings saved before the
	                                file said which instructions are
	                                padding: every one is drawn */
};

/* The lowest results_schema (context) that holds what a run is analysed
 * again from: raw counts with their times, instances, "reanalysis"; the
 * newest read is the one written, PMB_RESULTS_SCHEMA (results_names.h). */
#define PMB_RESULTS_SCHEMA_RERUN 2

/* Read the results file at path (pmubench's JSON, written with
 * --format=json) into *out.  Returns 0, or with one line in err:
 * pmb__results_load()'s errors (cannot read, not a file, malformed JSON);
 * PMB_EBADJSON for a file of another program or an older pmubench whose
 * schema lacks the raw counts or a newer pmubench's (err names its
 * results_schema, its version and the schemas read), a results_schema
 * not an integer (named as what it is),
 * a run a signal stopped, or a member of the wrong type (named); -ENOMEM.
 * On error *out holds nothing to free. */
int pmb__results_load_run(const char *path, struct pmb_loaded_run *out, char *err, size_t errlen);

/* Free what pmb__results_load_run() made; NULL does nothing. */
void pmb__loaded_run_free(struct pmb_loaded_run *r);

#endif
