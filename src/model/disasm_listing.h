/* disasm_listing.h - the annotated loop --disasm hands on: its parts, instructions and counts (made by disasm/, counted by meter/, drawn by report/, read back by io/). */
#ifndef PMB_DISASM_LISTING_H
#define PMB_DISASM_LISTING_H

/* The types only: disasm/ (disasm.h) makes a listing from the ELF file
 * and fills it, report/ draws it, and io/ reads a saved one back for
 * `pmubench report`, which must not reach the ELF reader to do so.
 * Addresses are the ELF file's (link-time) addresses. */
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

/* Free d and its instructions; NULL does nothing. */
void pmb__disasm_free(struct pmb_disasm *d);

/* The names a result file gives a part's kind ("loop", "called",
 * "found") and an instruction's role ("choice": PMB_DA_DECISION, "loop":
 * PMB_DA_HARNESS, "body"), written by the JSON report and read back by
 * io/: one table each, so that the two cannot drift apart. */
const char *pmb__da_part_kind_name(const struct pmb_disasm_part *pt);
const char *pmb__da_role_name(unsigned kind);

/* The kind named into pt->callee and pt->found; the role's PMB_DA_* bit
 * (0 for "body").  -1 where no kind or role has that name. */
int pmb__da_part_kind_of(const char *name, struct pmb_disasm_part *pt);
int pmb__da_role_of(const char *name);

#endif
