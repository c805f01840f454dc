/* disasm.h - --disasm: the machine code of a benchmark's measured loop, from its ELF file (capstone, libelf, libdw). */
#ifndef PMB_DISASM_H
#define PMB_DISASM_H

/* The disasm module (disasm.c: the loop and its checks; disasm_elf.c:
 * symbols, code bytes and source lines) is the only user of capstone,
 * libelf and libdw.  Addresses are the ELF file's (link-time) addresses,
 * which is also how callgrind names instructions of a position-independent
 * executable; a running function's is that plus the load bias. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmubench.h"
#include "model.h" /* the listing's types (disasm_listing.h) */

/* The measured loop of benchmark function fn (running at that address),
 * whose C name is fname, from the ELF file it was loaded from: the loops
 * holding a call to pmb__loop_next in fn or, where fn has none, in the
 * function it calls or tail-calls that has; the functions the loops call,
 * one level deep.  role: the benchmark's, for the branchy check.
 * Returns 0 and *out (free with pmb__disasm_free), or a negative errno
 * with pmb__disasm_error() saying what and where (no symbol table: the
 * binary is stripped; no such symbol; no loop; -E2BIG: a loop longer
 * than the window of instructions read around its call). */
int pmb__disasm_benchmark(void (*fn)(struct pmb_state *), const char *fname,
			  enum pmb_role role, struct pmb_disasm **out);

/* The same from a file and a symbol name (tests; the stripped and unknown
 * symbol cases). */
int pmb__disasm_symbol(const char *file, const char *sym, enum pmb_role role,
		       struct pmb_disasm **out);

const char *pmb__disasm_error(void);

/* After counts or shares are filled: which loops ran, the ranking column,
 * and the notes that need counts. */
void pmb__disasm_counted(struct pmb_disasm *d);

/* perf: the benchmark's mispredictions per item as counted (NAN: not
 * counted here), the evidence a claim about its branches is checked
 * against where only samples place the code; the notes made again. */
void pmb__disasm_misp(struct pmb_disasm *d, double per_item);

/* The loop this benchmark ran is the one that called pmb__loop_next from
 * site (a return address of this process; 0: not known). */
void pmb__disasm_site(struct pmb_disasm *d, uintptr_t site);

/* Whether part p is shown and checked: the loop the benchmark runs (all
 * where that is not known) and the functions it calls. */
bool pmb__disasm_part_shown(const struct pmb_disasm *d, int p);

/* Rank the listing by the count of event (the first of --counters: its
 * portable name or a sim alias); NULL or another event: executions. */
void pmb__disasm_rank(struct pmb_disasm *d, const char *event);

/* The instruction at addr (ELF address) of the benchmark's own file, or
 * NULL. */
struct pmb_disasm_insn *pmb__disasm_find(struct pmb_disasm *d, uint64_t addr);

/* The instruction at addr (ELF address) of file (matched whole, or by its
 * last component where the paths differ), or NULL. */
struct pmb_disasm_insn *pmb__disasm_find_in(struct pmb_disasm *d, const char *file, uint64_t addr);

/* The instruction running at ip (a run-time address of this process), or
 * NULL. */
struct pmb_disasm_insn *pmb__disasm_find_ip(struct pmb_disasm *d, uintptr_t ip);

/* Add the function of file holding addr (ELF address; bias its load bias
 * where known) as a part found by its counts.  Returns the part's index,
 * -ENOENT (no symbol holds addr, or no such file), -ENOSPC (the parts are
 * full), or another negative errno. */
int pmb__disasm_add_found(struct pmb_disasm *d, const char *file, uint64_t addr, uint64_t bias);

/* The loaded ELF file holding run-time address ip of this process: its
 * path, ip's ELF address in it, its load bias.  false: none holds it. */
bool pmb__disasm_locate(uintptr_t ip, char *file, size_t n, uint64_t *addr, uint64_t *bias);

/* The name of the function of file holding addr into buf: its symbol, or
 * "" where none.  Returns whether one was found. */
bool pmb__disasm_name_at(const char *file, uint64_t addr, char *buf, size_t n);

/* Record share of the counts as not placed on the listing: name (a
 * function), file, why; the same name and file add up. */
void pmb__disasm_unplaced(struct pmb_disasm *d, const char *name, const char *file, const char *why,
			  double share);

#endif
