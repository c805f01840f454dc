/* results_disasm.h - a --disasm listing read back from a result file (benchmarks[].disasm), private to io/. */
#ifndef PMB_RESULTS_DISASM_H
#define PMB_RESULTS_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "model.h"

/* What reading the listing x builds, in bytes (the listing and its
 * instructions), for the reader's budget before anything is allocated. */
uint64_t pmb__results_disasm_bytes(const json_t *x);

/* The disasm object x of benchmark name (report_json.c's write_disasm)
 * back into *out (free with pmb__disasm_free()): every member the
 * console's --disasm section and the JSON writer read.  *no_nop is set
 * where the file was written before the instructions said which are
 * padding ("nop"): every instruction is then drawn as one that is not.
 * Returns 0, or PMB_EBADJSON with one line in err naming the member
 * ("NAME: disasm.parts[1].instructions[4].exec: ...") and what it holds,
 * or -ENOMEM. */
int pmb__results_read_disasm(const json_t *x, const char *name, struct pmb_disasm **out, bool *no_nop,
			     char *err, size_t errlen);

#endif
