/* results_names.h - the names a result file gives enums (event kind and meaning, a benchmark's role), both ways. */
#ifndef PMB_RESULTS_NAMES_H
#define PMB_RESULTS_NAMES_H

#include "event_plan.h"
#include "result.h"
#include "pmubench.h"

/* The JSON writer writes these and `pmubench report` reads them back: one
 * table each, so that the two cannot drift apart. */
/* The results' schema (context.results_schema) this pmubench writes, the
 * newest that `pmubench report` reads: 2 adds what it reads back (raw
 * counts with their times, instances, "reanalysis"); Google Benchmark's
 * json_schema_version stays 1. */
#define PMB_RESULTS_SCHEMA 2

const char *pmb__means_name(enum pmb_event_meaning m);
const char *pmb__kind_name(enum pmb_event_kind k);
const char *pmb__role_name(enum pmb_role r);

/* The value named, or -1 where no value has that name. */
int pmb__means_of(const char *name);
int pmb__kind_of(const char *name);
int pmb__role_of(const char *name);

/* Where a loop's work went (result.h): "in-loop", "hoisted", "removed";
 * NULL for PMB_WORK_NOT_LOOKED, which an absent or unknown name reads as. */
const char *pmb__work_went_name(enum pmb_work_went w);
enum pmb_work_went pmb__work_went_of(const char *name);

#endif
