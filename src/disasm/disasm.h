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

/* What one instruction is, as bits of pmb_disasm_insn.kind. */
#define PMB_DA_COND 1u      /* conditional branch */
#define PMB_DA_CALL 2u      /* call */
#define PMB_DA_JUMP 4u      /* unconditional jump or return */
#define PMB_DA_HARNESS 8u   /* the loop's own: the pass counter, its test
                               and branch, the call to pmb__loop_next */
#define PMB_DA_DECISION 16u /* a conditional branch both of whose ways stay
                               in the loop around it: a data-dependent
                               choice (or an inner loop's test), not the
                               loop's own exit */
#define PMB_DA_NOP 32u

/* The simulated counts each instruction carries under --backend=sim, per
 * item: executions, conditional-branch mispredictions, L1d and last-level
 * read misses (callgrind's Ir, Bcm, D1mr, DLmr). */
enum pmb_da_count { PMB_DA_EXEC, PMB_DA_MISP, PMB_DA_L1D, PMB_DA_LL, PMB_DA_NCOUNT };

extern const char *const pmb__da_count_name[PMB_DA_NCOUNT];

struct pmb_disasm_insn {
	uint64_t addr;
	uint8_t size;
	uint8_t bytes[15];
	char text[144];  /* "jae 0xa30a <pmb_sum_if_branchy+0x4a>" */
	char src[96];    /* "branch_sum_if.c:16", "" where no debug info */
	unsigned kind;   /* PMB_DA_* */
	uint64_t target; /* a direct branch's or call's target; 0 none */
	int part;        /* the part it belongs to */
	double count[PMB_DA_NCOUNT]; /* per item; NAN: not simulated */
	double share;    /* share of the sampled event's samples; NAN none */
};

/* A part of the listing: a measured loop of the benchmark's function, or
 * a function that loop calls (one level deep), disassembled whole; or a
 * function the counts found running in the measured windows that no
 * direct call reaches (through a function pointer, the PLT, a shared
 * library, a plugin), disassembled whole from its own file. */
struct pmb_disasm_part {
	bool callee;     /* false: a measured loop */
	bool found;      /* a callee found by its counts, not by a call */
	char name[128];  /* the function's symbol */
	char file[256];  /* the ELF file it is in */
	uint64_t bias;   /* that file's load bias; 0 not known */
	uint64_t lo, hi; /* loop: its lowest and past its highest address;
	                    callee: the function */
	size_t first, n; /* its instructions: insn[first .. first + n) */
	bool ran;        /* counted: executed during the samples */
};

#define PMB_DA_MAX_PARTS 16
#define PMB_DA_MAX_NOTES 8
#define PMB_DA_NOTE 320 /* one note's bytes: a claim with its evidence */
#define PMB_DA_MAX_UNPLACED 6

/* Code that ran but is not in the listing: a function below the share
 * that earns a part, or one that cannot be disassembled (no symbol, no
 * file). */
struct pmb_disasm_unplaced {
	char name[128];  /* "memcpy", "0x1a2b", "the kernel" */
	char file[256];  /* "" where none */
	char why[64];    /* "below 1 %", "no symbol", "parts full" */
	double share;    /* of the counted instructions (or samples) */
};

/* The annotated loop of one benchmark. */
struct pmb_disasm {
	char file[256];       /* the ELF file read */
	uint64_t bias;        /* its load bias: running address - ELF address */
	char func[128];       /* the benchmark function's symbol */
	char via[160];        /* how the loop was reached: "" or
	                         "tail call to bm_sum_if" */
	char arch[16];        /* "x86-64", "aarch64" */
	struct pmb_disasm_part part[PMB_DA_MAX_PARTS];
	int nparts, nloops;   /* the loops are parts 0 .. nloops-1 */
	int site_part;        /* the loop the benchmark ran, by where it called
	                         pmb__loop_next from; -1 not known */
	struct pmb_disasm_insn *insn;
	size_t n;
	/* What seed 004 warns about, found in the code: one line each. */
	char note[PMB_DA_MAX_NOTES][PMB_DA_NOTE];
	int nnotes;
	int ncut;             /* parts from functions cut at PMB__CFG_MAX_INSNS
	                         instructions (disasm_cfg.h) ... */
	char cut_func[128];   /* ... the first one's name, */
	uint64_t cut_at, cut_size; /* where it was cut, and its bytes */
	uint64_t cut_from, cut_loop; /* a window around its measured loop:
	                         its first address and the loop's call to
	                         pmb__loop_next; 0: its first instructions */
	uint64_t cut_n, cut_total; /* instructions listed, and the function's */
	bool body_empty;      /* no instruction between the loop primitives */
	int outside;          /* computing instructions of the loops' function
	                         outside every cycle of it (disasm.c's
	                         computing[]): where hoisted work sits */
	uint64_t outside_lo, outside_hi; /* the first's and last's address */
	int decisions;        /* PMB_DA_DECISION branches in the loops and
	                         callees */
	enum pmb_role role;
	bool meant_empty;     /* the definition's .empty: no work by design */
	bool counted;         /* count[] holds simulated counts */
	bool sampled;         /* share holds sampled shares */
	char rank_by[48];     /* the event the listing is ranked by */
	int rank_col;         /* its count column, -1: share */
	char sample_event[64];
	uint64_t sample_period;
	uint64_t samples_in, samples_all, samples_lost; /* samples in the
	                         parts, all taken while the samples ran, lost */
	uint64_t samples_kernel; /* of all, delivered in the kernel */
	uint64_t samples_program; /* of all, at an address of code_lo..code_hi */
	uintptr_t code_lo, code_hi; /* run-time addresses of the executable
	                         segment holding the benchmark's code */
	double sampled_count; /* the event's count over the windows sampled */
	/* What the listing accounts for, once counted or sampled: the
	 * instructions per item counted in the measured windows (sim) or the
	 * samples taken (perf), the share of them on listed instructions,
	 * and what it could not place, largest first. */
	double accounted_all;  /* sim: instructions per item; perf: samples */
	double accounted_share; /* NAN: nothing counted */
	double misp_all;       /* sim: mispredictions per item, all code */
	double misp_measured;  /* perf: the benchmark's mispredictions per item,
	                          counted for its whole loop beside the
	                          samples (pmb__disasm_misp); NAN none */
	struct pmb_disasm_unplaced unplaced[PMB_DA_MAX_UNPLACED];
	int nunplaced;
	double unplaced_rest;  /* share of what did not fit unplaced[] */
};

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

/* Free d; NULL does nothing. */
void pmb__disasm_free(struct pmb_disasm *d);

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
